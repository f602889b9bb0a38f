"""Long runs are cheap where the times repeat and refused with the figure where they must be kept.

The periodic shortcut is held to the event oracle (:func:`simulate_events`, an independent
simulator) on random tree collectives, with only samples kept; a 1 TiB pipelined AllReduce is
held to the affine law of a full pipeline measured on the level path at two small sizes.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from test_sim_engine import random_tree_cases

import supermesh.sim.engine.timing as timing
from supermesh.errors import ResourceError
from supermesh.sim import get_preset, run_algorithm, simulate_events, tree_program
from supermesh.sim.engine import run_program
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies import build

BOOKSIM = get_preset("booksim")


@given(random_tree_cases())
@settings(max_examples=60)
def test_periodic_shortcut_equals_the_oracle(case) -> None:
    G, sets, collective, nbytes = case
    program = tree_program(G, sets, collective, nbytes * 8, BOOKSIM)
    before = timing.PERIODIC_FROM
    timing.PERIODIC_FROM = 0  # every tree group tries the shortcut
    try:
        fast = run_program(program)
    finally:
        timing.PERIODIC_FROM = before
    slow = simulate_events(program)
    assert fast.end == pytest.approx(slow.end, abs=1e-6)
    for p, phase in enumerate(program.phases):
        assert fast.phases[p].done == pytest.approx(slow.phase_done[p], abs=1e-6)
        for b in range(phase.size):
            starts = np.asarray(slow.start[p][b])
            if not len(starts):
                continue
            assert fast.phases[p].first_start[b] == pytest.approx(starts[0], abs=1e-6)
            sampled, _ = fast.phases[p].samples[b]
            stride = max(1, len(starts) // 64)
            np.testing.assert_allclose(sampled, starts[::stride], atol=1e-6)


@pytest.mark.parametrize("spec", ["smbi:4x4", "cmesh:4x4"])
@pytest.mark.parametrize(
    ("chunk_bytes", "total"),
    [(BOOKSIM.chunk_bytes, 1 << 40), (1, 1 << 30)],  # 1 TiB; --size 1GiB --set chunk_bytes=1
    ids=["1TiB", "1GiB-in-bytes"],
)
def test_a_long_allreduce_follows_the_full_pipeline_law(
    spec: str, chunk_bytes: int, total: int
) -> None:
    # once every link streams, each chunk adds the same time: T is affine in the chunk count.
    # cmesh's router links are 40x slower than its chiplet ports, so its blocks step at
    # different rates: the repetition is one step per block, not one for all
    G = build(spec)
    params = get_preset("booksim", chunk_bytes=chunk_bytes)
    per_chunk = 4 * chunk_bytes  # a whole chunk for each of SMBi's 4 trees, 4 for cmesh's 1
    c1, c2, big = 1000, 3000, total // per_chunk
    t1, t2 = (
        run_algorithm(G, "pipeline", "allreduce", c * per_chunk, params).time for c in (c1, c2)
    )
    tracemalloc.start()
    r = run_algorithm(G, "pipeline", "allreduce", big * per_chunk, params)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.time == pytest.approx(t1 + (big - c1) * (t2 - t1) / (c2 - c1), rel=1e-12)
    assert peak < 100 << 20  # the fill and the samples only


def test_a_tebibyte_throughput_allgather_runs_in_little_memory() -> None:
    tracemalloc.start()
    r = run_algorithm(build("smbi:4x4"), "throughput", "allgather", 1 << 40, BOOKSIM)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.time >= r.lower_bound
    assert peak < 500 << 20


def test_kept_times_above_the_cap_are_refused_with_the_figure() -> None:
    # another group waits for every chunk of the first: its 400 M times are kept, not sampled
    idx: dict = {}
    pb = PhaseBuilder(idx)
    n = 200_000_000
    a = pb.add((0, 1, 0), count=n, duration=1.0, payload=1)
    b = pb.add((1, 2, 0), count=n, duration=2.0, payload=1, deps=[a])
    pb.add((1, 2, 0), count=n, duration=1.0, payload=1, deps=[b], group=1)
    program = Program(list(idx), [pb.build(start=0.0)], release=0.0)
    with pytest.raises(
        ResourceError, match=r"400,000,000 transfers needs about [0-9,.]+ GiB of memory, above"
    ):
        run_program(program)


def test_the_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "1MiB")
    with pytest.raises(ResourceError, match=r"above the 1\.0 MiB cap"):
        run_algorithm(build("cmesh:4x4"), "pipeline", "allreduce", 64 << 20, BOOKSIM)


def test_transfers_one_by_one_are_refused_above_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    idx: dict = {}
    pb = PhaseBuilder(idx)
    a = pb.add((0, 1, 0), count=3_000_000, duration=1.0, payload=1)
    pb.add((1, 2, 0), count=3_000_000, duration=1.0, payload=1, deps=[a], group=1)
    program = Program(list(idx), [pb.build(start=0.0)], release=0.0)
    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "512MiB")  # 3 M transfers x 400 B is 1.1 GiB
    with pytest.raises(ResourceError, match="solving 3,000,000 transfers one by one"):
        run_program(program)
