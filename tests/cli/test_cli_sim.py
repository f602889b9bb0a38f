"""``supermesh sim`` and ``supermesh sweep``: JSON, tables, CSV, bad input."""

from __future__ import annotations

import csv
import json

import pytest
from _sim_trees import corner_trees

from supermesh.trees.model import TreePacking, TreeSet


@pytest.fixture
def tree_file(tmp_path):
    packing = TreePacking(
        topology="smbi:4x4",
        direction="out",
        status="optimal",
        sets=(TreeSet(tuple(corner_trees(4)), 6),),
        lower_bound=6,
        objective=6,
        method="closed-form",
    )
    path = tmp_path / "trees.json"
    path.write_text(json.dumps(packing.to_json()))
    return str(path)


def test_sim_json_with_tree_file(run_cli, tree_file):
    code, out, err = run_cli("sim", "smbi:4x4", "--trees", tree_file, "--size", "4MiB", "--json")
    assert code == 0, err
    doc = json.loads(out)
    for key in (
        "cycles",
        "bytes",
        "algbw_bytes_per_cycle",
        "lower_bound",
        "ratio_to_bound",
        "max_link_utilization",
        "energy_joules",
    ):
        assert key in doc
    assert doc["bytes"] == 4 << 20
    assert abs(doc["cycles"] - 187_865) / 187_865 < 1e-3
    assert doc["ratio_to_bound"] >= 1
    assert 0 < doc["max_link_utilization"] <= 1
    assert len(doc["links"]) == 72
    assert len(doc["timeseries"]["t"]) == len(doc["timeseries"]["utilization"]) > 0


def test_sim_paper_preset_reports_seconds(run_cli, tree_file):
    code, out, _ = run_cli(
        "sim", "smbi:4x4", "--trees", tree_file, "--preset", "paper", "--json", "--no-links"
    )
    assert code == 0
    doc = json.loads(out)
    assert "seconds" in doc
    assert "cycles" not in doc
    # 4 MiB over 4 trees, 12288 B chunks at 25 GB/s + 20 ns a hop: (86 + 5) x 511.52 ns per phase
    assert doc["seconds"] == pytest.approx(2 * 91 * 511.52e-9)
    assert "algbw_bytes_per_second" in doc
    assert "links" not in doc


def test_sim_overrides_and_table(run_cli, tree_file):
    code, out, _ = run_cli("sim", "smbi:4x4", "--trees", tree_file, "--set", "drain=0")
    assert code == 0
    assert "187,840.5 cycles" in out  # the 19-cycle drain removed
    assert "time / bound" in out


def test_sim_baseline_needs_no_trees(run_cli):
    code, out, _ = run_cli("sim", "mesh:4x4", "-a", "bidir-ring", "-c", "allgather", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["algorithm"] == "bidir-ring"
    assert doc["collective"] == "allgather"
    assert doc["ratio_to_bound"] >= 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "4XB"], "unknown unit"),
        (["--size", "0"], "at least 1 byte"),
        (["--set", "nonsense=3"], "unknown simulation parameter"),
        (["--set", "drain"], "NAME=VALUE"),
        (["--set", "flit_time=-1"], "flit_time"),
        (["-a", "ring", "--trees", "x.json"], "--trees goes with a tree algorithm"),
    ],
)
def test_sim_bad_input(run_cli, args, message):
    code, _, err = run_cli("sim", "mesh:4x4", *args)
    assert code == 2
    assert message in err
    assert "hint:" in err or "error:" in err


def test_sim_tree_file_for_another_topology(run_cli, tree_file):
    code, _, err = run_cli("sim", "smbi:5x5", "--trees", tree_file)
    assert code == 2
    assert "holds trees for smbi:4x4" in err


def test_sweep_csv_and_json(run_cli, tmp_path):
    out_csv = tmp_path / "sweep.csv"
    code, out, err = run_cli(
        "sweep",
        "mesh:3x3",
        "smbi:3x3",
        "--sizes",
        "1MiB:2MiB",
        "-a",
        "ring,multitree",
        "-c",
        "allreduce,allgather",
        "-o",
        str(out_csv),
    )
    assert code == 0, err
    with out_csv.open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * 2 * 2
    assert {r["algorithm"] for r in rows} == {"ring", "multitree"}
    assert all(float(r["ratio_to_bound"]) >= 1 for r in rows)
    code, out, _ = run_cli("sweep", "mesh:3x3", "--per-chiplet", "375KiB", "-a", "ring", "--json")
    assert code == 0
    doc = json.loads(out)
    assert [r["bytes"] for r in doc["rows"]] == [9 * 375 * 1024]
    assert doc["rows"][0]["error"] is None


def test_sweep_reports_a_failing_case_in_its_row(run_cli):
    code, out, _ = run_cli(
        "sweep", "mesh:3x3", "--sizes", "1MiB", "-a", "ring", "-c", "broadcast", "--json"
    )
    assert code == 1  # the case failed: a finding, its error in its row
    assert "do not implement" in json.loads(out)["rows"][0]["error"]


def test_sweep_table(run_cli):
    code, out, _ = run_cli("sweep", "mesh:3x3", "--sizes", "1MiB", "-a", "direct")
    assert code == 0
    assert "direct" in out
    assert "1MiB" in out
