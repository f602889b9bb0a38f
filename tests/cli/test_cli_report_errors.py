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
