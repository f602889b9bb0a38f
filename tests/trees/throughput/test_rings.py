"""Rings: arc-disjoint directed Hamiltonian cycles, one tree per cycle and rank.

Independent facts: a Hamiltonian cycle alternates the sides of a bipartite graph, so a grid of
odd size (13 + 12 chiplets on 5x5) has none; the complete digraph on 4 nodes has no
decomposition into directed Hamiltonian cycles, on 5 nodes it has one (Bermond and Faber, 1976);
the cut bounds of the brief (4x4 mesh 32/15, SMBi and SMAlter 64/15, 8x8 SMAlter 4.06 = 256/63);
k cycles carry n - 1 shares of 1/k on every arc, so the rate is k n / (n - 1).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.topologies import build
from supermesh.trees.throughput.rings import hamiltonian_rings, ring_packing
from supermesh.verify.trees.packing import check_packing


def complete_digraph(n: int) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(n))
    for u in range(n):
        for v in range(n):
            if u != v:
                G.add_edge(u, v, key=0)
    return G


def assert_rings(G: nx.MultiDiGraph, rings: list) -> None:
    """Each ring visits every node once and closes; together they use no arc twice."""
    nodes = sorted(G.nodes)
    for ring in rings:
        assert [u for u, _, _ in ring] == [ring[0][0], *[v for _, v, _ in ring[:-1]]]
        assert ring[-1][1] == ring[0][0]
        assert sorted(u for u, _, _ in ring) == nodes
        for u, v, k in ring:
            assert G.has_edge(u, v, key=k)
    used = Counter(a for ring in rings for a in ring)
    assert max(used.values()) == 1


@pytest.mark.parametrize(
    ("spec", "rate"),
    [
        ("mesh:4x4", "32/15"),
        ("smbi:4x4", "64/15"),
        ("smalter:4x4", "64/15"),
        ("mesh:8x8", "128/63"),
        ("smalter:8x8", "256/63"),
    ],
)
def test_rings_reach_the_briefs_cut_bounds(spec, rate):
    G = build(spec)
    p = ring_packing(G)
    assert p is not None
    k = 2 if spec.startswith("mesh") else 4
    n = G.number_of_nodes()
    assert p.stats["algbw_links"] == rate == str(Fraction(k * n, n - 1))
    assert len(p.trees) == k * n
    assert all(t.height == n - 1 and t.share == 1 / k for t in p.trees)
    # every arc carries n - 1 trees: the load of the bound, on every arc
    load = Counter(a for t in p.trees for a in t.arcs)
    assert set(load.values()) == {n - 1}
    assert len(load) == k * n  # each of the k rings has n arcs
    if spec.startswith("smalter"):  # every chiplet has 4 links: the rings use every arc
        assert len(load) == G.number_of_edges()
    assert [f for f in check_packing(G, p) if f.severity == "error"] == []


@pytest.mark.parametrize("spec", ["mesh:5x5", "smbi:5x5", "smalter:5x5", "smalter:5x5,corners=4"])
def test_odd_grids_have_no_rings(spec):
    assert ring_packing(build(spec)) is None


def test_complete_digraphs_of_bermond_and_faber():
    assert hamiltonian_rings(complete_digraph(4), 3) is None
    rings = hamiltonian_rings(complete_digraph(5), 4)
    assert rings is not None
    assert_rings(complete_digraph(5), rings)


def test_relays_and_unequal_links_get_no_rings():
    assert ring_packing(build("mesh:4x4,memory=south")) is None  # memory chiplets relay
    G = build("mesh:4x4")
    for _, _, d in list(G.edges(data=True))[:2]:
        d["bandwidth"] = 2.0
    assert ring_packing(G) is None


def test_in_trees_run_round_the_cycle_into_their_root():
    G = build("smbi:4x4")
    out, into = ring_packing(G, "out"), ring_packing(G, "in")
    assert into.direction == "in"
    for t in into.trees:
        sinks = Counter(v for _, v, _ in t.arcs)
        sources = Counter(u for u, _, _ in t.arcs)
        start = next(u for u in sources if u not in sinks)
        end = next(v for v in sinks if v not in sources)
        assert end == t.root
        assert start != t.root
    assert {a for t in out.trees for a in t.arcs} == {a for t in into.trees for a in t.arcs}
    assert [f for f in check_packing(G, into) if f.severity == "error"] == []


def test_memo_keeps_the_answer_and_bad_input_is_refused():
    memo: dict = {}
    G = build("mesh:4x4")
    first = ring_packing(G, memo=memo)
    assert memo["out"] is first
    assert ring_packing(G, memo=memo) is first
    cycles = memo["cycles"]
    into = ring_packing(G, "in", memo=memo)  # the same cycles, not solved again
    assert memo["cycles"] is cycles
    assert {a for t in into.trees for a in t.arcs} == {a for ring in cycles for a in ring}
    with pytest.raises(SpecError, match="direction"):
        ring_packing(G, "sideways")
    with pytest.raises(SpecError, match="positive integer"):
        hamiltonian_rings(G, 0)


@given(
    family=st.sampled_from(["mesh", "smbi", "smalter", "torus"]),
    rows=st.sampled_from([2, 4, 6]),
    cols=st.sampled_from([2, 4, 6]),
)
def test_rings_found_are_disjoint_hamiltonian_cycles_and_square_grids_have_them(family, rows, cols):
    if family == "torus" and min(rows, cols) < 3:
        return  # a torus needs rings of 3
    G = build(f"{family}:{rows}x{cols}")
    k = min(d for _, d in G.in_degree())
    rings = hamiltonian_rings(G, k)
    if rows == cols:  # measured for every square even grid of these families up to 10x10
        assert rings is not None
    if rings is None:
        return  # e.g. SMBi 4x6: no pair of reversed cycles (CP-SAT's proof)
    assert len(rings) == k
    assert_rings(G, rings)
    # pairs: the second of each is the first reversed
    for a, b in zip(rings[0 : k - k % 2 : 2], rings[1 : k - k % 2 : 2], strict=True):
        assert {(u, v) for u, v, _ in a} == {(v, u) for u, v, _ in b}


def test_the_same_graph_gives_the_same_rings():
    a = ring_packing(build("smalter:8x8"))
    b = ring_packing(build("smalter:8x8"))
    assert a is not None
    assert b is not None
    assert a.to_json(timings=False) == b.to_json(timings=False)
