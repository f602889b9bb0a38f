"""Deadlock verdicts against execution: the simulator's event loop, and a token game for buffers.

The simulator (:mod:`supermesh.sim.oracle`) runs per-link FIFOs with head-of-line blocking, data
dependencies and (``buffers=b``) ``b`` receive slots per link, single-hop transfers. A schedule
table is translated into a simulator program here, from the table's documented semantics (one
block per (entry, chunk), blocks in the documented FIFO order, the entry's phase as the block's
stage, a zero-time block on a private arc for the AllReduce barrier), without the deadlock
module's code. The verdict of :func:`check_deadlock` must match whether the simulation finishes,
with unbounded buffers and with 1 or 2 slots; the finite-buffer verdicts are also checked against
a token game written here from the same rules (a third, independent opinion).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.sim import simulate
from supermesh.sim.engine.timing import run_program
from supermesh.sim.oracle import simulate_events
from supermesh.sim.program import DeadlockError, PhaseBuilder, Program
from supermesh.testing.examples import smbi_corner_trees
from supermesh.testing.strategies import schedules
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule.build import build_schedule
from supermesh.verify import Transfer, TreeSchedule, check_deadlock, fifo_model

PHASE_RANK = {"rs": 0, "ag": 1, "bcast": 2, "reduce": 3}
BARRIER_ARC = (-1, -1, 0)  # a private arc for the barrier block
BARRIER_STAGE = -1  # the barrier only waits: it holds no buffer slot and frees none early


def _pairs(s):
    """Every (entry, chunk) of a table in the documented service order (phase, set, chunk, step)."""
    out = [(e, x) for e in s.entries for x in range(e.chunk_first, e.chunk_last + 1)]
    out.sort(
        key=lambda p: (
            PHASE_RANK[p[0].phase],
            p[0].set_index,
            p[1] - p[0].chunk_first,
            p[0].step,
            p[0].id,
        )
    )
    return out


def table_program(s) -> Program:
    """The table as one simulator phase: a block per (entry, chunk), inserted in FIFO order."""
    pb = PhaseBuilder({})
    block = {}
    for e, x in _pairs(s):
        block[(e.id, x)] = pb.add(
            e.arc, count=1, duration=1.0, payload=1, stage=PHASE_RANK[e.phase]
        )
    gate = None
    if s.barrier:
        rs = [b for (i, _), b in block.items() if s.entries[i].phase == "rs"]
        gate = pb.add(BARRIER_ARC, count=1, duration=0.0, payload=0, deps=rs, stage=BARRIER_STAGE)
    for (i, x), b in block.items():
        e = s.entries[i]
        deps = [block[(d, x)] for d in e.deps]
        pb.set_deps(b, deps + ([gate] if gate is not None and e.phase == "ag" else []))
    return Program(list(pb.arc_index), [pb.build(start=0.0)])


def model_program(model) -> Program:
    """A single-hop FIFO model (explicit orders allowed) as one simulator phase."""
    assert all(len(h) == 1 for h in model.hops.values()), "the simulator sends single hops"
    pb = PhaseBuilder({})
    block = {}
    for link, queue in model.fifos.items():
        for x in queue:
            block[x] = pb.add(link, count=1, duration=1.0, payload=1, stage=PHASE_RANK[x.phase])
    gate = None
    if model.barrier is not None:
        before = [b for x, b in block.items() if x.phase == model.barrier[0]]
        gate = pb.add(
            BARRIER_ARC, count=1, duration=0.0, payload=0, deps=before, stage=BARRIER_STAGE
        )
    for x, b in block.items():
        extra = [gate] if gate is not None and x.phase == model.barrier[1] else []
        pb.set_deps(b, [block[d] for d in model.deps[x]] + extra)
    return Program(list(pb.arc_index), [pb.build(start=0.0)])


def finishes(program, buffers=None) -> bool:
    """Whether the event simulation delivers every transfer with ``buffers`` slots per link.

    Unbounded: the fast engine must agree. Finite: a finished run is never faster than the
    unbounded one, and a stuck one names transfers that really never started.
    """
    stuck: DeadlockError | None = None
    try:
        timing = simulate_events(program, buffers=buffers)
    except DeadlockError as err:
        stuck = err
    if stuck is not None:
        if buffers is None:
            with pytest.raises(DeadlockError):
                run_program(program)
        assert stuck.stuck
        assert "never start" in str(stuck)
        return False
    assert math.isfinite(timing.end)
    if buffers is None:
        assert run_program(program).end == pytest.approx(timing.end)
    else:
        assert all(math.isfinite(t) for b in timing.start[0] for t in b)
        try:
            free = simulate_events(program).end
        except DeadlockError:
            pytest.fail("finite buffers finished where unbounded ones deadlock")
        assert timing.end >= free
    return True


def token_game(s, buffers) -> bool:
    """Run the table transfer by transfer (atomic moves) with ``buffers`` slots per receiver.

    A transfer goes when it heads its link's FIFO, every dependency has delivered the same
    chunk, the barrier (AllReduce ``ag``) is passed, and a slot is free: the transfer
    ``buffers`` places earlier on the link has been consumed (every transfer of its phase that
    waits for it has gone). True if everything goes.
    """
    queues = defaultdict(list)
    for e, x in _pairs(s):
        queues[e.arc].append((e.id, x))
    users = defaultdict(list)
    for e in s.entries:
        for d in e.deps:
            if s.entries[d].phase == e.phase:
                users[d].append(e.id)
    done, head = set(), dict.fromkeys(queues, 0)
    rs_total = sum(e.chunk_last - e.chunk_first + 1 for e in s.entries if e.phase == "rs")
    moved = True
    while moved:
        moved = False
        rs_done = sum(1 for i, _ in done if s.entries[i].phase == "rs")
        for arc, q in queues.items():
            if head[arc] == len(q):
                continue
            i, x = q[head[arc]]
            e = s.entries[i]
            if any((d, x) not in done for d in e.deps):
                continue
            if s.barrier and e.phase == "ag" and rs_done < rs_total:
                continue
            if buffers is not None and head[arc] >= buffers:
                j, y = q[head[arc] - buffers]
                if any((u, y) not in done for u in users[j]):
                    continue
            done.add((i, x))
            head[arc] += 1
            moved = True
    return all(head[a] == len(q) for a, q in queues.items())


def add_dep(s, i, d):
    entries = list(s.entries)
    entries[i] = dataclasses.replace(entries[i], deps=(*entries[i].deps, d))
    return dataclasses.replace(s, entries=tuple(entries))


# ---- example schedules ---------------------------------------------------------------------


def test_reference_allreduce_finishes_in_the_simulator():
    G = build("smbi:4x4")
    p = smbi_corner_trees(4)
    s = build_schedule(G, "allreduce", p, chunks=3)
    for buffers in (1, None):
        assert check_deadlock(G, s, buffers=buffers).deadlock_free
    assert finishes(table_program(s))
    assert finishes(table_program(s), buffers=1)
    assert token_game(s, 1)
    # the simulator's own schedule of the same trees finishes too (BRIEF: 4 MiB in 187,865 cycles)
    r = simulate(G, p, "allreduce", 4 * 2**20, bound=False)
    assert math.isfinite(r.time)
    assert r.time > 0


def test_reduce_waiting_for_gather_deadlocks():
    G = build("mesh:2x2")
    t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    s = build_schedule(
        G, "allreduce", TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),)), chunks=2
    )
    leaf = next(e.id for e in s.entries if e.phase == "rs" and not e.deps)
    ag = next(e.id for e in s.entries if e.phase == "ag")
    bad = add_dep(s, leaf, ag)  # same tree and chunks: the model takes it, the barrier forbids it
    report = check_deadlock(G, bad, buffers=None)
    assert not report.deadlock_free
    assert {x.phase for _, x in report.cycle if x is not None} == {"rs", "ag"}
    assert not finishes(table_program(bad))
    assert not token_game(bad, None)
    assert not finishes(table_program(bad), buffers=1)


def test_dependency_on_an_entry_behind_it_stalls_the_link():
    G = build("mesh:2x2")
    t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    s = build_schedule(
        G, "broadcast", TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),)), chunks=3
    )
    first = next(e.id for e in s.entries if e.arc == (0, 1, 0))
    below = next(e.id for e in s.entries if e.arc == (1, 3, 0))
    bad = add_dep(s, first, below)
    assert not check_deadlock(G, bad, buffers=None).deadlock_free
    assert not finishes(table_program(bad))


def _ring_sets():
    a = Tree(0, ((0, 1, 0), (1, 3, 0), (3, 2, 0)), 3)
    b = Tree(3, ((3, 2, 0), (2, 0, 0), (0, 1, 0)), 3)
    return TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a,)), TreeSet((b,))))


def test_constructed_fifo_cycle_deadlocks_in_the_simulator():
    # two root sets share links 0->1 and 3->2; serving set 1 first on 0->1 closes a 4-link cycle
    G = build("mesh:2x2")
    p = _ring_sets()
    good = TreeSchedule("allgather", out_trees=p, buffers=None, chunks=2)
    assert check_deadlock(G, good).deadlock_free
    assert finishes(model_program(fifo_model(G, good)))
    order = {(0, 1, 0): [Transfer("ag", s, 0, c, (0, 1, 0)) for c in (0, 1) for s in (1, 0)]}
    bad = dataclasses.replace(good, fifo=order)
    assert not check_deadlock(G, bad).deadlock_free
    assert not finishes(model_program(fifo_model(G, bad)))
    # with one slot per link: the good order still finishes, the opposite orders still stick
    for b in (1, 2):
        assert check_deadlock(G, good, buffers=b).deadlock_free
        assert finishes(model_program(fifo_model(G, good)), buffers=b)
        assert not check_deadlock(G, bad, buffers=b).deadlock_free
        with pytest.raises(DeadlockError, match=r"0->1#0") as err:
            simulate_events(model_program(fifo_model(G, bad)), buffers=b)
        assert err.value.stuck


def test_reversed_chunks_on_a_link_deadlock_only_with_one_slot():
    # a chain 0 -> 1 -> 3 carrying 2 chunks, link 1->3 serving chunk 1 first: with one slot at
    # node 1, chunk 1 cannot enter until chunk 0 has left, which waits behind chunk 1
    G = build("mesh:2x2")
    t = Tree(0, ((0, 1, 0), (1, 3, 0)), 2)
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    order = {(1, 3, 0): [Transfer("ag", 0, 0, c, (1, 3, 0)) for c in (1, 0)]}
    bad = TreeSchedule("broadcast", out_trees=p, chunks=2, fifo=order)
    program = model_program(fifo_model(G, bad))
    assert not check_deadlock(G, bad, buffers=1).deadlock_free
    assert not finishes(program, buffers=1)
    with pytest.raises(DeadlockError, match=r"buffer slot") as err:
        simulate_events(program, buffers=1)
    assert len(err.value.stuck) == 2  # both FIFO heads: chunk 1 on 0->1 and chunk 1 on 1->3
    for b in (2, None):
        assert check_deadlock(G, bad, buffers=b).deadlock_free
        assert finishes(program, buffers=b)


def test_gather_ahead_of_reduce_deadlocks_in_the_simulator():
    G = build("smbi:3x3")
    out = smbi_corner_trees(3)
    good = TreeSchedule("allreduce", smbi_corner_trees(3, direction="in"), out, buffers=None)
    fifos = fifo_model(G, good).fifos
    link = next(k for k, q in fifos.items() if {x.phase for x in q} == {"rs", "ag"})
    q = fifos[link]
    bad = dataclasses.replace(good, fifo={link: [q[-1], *q[:-1]]})
    assert check_deadlock(G, good).deadlock_free
    assert finishes(model_program(fifo_model(G, good)))
    assert not check_deadlock(G, bad).deadlock_free
    assert not finishes(model_program(fifo_model(G, bad)))
    for b in (1, 2):
        assert check_deadlock(G, good, buffers=b).deadlock_free
        assert finishes(model_program(fifo_model(G, good)), buffers=b)
        assert not check_deadlock(G, bad, buffers=b).deadlock_free
        assert not finishes(model_program(fifo_model(G, bad)), buffers=b)


# ---- properties ----------------------------------------------------------------------------


@st.composite
def perturbed(draw):
    """A built schedule, maybe with extra dependencies on entries that carry the same chunks."""
    G, _, s = draw(schedules())
    for _ in range(draw(st.integers(0, 2))):
        e = draw(st.sampled_from(s.entries))
        same = [
            d.id
            for d in s.entries
            if (d.chunk_first, d.chunk_last) == (e.chunk_first, e.chunk_last) and d.id != e.id
        ]
        if same:
            s = add_dep(s, e.id, draw(st.sampled_from(same)))
    return G, s


@given(perturbed())
def test_verdict_matches_the_simulator(gs):
    G, s = gs
    free = check_deadlock(G, s, buffers=None, max_fix_tries=0).deadlock_free
    assert free == finishes(table_program(s))
    assert free == check_deadlock(G, s, buffers=None, periodic=False).deadlock_free


@given(perturbed(), st.sampled_from([1, 2]))
def test_verdict_with_finite_buffers_matches_the_simulator(gs, buffers):
    # deadlock-free with b slots <=> the simulation with b slots finishes (<=> the token game)
    G, s = gs
    free = check_deadlock(G, s, buffers=buffers, max_fix_tries=0).deadlock_free
    assert free == finishes(table_program(s), buffers=buffers)
    assert free == token_game(s, buffers)


@given(schedules(), st.sampled_from([1, 2]))
def test_built_schedules_finish_with_finite_buffers(gps, buffers):
    # every schedule the builder makes is declared deadlock-free and finishes in the simulator
    G, _, s = gps
    assert check_deadlock(G, s, buffers=buffers, max_fix_tries=0).deadlock_free
    assert finishes(table_program(s), buffers=buffers)


SHARED = ["allgather", "reducescatter", "allreduce"]  # many trees share each link's FIFO


@given(
    st.one_of(
        schedules(collectives=SHARED),
        st.sampled_from(["smbi:3x3", "smalter:4x4", "smbi:2x4"])
        .map(build)
        .flatmap(lambda G: schedules(G, SHARED)),
    ),
    st.data(),
)
def test_random_fifo_orders_match_the_simulator(gps, data):
    # any service order (kept, reversed or shuffled per link): the wait-for graph and the event
    # simulation must agree on it; both outcomes occur
    G, _, s = gps
    model = fifo_model(G, s, buffers=None, periodic=False)
    fifos = {}
    for link, q in model.fifos.items():
        how = data.draw(st.sampled_from(["keep", "reverse", "shuffle"]))
        fifos[link] = {"keep": q, "reverse": q[::-1]}.get(how) or list(
            data.draw(st.permutations(q))
        )
    shuffled = dataclasses.replace(model, fifos=fifos)
    free = check_deadlock(G, shuffled, max_fix_tries=0).deadlock_free
    assert free == finishes(model_program(shuffled))
    b = data.draw(st.sampled_from([1, 2]))
    free_b = check_deadlock(G, shuffled, buffers=b, max_fix_tries=0).deadlock_free
    assert free_b == finishes(model_program(shuffled), buffers=b)
