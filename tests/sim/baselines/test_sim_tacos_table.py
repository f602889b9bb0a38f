"""TACOS schedule tables: the synthesised order in the FIFO steps, verified, MSCCL XML that runs."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from _msccl import check_result, execute, validate

from supermesh.cli import main
from supermesh.export.msccl import MscclLimits, msccl_xml
from supermesh.sim import get_preset
from supermesh.sim.baselines.tacos_program import tacos_schedules
from supermesh.sim.baselines.tacos_table import tacos_table
from supermesh.topologies import build
from supermesh.trees.schedule.model import Schedule
from supermesh.verify import check_deadlock, check_schedule


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:3x3", "smalter:4x4"])
def test_tables_verify_and_run_as_msccl(spec, collective):
    G = build(spec)
    s = tacos_table(G, collective, chunks=2)
    assert s.weighted
    assert check_schedule(G, s) == []
    assert check_deadlock(G, s).deadlock_free
    assert Schedule.from_json(json.loads(json.dumps(s.to_json()))).to_json() == s.to_json()
    algo = validate(msccl_xml(s, limits=MscclLimits(max_steps=256)))
    check_result(algo, execute(algo))


def test_steps_are_the_synthesised_order():
    """Each link's FIFO in the table is the order the links were matched in."""
    G = build("smbi:3x3")
    s = tacos_table(G, "allgather", chunks=2)
    synth = tacos_schedules(G, "allgather", get_preset(), 2)
    fifo: dict = defaultdict(list)
    for t in synth.transfers:
        fifo[t.arc].append(t.chunk)
    table: dict = defaultdict(list)
    for e in sorted(s.entries, key=lambda e: (e.arc, e.step)):
        table[e.arc].append(e.tree_index)
    assert dict(table) == dict(fifo)


def test_reduce_scatter_table_runs_into_every_root():
    G = build("mesh:3x3")
    s = tacos_table(G, "reducescatter", chunks=1)
    assert {e.phase for e in s.entries} == {"rs"}
    into = defaultdict(set)
    for e in s.entries:
        into[e.tree_index].add(e.dst)
        assert e.src != e.root  # a root never sends its own block away
    assert all(s.roots[0][t] in dsts for t, dsts in into.items())


def test_cli_schedule_tacos_then_verify(tmp_path, capsys):
    path = tmp_path / "ag.json"
    for args in (
        [
            "schedule",
            "smbi:4x4",
            "-c",
            "allgather",
            "-a",
            "tacos",
            "--size",
            "1MiB",
            "-o",
            str(path),
        ],
        ["verify", str(path)],
    ):
        try:
            main(args)
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        assert code == 0
    assert "OK" in capsys.readouterr().out
    xml = tmp_path / "ag.xml"
    code = 0
    try:
        main(["schedule", "mesh:3x3", "-c", "allreduce", "-a", "tacos", "--chunks", "2",
              "--max-steps", "256", "-o", str(xml)])  # fmt: skip
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 0
    algo = validate(xml.read_text())
    check_result(algo, execute(algo))
