"""TACOS: hand-counted schedules, the cut bound as a floor, no echo, causality, parallel links."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.sim import get_preset, run_algorithm, run_program, simulate_events
from supermesh.sim.baselines.tacos import TacosSchedule, synthesize_allgather
from supermesh.sim.baselines.tacos_program import (
    chunks_per_rank_for,
    tacos_program,
    tacos_schedules,
)
from supermesh.sim.link_costs import apply_link_costs
from supermesh.testing.strategies import topology_specs
from supermesh.topologies import build, compute_nodes
from supermesh.trees.oriented import orient


def check_allgather(s: TacosSchedule, ready_delay: float = 0.0) -> None:
    """Every rank gets every chunk but its own exactly once; nothing moves before it is there."""
    got = Counter((t.chunk, t.dst) for t in s.transfers)
    ranks = set(s.ranks)
    for c in range(s.chunks):
        for r in ranks - {s.origin(c)}:
            assert got[(c, r)] == 1
        assert got[(c, s.origin(c))] == 0  # the echo of the public implementation
    arrival = {(t.chunk, t.dst): t.finish for t in s.transfers}
    for t in s.transfers:
        if t.src == s.origin(t.chunk):
            assert t.start >= 0.0
        else:
            assert t.start >= arrival[(t.chunk, t.src)] + ready_delay - 1e-9
    busy: dict = {}
    for t in sorted(s.transfers, key=lambda t: t.start):
        assert t.start >= busy.get(t.arc, 0.0) - 1e-9  # one transfer per link at a time
        busy[t.arc] = t.finish
    for tree in s.trees():
        orient(tree, "out")  # raises unless it is an arborescence from its origin


def test_two_by_two_by_hand():
    """Mesh 2x2 (a 4-cycle), one chunk each: round 1 every link sends its source's own chunk,
    round 2 every chiplet gets the opposite corner's chunk from one of its two neighbours."""
    s = synthesize_allgather(build("mesh:2x2"))
    check_allgather(s)
    assert s.makespan == 2.0
    first = [t for t in s.transfers if t.start == 0.0]
    assert len(first) == 8
    assert all(t.src == s.origin(t.chunk) for t in first)
    second = [t for t in s.transfers if t.start == 1.0]
    opposite = {0: 3, 1: 2, 2: 1, 3: 0}
    assert sorted((t.dst, s.origin(t.chunk)) for t in second) == sorted(opposite.items())
    assert all(len(tree.arcs) == 3 and tree.height == 2 for tree in s.trees())


@pytest.mark.parametrize("seed", range(6))
def test_three_by_three_by_hand(seed):
    """Mesh 3x3, one chunk each. Round 1: each of the 24 arcs carries its source's own chunk
    (the only candidate). Round 2: a corner takes 2 (one per link, from 2 + 2 candidates), an
    edge chiplet 2 or 3, the centre 3 or 4 (greedy matching of its 4 links to 4 chunks): 19 to 24.
    A corner needs 8 chunks over 2 links and the far corner is 4 hops away: at least 4 rounds."""
    s = synthesize_allgather(build("mesh:3x3"), seed=seed)
    check_allgather(s)
    per_round = Counter(t.start for t in s.transfers)
    assert per_round[0.0] == 24
    assert 19 <= per_round[1.0] <= 24
    assert len(s.transfers) == 9 * 8
    assert s.makespan >= 4.0
    assert set(per_round) <= {float(r) for r in range(int(s.makespan))}


def test_same_seed_same_schedule_and_json_round_trip():
    G = build("smbi:4x4")
    a = synthesize_allgather(G, 3, seed=7)
    assert a == synthesize_allgather(G, 3, seed=7)
    assert TacosSchedule.from_json(a.to_json()) == a
    assert a != synthesize_allgather(G, 3, seed=8)


def test_parallel_links_carry_two_chunks_at_once():
    """SMBi 2x2: every link is doubled; at time 0 both arcs 0 -> 1 carry a chunk of rank 0."""
    s = synthesize_allgather(build("smbi:2x2"), 2)
    check_allgather(s)
    at_zero = {t.arc: t.chunk for t in s.transfers if t.start == 0.0}
    assert at_zero[(0, 1, 0)] != at_zero[(0, 1, 1)]
    assert s.makespan == 2.0  # 6 chunks per chiplet over 4 arcs: 2 rounds, the cut bound


@given(topology_specs(max_side=4), st.integers(1, 3), st.integers(0, 3))
@settings(max_examples=25, deadline=None)
def test_cut_bound_is_a_floor(spec, k, seed):
    """Each rank receives (n - 1) k chunks over its in-arcs: at least that many rounds / in-degree;
    and no chunk can beat its hop distance."""
    G = build(spec)
    s = synthesize_allgather(G, k, seed=seed)
    check_allgather(s)
    ranks = compute_nodes(G)
    need = (len(ranks) - 1) * k
    floor = max(math.ceil(need / G.in_degree(r)) for r in ranks)
    assert s.makespan >= floor


@st.composite
def costed_networks(draw):
    G = build(draw(st.sampled_from(["mesh:3x3", "smbi:3x3", "smalter:4x4", "kite-small:4x4"])))
    for _, _, data in G.edges(data=True):
        data["latency"] = draw(st.sampled_from([0.5, 1.0, 2.0, 3.5]))
        data["bandwidth"] = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return G


@given(costed_networks(), st.sampled_from(["booksim", "paper"]), st.integers(0, 5))
@settings(max_examples=20, deadline=None)
def test_unequal_link_delays_causal_and_replayed_exactly(G, preset, seed):
    """With unequal link delays no link sends a chunk before it has reached the sender, and the
    event simulation of the schedule (each link's FIFO in the synthesised order) starts every
    transfer exactly when the synthesis did: nothing starts before its data arrive."""
    params = get_preset(preset)
    n = len(compute_nodes(G))
    s = tacos_schedules(G, "allgather", params, 2, seed=seed)
    check_allgather(s, params.forward_delay)
    prog = apply_link_costs(
        G, tacos_program(G, "allgather", 2 * n * params.chunk_bytes, params, seed=seed), params
    )
    slow = simulate_events(prog)
    phase = prog.phases[0]
    starts = sorted(float(slow.start[0][b][0]) for b in range(phase.size))
    assert starts == pytest.approx(sorted(t.start for t in s.transfers), abs=1e-9)
    for b in range(phase.size):  # causality of the replay, block by block
        for d in phase.deps[b]:
            assert slow.start[0][b][0] >= slow.finish[0][d][0] + phase.delay[b] - 1e-9
    fast = run_program(prog, keep_starts=True)
    assert fast.end == pytest.approx(slow.end, abs=1e-7)


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:4x4", "folded-torus:4x4"])
def test_engine_equals_oracle_on_tacos(spec, collective):
    G = build(spec)
    params = get_preset()
    prog = apply_link_costs(G, tacos_program(G, collective, 5 << 18, params), params)
    fast = run_program(prog, keep_starts=True)
    slow = simulate_events(prog)
    assert fast.end == pytest.approx(slow.end, abs=1e-7)
    for p, phase in enumerate(prog.phases):
        for b in range(phase.size):
            np.testing.assert_allclose(fast.phases[p].starts[b], slow.start[p][b], atol=1e-7)


def test_reduce_scatter_is_the_reversal():
    """RS runs the AllGather's trees backwards: into every root, each link's order reversed;
    with equal delays it takes no longer than the AllGather it mirrors, and never beats the
    cut bound."""
    G = build("smbi:4x4")
    params = get_preset(reduce_delay=0.5, reduce_start=0.0)
    nbytes = 16 * 4 * params.chunk_bytes
    ag = run_algorithm(G, "tacos", "allgather", nbytes, params)
    rs = run_algorithm(G, "tacos", "reducescatter", nbytes, params)
    assert rs.lower_bound <= rs.time <= ag.time + 1e-9
    ar = run_algorithm(G, "tacos", "allreduce", nbytes, params)
    assert ar.time > ag.time
    # the transfers are those of the AllGather synthesised on the reversed network, turned round
    prog = tacos_program(G, "reducescatter", nbytes, params)
    synth = tacos_schedules(G, "reducescatter", params, 4)
    used = Counter(prog.arcs[int(a)] for a in prog.phases[0].arc)
    assert used == Counter((t.dst, t.src, t.key) for t in synth.transfers)


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
def test_time_never_beats_the_cut_bound(collective):
    for spec in ("mesh:4x4", "smbi:4x4", "mesh:3x5"):
        r = run_algorithm(build(spec), "tacos", collective, 3 << 20, get_preset())
        assert r.time >= r.lower_bound


def test_large_sizes_repeat_a_period_near_the_bound():
    """Mesh 4x4 AllGather of 64 MiB: k = 273 chunks per rank synthesised (the budget), each
    tree carrying 1-2 chunks of 12 KiB; the corner's 2 links bound the time, and the periodic
    schedule stays within 5% of that bound."""
    G = build("mesh:4x4")
    params = get_preset()
    assert chunks_per_rank_for(64 << 20, 16, params.chunk_bytes) == 273
    r = run_algorithm(G, "tacos", "allgather", 64 << 20, params)
    assert r.meta["tacos"]["chunks_per_rank"] == 273
    assert r.lower_bound <= r.time <= 1.05 * r.lower_bound


def test_refusals():
    with pytest.raises(SpecError, match="TACOS"):
        run_algorithm(build("mesh:2x2"), "tacos", "broadcast", 1 << 16, get_preset())
    with pytest.raises(TopologyError, match="reverse"):
        run_algorithm(build("smuni:3x3"), "tacos", "allreduce", 1 << 16, get_preset())
    with pytest.raises(SpecError, match="at least 1"):
        synthesize_allgather(build("mesh:2x2"), 0)


def test_a_wafer_scale_synthesis_is_refused_with_its_transfer_count():
    import time

    from supermesh.errors import ResourceError

    G = build("smbi:64x64")
    began = time.perf_counter()
    with pytest.raises(ResourceError, match=r"4,096 ranks: 16,773,120 transfers") as info:
        run_algorithm(G, "tacos", "allgather", 4 << 20, get_preset("booksim"))
    assert time.perf_counter() - began < 5.0  # refused before any transfer is placed
    assert "smaller grid" in (info.value.hint or "")


def test_a_refused_synthesis_does_not_first_compute_the_cut_bound(monkeypatch) -> None:
    # report passes a cache, which made the bound (4,096 max-flows per round at 64x64) come
    # before the refusal: a minute of work for an answer of "too large"
    import supermesh.sim.algorithms as algorithms
    from supermesh.errors import ResourceError

    def no_bound(*args, **kwargs):
        raise AssertionError("the cut bound was computed before the refusal")

    monkeypatch.setattr(algorithms, "collective_bound", no_bound)
    monkeypatch.setattr(algorithms, "throughput_bound_for", no_bound)
    with pytest.raises(ResourceError, match="transfers"):
        run_algorithm(
            build("smbi:64x64"), "tacos", "reducescatter", 4 << 20, get_preset(), cache={}
        )
