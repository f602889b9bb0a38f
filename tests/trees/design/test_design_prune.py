"""The design prune's removal test against max-flows computed from scratch by networkx.

:func:`holds_without_link` decides a link's removal from two path counts; these tests check
that it answers exactly what the full condition says on the reduced topology, for every kind of
requirement (any roots, rooted out- and in-trees) and on Steiner spans (memory chiplets relay).
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.topologies import build
from supermesh.topologies.connectivity import arc_net
from supermesh.trees.design.cuts import Requirement, holds_without_link

SPECS = [
    "mesh:2x3",
    "mesh:3x3",
    "smbi:3x3",
    "smalter:4x4",
    "mesh:2x2,memory=south",
    "mesh:3x3,memory=east",
]


def _capacities(G: nx.MultiDiGraph) -> nx.DiGraph:
    D = nx.DiGraph()
    D.add_nodes_from(G)
    for u, v in G.edges():
        if u != v:
            cap = D.edges[u, v]["capacity"] + 1 if D.has_edge(u, v) else 1
            D.add_edge(u, v, capacity=cap)
    return D


def _holds(G: nx.MultiDiGraph, req: Requirement, span: list[int]) -> bool:
    """The condition from its definition: Menger on every pair or from a super source."""
    D = _capacities(G)
    if req.roots is None:
        return all(nx.maximum_flow_value(D, a, b) >= req.k for a in span for b in span if a != b)
    if req.direction == "in":
        D = D.reverse(copy=True)
    D.add_node("s")
    for r in set(req.roots):
        D.add_edge("s", r, capacity=req.roots.count(r))
    return all(nx.maximum_flow_value(D, "s", v) >= req.k for v in span)


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    data=st.data(),
)
def test_removal_answer_is_the_full_condition(spec: str, data: st.DataObject) -> None:
    G = build(spec)
    span = sorted(v for v in G if G.nodes[v].get("kind", "compute") == "compute")
    nodes = sorted(G)
    # a few extra links so that removals are not all forced
    for _ in range(data.draw(st.integers(0, 3), label="extra links")):
        u, v = data.draw(st.sampled_from([(a, b) for a in nodes for b in nodes if a < b]))
        G.add_edge(u, v, cls="added")
        G.add_edge(v, u, cls="added")
    pairs = sorted({(min(u, v), max(u, v)) for u, v in G.edges() if G.has_edge(v, u) and u != v})
    a, b = data.draw(st.sampled_from(pairs), label="removed link")
    kind = data.draw(st.sampled_from(["any", "out", "in"]), label="requirement")
    if kind == "any":
        k = min(nx.maximum_flow_value(_capacities(G), x, y) for x in span for y in span if x != y)
        req = Requirement(k)
    else:
        roots = tuple(data.draw(st.lists(st.sampled_from(span), min_size=1, max_size=4)))
        req = Requirement(len(roots), roots, kind)
    if req.k < 1 or not _holds(G, req, span):
        return  # the prune only asks about topologies that meet the requirement
    H = G.copy()
    H.remove_edge(a, b, key=max(H[a][b]))
    H.remove_edge(b, a, key=max(H[b][a]))
    nets = {rev: arc_net(H, reverse=rev) for rev in (False, True)}
    assert holds_without_link(nets, [req], span, (a, b)) == _holds(H, req, span)


def test_corner_link_of_smbi_is_needed_for_four_trees() -> None:
    # hand count: an SMBi 4x4 corner has 2 mesh links and 2 added links; without one added
    # link it has 3 arcs in, so 4 trees for any roots fail and 3 still hold
    H = build("smbi:4x4")
    H.remove_edges_from([(0, 1, 1), (1, 0, 1)])
    nets = {rev: arc_net(H, reverse=rev) for rev in (False, True)}
    assert not holds_without_link(nets, [Requirement(4)], list(range(16)), (0, 1))
    assert holds_without_link(nets, [Requirement(3)], list(range(16)), (0, 1))
    assert holds_without_link(nets, [Requirement(3, (5, 6, 9), "out")], list(range(16)), (0, 1))
