"""A throughput run on a grid with rings: one chunk a tree, no fill, no search when it streams.

Independent facts: SMAlter 8x8 has 64 chiplets of 4 links; its AllGather bound is 256/63 links
(the brief's 4.06), so each of 4 rings moves 512 MiB / 256 = 2 MiB per rank in 63 transfers, and
the paper preset moves 25 B/ns with 20 ns a hop.
"""

from __future__ import annotations

import pytest

from supermesh.sim import get_preset, run_algorithm
from supermesh.topologies import build

MIB = 1 << 20


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
def test_smalter_8x8_runs_its_rings_at_the_bound_without_a_search(collective):
    params = get_preset("paper")
    r = run_algorithm(build("smalter:8x8"), "throughput", collective, 512 * MIB, params)
    phases = 2 if collective == "allreduce" else 1  # AllReduce: ReduceScatter, then AllGather
    per_phase = 63 * (2 * MIB / 25 + 20)
    assert r.time == pytest.approx(phases * per_phase, rel=1e-12)
    assert r.lower_bound == pytest.approx(phases * 63 * 2 * MIB / 25)
    assert r.time <= 1.0003 * r.lower_bound
    assert [t["rule"] for t in r.meta["tried"]] == [
        "rings: 4 arc-disjoint Hamiltonian cycles, one tree per cycle and rank"
    ]
    assert r.meta["chunk_bytes"] == 2 * MIB


def test_where_rings_do_not_stream_they_compete_with_the_trees():
    # 1 MiB on SMAlter 8x8: 63 transfers of 4 KiB, each paying 20 ns, 1.12 of the bound; the
    # search over the trees runs, and the fastest of every try is kept
    params = get_preset("paper")
    r = run_algorithm(build("smalter:8x8"), "throughput", "allgather", MIB, params)
    ring = [t for t in r.meta["tried"] if t["rule"].startswith("rings")]
    assert len(ring) == 1
    assert ring[0]["time"] == pytest.approx(63 * (4096 / 25 + 20))
    assert len(r.meta["tried"]) > 1
    assert r.time == min(t["time"] for t in r.meta["tried"])


def test_odd_grids_run_their_trees():
    r = run_algorithm(build("smbi:5x5"), "throughput", "allgather", 64 * MIB, get_preset())
    assert not any(t["rule"].startswith("rings") for t in r.meta["tried"])


def test_a_reduce_on_rings_waits_for_each_aggregation_and_the_trees_may_hide_it():
    # mesh 4x4 ReduceScatter 4 MiB, booksim: the bound is 4 MiB x 15/32 links of 4096/340 B a
    # cycle = 163,200 cycles; the rings add 15 hops of 11 + 1 cycles and wait for each step's
    # aggregation (163,441), the trees overlap it (163,402): the search runs and keeps them
    params = get_preset("booksim")
    r = run_algorithm(build("mesh:4x4"), "throughput", "reducescatter", 4 * MIB, params)
    assert r.lower_bound == pytest.approx(4 * MIB * 15 / 32 * 340 / 4096)
    ring = next(t["time"] for t in r.meta["tried"] if t["rule"].startswith("rings"))
    assert ring > r.lower_bound + 15 * 12 + 0.0001 * r.lower_bound
    assert r.time < ring
    # at 512 MiB on SMBi 8x8 that wait is 0.002% of the bound: the rings end the search
    s = run_algorithm(build("smbi:8x8"), "throughput", "reducescatter", 512 * MIB, params)
    assert [t["rule"][:5] for t in s.meta["tried"]] == ["rings"]
    assert s.time <= 1.0001 * s.lower_bound
