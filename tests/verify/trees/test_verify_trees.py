"""Tree, set and packing checkers: hand cases per finding, theorems, mutation properties."""

from __future__ import annotations

import dataclasses

import networkx as nx
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from supermesh.errors import SupermeshError
from supermesh.testing.examples import smbi_corner_trees
from supermesh.testing.mutations import change_height, drop_node, move_arc, remove_arc
from supermesh.testing.strategies import arborescences, multidigraphs, topologies, tree_sets
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule import reverse_packing
from supermesh.verify import (
    check_disjoint,
    check_packing,
    check_rates,
    check_tree,
    eccentricity,
    errors,
)

MESH22 = build("mesh:2x2")  # 0 1 / 2 3
GOOD = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)


def codes(findings):
    return sorted(f.code for f in findings)


def test_valid_tree_has_no_findings():
    assert check_tree(MESH22, GOOD, direction="out") == []


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        (Tree(0, ((0, 1, 1), (0, 2, 0), (1, 3, 0)), 2), ["arc-missing"]),  # key 1 absent
        (Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0), (3, 9, 0)), 2), ["arc-missing"]),
        (Tree(0, ((0, 1, 0), (0, 1, 0), (0, 2, 0), (1, 3, 0)), 2), ["arc-repeated"]),
        (Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0), (2, 3, 0)), 2), ["two-parents"]),
        (Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 3), ["height-mismatch"]),
        (Tree(0, ((0, 1, 0), (0, 2, 0)), 1), ["not-spanning"]),
        (Tree(7, ((0, 1, 0),), 1), ["root-missing"]),
    ],
)
def test_each_defect_is_named(tree, expected):
    found = check_tree(MESH22, tree, direction="out", index=2, set_index=1)
    assert codes(found) == expected
    assert all(f.tree == 2 and f.set == 1 and "set 1 tree 2" in f.message for f in found)


def test_wrong_root_is_diagnosed():
    # the arcs form a valid tree rooted at 3, but the file claims root 0
    t = Tree(0, ((3, 1, 0), (3, 2, 0), (1, 0, 0)), 2)
    found = check_tree(MESH22, t, direction="out")
    assert "wrong-root" in codes(found)
    assert "root-has-parent" in codes(found)
    assert next(f for f in found if f.code == "wrong-root").node == 3


def test_cycle_and_detached_arcs():
    t = Tree(0, ((0, 1, 0), (2, 3, 0), (3, 2, 0)), 1)
    found = check_tree(build("mesh:2x2"), t, direction="out")
    assert "cycle" in codes(found)
    assert {f.node for f in found if f.code == "not-spanning"} == {2, 3}


def test_not_spanning_names_the_missing_corner():
    # the reference artifact's mesh TTO middle tree never reaches one corner (BRIEF section 4)
    G = build("mesh:3x3")
    t = Tree(4, ((4, 1, 0), (4, 3, 0), (4, 5, 0), (4, 7, 0), (1, 0, 0), (1, 2, 0), (7, 6, 0)), 2)
    found = check_tree(G, t, direction="out")
    assert [(f.code, f.node) for f in found] == [("not-spanning", 8)]
    assert "node 8" in found[0].message


def test_relays_allowed_relay_leaf_is_a_warning():
    G = build("mesh:2x2,memory=south")
    memory = sorted(n for n, k in G.nodes(data="kind") if k == "memory")
    mem, below = memory[0], next(iter(G.predecessors(memory[0])))
    t = Tree(0, (*GOOD.arcs, (below, mem, 0)), 2)
    found = check_tree(G, t, direction="out")
    assert codes(found) == ["relay-leaf"]
    assert errors(found) == []


def test_in_trees_use_reversed_arcs():
    rev = Tree(0, tuple((v, u, k) for u, v, k in GOOD.arcs), 2)
    assert check_tree(MESH22, rev, direction="in") == []
    assert "root-has-parent" in codes(check_tree(MESH22, GOOD, direction="in"))
    with pytest.raises(SupermeshError):
        check_tree(MESH22, GOOD, direction="sideways")


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_smbi_corner_trees_pass_and_meet_the_bound(n):
    # BRIEF section 3: SMBi corner roots reach the eccentricity bound 2N-2
    G = build(f"smbi:{n}x{n}")
    for direction in ("out", "in"):
        p = smbi_corner_trees(n, direction=direction)
        assert check_packing(G, p) == []
        assert all(eccentricity(G, t.root, direction=direction) == 2 * n - 2 for t in p.trees)


def test_corner_trees_do_not_fit_the_plain_mesh():
    p = smbi_corner_trees(4)
    found = check_packing(build("mesh:4x4"), dataclasses.replace(p, topology="mesh:4x4"))
    # the key-1 perimeter arcs do not exist, and each perimeter pair would carry two trees
    assert {f.code for f in errors(found)} == {"arc-missing", "pair-overused"}
    assert sum(f.code == "pair-overused" for f in found) == 4 * 3


def test_disjointness_counts_parallel_arcs():
    G = build("smbi:2x2")  # every link doubled
    a = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    b = Tree(0, ((0, 1, 1), (0, 2, 1), (1, 3, 1)), 2)
    assert check_disjoint(G, TreeSet((a, b))) == []
    # the same key twice: the pair is not overused (2 <= 2) but the specific arc is
    found = check_disjoint(G, TreeSet((a, a)), set_index=0)
    assert set(codes(found)) == {"arc-overused"}
    assert "give each tree its own key" in found[0].message
    # three trees on a doubled link: a doubled link carries two trees per direction, never three
    found = check_disjoint(G, TreeSet((a, b, a)))
    assert "pair-overused" in codes(found)


def test_rates_allow_fractional_sharing():
    half = dataclasses.replace(GOOD, share=0.5)
    assert check_rates(MESH22, TreeSet((half, half))) == []
    assert "rate-overused" in codes(check_rates(MESH22, TreeSet((half, half, half))))
    assert "bad-share" in codes(check_rates(MESH22, TreeSet((dataclasses.replace(GOOD, share=0),))))
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((half, half)),), 2, 2)
    assert check_packing(MESH22, p) == []


def _packing(status, *, lb=2, obj=2, sets=None, certificate=None):
    sets = (TreeSet((GOOD,), 2),) if sets is None else sets
    return TreePacking("mesh:2x2", "out", status, sets, lb, obj, certificate=certificate)


@pytest.mark.parametrize(
    ("packing", "code"),
    [
        (_packing("optimal", lb=1), "optimal-without-proof"),
        (_packing("feasible", obj=3), "objective-mismatch"),
        (_packing("feasible", lb=3), "bound-above-objective"),
        (_packing("feasible", sets=()), "no-trees"),
        (_packing("infeasible", lb=None, obj=None, sets=()), "certificate-missing"),
        (_packing("infeasible", lb=None, obj=None), "trees-when-infeasible"),
    ],
)
def test_status_consistency(packing, code):
    assert code in codes(check_packing(MESH22, packing))


def test_infeasible_with_valid_certificate_passes():
    cert = {"set": [15], "entering_arcs": 2, "required": 3, "roots": [0, 3, 12]}
    p = TreePacking("mesh:4x4", "out", "infeasible", certificate=cert)
    assert check_packing(build("mesh:4x4"), p) == []


def _is_valid_arborescence(G, tree):
    """Independent oracle via networkx: span = every node of G (all compute)."""
    pairs = [(u, v) for u, v, _ in tree.arcs]
    if len(set(tree.arcs)) != len(tree.arcs) or not all(G.has_edge(*a) for a in tree.arcs):
        return False
    if len(set(pairs)) != len(pairs):
        return False
    D = nx.DiGraph(pairs)
    D.add_node(tree.root)
    if set(D) != set(G) or D.in_degree(tree.root) != 0:
        return False
    if len(D) > 1 and not nx.is_arborescence(D):
        return False
    return max(nx.single_source_shortest_path_length(D, tree.root).values()) == tree.height


@given(st.data())
def test_check_tree_agrees_with_networkx(data):
    G = data.draw(multidigraphs(max_nodes=5, max_arcs=8, symmetric=True, multiplicity=2))
    all_arcs = sorted(G.edges(keys=True))
    chosen = data.draw(st.lists(st.sampled_from(all_arcs), max_size=len(G) + 1)) if all_arcs else []
    root = data.draw(st.sampled_from(sorted(G)))
    height = data.draw(st.integers(0, len(G)))
    tree = Tree(root, tuple(chosen), height)
    assert (errors(check_tree(G, tree, direction="out")) == []) == _is_valid_arborescence(G, tree)


@given(st.data())
def test_random_trees_on_every_family_pass(data):
    G = data.draw(topologies(max_side=5))
    direction = data.draw(st.sampled_from(["out", "in"]))
    t = data.draw(arborescences(G, direction=direction))
    assert check_tree(G, t, direction=direction) == []
    assert t.height >= eccentricity(G, t.root, direction=direction)


@st.composite
def valid_packings(draw):
    G = draw(multidigraphs(max_nodes=6, max_arcs=10, symmetric=True, multiplicity=2))
    direction = draw(st.sampled_from(["out", "in"]))
    s = draw(tree_sets(G, k=2, direction=direction))
    assume(all(t.arcs for t in s.trees))
    h = s.height
    return G, TreePacking("random", direction, "feasible", (s,), None, h)


@given(valid_packings())
def test_random_disjoint_sets_pass(gp):
    G, p = gp
    assert check_packing(G, p) == []


@given(valid_packings(), st.data())
def test_moving_an_arc_into_a_second_tree_is_caught(gp, data):
    G, p = gp
    s = p.sets[0]
    src = data.draw(st.sampled_from([0, 1]))
    i = data.draw(st.integers(0, len(s.trees[src].arcs) - 1))
    broken = dataclasses.replace(p, sets=(move_arc(s, src, i, 1 - src),))
    assert errors(check_packing(G, broken))


@given(valid_packings(), st.data())
def test_dropping_a_node_is_caught(gp, data):
    G, p = gp
    s = p.sets[0]
    j = data.draw(st.sampled_from([0, 1]))
    node = data.draw(st.sampled_from(sorted(set(G) - {s.trees[j].root})))
    trees = list(s.trees)
    trees[j] = drop_node(trees[j], node)
    assert errors(check_packing(G, dataclasses.replace(p, sets=(TreeSet(tuple(trees)),))))


@given(valid_packings(), st.data())
def test_removing_an_arc_is_caught(gp, data):
    G, p = gp
    s = p.sets[0]
    j = data.draw(st.sampled_from([0, 1]))
    i = data.draw(st.integers(0, len(s.trees[j].arcs) - 1))
    trees = list(s.trees)
    trees[j] = remove_arc(trees[j], i)
    assert errors(check_packing(G, dataclasses.replace(p, sets=(TreeSet(tuple(trees)),))))


@given(valid_packings(), st.data())
def test_changing_a_claimed_height_is_caught(gp, data):
    G, p = gp
    s = p.sets[0]
    j = data.draw(st.sampled_from([0, 1]))
    delta = data.draw(st.integers(-3, 3).filter(bool))
    trees = list(s.trees)
    trees[j] = change_height(trees[j], delta)
    found = check_packing(G, dataclasses.replace(p, sets=(TreeSet(tuple(trees)),)))
    assert "height-mismatch" in codes(found)


def test_reverse_packing_round_trip():
    p = smbi_corner_trees(3)
    assert reverse_packing(reverse_packing(p)) == p
