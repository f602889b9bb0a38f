"""``supermesh trees``: JSON shape, exit codes, methods, options, output file."""

from __future__ import annotations

import json

import pytest

from supermesh.topologies import build
from supermesh.trees.model import TreePacking
from supermesh.verify import check_packing


def test_json_document(run_cli):
    code, out, _ = run_cli("trees", "smbi:4x4", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["topology"] == "smbi:4x4"
    assert doc["direction"] == "out"
    assert doc["status"] == "optimal"
    assert doc["lower_bound"] == 6
    assert [t["root"] for t in doc["sets"][0]["trees"]] == [0, 3, 15, 12]
    assert all(len(a) == 3 for t in doc["sets"][0]["trees"] for a in t["arcs"])
    assert check_packing(build("smbi:4x4"), TreePacking.from_json(doc)) == []


def test_human_table(run_cli):
    code, out, _ = run_cli("trees", "smalter:6x6", "--roots", "sides")
    assert code == 0
    assert "status optimal: max height 9, lower bound 9 (proven)" in out
    assert "lower bound" in out


def test_infeasible_prints_certificate_and_exits_1(run_cli):
    code, out, _ = run_cli("trees", "mesh:4x4", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["status"] == "infeasible"
    assert doc["sets"] == []
    cert = doc["certificate"]
    assert cert["entering_arcs"] < cert["required"]
    code, out, _ = run_cli("trees", "smalter:5x5", "--roots", "sides")
    assert code == 1
    assert "Proof (Edmonds)" in out


def test_k_and_direction(run_cli):
    code, out, _ = run_cli(
        "trees", "smalter:5x5", "--roots", "sides", "--k", "2", "--direction", "in", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["direction"] == "in"
    assert len(doc["sets"][0]["trees"]) == 2
    assert check_packing(build("smalter:5x5"), TreePacking.from_json(doc)) == []


@pytest.mark.parametrize("method", ["construct", "algorithm1"])
def test_methods(run_cli, method):
    code, out, _ = run_cli("trees", "smbi:5x5", "--method", method, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["method"] == method
    assert check_packing(build("smbi:5x5"), TreePacking.from_json(doc)) == []


def test_tto(run_cli):
    code, out, _ = run_cli("trees", "mesh:5x5", "--method", "tto", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["span"] == [v for v in range(25) if v != 20]
    assert [t["height"] for t in doc["sets"][0]["trees"]] == [8, 8, 7]


def test_tto_rejects_roots(run_cli):
    code, _, err = run_cli("trees", "mesh:5x5", "--method", "tto", "--roots", "sides")
    assert code == 2
    assert "error:" in err
    assert "hint:" in err


@pytest.mark.parametrize(
    "args",
    [["--k", "5"], ["--k", "0"], ["--roots", "0,99"], ["--roots", "a,b"], ["--time-limit", "0"]],
)
def test_bad_input_exits_2(run_cli, args):
    code, _, err = run_cli("trees", "smbi:4x4", *args)
    assert code == 2
    assert err.startswith("error:")


def test_output_file(run_cli, tmp_path):
    path = tmp_path / "t.json"
    code, out, _ = run_cli("trees", "smbi:3x3", "-o", str(path))
    assert code == 0
    assert "status optimal" in out
    doc = json.loads(path.read_text())
    assert doc["format"] == "supermesh-trees"
    assert len(doc["sets"][0]["trees"]) == 4


def test_infeasible_does_not_write_the_file(run_cli, tmp_path):
    path = tmp_path / "t.json"
    path.write_text("keep")
    code, _, _ = run_cli("trees", "mesh:3x3", "-o", str(path))
    assert code == 1
    assert path.read_text() == "keep"


def test_max_height(run_cli):
    code, out, _ = run_cli(
        "trees", "smalter:6x6", "--roots", "sides", "--max-height", "8", "--json"
    )
    assert code == 1
    assert json.loads(out)["certificate"]["solver"] == "cpsat"


def test_draw_writes_a_picture_per_request_and_refuses_a_bad_extension(run_cli, tmp_path):
    png = tmp_path / "trees.png"
    code, _, _ = run_cli("trees", "smalter:4x4", "--draw", str(png))
    assert code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sets = tmp_path / "sets.svg"
    code, _, _ = run_cli("trees", "smbi:4x4", "--root-sets", "--draw", str(sets))
    assert code == 0
    assert "<svg" in sets.read_text()
    bad = tmp_path / "trees.gif"
    code, _, err = run_cli("trees", "smbi:4x4", "--draw", str(bad))
    assert code == 2
    assert err.startswith("error:")
    assert not bad.exists()
