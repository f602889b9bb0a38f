"""Certificate and height-claim checkers, against hand counts, the brief and brute force."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.testing.strategies import multidigraphs, root_lists
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.verify import (
    check_edmonds_certificate,
    check_frank_certificate,
    check_height_claim,
    crossing_arcs,
    eccentricity,
)


def codes(findings):
    return sorted(f.code for f in findings)


MESH4 = build("mesh:4x4")
CORNER = {"set": [15], "entering_arcs": 2, "required": 3}


def test_mesh_three_corner_roots_certificate():
    # BRIEF: the mesh fits at most 2 trees; with 3 corner roots the 4th corner has only 2 links in
    assert check_edmonds_certificate(MESH4, [0, 3, 12], CORNER) == []


@pytest.mark.parametrize(
    ("cert", "roots", "what"),
    [
        ({"set": [15], "entering_arcs": 3, "required": 3}, [0, 3, 12], "true count is 2"),
        ({"set": [15], "entering_arcs": 2, "required": 2}, [0, 3, 12], "roots"),
        ({"set": [15], "entering_arcs": 2, "required": 2}, [0, 3], "proves nothing"),
        ({"set": [0, 1], "entering_arcs": 3, "required": 2}, [2, 3], "proves nothing"),
    ],
)
def test_wrong_or_useless_edmonds_certificates(cert, roots, what):
    found = check_edmonds_certificate(MESH4, roots, cert)
    assert found
    assert all(f.code == "certificate-invalid" for f in found)
    assert any(what in f.message for f in found)


@pytest.mark.parametrize(
    "cert",
    [
        None,
        [15],
        {"set": [], "entering_arcs": 0, "required": 1},
        {"set": [99], "entering_arcs": 0, "required": 1},
        {"set": [1, 1], "entering_arcs": 0, "required": 1},
        {"set": ["a"], "entering_arcs": 0, "required": 1},
        {"set": [15]},
        {"set": [15], "entering_arcs": "2", "required": 3},
    ],
)
def test_malformed_certificates(cert):
    assert codes(check_edmonds_certificate(MESH4, [0, 3, 12], cert)) == ["certificate-malformed"]


def test_set_without_span_node_proves_nothing():
    G = build("mesh:2x2,memory=south")
    mem = [n for n, k in G.nodes(data="kind") if k == "memory"]
    X = mem[:1]
    cert = {"set": X, "entering_arcs": crossing_arcs(G, X), "required": 2}
    found = check_edmonds_certificate(G, [0, 1], cert)
    assert codes(found) == ["certificate-invalid"]
    assert "no node" in found[0].message


def test_in_direction_counts_leaving_arcs():
    G = build("smuni:3x3")
    G.remove_edge(1, 0, 0)  # node 0: in 3->0 twice; out 0->1 twice (one is SMUni's), 0->3
    assert crossing_arcs(G, {0}, direction="in") == crossing_arcs(G.reverse(), {0}) == 3
    assert crossing_arcs(G, {0}) == 2
    roots = [1, 3, 4]
    cert_in = {"set": [0], "entering_arcs": 3, "required": 3}
    assert check_edmonds_certificate(G, roots, {**cert_in, "entering_arcs": 2}) == []
    assert codes(check_edmonds_certificate(G, roots, cert_in, direction="in")) == [
        "certificate-invalid"
    ]


def test_frank_certificates():
    G = build("mesh:3x3")
    cert = {"sets": [[0], [2], [6], [8]], "entering_arcs": 8, "required": 9, "trees": 3}
    assert check_frank_certificate(G, 3, cert) == []
    bad = {**cert, "sets": [[0, 1], [1], [6], [8]], "entering_arcs": 9}
    assert "not disjoint" in " ".join(f.message for f in check_frank_certificate(G, 3, bad))
    assert codes(check_frank_certificate(G, 4, cert)) == ["certificate-invalid"] * 2


def test_frank_on_smbi_3x3_agrees_with_the_brief():
    # BRIEF: 3x3 SMBi fits 5 trees with free roots, so no subpartition may refute 5; the four
    # corners (4 arcs in each) do refute 6: 16 < 6 * 3
    G = build("smbi:3x3")
    corners = [[0], [2], [6], [8]]
    five = {"sets": corners, "entering_arcs": 16, "required": 15}
    six = {"sets": corners, "entering_arcs": 16, "required": 18}
    assert codes(check_frank_certificate(G, 5, five)) == ["certificate-invalid"]
    assert check_frank_certificate(G, 6, six) == []


def _arborescences(G, root):
    """Every spanning out-arborescence of a tiny graph rooted at root, as sets of arcs."""
    arcs = sorted(G.edges(keys=True))
    n = G.number_of_nodes()
    out = []
    for combo in itertools.combinations(arcs, n - 1):
        heads = [v for _, v, _ in combo]
        if root in heads or len(set(heads)) != n - 1:
            continue
        reach, frontier = {root}, [root]
        while frontier:
            u = frontier.pop()
            for a, b, _ in combo:
                if a == u and b not in reach:
                    reach.add(b)
                    frontier.append(b)
        if len(reach) == n:
            out.append(frozenset(combo))
    return out


def _feasible(G, roots):
    choices = [_arborescences(G, r) for r in roots]
    for pick in itertools.product(*choices):
        if sum(len(t) for t in pick) == len(frozenset().union(*pick)):
            return True
    return False


@given(st.data())
def test_edmonds_certificates_match_brute_force(data):
    # Edmonds' theorem, checked on tiny graphs: a valid certificate exists iff no packing exists
    G = data.draw(multidigraphs(min_nodes=2, max_nodes=4, max_arcs=6))
    roots = data.draw(root_lists(G, max_k=2))
    nodes = sorted(G)
    certified = False
    for size in range(1, len(nodes) + 1):
        for X in itertools.combinations(nodes, size):
            cert = {
                "set": list(X),
                "entering_arcs": crossing_arcs(G, X),
                "required": sum(r not in X for r in roots),
            }
            certified |= check_edmonds_certificate(G, roots, cert) == []
    assert certified == (not _feasible(G, roots))


def test_eccentricity_and_height_claims():
    assert [eccentricity(build(f"mesh:{n}x{n}"), 0) for n in (2, 3, 8)] == [2, 4, 14]
    G = build("mesh:2x2")
    t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    ok = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,), 2),), 2, 2)
    assert check_height_claim(G, ok) == []
    low = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,), 1),), 1, 2)
    assert {f.severity for f in check_height_claim(G, low)} == {"warning"}
    fib = Tree(0, t.arcs, 1)
    lie = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((fib,), 1),), 1, 1)
    assert "height-below-eccentricity" in codes(check_height_claim(G, lie))


def test_unreachable_span_node():
    G = build("smuni:2x2")  # the extra arcs are one-way, but the mesh links keep it connected
    assert eccentricity(G, 0) == 2
    from supermesh.topologies.model import add_arc, add_node, new_topology

    H = new_topology("x", "x", "x")
    for v in range(3):
        add_node(H, v, pos=(v, 0))
    add_arc(H, 0, 1)
    t = Tree(0, ((0, 1, 0),), 1)
    p = TreePacking("x", "out", "feasible", (TreeSet((t,)),), None, 1)
    assert eccentricity(H, 0) is None
    assert "unreachable" in codes(check_height_claim(H, p))
