"""Many trees as flat arrays: one row per tree arc, for orders and programs over thousands of trees.

A throughput packing of a 32x32 SuperMesh has 4,096 trees of 1,023 arcs each. Per-tree objects
(:class:`~supermesh.trees.oriented.OrientedTree`: dicts of parents, depths and children) cost
seconds and hundreds of megabytes there; :class:`Forest` holds the same facts as a few numpy
arrays, one row (a *job*: the transfer over one tree arc) per (tree, non-root node), in the order
of each tree's stored arcs. :func:`forest` builds it and checks each tree as
:class:`~supermesh.trees.oriented.OrientedTree` does. The FIFO order
(:func:`~supermesh.trees.schedule.fifo.fifo_order`) and the simulator's packing programs
(:func:`supermesh.sim.packing.packing_program`) read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from supermesh.errors import TopologyError
from supermesh.trees.model import Tree
from supermesh.trees.oriented import OrientedTree

__all__ = ["Forest", "forest"]


@dataclass(frozen=True, eq=False)  # arrays: no element-wise == or hash
class Forest:
    """Trees as parent -> child arcs in flat arrays (one row per arc: a *job*).

    Attributes
    ----------
    roots : numpy.ndarray
        Per tree: its root.
    tree, up, node, key : numpy.ndarray
        Per job: its tree, and its arc ``up -> node`` (parent -> child) with ``key``; the jobs
        of tree ``t`` are rows ``start[t]:start[t + 1]``, in the order of its arcs. Every
        array is ``int32`` but ``start``.
    start : numpy.ndarray
        ``len(roots) + 1`` row offsets.
    parent : numpy.ndarray
        Per job: the job of the arc into ``up`` (-1 when ``up`` is the root).
    depth, below : numpy.ndarray
        Per job: depth of ``node`` (1 under the root) and the height of the subtree below it.
    child_start, children : numpy.ndarray
        The jobs below job ``j`` are ``children[child_start[j]:child_start[j + 1]]``.
    """

    roots: np.ndarray
    tree: np.ndarray
    up: np.ndarray
    node: np.ndarray
    key: np.ndarray
    start: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    below: np.ndarray
    child_start: np.ndarray
    children: np.ndarray

    @property
    def jobs(self) -> int:
        """Number of jobs (tree arcs)."""
        return len(self.node)

    def children_of(self, jobs: np.ndarray) -> np.ndarray:
        """The jobs directly below each of ``jobs``, concatenated in that order."""
        return _children_of(jobs, self.child_start, self.children)

    def arc_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct arcs ``(up, node, key)`` (rows, sorted) and each job's row among them."""
        if not self.jobs:
            return np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
        nodes = int(max(self.up.max(), self.node.max())) + 1
        keys = int(self.key.max()) + 1
        up, node = self.up.astype(np.int64), self.node.astype(np.int64)
        code = (up * nodes + node) * keys + self.key  # row-major (up, node, key)
        distinct, inverse = np.unique(code, return_inverse=True)
        arcs = np.stack([distinct // keys // nodes, distinct // keys % nodes, distinct % keys], 1)
        return arcs, inverse.reshape(-1)


def forest(trees: Sequence[Tree | OrientedTree], direction: str = "out") -> Forest:
    """The :class:`Forest` of ``trees``.

    Parameters
    ----------
    trees : sequence of Tree or OrientedTree
        Stored trees (oriented by ``direction``) or trees already parent -> child.
    direction : {"out", "in"}
        How stored trees keep their arcs: ``"in"`` trees store child -> parent, so each arc is
        reversed (keeping its key), as :func:`~supermesh.trees.oriented.orient` does.

    Returns
    -------
    Forest

    Raises
    ------
    TopologyError
        A tree reaches a node twice (or its root), has a node that hangs from nothing, or a
        cycle.

    Examples
    --------
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(2, ((2, 1, 0),), 1)])
    >>> f.node.tolist(), f.parent.tolist(), f.depth.tolist(), f.below.tolist()
    ([1, 2, 1], [-1, 0, -1], [1, 2, 1], [1, 0, 0])
    """
    roots = np.array([t.root for t in trees], dtype=np.int64)
    sizes = np.array(
        [len(t.parent) if isinstance(t, OrientedTree) else len(t.arcs) for t in trees],
        dtype=np.int64,
    )
    start = np.zeros(len(trees) + 1, dtype=np.int64)
    np.cumsum(sizes, out=start[1:])
    n = int(start[-1])
    flat = np.fromiter(
        chain.from_iterable(chain.from_iterable(_arcs(t) for t in trees)),
        dtype=np.int64,
        count=3 * n,
    ).reshape(n, 3)
    tree = np.repeat(np.arange(len(trees), dtype=np.int64), sizes)
    # stored in-trees keep child -> parent; oriented trees are parent -> child already
    flip = np.array([direction == "in" and not isinstance(t, OrientedTree) for t in trees])
    flipped = flip[tree] if n else np.zeros(0, dtype=bool)
    up = np.where(flipped, flat[:, 1], flat[:, 0])
    node = np.where(flipped, flat[:, 0], flat[:, 1])
    key = flat[:, 2].copy()
    width = int(max(flat[:, :2].max(initial=-1), roots.max(initial=-1))) + 1
    where = np.full(len(trees) * width, -1, dtype=np.int64)  # (tree, node) -> job
    cell = tree * width + node
    where[cell] = np.arange(n)
    bad = (where[cell] != np.arange(n)) | (node == roots[tree])
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise TopologyError(f"tree rooted at {roots[tree[j]]} reaches node {node[j]} twice")
    parent = np.where(up == roots[tree], -1, where[tree * width + up])
    hanging = (parent < 0) & (up != roots[tree])
    if hanging.any():
        j = int(np.flatnonzero(hanging)[0])
        raise TopologyError(
            f"node {up[j]} of the tree rooted at {roots[tree[j]]} hangs from nothing"
        )
    order = np.argsort(parent, kind="stable")
    order = order[parent[order] >= 0]
    child_start = np.searchsorted(parent[order], np.arange(n + 1)).astype(np.int64)
    depth = np.zeros(n, dtype=np.int64)
    level = np.flatnonzero(parent < 0)
    levels = []
    d = 1
    while len(level):
        depth[level] = d
        levels.append(level)
        level = _children_of(level, child_start, order)
        d += 1
    if sum(len(x) for x in levels) != n:
        j = int(np.flatnonzero(depth == 0)[0])
        raise TopologyError(f"the tree rooted at {roots[tree[j]]} has a cycle")
    below = np.zeros(n, dtype=np.int64)
    for level in reversed(levels[1:]):
        np.maximum.at(below, parent[level], below[level] + 1)

    def i32(x: np.ndarray) -> np.ndarray:
        return x.astype(np.int32)

    return Forest(
        roots=i32(roots),
        tree=i32(tree),
        up=i32(up),
        node=i32(node),
        key=i32(key),
        start=start,
        parent=i32(parent),
        depth=i32(depth),
        below=i32(below),
        child_start=i32(child_start),
        children=i32(order),
    )


def _arcs(t: Tree | OrientedTree) -> Sequence[tuple[int, int, int]]:
    return list(t.parent.values()) if isinstance(t, OrientedTree) else t.arcs


def _children_of(jobs: np.ndarray, child_start: np.ndarray, children: np.ndarray) -> np.ndarray:
    """The jobs directly below ``jobs``, concatenated."""
    lo, hi = child_start[jobs], child_start[jobs + 1]
    counts = hi - lo
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.repeat(lo - np.cumsum(counts) + counts, counts)
    return children[np.arange(total) + offsets]
