"""SMAlter's constructed throughput packings (band-repaired combs), checked independently.

Every fact is recounted from the trees and the topology, never read from the construction:
arc loads in exact fractions over every arc, the max-flow bound of :func:`throughput_bound`,
spanning and heights by ``supermesh.verify``, the diameter by breadth-first search.
"""

from __future__ import annotations

from collections import Counter, deque
from fractions import Fraction

import pytest

from supermesh.topologies import build
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.throughput.construct import constructed_packing
from supermesh.trees.throughput.pack import pack_throughput
from supermesh.verify import check_tree


def diameter(G) -> int:
    worst = 0
    for r in G.nodes:
        dist = {r: 0}
        queue = deque([r])
        while queue:
            u = queue.popleft()
            for v in G.successors(u):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        worst = max(worst, *dist.values())
    return worst


@pytest.mark.parametrize("n", [8, 10, 12])
def test_every_arc_carries_exactly_its_bandwidth_at_the_max_flow_bound(n):
    G = build(f"smalter:{n}x{n}")
    c = constructed_packing(G)
    assert c is not None
    assert c.name == "alter-combs"
    load: Counter = Counter()
    for t, s in zip(c.trees, c.shares, strict=True):
        for a in t.arcs:
            load[a] += s
    # every arc of the topology used, each by n*n - 1 quarter shares: saturated at the bound
    assert set(load) == set(G.edges(keys=True))
    assert set(load.values()) == {Fraction(n * n - 1, 4)}
    rate = min(Fraction(n * n) / x for x in load.values())
    assert rate == throughput_bound(G, "allgather").value == Fraction(4 * n * n, n * n - 1)


@pytest.mark.parametrize("n", [8, 10])
@pytest.mark.parametrize("direction", ["out", "in"])
def test_trees_span_and_stay_within_the_diameter_plus_one(n, direction):
    G = build(f"smalter:{n}x{n}")
    c = constructed_packing(G, direction)
    H = diameter(G) + 1
    roots = Counter(t.root for t in c.trees)
    assert roots == dict.fromkeys(G.nodes, 4)
    for t in c.trees:
        assert not check_tree(G, t, direction=direction), t.root
    # verify's own height count, not the construction's
    assert max(t.height for t in c.trees) <= H


def test_pack_throughput_takes_the_construction_above_100_chiplets():
    G = build("smalter:12x12")
    p = pack_throughput(G, parts="auto")
    assert p.method == "construct"
    assert p.stats["algbw_links"] == str(Fraction(4 * 144, 143))
    assert p.objective <= 23


@pytest.mark.parametrize("spec", ["smalter:6x6", "smalter:5x5", "smalter:9x9", "smalter:8x12"])
def test_no_construction_where_the_repair_does_not_apply(spec):
    # 6x6 corners need the diameter plus two; odd sizes have 3-link corners; rectangles fail
    # the partner pairing: the caller falls back to column generation
    assert constructed_packing(build(spec)) is None
