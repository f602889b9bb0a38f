"""The engine's periodic path (equal chunk counts on shared links) against the event oracle.

Throughput packings put many trees on every link with the same chunk count; the engine computes
those groups chunk by chunk until the times repeat and extends the repetition. These tests hold
it to the event simulation transfer by transfer, with and without a repetition being found.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.sim import PhaseBuilder, Program, get_preset, run_program, simulate_events
from supermesh.sim.engine import sequential
from supermesh.sim.packing import packing_program
from supermesh.topologies import build
from supermesh.trees.throughput.pack import pack_throughput


def assert_same(program: Program) -> None:
    fast = run_program(program, keep_starts=True)
    slow = simulate_events(program)
    assert fast.end == pytest.approx(slow.end, abs=1e-6)
    for p, phase in enumerate(program.phases):
        for b in range(phase.size):
            np.testing.assert_allclose(
                fast.phases[p].starts[b], slow.start[p][b], rtol=1e-12, atol=1e-6
            )


@st.composite
def shared_link_programs(draw):
    """One group of blocks with chunk counts alike, several blocks per arc, acyclic deps."""
    n_arcs = draw(st.integers(1, 4))
    count = draw(st.integers(2, 60))
    n_blocks = draw(st.integers(2, 12))
    # a root's block split unevenly: some blocks carry a chunk or two more; dependencies point
    # to earlier blocks, which carry at least as many chunks (as within one tree)
    extra = sorted(
        draw(st.lists(st.integers(0, 2), min_size=n_blocks, max_size=n_blocks)), reverse=True
    )
    arc_index: dict = {}
    pb = PhaseBuilder(arc_index)
    for b in range(n_blocks):
        a = draw(st.integers(0, n_arcs - 1))
        deps = draw(st.lists(st.integers(0, b - 1), max_size=2, unique=True)) if b else []
        pb.add(
            (a, a + 1, 0),
            count=count + extra[b],
            duration=draw(st.sampled_from([1.0, 2.5, 7.0, 1020.0])),
            payload=1,
            deps=deps,
            delay=draw(st.sampled_from([0.0, 0.5, 4.0])),
        )
    phase = pb.build(start=draw(st.sampled_from([0.0, 3.0])), final_delay=0.0)
    return Program(list(arc_index), [phase], release=draw(st.sampled_from([0.0, 1.0])), drain=0.0)


@given(shared_link_programs())
@settings(deadline=None)
def test_periodic_path_equals_oracle(program):
    assert_same(program)


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
@pytest.mark.parametrize(("spec", "preset"), [("mesh:3x3", "paper"), ("smbi:4x4", "booksim")])
def test_throughput_packing_program_equals_oracle(spec, preset, collective, monkeypatch):
    G = build(spec)
    n = G.number_of_nodes()
    direction = "in" if collective == "reducescatter" else "out"
    packing = pack_throughput(G, direction=direction, parts=4)
    found: list[int] = []
    steady = sequential._steady

    def spy(finishes, starts, c, waits, max_period=4):
        q = steady(finishes, starts, c, waits, max_period)
        found.extend([q] if q else [])
        return q

    monkeypatch.setattr(sequential, "_steady", spy)
    # 40 chunks per tree: long enough for a repetition to be found and extended
    assert_same(packing_program(G, packing, collective, n * 4 * 40 * 12288, get_preset(preset)))
    if spec == "smbi:4x4":  # every link saturated: the times repeat after a few chunks
        assert found


@pytest.mark.parametrize("collective", ["allgather", "reducescatter"])
def test_free_shares_repeat_tree_by_tree_and_equal_the_oracle(collective, monkeypatch):
    # free shares give the trees unequal chunk times on links they do not share: each block
    # steps at its tree's own rate, so no one constant ever repeats the times
    from supermesh.trees.schedule import free_share_packing, reverse_packing

    G = build("mesh:4x4")
    packing = free_share_packing(G)
    if collective == "reducescatter":
        packing = reverse_packing(packing)
    steps: list[float] = []
    steady = sequential._steady

    def spy(finishes, starts, c, waits, max_period=4):
        q = steady(finishes, starts, c, waits, max_period)
        if q:
            delta = finishes[c] - finishes[c - q]
            steps.append(float(delta.max() - delta.min()))
        return q

    monkeypatch.setattr(sequential, "_steady", spy)
    assert_same(packing_program(G, packing, collective, 16 * 60 * 12288, get_preset("paper")))
    assert steps  # a repetition was found and extended
    if collective == "allgather":  # its blocks step at rates more than a ns apart
        assert max(steps) > 1.0
