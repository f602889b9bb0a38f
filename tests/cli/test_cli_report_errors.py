"""``supermesh report``: real numbers in every cell, or exit 1 with the error on stderr."""

from __future__ import annotations

import json

import pytest

import supermesh.report as report_module
from supermesh.errors import SupermeshError


def test_one_way_router_and_mesh_report_numbers(run_cli) -> None:
    code, out, err = run_cli(
        "report", "smuni:4x4", "cmesh:4x4", "mesh:4x4", "--no-design", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert report_module.report_errors(doc) == []
    for entry in doc["topologies"]:
        for collective in report_module.COLLECTIVES:
            assert entry["sim"][collective]["cycles"] > 0
    # TACOS's AllReduce does not apply to one-way arcs: marked, not an error
    assert "skipped" in doc["topologies"][0]["sim"]["tacos"]["allreduce"]
    assert doc["speedups_vs_tacos"]["smuni:4x4"]["allreduce"] is None


def test_a_failed_part_exits_1_with_its_error(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(G, time_limit):
        raise SupermeshError("the design search broke", hint="try again")

    monkeypatch.setattr(report_module, "_design_part", broken)
    code, out, err = run_cli("report", "mesh:3x3", "--no-sim")
    assert code == 1
    assert "Topology" in out  # the rest of the report is printed
    assert err.splitlines() == [
        "error: mesh:3x3 (design_gap): the design search broke",
        "hint: try again",
    ]


def test_one_refused_collective_keeps_the_others(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # as at 64x64, where the AllGather and ReduceScatter programs are refused for memory but the
    # AllReduce trees simulate in a second
    import supermesh.sim as sim_module

    real = sim_module.run_algorithm

    def refuse_reducescatter(G, algorithm, collective, *args, **kwargs):
        if collective == "reducescatter" and algorithm != "tacos":
            raise SupermeshError("the reducescatter is too large", hint="simulate a smaller grid")
        return real(G, algorithm, collective, *args, **kwargs)

    monkeypatch.setattr(sim_module, "run_algorithm", refuse_reducescatter)
    code, out, err = run_cli("report", "smbi:3x3", "mesh:3x3", "--no-design", "--json")
    assert code == 1
    doc = json.loads(out)
    for entry in doc["topologies"]:
        assert entry["sim"]["reducescatter"]["error"] == "the reducescatter is too large"
        assert entry["sim"]["allreduce"]["cycles"] > 0
        assert entry["sim"]["allgather"]["cycles"] > 0
    assert doc["speedups"]["smbi:3x3"]["reducescatter"] is None
    assert err.splitlines() == [
        "error: smbi:3x3 (sim reducescatter): the reducescatter is too large",
        "hint: simulate a smaller grid",
        "error: mesh:3x3 (sim reducescatter): the reducescatter is too large",
        "hint: simulate a smaller grid",
    ]
    code, out, _ = run_cli("report", "smbi:3x3", "mesh:3x3", "--no-design")
    assert code == 1
    assert "error: the reducescatter" in out  # (the table wraps the rest)
    assert "cycles" in out  # the other collectives' rows have their numbers
