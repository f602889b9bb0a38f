"""Metrics that must scale (diameter, arc connectivity, bisection), against plain definitions.

The diameter by bounding eccentricities and the arc connectivity by path search are checked
against networkx's all-pairs distances and per-pair max-flows on every family the strategies
draw; the bisection's straight cuts against a hand count.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given

from supermesh.testing.strategies import topologies
from supermesh.topologies import build, compute_nodes
from supermesh.topologies.metrics import arc_connectivity, bisection_width, diameter


def _simple(G):
    D = nx.DiGraph()
    D.add_nodes_from(G.nodes)
    for u, v in G.edges():
        if D.has_edge(u, v):
            D[u][v]["capacity"] += 1
        else:
            D.add_edge(u, v, capacity=1)
    return D


@given(topologies())
def test_diameter_is_the_largest_distance(G):
    lengths = dict(nx.all_pairs_shortest_path_length(nx.DiGraph(G)))
    assert diameter(G) == max(max(d.values()) for d in lengths.values())


@given(topologies(max_side=5))
def test_arc_connectivity_is_the_least_pairwise_max_flow(G):
    # any cut separating two ranks separates the first rank from some rank one way or the
    # other, so flows from and to one pivot decide it (Menger), by networkx's own max-flow
    D, ranks = _simple(G), compute_nodes(G)
    pivot, others = ranks[0], ranks[1:]
    flows = [nx.maximum_flow_value(D, pivot, b) for b in others]
    flows += [nx.maximum_flow_value(D, b, pivot) for b in others]
    assert arc_connectivity(G) == min(flows)


def test_bisection_of_a_large_mesh_is_its_middle_cut():
    # a 40 x 40 mesh: the straight middle cut is crossed by 40 links, one arc each way
    width, exact = bisection_width(build("mesh:40x40"))
    assert (width, exact) == (40, False)
