"""Free-share AllReduce packings: equal parts at the free-root rate."""

from __future__ import annotations

from collections import Counter

import networkx as nx

from supermesh.topologies import build
from supermesh.trees.schedule import free_share_packing, free_share_rate, whole_tree_packing


def test_mesh_packing_is_eight_equal_parts_on_three_copies() -> None:
    # rate 8/3: 8 trees, each arc carrying at most 3 of them; two roots at each corner
    G = build("mesh:4x4")
    p = free_share_packing(G)
    assert p is not None
    assert sorted(t.root for t in p.trees) == [0, 0, 3, 3, 12, 12, 15, 15]
    assert {t.share for t in p.trees} == {1 / 8}
    load = Counter(a for t in p.trees for a in t.arcs)
    assert max(load.values()) <= 3
    assert all(G.has_edge(*a) for a in load)
    for t in p.trees:
        D = nx.DiGraph([(u, v) for u, v, _ in t.arcs])
        assert len(t.arcs) == 15
        assert set(nx.descendants(D, t.root)) == set(G.nodes) - {t.root}
    assert p.objective == 6  # the diameter


def test_no_free_share_where_equal_parts_are_best() -> None:
    # SMAlter 4x4: free roots reach 64/15 links, the equal-part AllGather bound too
    assert free_share_rate(build("smalter:4x4")) is None
    assert free_share_packing(build("smalter:4x4")) is None


def test_no_free_share_on_one_way_or_routed_topologies() -> None:
    assert free_share_rate(build("smuni:4x4")) is None
    assert free_share_rate(build("cmesh:4x4")) is None


def test_whole_trees_where_free_shares_gain_nothing() -> None:
    # SMAlter 4x4: rho = 64/15 links, so 4 arc-disjoint spanning trees (Frank, free roots)
    G = build("smalter:4x4")
    p = whole_tree_packing(G)
    assert p is not None
    assert len(p.trees) == 4
    assert {t.share for t in p.trees} == {1 / 4}
    used = [a for t in p.trees for a in t.arcs]
    assert len(used) == len(set(used)) == 4 * 15  # arc-disjoint, 15 arcs each
    for t in p.trees:
        D = nx.DiGraph([(u, v) for u, v, _ in t.arcs])
        assert set(nx.descendants(D, t.root)) == set(G.nodes) - {t.root}
    assert whole_tree_packing(build("mesh:4x4")) is None  # free shares gain rate there
    assert whole_tree_packing(build("smuni:4x4")) is None  # one-way links: no reduce back
