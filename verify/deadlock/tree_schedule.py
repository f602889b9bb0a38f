"""A tree-level schedule description for the deadlock analysis: trees, FIFO orders, routes.

:class:`TreeSchedule` says how a pipelined tree collective runs without writing out a table: the
packings, the chunk count, the standard FIFO order (or explicit permutations of some links), the
multi-hop routes and the buffer slots. It expresses what a schedule table cannot (any FIFO order,
multi-hop sends), so constructed counterexamples are written with it; :func:`tree_model` turns it
into the :class:`~supermesh.verify.deadlock.fifo.FifoModel` the analysis runs on.

The model (BRIEF sections 4 and 6)
    Every tree arc carries every chunk once. A transfer depends on the transfers of the same tree
    and chunk that deliver to its sender (RS: every child's chunk; AG: the parent's chunk); in an
    AllReduce every AG transfer also waits for the global barrier. Root sets are not barriered:
    all sets share the FIFOs. A multi-hop send (``routes``) crosses its links cut-through,
    holding each link it has entered until its last hop has started (the TPU note in ``seeds/``
    measured exactly this).
"""

from __future__ import annotations

import itertools
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.model import Tree, TreePacking
from supermesh.verify.deadlock.fifo import Arc, FifoModel, Transfer, arc_text

__all__ = ["COLLECTIVES", "ORDERS", "TreeSchedule", "transfers", "tree_model"]

COLLECTIVES: dict[str, tuple[str, ...]] = {
    "allreduce": ("rs", "ag"),
    "reducescatter": ("rs",),
    "reduce": ("rs",),
    "allgather": ("ag",),
    "broadcast": ("ag",),
}
ORDERS = ("set", "chunk")
_RANK = {"rs": 0, "ag": 1}


@dataclass(frozen=True)
class TreeSchedule:
    """A pipelined tree collective as it will run (a minimal input for the deadlock check).

    Attributes
    ----------
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
    in_trees : TreePacking or None
        In-trees (``direction="in"``) for the RS / reduce phase.
    out_trees : TreePacking or None
        Out-trees (``direction="out"``) for the AG / broadcast phase. AllReduce needs both.
    chunks : int
        Chunks per tree.
    order : {"set", "chunk"}
        Standard FIFO order: by phase, then set, chunk (``"set"``; the sets sit in set order)
        or chunk, set (``"chunk"``), then leaves first (RS) / root first (AG).
    fifo : mapping of link -> sequence of Transfer, optional
        Explicit FIFO orders for some links (each a permutation of the transfers crossing that
        link); the other links use the standard order.
    routes : mapping of tree arc -> sequence of links, optional
        Multi-hop sends: a tree arc ``(u, w, key)`` sent along the path of links given.
    buffers : int or None
        Chunk slots per link at its receiver (default 1: store and forward); ``None``: unbounded.

    Examples
    --------
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0),), height=1)
    >>> p = TreePacking("mesh:1x2", "out", "feasible", (TreeSet((t,)),))
    >>> TreeSchedule("broadcast", out_trees=p, chunks=3).buffers
    1
    """

    collective: str
    in_trees: TreePacking | None = None
    out_trees: TreePacking | None = None
    chunks: int = 1
    order: str = "set"
    fifo: Mapping[Arc, Sequence[Transfer]] | None = field(default=None, compare=False)
    routes: Mapping[Arc, Sequence[Arc]] | None = field(default=None, compare=False)
    buffers: int | None = 1

    def __post_init__(self) -> None:
        if self.collective not in COLLECTIVES:
            raise SupermeshError(
                f"unknown collective {self.collective!r}",
                hint=f"use one of: {', '.join(COLLECTIVES)}",
            )
        for phase in COLLECTIVES[self.collective]:
            packing, want, name = (
                (self.in_trees, "in", "in_trees")
                if phase == "rs"
                else (self.out_trees, "out", "out_trees")
            )
            if packing is None or packing.direction != want:
                raise SupermeshError(
                    f"a {self.collective} schedule needs {name} (a packing with direction {want!r})"
                )
        if not isinstance(self.chunks, int) or self.chunks < 1:
            raise SupermeshError(f"chunks={self.chunks!r} is not a positive integer")
        if self.order not in ORDERS:
            raise SupermeshError(f"order {self.order!r} is not one of {ORDERS}")
        if self.buffers is not None and (not isinstance(self.buffers, int) or self.buffers < 1):
            raise SupermeshError(f"buffers={self.buffers!r} is not a positive integer or None")

    def packing(self, phase: str) -> TreePacking:
        """The packing of ``phase`` (``"rs"`` -> in-trees, ``"ag"`` -> out-trees)."""
        p = self.in_trees if phase == "rs" else self.out_trees
        if p is None:
            raise SupermeshError(f"this {self.collective} schedule has no {phase} phase")
        return p


def transfers(schedule: TreeSchedule) -> list[Transfer]:
    """Every transfer of the schedule, phase by phase, set by set, tree by tree, chunk by chunk.

    Parameters
    ----------
    schedule : TreeSchedule
        The explicit tree schedule.

    Returns
    -------
    list of Transfer
        In that order.

    Examples
    --------
    >>> t = Tree(root=0, arcs=((0, 1, 0),), height=1)
    >>> from supermesh.trees.model import TreeSet
    >>> p = TreePacking("mesh:1x2", "out", "feasible", (TreeSet((t,)),))
    >>> len(transfers(TreeSchedule("broadcast", out_trees=p, chunks=3)))
    3
    """
    out = []
    for phase in COLLECTIVES[schedule.collective]:
        for s, tree_set in enumerate(schedule.packing(phase).sets):
            for t, tree in enumerate(tree_set.trees):
                for c in range(schedule.chunks):
                    out += [Transfer(phase, s, t, c, a) for a in tree.arcs]
    return out


def _hops(G: nx.MultiDiGraph, schedule: TreeSchedule, arc: Arc) -> tuple[Arc, ...]:
    routes = schedule.routes or {}
    if arc not in routes:
        if not G.has_edge(*arc):
            raise SupermeshError(
                f"tree arc {arc_text(arc)} is not a link of the topology and has no route",
                hint="check the trees with supermesh verify, or give the multi-hop route",
            )
        return (arc,)
    path: tuple[Arc, ...] = tuple((int(h[0]), int(h[1]), int(h[2])) for h in routes[arc])
    ok = bool(path) and path[0][0] == arc[0] and path[-1][1] == arc[1]
    ok = ok and all(a[1] == b[0] for a, b in itertools.pairwise(path))
    if not ok or len(set(path)) != len(path) or not all(G.has_edge(*h) for h in path):
        raise SupermeshError(
            f"route {[arc_text(h) for h in path]} of {arc_text(arc)} is not a path of "
            "distinct links from its source to its destination"
        )
    return path


def _depths(tree: Tree, phase: str) -> dict[int, int]:
    children: dict[int, list[int]] = defaultdict(list)
    for u, v, _ in tree.arcs:
        parent, child = (u, v) if phase == "ag" else (v, u)
        children[parent].append(child)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        n = queue.popleft()
        for c in children[n]:
            if c not in depth:
                depth[c] = depth[n] + 1
                queue.append(c)
    return depth


def _standard_fifos(
    schedule: TreeSchedule, hops: Mapping[Transfer, tuple[Arc, ...]]
) -> dict[Arc, list[Transfer]]:
    depths = {
        (phase, s, t): _depths(tree, phase)
        for phase in COLLECTIVES[schedule.collective]
        for s, ts in enumerate(schedule.packing(phase).sets)
        for t, tree in enumerate(ts.trees)
    }

    def key(x: Transfer) -> tuple[Any, ...]:
        d = depths[(x.phase, x.set, x.tree)].get(x.arc[0], 0)
        level = -d if x.phase == "rs" else d
        major = (x.set, x.chunk) if schedule.order == "set" else (x.chunk, x.set)
        return (_RANK[x.phase], *major, level, x.tree, x.arc)

    fifos: dict[Arc, list[Transfer]] = defaultdict(list)
    for x, path in hops.items():
        for h in path:
            fifos[h].append(x)
    return {link: sorted(q, key=key) for link, q in fifos.items()}


def tree_model(G: nx.MultiDiGraph, schedule: TreeSchedule) -> FifoModel:
    """The FIFO model of a tree-level schedule.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    schedule : TreeSchedule

    Returns
    -------
    FifoModel
        Links not in ``schedule.fifo`` use the standard order (see :class:`TreeSchedule`);
        ``standard`` holds the standard order where explicit orders were given.

    Raises
    ------
    SupermeshError
        If an explicit order is not a permutation of the transfers crossing its link, or a tree
        arc is neither a link nor routed.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> m = tree_model(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p, chunks=2))
    >>> [str(x) for x in m.fifos[(0, 1, 0)]]
    ['ag set 0 tree 0 chunk 0 0->1#0', 'ag set 0 tree 0 chunk 1 0->1#0']
    """
    hops = {x: _hops(G, schedule, x.arc) for x in transfers(schedule)}
    standard = _standard_fifos(schedule, hops)
    fifos = dict(standard)
    for raw_link, order in (schedule.fifo or {}).items():
        link: Arc = (int(raw_link[0]), int(raw_link[1]), int(raw_link[2]))
        given = list(order)
        if sorted(given) != sorted(fifos.get(link, [])):
            extra = set(given) ^ set(fifos.get(link, []))
            raise SupermeshError(
                f"explicit FIFO of link {arc_text(link)} is not a permutation of the transfers "
                f"crossing it (e.g. {min(extra) if extra else 'a repeated transfer'})"
            )
        fifos[link] = given
    delivered: dict[tuple[str, int, int, int, int], list[Transfer]] = defaultdict(list)
    for x in hops:
        delivered[(x.phase, x.set, x.tree, x.chunk, x.arc[1])].append(x)
    deps = {x: tuple(delivered.get((x.phase, x.set, x.tree, x.chunk, x.arc[0]), ())) for x in hops}
    return FifoModel(
        fifos=fifos,
        hops=hops,
        deps=deps,
        buffers=schedule.buffers,
        barrier=("rs", "ag") if schedule.collective == "allreduce" else None,
        standard=standard if schedule.fifo else None,
        note=f"{schedule.collective} on trees, {schedule.chunks} chunk(s), {schedule.order} order",
    )
