"""A tree as parent -> child arcs with depths and children: the form schedules and programs use.

Stored trees (:class:`~supermesh.trees.model.Tree`) keep the arcs the data use: out-trees
parent -> child, in-trees child -> parent. :func:`orient` turns either into an
:class:`OrientedTree` (parent -> child), which the FIFO ordering
(:mod:`supermesh.trees.schedule.fifo`), the simulator's programs and the drawings share.
"""

from __future__ import annotations

from supermesh.errors import TopologyError
from supermesh.topologies.model import Arc
from supermesh.trees.model import Tree

__all__ = ["OrientedTree", "orient"]


class OrientedTree:
    """A tree as parent -> child arcs with depths (the form every builder here uses).

    Parameters
    ----------
    root : int
    down : list of (parent, child, key)
        Arcs from parent to child.
    share : float
        Weight of this tree in splitting the data.
    """

    def __init__(self, root: int, down: list[Arc], share: float = 1.0) -> None:
        self.root = root
        self.share = share
        self.parent: dict[int, Arc] = {}
        for u, v, k in down:
            if v in self.parent or v == root:
                raise TopologyError(f"tree rooted at {root} reaches node {v} twice")
            self.parent[v] = (u, v, k)
        self.depth: dict[int, int] = {root: 0}
        for v in self.parent:
            self._depth(v)
        self.children: dict[int, list[int]] = {}
        for v, (u, _, _) in self.parent.items():
            self.children.setdefault(u, []).append(v)
        self.height = max(self.depth.values())

    def _depth(self, v: int) -> int:
        path = []
        while v not in self.depth:
            path.append(v)
            if v not in self.parent:
                raise TopologyError(
                    f"node {v} of the tree rooted at {self.root} hangs from nothing"
                )
            v = self.parent[v][0]
            if len(path) > len(self.parent) + 1:
                raise TopologyError(f"the tree rooted at {self.root} has a cycle")
        d = self.depth[v]
        for w in reversed(path):
            d += 1
            self.depth[w] = d
        return d


def orient(tree: Tree, direction: str) -> OrientedTree:
    """Turn a stored :class:`~supermesh.trees.model.Tree` into parent -> child arcs.

    Out-trees store parent -> child already; in-trees store child -> parent, so each arc is
    reversed (keeping its key).
    """
    if direction == "out":
        down = [(u, v, k) for u, v, k in tree.arcs]
    else:
        down = [(v, u, k) for u, v, k in tree.arcs]
    return OrientedTree(tree.root, down, tree.share)
