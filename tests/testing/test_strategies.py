"""The public hypothesis strategies: coverage of every family, validity of what they draw."""

from __future__ import annotations

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from supermesh.testing.strategies import (
    FAMILY_SPACES,
    arborescences,
    multidigraphs,
    root_lists,
    topology_specs,
    tree_sets,
)
from supermesh.topologies import FAMILIES, build, parse_spec


def test_every_family_and_option_is_covered():
    # a family or option added to the registry must be added to the strategy's table too
    assert set(FAMILY_SPACES) == set(FAMILIES)
    for name, (_, options) in FAMILY_SPACES.items():
        assert set(options) == set(FAMILIES[name].options), name


@given(topology_specs(max_side=6))
def test_drawn_specs_build(spec):
    family, _, _, memory = parse_spec(spec)
    G = build(spec)
    assert G.graph["family"] == family.name
    assert G.number_of_nodes() >= 2
    assert bool(memory) == any(k == "memory" for _, k in G.nodes(data="kind"))


@given(st.sampled_from(sorted(FAMILY_SPACES)), st.data())
def test_each_family_is_drawn_with_its_options(name, data):
    spec = data.draw(topology_specs(families=[name], max_side=8))
    assert spec.startswith(f"{name}:")
    build(spec)


@given(multidigraphs(max_nodes=6, max_arcs=12, multiplicity=2, symmetric=True, memory=True))
def test_multidigraphs_have_the_documented_attributes(G):
    assert isinstance(G, nx.MultiDiGraph)
    assert set(G) == set(range(G.number_of_nodes()))
    assert all(k in ("compute", "memory") for _, k in G.nodes(data="kind"))
    for u, v, _k, d in G.edges(keys=True, data=True):
        assert u != v
        assert d == {"cls": "mesh", "bandwidth": 1.0, "latency": 1.0}
        assert sorted(G[u][v]) == list(range(G.number_of_edges(u, v)))
        assert G.number_of_edges(u, v) == G.number_of_edges(v, u)


@given(st.data())
def test_root_lists(data):
    G = build("mesh:2x2,memory=south")
    roots = data.draw(root_lists(G, k=3))
    assert len(roots) == 3
    assert all(G.nodes[r]["kind"] == "compute" for r in roots)


@given(st.data())
def test_arborescences_are_spanning_trees_with_true_heights(data):
    G = data.draw(multidigraphs(max_nodes=6, max_arcs=10, symmetric=True, memory=True))
    direction = data.draw(st.sampled_from(["out", "in"]))
    t = data.draw(arborescences(G, direction=direction))
    D = nx.DiGraph([(u, v) for u, v, _ in t.arcs] if direction == "out" else
                   [(v, u) for u, v, _ in t.arcs])  # fmt: skip
    D.add_node(t.root)
    compute = {n for n, k in G.nodes(data="kind") if k == "compute"}
    assert compute <= set(D)
    assert nx.is_arborescence(D)
    assert max(nx.single_source_shortest_path_length(D, t.root).values()) == t.height
    # no relay leaves: every leaf is a compute chiplet
    assert all(n in compute for n in D if D.out_degree(n) == 0 and n != t.root)


@given(st.data())
def test_tree_sets_are_disjoint(data):
    G = data.draw(multidigraphs(max_nodes=5, max_arcs=8, symmetric=True, multiplicity=2))
    s = data.draw(tree_sets(G, k=2))
    used = [a for t in s.trees for a in t.arcs]
    assert len(used) == len(set(used))
