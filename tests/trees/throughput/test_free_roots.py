"""The free-root fractional packing: rates against Frank's subpartition formula and hand counts."""

from __future__ import annotations

import itertools
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import TopologyError
from supermesh.topologies import build
from supermesh.trees.throughput.free_roots import free_root_packing


def _spans(G: nx.MultiDiGraph, root: int, arcs, direction: str) -> bool:
    """Every node but the root has exactly one parent arc, and all are reached from the root."""
    pairs = [(u, v) if direction == "out" else (v, u) for u, v, _ in arcs]
    children = Counter(c for _, c in pairs)
    if root in children or any(n != 1 for n in children.values()):
        return False
    return set(nx.descendants(nx.DiGraph(pairs), root)) | {root} == set(G.nodes)


def _check_packing(G: nx.MultiDiGraph, found, direction: str) -> None:
    load: Counter = Counter()
    for t in found.packing.trees:
        assert _spans(G, t.root, t.arcs, direction)
        for a in t.arcs:
            assert G.has_edge(*a)
            load[a] += t.share * found.rate
    for a, x in load.items():
        assert x <= G.edges[a].get("bandwidth", 1.0) * (1 + 1e-7)
    assert sum(t.share for t in found.packing.trees) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", ["mesh:4x4", "mesh:5x5", "mesh:8x8"])
@pytest.mark.parametrize("direction", ["out", "in"])
def test_mesh_rate_is_four_corners(spec: str, direction: str) -> None:
    # Frank: the four corners (2 arcs in each) form a subpartition, 8 / (4 - 1) links at most
    G = build(spec)
    found = free_root_packing(G, direction)
    assert found.status == "optimal"
    assert found.rate == pytest.approx(8 / 3)
    assert found.upper == pytest.approx(8 / 3)
    _check_packing(G, found, direction)


def test_odd_smalter_rate_is_its_arc_count() -> None:
    # BRIEF: SMAlter 5x5's 4 corner trees use every arc: 96 arcs, 24 per spanning tree
    G = build("smalter:5x5")
    assert G.number_of_edges() == 96
    found = free_root_packing(G)
    assert found.rate == pytest.approx(4.0)
    assert found.status == "optimal"
    _check_packing(G, found, "out")


def test_router_nodes_are_refused() -> None:
    with pytest.raises(TopologyError, match="router nodes"):
        free_root_packing(build("cmesh:4x4"))


def _frank(G: nx.MultiDiGraph) -> float:
    """min over subpartitions X1..Xt (t >= 2) of sum B_in(Xi) / (t - 1), by enumeration."""
    nodes = sorted(G.nodes)
    best = float("inf")
    for labels in itertools.product(range(len(nodes) + 1), repeat=len(nodes)):
        blocks: dict[int, set[int]] = {}
        for v, b in zip(nodes, labels, strict=True):
            if b:
                blocks.setdefault(b, set()).add(v)
        if len(blocks) < 2:
            continue
        entering = sum(
            d.get("bandwidth", 1.0)
            for X in blocks.values()
            for u, v, d in G.edges(data=True)
            if v in X and u not in X
        )
        best = min(best, entering / (len(blocks) - 1))
    return best


@st.composite
def strong_digraphs(draw) -> nx.MultiDiGraph:
    n = draw(st.integers(3, 5))
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(n), kind="compute")
    order = draw(st.permutations(range(n)))
    for i in range(n):  # a directed cycle keeps it strongly connected
        G.add_edge(order[i], order[(i + 1) % n], bandwidth=draw(st.sampled_from([1.0, 2.0])))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=8))
    for u, v in extra:
        if u != v:
            G.add_edge(u, v, bandwidth=draw(st.sampled_from([0.5, 1.0, 3.0])))
    return G


@settings(max_examples=25, deadline=None)
@given(strong_digraphs())
def test_rate_is_franks_subpartition_minimum(G: nx.MultiDiGraph) -> None:
    found = free_root_packing(G)
    assert found.status == "optimal"
    assert found.rate == pytest.approx(_frank(G), rel=1e-6)
    _check_packing(G, found, "out")
