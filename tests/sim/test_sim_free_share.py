"""A throughput AllReduce with free root shares beats every equal-part ReduceScatter + AllGather."""

from __future__ import annotations

import pytest

from supermesh.sim import get_preset, run_algorithm
from supermesh.topologies import build

MIB = 1 << 20


def test_mesh_allreduce_beats_the_equal_part_bound() -> None:
    G = build("mesh:4x4")
    params = get_preset("paper")
    M = 64 * MIB
    bw = params.link_bandwidth()  # bytes per time unit of one link
    r = run_algorithm(G, "throughput", "allreduce", M, params)
    # hand counts: equal parts move each phase at 32/15 links at most (a corner: 2 links in, 15
    # shards to get); free parts at 8/3 (the four corners, Frank's subpartition)
    equal_parts_best = 2 * M / (32 / 15 * bw)
    free_parts_best = 2 * M / (8 / 3 * bw)
    assert free_parts_best <= r.time < 0.85 * equal_parts_best
    assert r.lower_bound == pytest.approx(free_parts_best, rel=1e-9)
    assert r.bound.certificate["algbw_links"] == "4/3"
    assert any(t.get("rule", "").startswith("free-roots") for t in r.meta["tried"])


def test_smbi_8x8_allreduce_keeps_equal_parts() -> None:
    # 64 ranks: above the free-share grid size, the bound is ReduceScatter then AllGather
    from supermesh.sim.algorithms import throughput_bound_for

    assert throughput_bound_for(build("smbi:8x8"), "allreduce").certificate["algbw_links"] == (
        "128/63"
    )
