"""Throughput-optimal RS/AG: the exact cut bound and weighted packings, checked independently.

Every check recounts from the topology: the bound against the brief's numbers and a brute force
over node sets, the certificate by counting arcs, the packings by recomputing arc loads in
rational arithmetic, spanning and heights by ``supermesh.verify``.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict, deque
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.cli import main
from supermesh.errors import SpecError
from supermesh.sim import get_preset, run_program
from supermesh.sim.collectives import tree_program
from supermesh.sim.packing import packing_program, simulate_packing
from supermesh.testing.strategies import topology_specs
from supermesh.topologies import build, compute_nodes
from supermesh.topologies.symmetry import grid_automorphisms
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.schedule.fifo import STREAMS_PER_TREE, stream_counts
from supermesh.trees.throughput.exact import height_upper_bound
from supermesh.trees.throughput.lp import column_generation
from supermesh.trees.throughput.model import Network, Progress
from supermesh.trees.throughput.pack import pack_throughput
from supermesh.trees.throughput.pricing import Pricing, bfs_labels, exact_price, label_search
from supermesh.trees.throughput.rates import choose_parts, packing_rate, rate_view
from supermesh.verify import check_packing, check_rates, check_tree


def bw(G, arc) -> Fraction:
    return Fraction(str(G.edges[arc].get("bandwidth", 1.0)))


def crossing(G, inside: set[int], leaving: bool = False) -> tuple[int, Fraction]:
    """Arcs (and their bandwidth) entering ``inside`` (or leaving it), counted by hand."""
    if leaving:
        arcs = [a for a in G.edges(keys=True) if a[0] in inside and a[1] not in inside]
    else:
        arcs = [a for a in G.edges(keys=True) if a[1] in inside and a[0] not in inside]
    return len(arcs), sum((bw(G, a) for a in arcs), Fraction(0))


def brute_force(G, leaving: bool = False) -> Fraction:
    """min over node sets S holding a rank and missing one of n B(S) / |ranks outside S|."""
    ranks = set(compute_nodes(G))
    nodes = sorted(G.nodes)
    best = None
    for size in range(1, len(nodes)):
        for combo in itertools.combinations(nodes, size):
            S = set(combo)
            if not S & ranks or ranks <= S:
                continue
            value = len(ranks) * crossing(G, S, leaving)[1] / len(ranks - S)
            best = value if best is None else min(best, value)
    assert best is not None
    return best


def depths(tree, direction: str) -> dict[int, int]:
    """Depth of every node of a tree by BFS over its own arcs (parent -> child)."""
    children = defaultdict(list)
    for u, v, _ in tree.arcs:
        p, c = (u, v) if direction == "out" else (v, u)
        children[p].append(c)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        p = queue.popleft()
        for c in children[p]:
            depth[c] = depth[p] + 1
            queue.append(c)
    return depth


def loads_rate(G, trees, shares) -> Fraction:
    """Algorithm bandwidth (links) of shares of each root's data: n min_a bw(a) / load(a)."""
    total = defaultdict(Fraction)
    for t, s in zip(trees, shares, strict=True):
        total[t.root] += s
    load = defaultdict(Fraction)
    for t, s in zip(trees, shares, strict=True):
        for a in t.arcs:
            load[a] += s / total[t.root]
    n = len(total)
    return min(n * bw(G, a) / x for a, x in load.items())


# ---------------------------------------------------------------- the bound
@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("mesh:4x4", Fraction(32, 15)),
        ("smbi:4x4", Fraction(64, 15)),
        ("smalter:4x4", Fraction(64, 15)),
        ("smbi:8x8", Fraction(256, 63)),
    ],
)
def test_bound_is_the_briefs_number_exactly(spec, expected):
    G = build(spec)
    for collective in ("allgather", "reducescatter"):
        b = throughput_bound(G, collective)
        assert b.value == expected
        # the certificate re-checked by counting arcs by hand
        cert = b.certificate
        inside = set(cert["set"])
        arcs, bandwidth = crossing(G, inside, leaving=collective == "reducescatter")
        assert (arcs, str(bandwidth)) == (cert["arcs"], cert["bandwidth"])
        outside = len(set(compute_nodes(G)) - inside)
        assert cert["ranks_outside"] == outside
        assert Fraction(len(compute_nodes(G))) * bandwidth / outside == expected
    assert f"{float(throughput_bound(build('smbi:8x8')).value):.2f}" == "4.06"


def test_allreduce_is_reducescatter_then_allgather():
    G = build("smbi:4x4")
    b = throughput_bound(G, "allreduce")
    assert b.value == Fraction(32, 15)  # 1 / (15/64 + 15/64)
    assert [p["collective"] for p in b.certificate["phases"]] == ["reducescatter", "allgather"]
    with pytest.raises(SpecError):
        throughput_bound(G, "broadcast")


@pytest.mark.parametrize("spec", ["mesh:2x3", "smbi:3x3", "smuni:3x3", "mesh:2x2,memory=south"])
def test_bound_equals_brute_force_over_every_node_set(spec):
    G = build(spec)
    assert throughput_bound(G, "allgather").value == brute_force(G)
    assert throughput_bound(G, "reducescatter").value == brute_force(G, leaving=True)


def assert_bound_is_brute_force(spec, changes):
    """The bound of ``spec`` with some arcs' bandwidths changed equals the brute-force minimum."""
    G = build(spec)
    arcs = sorted(G.edges(keys=True))
    for pick, bandwidth in changes:
        G.edges[arcs[pick % len(arcs)]]["bandwidth"] = bandwidth
    assert throughput_bound(G, "allgather").value == brute_force(G)
    assert throughput_bound(G, "reducescatter").value == brute_force(G, leaving=True)


@given(
    st.sampled_from(["mesh:3x3", "smbi:3x3", "smalter:3x3", "torus:3x3", "mesh:2x4", "smbi:3x4"]),
    st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from([0.5, 2.0, 3.0])), max_size=3),
)
def test_bound_with_symmetry_equals_brute_force_when_bandwidths_break_it(spec, changes):
    # the bound checks one rank per orbit of the grid automorphisms; a bandwidth changed on
    # some arcs breaks the symmetry, and the answer must still be the brute-force minimum
    assert_bound_is_brute_force(spec, changes)


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from(["mesh:3x3", "smbi:3x3", "mesh:2x4"]),
    st.lists(
        st.tuples(st.integers(0, 10**6), st.sampled_from([math.sqrt(0.5), 1 / math.sqrt(5)])),
        min_size=1,
        max_size=4,
    ),
)
def test_bound_with_irrational_bandwidths_equals_brute_force(spec, changes):
    # booksim's serial capacities are b / l, and a wire of length sqrt(2) or sqrt(5) (the
    # double butterfly's cross links) makes them irrational: as fractions their common scale
    # is past what a float max-flow holds exactly, and the cut checks must stay exact
    assert_bound_is_brute_force(spec, changes)


def test_the_double_butterfly_bound_in_the_booksim_preset():
    # was "the exact cut iteration did not improve (internal error)": its corner chiplet has a
    # unit link and a sqrt(5)-long one in, 1 + 1 / sqrt(5) links, times 16 / 15
    from supermesh.sim.link_costs import serial_capacity_network

    net = serial_capacity_network(build("double-butterfly:4x4"), get_preset("booksim"))
    bound = throughput_bound(net, "allgather")
    assert float(bound.value) == pytest.approx((1 + 1 / math.sqrt(5)) * 16 / 15, rel=1e-12)


# ---------------------------------------------------------------- weighted packings
def check_weighted(G, p, direction="out"):
    """Spanning, heights, shares summing to 1, exact rate == bound, rate disjointness."""
    trees = p.trees
    for t in trees:
        assert check_tree(G, t, direction=direction) == []
        assert max(depths(t, direction).values()) == t.height <= p.objective
    shares = [Fraction(s) for s in p.stats["shares"]]
    per_root = defaultdict(Fraction)
    for t, s in zip(trees, shares, strict=True):
        per_root[t.root] += s
    assert set(per_root) == set(compute_nodes(G))
    assert all(v == 1 for v in per_root.values())
    rate = loads_rate(G, trees, shares)
    assert str(rate) == p.stats["algbw_links"]
    assert check_rates(G, rate_view(p)) == []  # shares as fractions of a link's rate
    return rate


@pytest.mark.parametrize(
    ("spec", "diameter"), [("mesh:3x3", 4), ("mesh:4x4", 6), ("smbi:4x4", 6), ("smalter:4x4", 6)]
)
def test_packing_reaches_the_bound_at_the_diameter(spec, diameter):
    G = build(spec)
    p = pack_throughput(G)
    assert p.status == "optimal"
    assert p.objective == p.lower_bound == diameter  # every rank roots a tree: height >= diam
    assert check_weighted(G, p) == throughput_bound(G).value


def test_reducescatter_in_trees_and_no_symmetry_agree():
    G = build("smbi:3x3")
    p_in = pack_throughput(G, direction="in")
    p_plain = pack_throughput(G, symmetry=False)
    assert p_in.direction == "in"
    assert p_in.status == p_plain.status == "optimal"
    assert check_weighted(G, p_in, "in") == check_weighted(G, p_plain) == Fraction(9, 2)


def test_equal_parts_reach_the_bound_with_whole_trees():
    G = build("smbi:4x4")
    p = pack_throughput(G, parts="auto")
    k = p.stats["parts"]["parts"]
    assert k == 4  # rho* / n = 4/15: 4 trees per rank, at most 15 on any arc
    per_root = defaultdict(int)
    load = defaultdict(int)
    for t in p.trees:
        per_root[t.root] += 1
        assert t.share == 0.25
        for a in t.arcs:
            load[a] += 1
    assert set(per_root.values()) == {4}
    assert max(load.values()) == 15
    assert check_weighted(G, p) == Fraction(64, 15)
    assert p.status == "optimal"


def test_height_knobs():
    G = build("smalter:4x4")
    low = pack_throughput(G, max_height=5)  # below the diameter: no tree from a corner fits
    assert low.status == "infeasible"
    assert low.certificate["distance"] == 6
    assert check_packing(G, low) == []  # the verifier re-checks the eccentricity certificate
    slack = pack_throughput(G, root_slack=0)  # every tree as low as its root allows
    assert slack.status == "feasible"
    assert 0 < slack.stats["rate_fraction"] < 1
    for t in slack.trees:
        ecc = max(depths(t, "out")[v] for v in compute_nodes(G))
        assert t.height == ecc  # a tree spanning the ranks can be no lower
    with pytest.raises(SpecError):
        pack_throughput(G, min_rate_fraction=0)


@settings(max_examples=12)
@given(topology_specs(families=["mesh", "smbi", "smalter", "smuni", "torus"], max_side=4))
def test_packing_never_beats_the_bound_and_reaches_it(spec):
    G = build(spec)
    p = pack_throughput(G, time_limit=30)
    rate = check_weighted(G, p)
    bound = throughput_bound(G).value
    assert rate <= bound
    if len(compute_nodes(G)) == G.number_of_nodes():  # no relays: ForestColl's theorem
        assert rate == bound


def test_lp_duality_bound_is_weak_duality_and_sees_eccentricity():
    G = build("smbi:4x4")
    net = Network.build(G, list(range(16)), "out", True)
    progress = Progress()
    target = float(Fraction(64, 15)) / 16
    assert column_generation(net, 6, target, progress, deadline=float("inf"))
    ub, proved, _ = height_upper_bound(net, 6, progress, time_limit=20)
    assert proved
    assert ub >= target * (1 - 1e-6)  # no bound below a rate the LP reaches
    assert height_upper_bound(net, 5, progress, time_limit=5)[0] == 0  # corners need 6


@settings(max_examples=10)
@given(st.lists(st.floats(0, 1), min_size=24, max_size=24), st.integers(0, 8))
def test_exact_pricing_never_above_the_heuristic(prices, root):
    G = build("mesh:3x3")
    net = Network.build(G, list(range(9)), "out", False)
    pricing = Pricing(9, net.arcs, prices)
    dist = bfs_labels(9, net.arcs, root)
    for height in (4, 5):
        heuristic = label_search(pricing, root, height, dist, net.relay)
        tree, bound, proved = exact_price(pricing, root, height, dist, net.relay)
        assert proved
        assert tree is not None
        assert bound <= tree.cost + 1e-9
        assert tree.cost <= heuristic.cost + 1e-6
        assert len(tree.arcs) == 8
        assert tree.height <= height


# ---------------------------------------------------------------- simulation
def test_program_with_depth_order_is_the_simulators_program():
    G = build("smbi:4x4")
    p = pack_throughput(G, parts=4)
    params = get_preset("booksim")
    for collective in ("allgather", "reducescatter"):
        ours = run_program(
            packing_program(G, p, collective, 1 << 22, params, order="depth", split=False)
        )
        ref = run_program(tree_program(G, p, collective, 1 << 22, params))
        assert ours.end == ref.end


def test_scheduled_fifo_runs_at_the_bound():
    G = build("smalter:4x4")
    p = pack_throughput(G, parts=4)
    params = get_preset("booksim")
    rounds = 30  # chunks per tree
    r = simulate_packing(G, p, "allgather", 16 * 4 * rounds * params.chunk_bytes, params=params)
    busy = rounds * 15 * params.chunk_period()  # 15 trees on the busiest arcs, back to back
    assert busy <= r.time <= busy + 8 * params.chunk_period()


def test_unequal_shares_stream_at_their_rates():
    """Shares 1 and 1/2 (column generation's exact packing of a 4x4 mesh): as streams of one
    chunk count the busiest arcs run back to back; served chunk by chunk they do not."""
    G = build("mesh:4x4")
    p = pack_throughput(G, method="colgen")
    assert {Fraction(x) for x in p.stats["shares"]} == {Fraction(1), Fraction(1, 2)}
    params = get_preset("booksim")
    block = 60  # chunks per root
    nbytes = 16 * block * params.chunk_bytes
    # every spanning tree has 15 arcs; the corner cut's 2 in-arcs carry 15 roots' data: 7.5 each
    busy = 7.5 * block * params.chunk_period()
    fast = simulate_packing(G, p, "allgather", nbytes, params=params)
    slow = simulate_packing(G, p, "allgather", nbytes, params=params, equalise=False)
    assert busy <= fast.time <= busy + 8 * params.chunk_period()
    assert slow.time > 1.03 * busy


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=40))
def test_stream_counts_keep_every_chunk_and_even_out(chunks):
    streams = stream_counts(chunks)
    assert [sum(x) for x in streams] == chunks
    assert sum(len(x) for x in streams) <= STREAMS_PER_TREE * len(chunks)
    assert all(max(x) - min(x) <= 1 for x in streams)
    longest = max(max(x) for x in streams)
    shortest = min(min(x) for x in streams)
    s = min(chunks)
    if max(chunks) <= 4 * s and s >= 3:
        # the smallest tree as one stream is a candidate: a tree of c chunks then runs as
        # round(c / s) streams, each of at most 1.5 s + 1 and at least s / 1.5 chunks
        assert longest * (s // 1.5) <= (1.5 * s + 1) * shortest
    if max(chunks) == min(chunks):
        assert streams == [[c] for c in chunks]


def test_choose_parts():
    assert choose_parts(Fraction(256, 63), 64, 1 << 20) == 2
    assert choose_parts(Fraction(64, 15), 16, 512 << 20) == 4


def test_grid_automorphisms():
    assert len(grid_automorphisms(build("smbi:5x5"))) == 8
    assert len(grid_automorphisms(build("smalter:5x5"))) == 4  # rotations only
    assert len(grid_automorphisms(build("mesh:3x4"))) == 4


# ---------------------------------------------------------------- CLI
def test_cli_bound_collective(capsys):
    main(["bound", "smbi:4x4", "--collective", "allgather", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["algbw_links"]["fraction"] == "64/15"
    assert doc["algbw_links"]["float"] == pytest.approx(64 / 15)
    inside = set(doc["certificate"]["set"])
    assert crossing(build("smbi:4x4"), inside)[0] == doc["certificate"]["arcs"]
    with pytest.raises(SystemExit) as exc:
        main(["bound", "smbi:4x4", "--collective", "allgather", "--roots", "0"])
    assert exc.value.code == 2


@pytest.mark.parametrize("parts", [3, 5])
def test_part_counts_off_the_natural_multiple_reach_their_own_optimum(parts):
    # mesh:4x4: rho* = 32/15, so K parts per rank put at least ceil(16 K / (32/15)) trees on
    # some unit link (whole trees); K = 3 -> 23 (rate 48/23), K = 5 -> 38 (rate 40/19).
    G = build("mesh:4x4")
    p = pack_throughput(G, parts=parts)
    whole = math.ceil(Fraction(16 * parts) / Fraction(32, 15))
    assert Fraction(p.stats["algbw_links"]) == Fraction(16 * parts, whole)
    assert packing_rate(G, p) == Fraction(16 * parts, whole)
    assert p.status == "feasible"  # below the cut bound, so never called optimal
    assert not [f for f in check_packing(G, p) if f.severity == "error"]


def test_same_trees_on_a_slow_clock(monkeypatch):
    # smalter:5x5 with 4 parts needs the CP-SAT polish; its limits are fixed, not "time left",
    # so a clock that runs 5 ms per reading (a loaded machine) gives the same trees
    import time as _time

    G = build("smalter:5x5")
    first = pack_throughput(G, parts=4)
    assert first.stats["parts"]["method"] == "dive+cpsat"
    real = _time.perf_counter
    ticks = [0.0]

    def slow() -> float:
        ticks[0] += 0.005
        return real() + ticks[0]

    monkeypatch.setattr(_time, "perf_counter", slow)
    again = pack_throughput(G, parts=4)
    assert [t.arcs for t in again.trees] == [t.arcs for t in first.trees]
    assert again.status == first.status
    assert again.objective == first.objective


def test_auto_parts_stay_affordable_with_an_irrational_bandwidth():
    # the corner's in-links at 1 / sqrt(2): the exact rate's numerator, and so the natural part
    # count, is ~10^16 (sim -a throughput ran out of memory); "auto" splits into at most
    # AUTO_PARTS_MOST parts instead, and says the rate falls short of the bound
    from supermesh.trees.schedule.collective import throughput_packing
    from supermesh.trees.throughput.parts import AUTO_PARTS_MOST, natural_parts

    G = build("mesh:3x3")
    for _, v, _, d in G.edges(keys=True, data=True):
        if v == 0:
            d["bandwidth"] = math.sqrt(0.5)
    bound = throughput_bound(G, "allgather").value
    assert natural_parts(Network.build(G, list(range(9)), "out", True), bound) > 10**12
    packing = throughput_packing(G, "out", time_limit=10)
    assert len(packing.trees) <= 9 * AUTO_PARTS_MOST
    assert Fraction(packing.stats["algbw_links"]) <= bound
    assert check_tree(G, packing.trees[0], direction="out") == []


def test_parts_polish_with_capacities_past_the_solvers_integers():
    # a row of links at 1 / sqrt(5) (a measured wire's rate typed into a file): the CP-SAT
    # polish scaled the loads by the capacities' common denominator (~10^16) and died with an
    # ortools TypeError; now it rounds the capacities down and what it returns still fits
    G = build("mesh:3x3")
    for u, v, _, d in G.edges(keys=True, data=True):
        if u < 3 and v < 3:
            d["bandwidth"] = 1 / math.sqrt(5)
    bound = throughput_bound(G, "allgather").value
    packing = pack_throughput(G, parts="auto", time_limit=10)
    rate = loads_rate(G, packing.trees, [Fraction(1)] * len(packing.trees))
    assert str(rate) == packing.stats["algbw_links"]
    assert 0.9 * bound <= rate <= bound
    for t in packing.trees:
        assert check_tree(G, t, direction="out") == []


def test_auto_parts_with_irrational_rates_stop_near_the_bound():
    # booksim's held wires of Kite-medium 4x4 carry 1, 1 / sqrt 2 and 1 / 2 links: "auto" split
    # into 64 parts reached 0.879 of the bound in 6 s; doubling from 4 it stops at the first
    # count within AUTO_PARTS_NEAR
    from supermesh.sim.link_costs import serial_capacity_network
    from supermesh.trees.throughput.parts import AUTO_PARTS_NEAR

    H = serial_capacity_network(build("kite-medium:4x4"), get_preset("booksim"))
    bound = throughput_bound(H, "allgather").value
    packing = pack_throughput(H, parts="auto", time_limit=10)
    parts = packing.stats["parts"]["parts"]
    assert parts in (4, 8, 16, 32, 64)
    rate = loads_rate(H, packing.trees, [Fraction(1)] * len(packing.trees))
    assert str(rate) == packing.stats["algbw_links"]
    assert AUTO_PARTS_NEAR * bound <= rate <= bound
    assert len(packing.trees) == 16 * parts
