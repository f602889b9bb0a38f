"""The trees each phase of a collective runs on, checked against the topology and the collective.

:func:`phase_sets` gives the tree sets of every phase in data direction (reversing a packing of
the other direction where the network is symmetric), :func:`tree_shape` checks one tree and
returns its depths and children, and :func:`check_roots_and_shares` checks the roots and shares
fit the collective and tells a weighted table from a plain one. :func:`build_schedule
<supermesh.trees.schedule.build.build_schedule>` makes the table from what they return.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import replace

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking
from supermesh.trees.schedule.weighted import shares_links

__all__ = [
    "PHASE_DIRECTIONS",
    "SHARE_TOLERANCE",
    "check_roots_and_shares",
    "phase_sets",
    "reverse_packing",
    "reverse_tree",
    "tree_shape",
]

SHARE_TOLERANCE = 1e-9
"""How far the shares of one root's trees may be from adding up to 1 in a weighted table."""

PHASE_DIRECTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "allreduce": (("rs", "in"), ("ag", "out")),
    "reducescatter": (("rs", "in"),),
    "allgather": (("ag", "out"),),
    "broadcast": (("bcast", "out"),),
    "reduce": (("reduce", "in"),),
}
"""Collective -> its phases in order, each with the tree direction it runs on."""


def reverse_tree(tree: Tree) -> Tree:
    """The same tree with every arc ``(u, v, key)`` turned round to ``(v, u, key)``.

    Examples
    --------
    >>> reverse_tree(Tree(0, ((0, 1, 0), (1, 2, 0)), 2)).arcs
    ((1, 0, 0), (2, 1, 0))
    """
    return Tree(tree.root, tuple((v, u, k) for u, v, k in tree.arcs), tree.height, tree.share)


def reverse_packing(packing: TreePacking) -> TreePacking:
    """The same trees with every arc reversed: out-trees become in-trees and back.

    Valid on topologies whose links are symmetric with matching keys (:func:`reversible
    <supermesh.trees.schedule.collective.reversible>`: every family built by
    :func:`supermesh.topologies.add_link`); everything else of the packing is kept.

    Examples
    --------
    >>> from supermesh.trees.model import TreeSet
    >>> p = TreePacking("mesh:2x1", "out", "optimal", (TreeSet((Tree(0, ((0, 1, 0),), 1),)),))
    >>> q = reverse_packing(p)
    >>> q.direction, q.trees[0].arcs, reverse_packing(q) == p
    ('in', ((1, 0, 0),), True)
    """
    sets = tuple(replace(s, trees=tuple(reverse_tree(t) for t in s.trees)) for s in packing.sets)
    direction = "in" if packing.direction == "out" else "out"
    return replace(packing, direction=direction, sets=sets, stats=dict(packing.stats))


def phase_sets(
    G: nx.MultiDiGraph, collective: str, packings: Sequence[TreePacking]
) -> dict[str, list[list[Tree]]]:
    """Tree sets per phase in data direction, reversing a packing where the phase needs it.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : str
        A key of :data:`PHASE_DIRECTIONS`.
    packings : sequence of TreePacking
        At most one per direction, each with trees.

    Returns
    -------
    dict
        Phase (``rs``, ``ag``, ``bcast``, ``reduce``) -> its tree sets, each a list of trees
        with arcs in the direction the phase's data flow.

    Raises
    ------
    SpecError
        Two packings of one direction.
    TopologyError
        A packing without trees, or a reversal the topology lacks an arc for.
    """
    by_dir: dict[str, TreePacking] = {}
    for p in packings:
        if p.direction in by_dir:
            raise SpecError(
                f"two {p.direction}-tree packings given", hint="give at most one per direction"
            )
        if not p.sets or p.status == "infeasible":
            raise TopologyError(f"the {p.direction}-tree packing has no trees ({p.status})")
        by_dir[p.direction] = p
    out: dict[str, list[list[Tree]]] = {}
    for phase, direction in PHASE_DIRECTIONS[collective]:
        if direction in by_dir:
            out[phase] = [list(s.trees) for s in by_dir[direction].sets]
            continue
        other = by_dir["in" if direction == "out" else "out"]
        for t in other.trees:
            _check_arcs(G, t, f"a tree rooted at {t.root}")
            for u, v, k in t.arcs:
                if not G.has_edge(v, u, k):
                    raise TopologyError(
                        f"cannot reverse the {other.direction}-trees: arc {v}->{u} key {k} "
                        "does not exist (the network is not symmetric)",
                        hint=f"pass a {direction}-tree packing as well",
                    )
        out[phase] = [[reverse_tree(t) for t in s.trees] for s in other.sets]
    return out


def _check_arcs(G: nx.MultiDiGraph, tree: Tree, where: str) -> None:
    for u, v, k in tree.arcs:
        if not G.has_edge(u, v, k):
            raise TopologyError(
                f"{where} uses arc {u}->{v} key {k}, which the topology does not have",
                hint="were the trees computed for another topology?",
            )


def tree_shape(
    G: nx.MultiDiGraph, tree: Tree, direction: str, span: Sequence[int], where: str
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Check one tree (data direction) and return (depth per node, children per node).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    tree : Tree
        Arcs in data direction: parent -> child for ``"out"``, child -> parent for ``"in"``.
    direction : {"out", "in"}
    span : sequence of int
        Nodes the tree must reach.
    where : str
        The tree's name in error messages (``"rs set 0 tree 2"``).

    Returns
    -------
    depth : dict
        Node -> its depth (the root 0).
    children : dict
        Node -> its children (parents only).

    Raises
    ------
    TopologyError
        An arc the topology lacks, a node with two parents, or a node of ``span`` not reached.
    """
    parent: dict[int, int] = {}
    children: dict[int, list[int]] = defaultdict(list)
    _check_arcs(G, tree, where)
    for u, v, _ in tree.arcs:
        p, c = (u, v) if direction == "out" else (v, u)
        if c in parent or c == tree.root:
            raise TopologyError(f"{where} is not a tree: node {c} has two parents or is the root")
        parent[c] = p
        children[p].append(c)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        p = queue.popleft()
        for c in children.get(p, ()):
            depth[c] = depth[p] + 1
            queue.append(c)
    unreached = sorted(set(parent) - set(depth))
    missing = sorted(set(span) - set(depth))
    if unreached or missing:
        bad = (unreached or missing)[0]
        raise TopologyError(
            f"{where} (root {tree.root}) does not reach node {bad}",
            hint="every tree must span every compute chiplet",
        )
    return depth, children


def check_roots_and_shares(
    G: nx.MultiDiGraph, collective: str, sets: list[list[Tree]], ranks: Sequence[int]
) -> bool:
    """Check the roots and shares fit the collective; True for a weighted table.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : str
        A key of :data:`PHASE_DIRECTIONS`.
    sets : list of list of Tree
        The tree sets of one phase.
    ranks : sequence of int
        The chiplets taking part.

    Returns
    -------
    bool
        Whether the trees make a weighted table (:mod:`~supermesh.trees.schedule.build`):
        ReduceScatter, AllGather or AllReduce with a root rooting several trees or trees of a
        set sharing a link, each root's shares adding up to 1 within :data:`SHARE_TOLERANCE`.

    Raises
    ------
    SpecError
        A share not above 0, or unequal shares not adding up to 1 per root.
    TopologyError
        Roots that do not fit the collective.
    """
    trees = [t for s in sets for t in s]
    roots = [t.root for t in trees]
    shares = {t.share for t in trees}
    per_root: dict[int, list[float]] = defaultdict(list)
    for t in trees:
        per_root[t.root].append(t.share)
    sums = {r: math.fsum(v) for r, v in per_root.items()}
    several = any(len(v) > 1 for v in per_root.values()) or any(shares_links(s) for s in sets)
    if (
        collective in ("reducescatter", "allgather", "allreduce")
        and several
        and all(abs(x - 1) <= SHARE_TOLERANCE for x in sums.values())
    ):
        bad = [t for t in trees if not t.share > 0]
        if bad:
            raise SpecError(
                f"the tree rooted at {bad[0].root} has share {bad[0].share}; shares must be > 0",
                hint="drop trees that carry nothing",
            )
        need = set(ranks) if collective != "allreduce" else set(per_root)
        if set(per_root) != need or not need <= set(ranks):
            odd = sorted(set(per_root) ^ need) or sorted(set(per_root) - set(ranks))
            raise TopologyError(
                f"{collective} needs trees rooted at every one of the {len(ranks)} ranks and "
                f"nowhere else; chiplet {odd[0]} breaks that",
                hint="every rank roots at least one tree, with shares adding up to 1",
            )
        return True
    if len(shares) > 1:
        r = next((r for r, x in sums.items() if abs(x - 1) > SHARE_TOLERANCE), roots[0])
        raise SpecError(
            f"trees with different shares need each root's shares to add up to 1; the trees "
            f"of root {r} add up to {sums[r]:.12g}",
            hint="use equal shares, or shares of one root that add up to 1 "
            "(ReduceScatter / AllGather / AllReduce)",
        )
    if collective in ("reducescatter", "allgather"):
        ranks = compute_nodes(G)
        if sorted(roots) != ranks:
            raise TopologyError(
                f"{collective} needs one tree rooted at each of the {len(ranks)} compute "
                f"chiplets; the trees have roots {sorted(roots)}",
                hint="give one root set per group of chiplets covering every chiplet once, "
                "or several trees per chiplet with shares adding up to 1",
            )
    elif collective in ("broadcast", "reduce") and len(set(roots)) != 1:
        raise TopologyError(
            f"{collective} needs every tree rooted at the same chiplet, not {roots}",
            hint="pack the trees with the same root repeated",
        )
    return False
