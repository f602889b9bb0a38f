"""The fast engine against the event-simulation oracle, and against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _programs import block_programs
from _sim_trees import chain, corner_trees, side_trees
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.sim import (
    COLLECTIVES,
    DeadlockError,
    PhaseBuilder,
    Program,
    baseline_program,
    get_preset,
    run_program,
    simulate,
    simulate_events,
    tree_program,
)
from supermesh.topologies import build
from supermesh.trees.model import Tree


def assert_same(program: Program) -> float:
    """Engine and oracle agree on every start time and on the end; returns the end."""
    fast = run_program(program, keep_starts=True)
    slow = simulate_events(program)
    assert fast.end == pytest.approx(slow.end, abs=1e-9)
    for p, phase in enumerate(program.phases):
        assert fast.phases[p].done == pytest.approx(slow.phase_done[p], abs=1e-9)
        for b in range(phase.size):
            np.testing.assert_allclose(
                fast.phases[p].starts[b], slow.start[p][b], rtol=1e-12, atol=1e-9
            )
    return fast.end


def random_programs():
    """Blocks over a few arcs; dependencies only on earlier blocks with the same count."""
    return block_programs()


@given(random_programs())
@settings(max_examples=150)
def test_engine_equals_oracle_on_random_programs(program):
    assert_same(program)


@st.composite
def random_tree_cases(draw):
    """Random BFS-like trees (not necessarily disjoint) in random sets on small topologies."""
    spec = draw(st.sampled_from(["mesh:2x2", "mesh:3x3", "smbi:3x3", "smalter:4x4", "torus:3x3"]))
    G = build(spec)
    nodes = sorted(G.nodes)
    sets = []
    for _ in range(draw(st.integers(1, 3))):
        trees = []
        for _ in range(draw(st.integers(1, 4))):
            root = draw(st.sampled_from(nodes))
            seen = {root}
            arcs = []
            frontier = [root]
            while frontier:
                u = frontier.pop(draw(st.integers(0, len(frontier) - 1)))
                for _, v, k in sorted(G.out_edges(u, keys=True)):
                    if v not in seen:
                        seen.add(v)
                        arcs.append((u, v, k))
                        frontier.append(v)
            trees.append(Tree(root=root, arcs=tuple(arcs), height=0))
        sets.append(trees)
    collective = draw(st.sampled_from(COLLECTIVES))
    nbytes = draw(st.integers(1, 6 * 12288))
    return G, sets, collective, nbytes


@given(random_tree_cases(), st.sampled_from(["booksim", "paper"]), st.booleans())
@settings(max_examples=80)
def test_engine_equals_oracle_on_tree_collectives(case, preset, cut_through):
    G, sets, collective, nbytes = case
    params = get_preset(preset, cut_through=cut_through)
    assert_same(tree_program(G, sets, collective, nbytes, params))


@pytest.mark.parametrize("algorithm", ["ring", "bidir-ring", "direct", "multitree"])
@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:4x4", "mesh:2x3"])
def test_engine_equals_oracle_on_baselines(algorithm, spec):
    G = build(spec)
    for collective in ("allreduce", "reducescatter", "allgather"):
        assert_same(baseline_program(G, algorithm, collective, 40000, get_preset()))


def test_multi_set_smbi_groups_share_fifos():
    G = build("smbi:4x4")
    sets = [corner_trees(4), side_trees(4, (1, 7, 14, 8)), side_trees(4, (2, 11, 13, 4))]
    for collective in ("reducescatter", "allgather", "allreduce"):
        assert_same(tree_program(G, sets, collective, 3 << 20, get_preset()))


@given(
    chunks=st.integers(1, 40),
    hops=st.integers(1, 6),
    serial=st.sampled_from([100.0, 1020.0]),
    latency=st.sampled_from([0.0, 11.0, 50.0]),
    release=st.sampled_from([0.0, 1.0, 3.0]),
    delay=st.sampled_from([0.0, 0.5, 4.0, 2000.0]),
)
def test_chain_pipeline_closed_form(chunks, hops, serial, latency, release, delay):
    """Chunk c crosses hop j at c*P + j*L: P = T + release, L = T + delay, T the hop time."""
    params = get_preset(
        "booksim",
        flit_time=serial / 51,
        hop_latency=latency,
        link_release=release,
        forward_delay=delay,
        reduce_delay=delay,
        drain=7.0,
    )
    G = build(f"mesh:2x{max(2, hops + 1)}")
    tree = chain(list(range(hops + 1)))
    T = serial + latency
    P, L = T + release, T + delay
    prog = tree_program(G, [[tree]], "broadcast", chunks * 12288, params)
    expected = (chunks - 1) * P + (hops - 1) * L + T + 7.0
    assert run_program(prog).end == pytest.approx(expected)
    prog = tree_program(G, [[tree]], "reduce", chunks * 12288, params)
    last = params.reduce_start + expected - 7.0
    # the run ends with the drain or with the root's last aggregation, whichever is later
    assert run_program(prog).end == pytest.approx(last + max(7.0, delay))


def test_allreduce_closed_form_on_a_chain():
    """RS starts at 1, the AG 1 after the root's last aggregation; both phases as above."""
    p = get_preset()
    G = build("mesh:2x4")
    tree = chain([0, 1, 2, 3])
    C, h = 10, 3
    T, P = p.chunk_time(), p.chunk_period()
    rs_done = 1 + (C - 1) * P + (h - 1) * (T + p.reduce_delay) + T + p.reduce_delay
    ag_end = (C - 1) * P + (h - 1) * (T + p.forward_delay) + T
    expected = rs_done + p.barrier_delay + ag_end + p.drain
    result = simulate(G, [[tree]], "allreduce", C * 12288, bound=False)
    assert result.time == pytest.approx(expected)
    assert result.phases[0]["done"] == pytest.approx(rs_done)


def test_star_links_are_independent():
    """A root broadcasting to 2 children on 2 links is as fast as one chain hop."""
    G = build("mesh:2x2")
    star = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0)), height=1)
    one = Tree(root=0, arcs=((0, 1, 0),), height=1)
    fast = simulate(G, [[star]], "broadcast", 5 * 12288, bound=False).time
    assert fast == simulate(G, [[one]], "broadcast", 5 * 12288, bound=False).time


def test_shared_link_serialises():
    """Two trees on the same link take twice the chunks' time on it."""
    G = build("mesh:2x2")
    t = Tree(root=0, arcs=((0, 1, 0),), height=1)
    p = get_preset(drain=0.0)
    single = simulate(G, [[t]], "broadcast", 8 * 12288, params=p, bound=False).time
    double = simulate(G, [[t, t]], "broadcast", 16 * 12288, params=p, bound=False).time
    assert single == pytest.approx(8 * p.chunk_period() - p.link_release)
    assert double == pytest.approx(16 * p.chunk_period() - p.link_release)


def test_deadlock_is_reported():
    idx: dict = {}
    pb = PhaseBuilder(idx)
    a = pb.add((0, 1, 0), count=1, duration=1.0, payload=1)
    b = pb.add((1, 2, 0), count=1, duration=1.0, payload=1)
    pb.set_deps(a, [b])  # a waits for b, which comes later in the list: a cycle through b's deps
    pb.set_deps(b, [a])
    prog = Program(list(idx), [pb.build(start=0.0)])
    with pytest.raises(DeadlockError):
        run_program(prog)
    with pytest.raises(DeadlockError):
        simulate_events(prog)


@given(
    st.sampled_from(COLLECTIVES),
    st.integers(1, 4 << 20),
    st.integers(1, 4 << 20),
)
@settings(max_examples=40)
def test_more_bytes_never_faster(collective, a, b):
    G = build("smbi:4x4")
    sets = [corner_trees(4)]
    small, large = sorted((a, b))
    t_small = simulate(G, sets, collective, small, bound=False).time
    t_large = simulate(G, sets, collective, large, bound=False).time
    assert t_small <= t_large


def test_time_never_beats_the_cut_bound():
    G = build("smbi:4x4")
    sets = [corner_trees(4), side_trees(4, (1, 7, 14, 8)), side_trees(4, (2, 11, 13, 4))]
    for preset in ("booksim", "paper"):
        params = get_preset(preset)
        for collective in COLLECTIVES:
            for nbytes in (12288, 1 << 20, 64 << 20):
                r = simulate(G, sets, collective, nbytes, params=params)
                assert r.lower_bound is not None
                assert r.time >= r.lower_bound
                assert math.isfinite(r.ratio_to_bound)
                assert r.ratio_to_bound >= 1
