"""Finite receive buffers in the event simulation: hand-timed cases, the engine, monotonicity.

``simulate_events(program, buffers=b)``: the transfer ``k`` places down an arc's FIFO may start
only once the transfer ``k - b`` places down has been consumed (every same-stage dependent has
started); a chunk nobody of its stage depends on frees its slot on delivery. The timings below are
worked out by hand from that rule; the properties check that unbounded buffers are exactly the
fast engine and that more slots never delay any transfer.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SupermeshError
from supermesh.sim import (
    DeadlockError,
    PhaseBuilder,
    Program,
    baseline_program,
    get_preset,
    run_program,
    simulate_events,
    tree_program,
)
from supermesh.testing.examples import smbi_corner_trees
from supermesh.topologies import build


def _chain_with_extra(extra_duration: float = 50.0) -> Program:
    """0->1 carries chunks 0..2 then one more block; 1->2 forwards the chunks, twice as slow."""
    pb = PhaseBuilder({})
    a = pb.add((0, 1, 0), count=3, duration=10.0, payload=1)
    pb.add((1, 2, 0), count=3, duration=20.0, payload=1, deps=[a])
    pb.add((0, 1, 0), count=1, duration=extra_duration, payload=1, group=1)
    return Program(list(pb.arc_index), [pb.build(start=0.0)])


def starts(timing, block: int) -> list[float]:
    return timing.start[0][block].tolist()


def test_hand_timed_chain():
    prog = _chain_with_extra()
    # unbounded: 0->1 runs back to back 0, 10, 20, extra 30-80; 1->2 starts 10, 30, 50 (ends 70)
    free = simulate_events(prog)
    assert starts(free, 0) == [0.0, 10.0, 20.0]
    assert starts(free, 1) == [10.0, 30.0, 50.0]
    assert starts(free, 2) == [30.0]
    assert free.end == 80.0
    # one slot at node 1: chunk k+1 enters once chunk k has left (1->2 started): 0, 10, 30; the
    # extra block reuses chunk 2's slot, freed when 1->2 starts chunk 2 at 50: 50-100
    one = simulate_events(prog, buffers=1)
    assert starts(one, 0) == [0.0, 10.0, 30.0]
    assert starts(one, 1) == [10.0, 30.0, 50.0]
    assert starts(one, 2) == [50.0]
    assert one.end == 100.0
    # two slots: chunk 2 reuses chunk 0's slot (free at 10): 20; the extra reuses chunk 1's
    # (free at 30) and the arc is free at 30: 30-80, as unbounded
    two = simulate_events(prog, buffers=2)
    assert starts(two, 0) == [0.0, 10.0, 20.0]
    assert starts(two, 2) == [30.0]
    assert two.end == 80.0


def test_a_dependent_of_another_stage_holds_no_slot():
    # 0->1 sends 2 chunks; 1->2 forwards each 100 after it arrives. Same stage: chunk 1 waits for
    # chunk 0 to leave node 1 (10 + 100). Another stage (a value absorbed at node 1 and read
    # later): the slot frees on delivery and chunk 1 goes at 10.
    def prog(stage: int) -> Program:
        pb = PhaseBuilder({})
        a = pb.add((0, 1, 0), count=2, duration=10.0, payload=1)
        pb.add((1, 2, 0), count=2, duration=10.0, payload=1, deps=[a], delay=100.0, stage=stage)
        return Program(list(pb.arc_index), [pb.build(start=0.0)])

    assert starts(simulate_events(prog(0), buffers=1), 0) == [0.0, 110.0]
    assert starts(simulate_events(prog(1), buffers=1), 0) == [0.0, 10.0]
    assert prog(0).phases[0].stage is None  # all stage 0: nothing stored, as before
    assert prog(1).phases[0].stage.tolist() == [0, 1]


def test_reversed_chunks_deadlock_with_one_slot_and_name_the_stuck_transfers():
    # single-chunk blocks; 1->2 serves chunk 1 (block 2) before chunk 0 (block 3)
    pb = PhaseBuilder({})
    c0 = pb.add((0, 1, 0), count=1, duration=1.0, payload=1)
    c1 = pb.add((0, 1, 0), count=1, duration=1.0, payload=1)
    pb.add((1, 2, 0), count=1, duration=1.0, payload=1, deps=[c1])
    pb.add((1, 2, 0), count=1, duration=1.0, payload=1, deps=[c0])
    bad = Program(list(pb.arc_index), [pb.build(start=0.0)])
    assert simulate_events(bad).end == 4.0  # unbounded: 0->1 at 0, 1; 1->2 at 2, 3
    assert simulate_events(bad, buffers=2).end == 4.0
    with pytest.raises(DeadlockError, match=r"phase 0 block 1 chunk 0 on 0->1#0") as err:
        simulate_events(bad, buffers=1)
    assert sorted(err.value.stuck) == [(0, 1, 0), (0, 2, 0)]
    assert err.value.exit_code == 1
    assert "buffer slot" in (err.value.hint or "")


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_bad_buffer_counts_are_refused(bad):
    with pytest.raises(SupermeshError, match="buffers="):
        simulate_events(_chain_with_extra(), buffers=bad)


# ---- properties ----------------------------------------------------------------------------


@st.composite
def programs(draw):
    """Blocks over a few arcs, dependencies on earlier blocks of the same count, random stages."""
    n_arcs = draw(st.integers(1, 4))
    arc_index: dict = {}
    phases = []
    for p in range(draw(st.integers(1, 2))):
        pb = PhaseBuilder(arc_index)
        n_blocks = draw(st.integers(1, 8))
        groups = sorted(draw(st.lists(st.integers(0, 2), min_size=n_blocks, max_size=n_blocks)))
        counts: list[int] = []
        for b in range(n_blocks):
            count = draw(st.integers(1, 4))
            earlier = [d for d in range(b) if counts[d] == count]
            deps = (
                draw(st.lists(st.sampled_from(earlier), max_size=2, unique=True)) if earlier else []
            )
            a = draw(st.integers(0, n_arcs - 1))
            pb.add(
                (a, a + 1, 0),
                count=count,
                duration=draw(st.sampled_from([1.0, 2.5, 7.0])),
                payload=1,
                group=groups[b],
                deps=deps,
                delay=draw(st.sampled_from([0.0, 0.5, 3.0, 20.0])),
                stage=draw(st.integers(0, 1)),
            )
            counts.append(count)
        start = draw(st.sampled_from([None, 2.0])) if p else 0.0
        phases.append(pb.build(start=start, final_delay=draw(st.sampled_from([0.0, 4.0]))))
    return Program(
        list(arc_index),
        phases,
        release=draw(st.sampled_from([0.0, 1.0])),
        barrier=draw(st.sampled_from([0.0, 1.0])),
        drain=draw(st.sampled_from([0.0, 5.0])),
    )


def _all_starts(timing) -> np.ndarray:
    return np.concatenate([s for phase in timing.start for s in phase] or [np.zeros(0)])


def _timing(program: Program, buffers: int | None):
    try:
        return simulate_events(program, buffers=buffers)
    except DeadlockError:
        return None


def _assert_monotone(program: Program, most: int = 3) -> None:
    """None <= b + 1 <= b slot for slot: a run with b slots that finishes, finishes with more."""
    runs = [_timing(program, b) for b in range(1, most + 1)] + [_timing(program, None)]
    for fewer, more in itertools.pairwise(runs):
        if fewer is None:
            continue
        assert more is not None, "more buffers deadlocked where fewer finished"
        assert more.end <= fewer.end + 1e-9
        assert np.all(_all_starts(more) <= _all_starts(fewer) + 1e-9)


@given(programs())
def test_unbounded_buffers_are_the_fast_engine(program):
    try:
        fast = run_program(program, keep_starts=True)
    except DeadlockError:
        with pytest.raises(DeadlockError):
            simulate_events(program, buffers=None)
        return
    slow = simulate_events(program, buffers=None)
    default = simulate_events(program)
    np.testing.assert_array_equal(_all_starts(slow), _all_starts(default))
    assert slow.end == default.end
    assert fast.end == pytest.approx(slow.end, abs=1e-9)
    for p, phase in enumerate(program.phases):
        for b in range(phase.size):
            np.testing.assert_allclose(fast.phases[p].starts[b], slow.start[p][b], atol=1e-9)


@given(programs())
def test_more_buffers_never_make_a_run_slower(program):
    _assert_monotone(program)


@pytest.mark.parametrize(
    "make",
    [
        lambda G, P: tree_program(G, smbi_corner_trees(3), "allreduce", 3 * P.chunk_bytes, P),
        lambda G, P: tree_program(G, smbi_corner_trees(3), "allgather", 4 * P.chunk_bytes, P),
        lambda G, P: baseline_program(G, "ring", "allreduce", 9 * 4 * P.chunk_bytes, P),
    ],
    ids=["tree-allreduce", "tree-allgather", "ring-allreduce"],
)
def test_the_simulators_own_programs_finish_with_one_slot(make):
    P = get_preset()
    prog = make(build("smbi:3x3"), P)
    assert prog.transfers > 20
    one = simulate_events(prog, buffers=1)
    assert one.end >= run_program(prog).end - 1e-9
    _assert_monotone(prog, most=2)
