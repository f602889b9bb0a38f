"""Geodesic matching: height-optimal tree packings built node by node, when they exist.

Lemma (geodesic matching). Let ``dist_t`` be the hop distance from the root ``r_t`` of tree
``t`` in the working network (arcs reversed for in-trees). Call an arc ``u -> v`` *geodesic for
t* when ``dist_t(u) = dist_t(v) - 1``. Suppose every node ``v`` that tree ``t`` must reach
(``v != r_t``) is given one geodesic in-arc for ``t``, and at every node the in-arcs given to the
different trees fit the parallel copies (a pair ``u -> v`` with ``m`` parallel arcs is given at
most ``m`` times). Then

1. each tree is an arborescence rooted at ``r_t``: following parents strictly decreases
   ``dist_t``, so there is no cycle and every path ends at the root;
2. the trees are pairwise arc-disjoint: an arc is an in-arc of exactly one node (its head), and
   the capacity condition at that head is exactly arc-disjointness;
3. every node sits at depth ``dist_t(v)``, so each tree has height equal to its root's
   eccentricity over the span, which no tree with that root can beat: the packing is
   height-optimal, with the eccentricity as the (re-checkable) proof.

So a packing exists as soon as each node, *separately*, admits a matching of the trees that need
it to its geodesic in-arcs. :mod:`supermesh.trees.packing.closedform` uses this to prove
constructions for every size of a family: there, the matching problem at a node depends only on a
few features of the node (which border it is on, the parity of its position), so finitely many node
types cover every size.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import networkx as nx

from supermesh.topologies.model import check_nodes
from supermesh.trees.bounds.heights import (
    WorkingNetwork,
    bfs_distances,
    resolve_span,
    working_network,
)
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing.greedy import prune_relays

__all__ = ["geodesic_packing"]

Pair = tuple[int, int]


def _match(
    needs: Sequence[int], options: dict[int, list[Pair]], free: dict[Pair, int]
) -> dict[int, Pair] | None:
    """Give each tree in ``needs`` one of its pairs within ``free`` copies (augmenting paths)."""
    owner: dict[tuple[Pair, int], int] = {}
    chosen: dict[int, tuple[Pair, int]] = {}

    def place(t: int, seen: set[tuple[Pair, int]]) -> bool:
        for pair in options[t]:
            for slot in range(free.get(pair, 0)):
                key = (pair, slot)
                if key in seen:
                    continue
                seen.add(key)
                if key not in owner or place(owner[key], seen):
                    owner[key] = t
                    chosen[t] = key
                    return True
        return False

    for t in needs:
        if not place(t, set()):
            return None
    return {t: key[0] for t, key in chosen.items()}


def geodesic_packing(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
    method: str = "geodesic",
) -> TreePacking | None:
    """Height-optimal arc-disjoint trees by matching geodesic in-arcs node by node.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    roots : sequence of int
        One root per tree (repeats allowed).
    direction : {"out", "in"}
        Out-trees, or in-trees (built as out-trees of the reversed topology).
    span : iterable of int, optional
        Nodes every tree must reach (default: the compute chiplets). Other nodes may relay for a
        tree when all their geodesic parents for it are span nodes or roots.
    method : str
        Name recorded in the packing's ``method`` field.

    Returns
    -------
    TreePacking or None
        ``status="optimal"`` with ``lower_bound == objective`` = the largest root eccentricity
        over the span (see the module docstring for why), or ``None`` when some span node
        admits no matching (then shortest-path trees do not suffice for these roots).

    Raises
    ------
    TopologyError, SpecError
        A root or span node not in ``G``; an unknown direction.

    Notes
    -----
    Relay nodes are matched first, serving as many trees as their geodesic in-arcs allow; a span
    node then accepts a relay as parent only for a tree the relay holds. Relays left as leaves
    are pruned. Cost: one BFS per tree and a matching of at most ``k`` trees per node.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = geodesic_packing(build("smalter:6x6"), [0, 5, 35, 30])
    >>> p.status, p.objective, [t.height for t in p.trees]
    ('optimal', 10, [10, 10, 10, 10])
    >>> geodesic_packing(build("mesh:4x4"), [0, 3, 15]) is None
    True
    """
    net = working_network(G, direction)
    roots = check_nodes(G, roots, what="root")
    targets = set(resolve_span(G, span))
    dist = [bfs_distances(net, r) for r in roots]
    if any(not targets <= d.keys() for d in dist):
        return None
    k = len(roots)
    parents: list[dict[int, int]] = [{} for _ in roots]
    holds: list[set[int]] = [set(targets) | {r} for r in roots]
    relays = [v for v in net.nodes if v not in targets]
    for group, required in ((relays, False), (sorted(targets), True)):
        for v in group:
            options: dict[int, list[Pair]] = {}
            for t in range(k):
                if v == roots[t] or v not in dist[t]:
                    continue
                ok = [
                    (u, v)
                    for u in net.pred[v]
                    if dist[t].get(u) == dist[t][v] - 1
                    and (u in holds[t] if required else u in targets or u == roots[t])
                ]
                if required or (ok and _feeds(net, dist[t], v, targets)):
                    options[t] = ok
            found = _best_match(options, net.capacity, required)
            if found is None:
                return None
            for t, (u, _) in found.items():
                parents[t][v] = u
                holds[t].add(v)
    pruned = [prune_relays(p, targets) for p in parents]
    return _packing(G, net, roots, pruned, dist, direction, span, targets, method)


def _feeds(net: WorkingNetwork, dist: dict[int, int], v: int, targets: set[int]) -> bool:
    """Whether relay ``v`` is a geodesic parent candidate of some span node."""
    return any(w in targets and dist.get(w) == dist[v] + 1 for w in net.succ[v])


def _best_match(
    options: dict[int, list[Pair]], capacity: dict[Pair, int], required: bool
) -> dict[int, Pair] | None:
    trees = sorted(options)
    if required:
        return _match(trees, options, capacity)
    # a relay: serve as many trees as possible (the largest subset that matches, first in order)
    for size in range(len(trees), 0, -1):
        for subset in _subsets(trees, size):
            found = _match(subset, options, capacity)
            if found is not None:
                return found
    return {}


def _subsets(items: list[int], size: int) -> Iterable[list[int]]:
    return (list(c) for c in itertools.combinations(items, size))


def _packing(
    G: nx.MultiDiGraph,
    net: WorkingNetwork,
    roots: Sequence[int],
    parents: list[dict[int, int]],
    dist: list[dict[int, int]],
    direction: str,
    span: Iterable[int] | None,
    targets: set[int],
    method: str,
) -> TreePacking:
    used: dict[Pair, int] = {}
    trees = []
    for t, root in enumerate(roots):
        arcs = []
        for child, parent in sorted(parents[t].items()):
            slot = used.get((parent, child), 0)
            used[(parent, child)] = slot + 1
            arcs.append(net.topology_arc(parent, child, slot))
        height = max((dist[t][v] for v in parents[t]), default=0)
        trees.append(Tree(root=root, arcs=tuple(arcs), height=height))
    lower = max((dist[t][v] for t in range(len(roots)) for v in targets), default=0)
    top = max((tr.height for tr in trees), default=0)
    return TreePacking(
        topology=str(G.graph.get("spec", "")),
        direction=direction,
        status="optimal",
        sets=(TreeSet(tuple(trees), lower),),
        lower_bound=lower,
        objective=top,
        method=method,
        span=None if span is None else tuple(sorted(targets)),
        stats={"bound": "eccentricity"},
    )
