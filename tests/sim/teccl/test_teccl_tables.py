"""TE-CCL and AllToAll schedule tables: verify accepts them, notices breakage, MSCCL runs them."""

from __future__ import annotations

import dataclasses

import pytest
from _msccl import execute, validate

from supermesh.export.msccl import msccl_xml
from supermesh.sim.baselines.direct import direct_alltoall_schedule
from supermesh.sim.teccl.collective import teccl_solutions
from supermesh.sim.teccl.tables import teccl_schedule
from supermesh.topologies import build
from supermesh.trees.schedule.model import Schedule
from supermesh.verify import check_document, check_schedule

CHUNK = 12288


def table(spec: str, collective: str, nbytes: int = 1 << 20) -> Schedule:
    G = build(spec)
    sols = teccl_solutions(G, collective, nbytes, CHUNK, time_limit=10)
    return teccl_schedule(G, collective, sols, nbytes=nbytes)


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce", "alltoall"])
@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:3x3", "smalter:3x3"])
def test_verify_accepts_teccl_tables(spec, collective):
    t = table(spec, collective)
    report = check_document(t.to_json())
    assert report.ok, [f.message for f in report.findings]
    assert "deadlock-free" in report.summary
    assert Schedule.from_json(t.to_json()) == t


def test_verify_accepts_the_direct_alltoall():
    G = build("smbi:4x4")
    t = direct_alltoall_schedule(G, chunks=3)
    assert check_schedule(G, t) == []


def _codes(G, t):
    return {f.code for f in check_schedule(G, t)}


def test_verify_notices_broken_routes():
    G = build("mesh:3x3")
    t = table("mesh:3x3", "alltoall")
    hop2 = next(e for e in t.entries if e.depth == 2)
    first = next(e for e in t.entries if e.tree_index == hop2.tree_index and e.depth == 1)

    def with_entry(e):
        return dataclasses.replace(t, entries=tuple(e if x.id == e.id else x for x in t.entries))

    # a hop that waits for nothing: the relay would forward what it has not received
    assert "route-deps" in _codes(G, with_entry(dataclasses.replace(hop2, deps=())))
    # a hop moved onto another link: the path is broken
    other = next(a for a in G.edges(keys=True) if a[0] != first.dst and a != hop2.arc)
    moved = dataclasses.replace(hop2, src=other[0], dst=other[1], key=other[2])
    assert "route-broken" in _codes(G, with_entry(moved))
    # a route that carries its pair's chunks twice and another pair's none
    shifted = [
        dataclasses.replace(
            e, chunk_first=e.chunk_first + t.chunks, chunk_last=e.chunk_last + t.chunks
        )
        if e.tree_index == hop2.tree_index
        else e
        for e in t.entries
    ]
    assert "block-coverage" in _codes(G, dataclasses.replace(t, entries=tuple(shifted)))
    # two hops of one link swapped against their data order: the link would wait forever
    link = [e for e in t.entries if e.arc == hop2.arc]
    if len(link) > 1:
        a = hop2
        b = next(e for e in t.entries if e.arc == first.arc and e.id != first.id)
        swapped = {a.id: dataclasses.replace(a, step=0), b.id: b}
        others = [
            dataclasses.replace(e, step=e.step + 1) if e.arc == a.arc and e.id != a.id else e
            for e in t.entries
        ]
        assert _codes(
            G, dataclasses.replace(t, entries=tuple(swapped.get(e.id, e) for e in others))
        )


@pytest.mark.parametrize(
    ("spec", "make"),
    [
        ("mesh:3x3", lambda G: direct_alltoall_schedule(G, chunks=2)),
        ("smbi:3x3", lambda G: table("smbi:3x3", "alltoall", 9 * 9 * CHUNK * 2)),
    ],
)
def test_msccl_alltoall_delivers_every_block(spec, make):
    G = build(spec)
    t = make(G)
    algo = validate(msccl_xml(t, chunks_per_loop=2))
    assert algo.get("coll") == "alltoall"
    assert algo.get("inplace") == "0"
    n = int(algo.get("ngpus"))
    S = int(algo.get("nchunksperloop")) // n
    buf = execute(algo)
    for it in range(2):
        for j in range(n):
            for i in range(n):
                for c in range(S):
                    assert buf[(j, it, "o", i * S + c)] == {(i, it, j * S + c)}


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
def test_msccl_teccl_tree_tables_compute_the_collective(collective):
    from _msccl import check_result

    t = table("smbi:3x3", collective, 9 * 4 * CHUNK)
    algo = validate(msccl_xml(t))
    check_result(algo, execute(algo))


def test_route_tables_round_trip_and_name_their_destinations():
    from supermesh.errors import InputFileError
    from supermesh.export.table import schedule_csv

    G = build("mesh:2x2")
    t = direct_alltoall_schedule(G, chunks=2)
    doc = t.to_json()
    assert Schedule.from_json(doc) == t
    rows = schedule_csv(t).splitlines()
    assert rows[0].endswith(",share,dest")
    # the first route of chiplet 0 goes to chiplet 1 (ranks in order, itself skipped)
    assert rows[1].split(",")[-1] == "1"
    with pytest.raises(InputFileError, match="dests"):
        Schedule.from_json({**doc, "collective": "allgather"})
    no_dests = {k: v for k, v in doc.items() if k != "dests"}
    with pytest.raises(InputFileError, match="dests"):
        Schedule.from_json(no_dests)
