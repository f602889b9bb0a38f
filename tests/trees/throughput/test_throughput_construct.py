"""Constructed throughput packings (mesh dimension order, SMBi combs), checked independently.

Every fact is recounted from the trees and the topology, never read from the construction: arc
loads in exact fractions, the corner cut by counting arcs, the max-flow bound of
:func:`throughput_bound` on small grids, per-root arc-disjointness by set intersection, spanning
and heights by ``supermesh.verify``, eccentricities by breadth-first search.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.topologies import build
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.throughput.construct import constructed_packing, construction_for
from supermesh.trees.throughput.pack import pack_throughput
from supermesh.verify import check_packing, check_tree


def recount(G, trees, shares) -> tuple[Fraction, dict]:
    """Exact rate of the trees: min over arcs of n * bandwidth / (sum of shares on the arc)."""
    load: dict = defaultdict(Fraction)
    for t, s in zip(trees, shares, strict=True):
        for a in t.arcs:
            load[a] += s
    n = G.number_of_nodes()
    return min(n * Fraction(str(G.edges[a]["bandwidth"])) / x for a, x in load.items()), load


def corner_cut(G) -> Fraction:
    """The single-node cut of the node with the fewest arcs in: n * in-degree / (n - 1)."""
    n = G.number_of_nodes()
    return min(Fraction(n * G.in_degree(v), n - 1) for v in G.nodes)


def eccentricity(G, r) -> int:
    dist = {r: 0}
    queue = deque([r])
    while queue:
        u = queue.popleft()
        for v in G.successors(u):
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    return max(dist.values())


@pytest.mark.parametrize("family", ["mesh", "smbi"])
@pytest.mark.parametrize("rows", [3, 4, 5, 7])
@pytest.mark.parametrize("cols", [3, 4, 6])
def test_rate_equals_the_max_flow_bound(family, rows, cols):
    G = build(f"{family}:{rows}x{cols}")
    c = constructed_packing(G)
    rate, _ = recount(G, c.trees, c.shares)
    assert rate == c.rate == c.bound == throughput_bound(G).value == corner_cut(G)
    # the corner cut is tight: every arc into a corner carries exactly its bandwidth
    assert c.certificate["set"] == [0] or G.in_degree(c.certificate["set"][0]) == G.in_degree(0)


@settings(max_examples=25)
@given(
    st.sampled_from(["mesh", "smbi"]),
    st.integers(min_value=3, max_value=9),
    st.integers(min_value=3, max_value=9),
    st.sampled_from(["out", "in"]),
)
def test_every_size_verifies(family, rows, cols, direction):
    spec = f"{family}:{rows}x{cols}"
    G = build(spec)
    p = pack_throughput(G, direction=direction, method="construct")
    assert check_packing(G, p) == []
    assert p.stats["algbw_links"] == str(corner_cut(G))
    shares = [Fraction(x) for x in p.stats["shares"]]
    per_root: dict[int, Fraction] = defaultdict(Fraction)
    for t, s in zip(p.trees, shares, strict=True):
        per_root[t.root] += s
    assert set(per_root.values()) == {Fraction(1)}
    assert recount(G, p.trees, shares)[0] == corner_cut(G)


@pytest.mark.parametrize("size", [(3, 3), (4, 6), (6, 6), (7, 9), (10, 10)])
def test_comb_trees_of_a_root_are_arc_disjoint(size):
    rows, cols = size
    G = build(f"smbi:{rows}x{cols}")
    c = constructed_packing(G)
    by_root: dict[int, list] = defaultdict(list)
    for t in c.trees:
        by_root[t.root].append(t)
    for r, trees in by_root.items():
        assert len(trees) == 4
        used = Counter(a for t in trees for a in t.arcs)
        assert max(used.values()) == 1, r  # parallel arcs have their own keys
        for t in trees:
            assert check_tree(G, t, direction="out") == []
    # hence an arc carries at most one tree of each root other than its head: n - 1 quarters
    load = Counter(a for t in c.trees for a in t.arcs)
    assert max(load.values()) == rows * cols - 1


@pytest.mark.parametrize("n", [6, 7, 8, 9, 12, 13])
def test_comb_heights_within_diameter_plus_one(n):
    G = build(f"smbi:{n}x{n}")
    c = constructed_packing(G)
    assert max(t.height for t in c.trees) == 2 * n - 1  # diameter 2n - 2, plus one
    for t in c.trees:
        assert t.height >= eccentricity(G, t.root)


@pytest.mark.parametrize("size", [(2, 2), (2, 7), (4, 4), (5, 8), (9, 6)])
def test_dimension_order_trees_are_height_optimal(size):
    rows, cols = size
    G = build(f"mesh:{rows}x{cols}")
    p = pack_throughput(G)
    assert p.method == "construct"
    assert p.status == "optimal"
    for t in p.trees:
        assert t.height == eccentricity(G, t.root)
    assert p.objective == rows + cols - 2 == p.lower_bound
    if rows != cols:  # a rectangle needs unequal shares; both trees of a root carry some
        assert len(set(p.stats["shares"])) == 2


def test_rectangle_shares_saturate_both_directions():
    G = build("mesh:3x5")
    c = constructed_packing(G)
    _, load = recount(G, c.trees, c.shares)
    n = 15
    top = {a: x for a, x in load.items() if x == Fraction(n - 1, 2)}  # full at the bound
    down = {a for a in top if a[1] - a[0] == 5}
    east = {a for a in top if a[1] - a[0] == 1}
    assert down  # the last row and the last column are both saturated
    assert east


def test_parts_repeat_the_trees():
    G = build("smbi:8x8")
    p = pack_throughput(G, parts=8, method="construct")
    assert len(p.trees) == 64 * 8
    assert set(p.stats["shares"]) == {"1/8"}
    assert p.stats["parts"]["max_load"] == str(2 * 63) == p.stats["parts"]["load_bound"]
    assert check_packing(G, p) == []
    with pytest.raises(SpecError, match="no construction"):
        pack_throughput(G, parts=6, method="construct")


def test_method_choice():
    small = build("smbi:6x6")
    assert pack_throughput(small).method == "colgen"  # small: column generation is optimal
    assert pack_throughput(build("smbi:11x11")).method == "construct"
    assert pack_throughput(build("mesh:6x6")).method == "construct"  # height-optimal anyway
    assert pack_throughput(build("mesh:6x6"), method="colgen").method == "colgen"
    with pytest.raises(SpecError, match="no construction"):
        pack_throughput(build("smalter:6x6"), method="construct")
    with pytest.raises(SpecError, match="method"):
        pack_throughput(small, method="fast")


def test_options_that_the_construction_cannot_meet_fall_back():
    G = build("smbi:11x11")  # tallest comb tree 21
    assert construction_for(G, "out", None, 21, 1.0, None) is not None
    assert construction_for(G, "out", None, 20, 1.0, None) is None  # lower cap: colgen
    assert construction_for(G, "out", range(60), None, 1.0, None) is None  # not every rank
    assert construction_for(G, "out", None, None, 0.9, None) is None  # lower trees wanted
    assert construction_for(G, "out", None, None, 1.0, 0) is None  # root slack
    assert construction_for(build("mesh:5x5"), "out", None, None, 0.9, None) is not None


def test_bandwidth_scales_the_rate():
    G = build("mesh:4x4")
    for _, _, data in G.edges(data=True):
        data["bandwidth"] = 2.5
    c = constructed_packing(G)
    assert c.rate == Fraction(5, 2) * Fraction(32, 15) == throughput_bound(G).value
