"""Distances and height lower bounds for tree packing, on a direction-free working network.

Every packing algorithm here builds *out*-arborescences. An in-tree of a topology (data flow
towards the root) is an out-tree of the reversed topology, so :func:`working_network` orients the
arcs once (reversing them for ``direction="in"``), collapses parallel arcs into a multiplicity,
and remembers how to turn a working pair back into the topology's ``(src, dst, key)`` arcs.

The height of a tree is at least the BFS distance from its root to the farthest node it must
reach (its eccentricity over the span): that is the lower bound every packing reports.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import check_nodes, compute_nodes
from supermesh.trees.model import Tree

__all__ = [
    "WorkingNetwork",
    "bfs_distances",
    "check_direction",
    "eccentricities",
    "height_lower_bound",
    "resolve_span",
    "root_eccentricities",
    "tree_depths",
    "working_network",
]


@dataclass(frozen=True)
class WorkingNetwork:
    """A topology oriented for out-tree packing, parallel arcs collapsed.

    Attributes
    ----------
    direction : {"out", "in"}
        ``"in"`` means every arc of the topology was reversed.
    nodes : list of int
        Sorted node ids.
    capacity : dict
        Working pair ``(parent, child)`` -> number of parallel arcs.
    succ, pred : dict
        Node -> sorted successors / predecessors in the working orientation.
    keys : dict
        Working pair -> sorted keys of the topology arcs it stands for.
    """

    direction: str
    nodes: list[int]
    capacity: dict[tuple[int, int], int]
    succ: dict[int, list[int]]
    pred: dict[int, list[int]]
    keys: dict[tuple[int, int], list[int]]

    def topology_arc(self, parent: int, child: int, slot: int) -> tuple[int, int, int]:
        """The topology arc for the ``slot``-th copy of working pair ``parent -> child``.

        Out-trees store parent -> child; in-trees store child -> parent (the arc the data use).
        """
        key = self.keys[(parent, child)][slot]
        return (parent, child, key) if self.direction == "out" else (child, parent, key)

    def restrict(self, keep: Iterable[int]) -> WorkingNetwork:
        """The network induced by the nodes ``keep`` (arcs with both ends kept).

        Examples
        --------
        >>> from supermesh.topologies import build
        >>> working_network(build("mesh:2x2")).restrict([0, 1, 2]).succ[0]
        [1, 2]
        """
        inside = set(keep)
        cap = {p: c for p, c in self.capacity.items() if p[0] in inside and p[1] in inside}
        return WorkingNetwork(
            self.direction,
            [v for v in self.nodes if v in inside],
            cap,
            {v: [w for w in self.succ[v] if w in inside] for v in self.nodes if v in inside},
            {v: [w for w in self.pred[v] if w in inside] for v in self.nodes if v in inside},
            {p: self.keys[p] for p in cap},
        )

    def trees(self, roots: Sequence[int], parents: Sequence[dict[int, int]]) -> tuple[Tree, ...]:
        """Turn parent maps (child -> parent, working orientation) into :class:`Tree` objects.

        The copies of a pair go to the trees in tree order (tree ``t`` using the pair after
        ``j`` earlier trees gets the ``j``-th smallest key). The height is the true depth.

        Raises
        ------
        ValueError
            If a pair is used more often than it has arcs, or a parent map is not a tree.

        Examples
        --------
        >>> from supermesh.topologies import build
        >>> net = working_network(build("smbi:2x2"))
        >>> [t.arcs for t in net.trees([0, 0], [{1: 0}, {1: 0}])]
        [((0, 1, 0),), ((0, 1, 1),)]
        """
        used: Counter[tuple[int, int]] = Counter()
        out = []
        for root, par in zip(roots, parents, strict=True):
            arcs = []
            for child, parent in par.items():
                slot = used[(parent, child)]
                if slot >= self.capacity.get((parent, child), 0):
                    raise ValueError(f"pair {parent}->{child} is used more often than it exists")
                used[(parent, child)] += 1
                arcs.append(self.topology_arc(parent, child, slot))
            out.append(
                Tree(root=root, arcs=tuple(arcs), height=max(tree_depths(root, par).values()))
            )
        return tuple(out)


def check_direction(direction: str) -> str:
    """Return ``direction`` if it is ``"out"`` or ``"in"``; raise a SpecError otherwise."""
    if direction not in ("out", "in"):
        raise SpecError(f"direction {direction!r} is not 'out' or 'in'", hint="use out or in")
    return direction


def working_network(G: nx.MultiDiGraph, direction: str = "out") -> WorkingNetwork:
    """Orient ``G`` for out-tree packing and collapse its parallel arcs.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    direction : {"out", "in"}
        ``"in"`` reverses every arc (in-trees of ``G`` are out-trees of the result).

    Returns
    -------
    WorkingNetwork

    Raises
    ------
    SpecError
        On an unknown direction.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = working_network(build("smbi:2x2"))
    >>> net.capacity[(0, 1)], net.topology_arc(0, 1, 1)
    (2, (0, 1, 1))
    >>> working_network(build("smbi:2x2"), "in").topology_arc(1, 0, 0)
    (0, 1, 0)
    """
    check_direction(direction)
    keys: dict[tuple[int, int], list[int]] = {}
    for u, v, k in G.edges(keys=True):
        pair = (int(u), int(v)) if direction == "out" else (int(v), int(u))
        keys.setdefault(pair, []).append(int(k))
    nodes = sorted(int(n) for n in G.nodes)
    succ: dict[int, list[int]] = {n: [] for n in nodes}
    pred: dict[int, list[int]] = {n: [] for n in nodes}
    for u, v in sorted(keys):
        succ[u].append(v)
        pred[v].append(u)
    capacity = Counter({p: len(ks) for p, ks in keys.items()})
    return WorkingNetwork(
        direction, nodes, dict(capacity), succ, pred, {p: sorted(k) for p, k in keys.items()}
    )


def tree_depths(root: int, parents: dict[int, int]) -> dict[int, int]:
    """Depth of every node of a tree given as child -> parent.

    Raises
    ------
    ValueError
        If the map is not a tree hanging from ``root`` (a cycle or a detached part).

    Examples
    --------
    >>> tree_depths(0, {1: 0, 2: 1, 3: 0})
    {0: 0, 1: 1, 3: 1, 2: 2}
    """
    if root in parents:  # checked first: a cycle through the root would never end the walk
        raise ValueError("parent map is not a tree hanging from its root")
    children: dict[int, list[int]] = {}
    for c, p in parents.items():
        children.setdefault(p, []).append(c)
    levels = {root: 0}
    frontier = [root]
    while frontier:
        nxt = []
        for u in frontier:
            for c in sorted(children.get(u, ())):
                if c not in levels:
                    levels[c] = levels[u] + 1
                    nxt.append(c)
        frontier = nxt
    if len(levels) != len(parents) + 1:
        raise ValueError("parent map is not a tree hanging from its root")
    return levels


def bfs_distances(net: WorkingNetwork, root: int) -> dict[int, int]:
    """Hop distance from ``root`` to every node it reaches in the working orientation.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> bfs_distances(working_network(build("mesh:2x3")), 0)[5]
    3
    """
    dist = {root: 0}
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in net.succ[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def resolve_span(G: nx.MultiDiGraph, span: Iterable[int] | None) -> list[int]:
    """The nodes every tree must reach: ``span`` checked and sorted, or the compute chiplets.

    Raises
    ------
    TopologyError
        If a span node does not exist or the span is empty.
    """
    nodes = compute_nodes(G) if span is None else sorted(set(check_nodes(G, span, what="span")))
    if not nodes:
        raise TopologyError("the span is empty", hint="give at least one node to reach")
    return nodes


def eccentricities(
    net: WorkingNetwork, roots: Sequence[int], span: Sequence[int]
) -> list[int | None]:
    """Each root's eccentricity over ``span`` (``None`` when the root cannot reach all of it).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> eccentricities(working_network(build("smbi:4x4")), [0, 5], range(16))
    [6, 4]
    """
    out: list[int | None] = []
    for r in roots:
        dist = bfs_distances(net, r)
        out.append(max(dist[v] for v in span) if all(v in dist for v in span) else None)
    return out


def height_lower_bound(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> int | None:
    """Lower bound on the maximum height of trees with these roots: the largest eccentricity.

    A tree cannot be lower than the BFS distance from its root to its farthest span node, so the
    tallest tree of any packing is at least the largest such eccentricity.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    roots : sequence of int
        One root per tree.
    direction : {"out", "in"}
        Out-trees (distances from the roots) or in-trees (distances to the roots).
    span : iterable of int, optional
        Nodes every tree must reach; default the compute chiplets.

    Returns
    -------
    int or None
        ``None`` when some root cannot reach its span at all.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> height_lower_bound(build("smbi:8x8"), [0, 7, 63, 56])  # 2N-2
    14
    """
    net = working_network(G, direction)
    ecc = eccentricities(net, check_nodes(G, roots, what="root"), resolve_span(G, span))
    return (
        None if any(e is None for e in ecc) else max((e for e in ecc if e is not None), default=0)
    )


def root_eccentricities(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> list[int | None]:
    """Each root's eccentricity over the span: the lower bound on its tree's height.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> root_eccentricities(build("smalter:6x6"), [3, 23, 32, 12])
    [8, 8, 8, 8]
    """
    net = working_network(G, direction)
    return eccentricities(net, check_nodes(G, roots, what="root"), resolve_span(G, span))
