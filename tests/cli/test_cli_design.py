"""``supermesh design``: JSON shape, exit codes, written files, radix vs links, proof text."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from supermesh.topologies import build
from supermesh.topologies.metrics import arc_connectivity


def test_even_mesh_json_and_files(run_cli, tmp_path):
    out_json = tmp_path / "d.json"
    png = tmp_path / "d.png"
    code, out, _ = run_cli(
        "design", "mesh:4x4", "--target-trees", "4", "--json", "-o", str(out_json), "--draw",
        str(png),
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["status"] == "optimal"
    assert doc["links_added"] == 8
    assert doc["arcs_added"] == 16
    assert doc["cost"] == doc["lower_bound"] == 8
    assert doc["gap"] == 0
    assert doc["written"] == [str(out_json), str(png)]
    assert png.stat().st_size > 0
    # the written topology is accepted as a spec and carries the added links
    T = build(str(out_json))
    assert T.graph["spec"] == "mesh:4x4+design"
    added = Counter(c for *_, c in T.edges(data="cls"))["added"]
    assert added == 16
    assert arc_connectivity(T) == 4
    assert {tuple(p) for p in doc["additions"]} == {
        (min(u, v), max(u, v)) for u, v, c in T.edges(data="cls") if c == "added"
    }


def test_odd_mesh_infeasible_exit_1_writes_nothing(run_cli, tmp_path):
    target = tmp_path / "d.json"
    code, out, _ = run_cli("design", "mesh:5x5", "--target-trees", "4", "-o", str(target))
    assert code == 1
    assert "Infeasible" in out
    assert "alternating sum of the needs must be 0, but it is 4" in out
    assert not target.exists()


def test_radix_is_links_plus_one(run_cli):
    code, out, _ = run_cli(
        "design", "mesh:5x5", "--target-trees", "4", "--max-radix", "6", "--json"
    )
    assert code == 0
    by_radix = json.loads(out)
    code, out, _ = run_cli(
        "design", "mesh:5x5", "--target-trees", "4", "--max-links", "5", "--json"
    )
    by_links = json.loads(out)
    assert by_radix["cost"] == by_links["cost"] == 12
    assert by_radix["ports"]["budget"] == 5
    assert by_radix["ports"]["router_radix"] == 6
    assert len(by_radix["ports"]["above_base"]) == 4


def test_human_output(run_cli):
    code, out, _ = run_cli("design", "mesh:6x6", "--target-trees", "4")
    assert code == 0
    assert "Optimal: 12 links added (24 arcs), cost 12." in out
    assert "Counting proves the minimum" in out


def test_root_sets_and_costs(run_cli):
    code, out, _ = run_cli(
        "design", "mesh:4x4", "--target-trees", "4", "--roots", "corners", "--roots", "1,7,14,8",
        "--add", "any-parallel", "--cost", "any-parallel=2", "--json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["target"]["roots"] == [[0, 3, 15, 12], [1, 7, 14, 8]]
    assert doc["cost"] == 2 * doc["links_added"]


@pytest.mark.parametrize(
    "args",
    [
        ["mesh:4x4", "--target-trees", "4", "--max-links", "4", "--max-radix", "5"],
        ["mesh:4x4", "--target-trees", "4", "--add", "nope"],
        ["mesh:4x4", "--target-trees", "4", "--cost", "diagonal"],
        ["mesh:4x4", "--target-trees", "4", "--roots", "0,1"],
        ["mesh:4x4", "--target-trees", "4", "--max-height", "5"],
        ["mesh:4x4", "--target-trees", "4", "--draw", "x.gif"],
        ["hexamesh:r1", "--target-trees", "3", "--add", "diagonal"],
    ],
)
def test_bad_input_exit_2(run_cli, args):
    code, out, err = run_cli("design", *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
