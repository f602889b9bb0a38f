"""``supermesh bound``: JSON shape, exit codes, human proof text, root names."""

from __future__ import annotations

import json

import pytest

from supermesh.topologies import build


def entering(spec: str, members) -> int:
    inside = set(members)
    return sum(1 for u, v in build(spec).edges() if v in inside and u not in inside)


def test_corners_feasible_json(run_cli):
    code, out, _ = run_cli("bound", "smbi:4x4", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["roots"] == [0, 3, 15, 12]
    assert doc["feasible"] is True
    assert doc["exact"] is True
    assert doc["certificate"] is None


def test_infeasible_exits_one_with_certificate(run_cli):
    code, out, _ = run_cli("bound", "mesh:5x5", "--roots", "0,4,24", "--json")
    assert code == 1  # a negative answer, as in `trees` and `design`
    doc = json.loads(out)
    assert doc["feasible"] is False
    cert = doc["certificate"]
    assert set(cert) == {"set", "entering_arcs", "required"}
    assert cert == {"set": [20], "entering_arcs": 2, "required": 3}
    assert entering("mesh:5x5", cert["set"]) == cert["entering_arcs"]


def test_free_roots_json(run_cli):
    code, out, _ = run_cli("bound", "smbi:3x3", "--roots", "free", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["max_trees"] == 5
    assert len(doc["roots"]) == 5
    cert = doc["certificate"]
    t = len(cert["sets"])
    assert cert["required"] == 6 * (t - 1)
    assert cert["entering_arcs"] == [entering("smbi:3x3", s) for s in cert["sets"]]
    assert sum(cert["entering_arcs"]) < cert["required"]


def test_repeated_roots_and_in_direction(run_cli):
    code, out, _ = run_cli("bound", "smbi:4x4", "--roots", "5,5,5,5", "--direction", "in", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["roots"] == [5, 5, 5, 5]
    assert doc["direction"] == "in"
    assert doc["feasible"] is True


def test_human_output_states_answer_and_proof(run_cli):
    code, out, _ = run_cli("bound", "mesh:4x4")
    assert code == 1
    assert "do NOT fit" in out
    assert "{0}" in out
    assert "entered by 2 arcs" in out
    code, out, _ = run_cli("bound", "smalter:5x5", "--roots", "free")
    assert code == 0
    assert "At most 4 trees" in out
    assert "Frank" in out


def test_sides_on_odd_smalter_are_ruled_out(run_cli):
    code, out, _ = run_cli("bound", "smalter:5x5", "--roots", "sides", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["roots"] == [2, 14, 22, 10]
    assert doc["feasible"] is False


def test_steiner_span_is_marked_inexact(run_cli):
    code, out, _ = run_cli("bound", "mesh:3x3,memory=south", "--roots", "free", "--json")
    assert code == 0
    assert json.loads(out)["exact"] is False
    code, out, _ = run_cli("bound", "mesh:3x3,memory=south", "--roots", "free")
    assert "Steiner" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["smbi:4x4", "--roots", "0,16"], "16"),
        (["smbi:4x4", "--roots", "0,x"], "'x'"),
        (["smbi:4x4", "--roots", "0,3", "--distinct"], "--distinct"),
        (["nosuch:4x4"], "nosuch"),
    ],
)
def test_bad_input_exits_two(run_cli, args, needle):
    code, out, err = run_cli("bound", *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error:")
    assert needle in err
    assert "hint:" in err
