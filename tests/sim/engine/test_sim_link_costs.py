"""Per-arc bandwidth and latency: engine against oracle, closed forms, unit costs unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from _programs import block_programs
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.sim import (
    COLLECTIVES,
    Program,
    get_preset,
    run_algorithm,
    run_program,
    simulate,
    simulate_events,
    tree_program,
)
from supermesh.sim.link_costs import apply_link_costs, link_duration, with_link_costs
from supermesh.topologies import build, from_json, to_json
from supermesh.trees.model import Tree

BANDWIDTHS = [0.25, 0.5, 1.0, 2.0, 3.0]
LATENCIES = [0.0, 0.05, 0.5, 1.0, 2.0, 4.12]


def assert_same(program: Program) -> None:
    fast = run_program(program, keep_starts=True)
    slow = simulate_events(program)
    assert fast.end == pytest.approx(slow.end, rel=1e-12, abs=1e-7)
    for p, phase in enumerate(program.phases):
        assert fast.phases[p].done == pytest.approx(slow.phase_done[p], rel=1e-12, abs=1e-7)
        for b in range(phase.size):
            np.testing.assert_allclose(
                fast.phases[p].starts[b], slow.start[p][b], rtol=1e-12, atol=1e-7
            )


@st.composite
def costed_programs(draw):
    """Random blocks over a few arcs (groups, shared links, deps), then random arc costs."""
    program = draw(
        block_programs(
            groups=2, chunks=6, equal_counts=False, durations=(12.0, 31.0, 1031.0),
            delays=(0.0, 0.5, 4.0), later_starts=(None, 0.0), releases=(0.0, 1.0),
            barriers=(1.0,),
        )
    )  # fmt: skip
    n = len(program.arcs)
    bw = np.array(draw(st.lists(st.sampled_from(BANDWIDTHS), min_size=n, max_size=n)))
    lat = np.array(draw(st.lists(st.sampled_from(LATENCIES), min_size=n, max_size=n)))
    return with_link_costs(program, bw, lat, hop_latency=11.0, pipelined=draw(st.booleans()))


@given(costed_programs())
@settings(max_examples=150, deadline=None)
def test_engine_equals_oracle_with_random_link_costs(program):
    assert_same(program)


@st.composite
def costed_tree_cases(draw):
    """BFS-like trees on a small topology whose arcs get random bandwidths and latencies."""
    spec = draw(st.sampled_from(["mesh:3x3", "smbi:3x3", "smalter:4x4", "folded-torus:4x4"]))
    G = build(spec)
    for _, _, data in G.edges(data=True):
        data["bandwidth"] = draw(st.sampled_from(BANDWIDTHS))
        data["latency"] = draw(st.sampled_from(LATENCIES))
    nodes = sorted(G.nodes)
    sets = []
    for _ in range(draw(st.integers(1, 2))):
        trees = []
        for _ in range(draw(st.integers(1, 4))):
            root = draw(st.sampled_from(nodes))
            seen, arcs, frontier = {root}, [], [root]
            while frontier:
                u = frontier.pop(draw(st.integers(0, len(frontier) - 1)))
                for _, v, k in sorted(G.out_edges(u, keys=True)):
                    if v not in seen:
                        seen.add(v)
                        arcs.append((u, v, k))
                        frontier.append(v)
            trees.append(Tree(root=root, arcs=tuple(arcs), height=0))
        sets.append(trees)
    return G, sets, draw(st.sampled_from(COLLECTIVES)), draw(st.integers(1, 8 * 12288))


@given(costed_tree_cases(), st.sampled_from(["booksim", "paper"]))
@settings(max_examples=60, deadline=None)
def test_engine_equals_oracle_on_costed_tree_collectives(case, preset):
    G, sets, collective, nbytes = case
    params = get_preset(preset)
    assert_same(apply_link_costs(G, tree_program(G, sets, collective, nbytes, params), params))


@pytest.mark.parametrize("algorithm", ["pipeline", "ring", "direct", "multitree", "throughput"])
def test_unit_costs_time_exactly_as_before(algorithm):
    """Explicit unit costs change nothing, bit for bit (the program is not even copied)."""
    G = build("smbi:4x4")
    params = get_preset()
    prog = tree_program(G, [[Tree(0, ((0, 1, 0),), 1)]], "broadcast", 12288, params)
    assert apply_link_costs(G, prog, params) is prog
    a = run_algorithm(G, algorithm, "allgather", 3 << 20, params, bound=False)
    H = from_json(to_json(G))  # the same network read back from its file: costs 1.0 stored
    b = run_algorithm(H, algorithm, "allgather", 3 << 20, params, bound=False)
    assert a.time == b.time


def test_one_hop_closed_forms():
    """One chunk over one arc of bandwidth 2 and latency 3, in both link models, by hand."""
    G = build("mesh:2x2")
    G.edges[0, 1, 0]["bandwidth"] = 2.0
    G.edges[0, 1, 0]["latency"] = 3.0
    tree = [[Tree(0, ((0, 1, 0),), 1)]]
    # booksim: 51 flits x 20 cycles x 3 / 2 = 1530, + 11 overhead, + drain 19, start 0
    assert simulate(G, tree, "broadcast", 12288, bound=False).time == 1530 + 11 + 19
    # paper: 12288 B at 50 GB/s = 245.76 ns, + 3 x 20 ns
    paper = simulate(G, tree, "broadcast", 12288, params=get_preset("paper"), bound=False)
    assert paper.time == pytest.approx(12288 / 50 + 60)


def test_a_slow_parallel_arc_slows_only_its_own_tree():
    """Two trees on the two parallel arcs of a doubled link: only the slow one's tree waits."""
    G = build("smbi:2x2")
    G.edges[0, 1, 1]["latency"] = 2.0
    fast = Tree(0, ((0, 1, 0),), 1)
    slow = Tree(0, ((0, 1, 1),), 1)
    prog = apply_link_costs(
        G, tree_program(G, [[fast, slow]], "broadcast", 2 * 12288, get_preset()), get_preset()
    )
    timing = run_program(prog)
    ends = timing.phases[0].last_finish_block.tolist()
    assert ends == [1031.0, 2051.0]  # one chunk each (the data split between the two trees)


def test_link_duration_matches_both_formulas():
    assert link_duration(1031.0, 11.0, 1.0, 1.0, pipelined=False) == 1031.0
    assert link_duration(1031.0, 11.0, 0.5, 1.0, pipelined=False) == 2051.0
    assert link_duration(1031.0, 11.0, 1.0, 0.05, pipelined=False) == pytest.approx(62.0)
    assert link_duration(30.0, 20.0, 1.0, 0.0, pipelined=True) == 10.0


def test_interposer_long_links_cost_more():
    """Folded torus AllGather: its length-2 links double the time of the unit ones (booksim)."""
    G = build("folded-torus:4x4")
    unit = build("folded-torus:4x4,latency=1")
    assert unit.graph["spec"] == "folded-torus:4x4,latency=1"
    t = Tree(0, ((0, 2, 0),), 1)  # a length-2 link
    params = get_preset()
    long = apply_link_costs(G, tree_program(G, [[t]], "broadcast", 12288, params), params)
    short = apply_link_costs(unit, tree_program(unit, [[t]], "broadcast", 12288, params), params)
    assert long.phases[0].duration.tolist() == [51 * 40 + 11]
    assert short.phases[0].duration.tolist() == [51 * 20 + 11]


def test_bad_costs_are_refused():
    G = build("mesh:2x2")
    G.edges[0, 1, 0]["bandwidth"] = 0.0
    with pytest.raises(TopologyError, match="bandwidth"):
        run_algorithm(G, "ring", "allgather", 1 << 16, get_preset())
    with pytest.raises(SpecError, match="positive"):
        build("mesh:2x2,bandwidth=0")
    with pytest.raises(SpecError, match="non-negative"):
        build("mesh:2x2,latency=-1")
    with pytest.raises(SpecError, match="twice"):
        build("mesh:2x2,latency=1,latency=2")


def test_cost_options_per_class_and_round_trip():
    G = build("smbi:3x3,latency=3,added-latency=2,mesh-bandwidth=0.5")
    assert (G.edges[0, 1, 0]["latency"], G.edges[0, 1, 0]["bandwidth"]) == (3.0, 0.5)
    assert (G.edges[0, 1, 1]["latency"], G.edges[0, 1, 1]["bandwidth"]) == (2.0, 1.0)
    again = build(G.graph["spec"])
    assert sorted(again.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    back = from_json(to_json(G))
    assert back.edges[0, 1, 1]["latency"] == 2.0


def test_cut_bound_counts_held_links_at_their_serial_rate():
    # cmesh 4x4, booksim: a corner router and its 4 chiplets are entered by two router links of
    # latency 2 (a flit holds each for 40 cycles: half a unit link each), so 1.0 link's worth
    # carries the 12 of 16 shards from outside: 4/3 links. A chunk of 12 KiB is 48 payload + 3
    # header flits (51 x 20 cycles per 12,288 bytes on a unit link), so 4 MiB take
    # 4 MiB / (4/3) / 12,288 x 1,020 = 261,120 cycles.
    r = run_algorithm(build("cmesh:4x4"), "tacos", "allgather", 4 << 20, get_preset("booksim"))
    assert r.bound.value == pytest.approx(4 / 3)
    assert r.bound.certificate["entering_bandwidth"] == pytest.approx(1.0)
    assert r.lower_bound == pytest.approx((4 << 20) * 3 / 4 / 12288 * 1020)
    # the paper preset pipelines its links: a wire's length costs latency, not bandwidth, so a
    # chiplet's one local port (1 link in, 15 of 16 shards outside) is the cut: 16/15 links
    p = run_algorithm(build("cmesh:4x4"), "tacos", "allgather", 4 << 20, get_preset("paper"))
    assert p.bound.value == pytest.approx(16 / 15)


@pytest.mark.parametrize("spec", ["cmesh:4x4", "folded-torus:4x4", "kite-small:4x4"])
@pytest.mark.parametrize("preset", ["booksim", "paper"])
@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
def test_no_schedule_beats_the_cut_bound_on_costed_links(spec, preset, collective):
    G = build(spec)
    for algorithm in (None, "tacos"):
        r = run_algorithm(G, algorithm, collective, 1 << 20, get_preset(preset))
        assert r.time >= r.lower_bound * (1 - 1e-9), (algorithm, r.time, r.lower_bound)
