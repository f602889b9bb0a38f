"""Hand-built reference trees, made without the solvers, for tests and examples.

Examples
--------
>>> p = smbi_corner_trees(4)
>>> [t.root for t in p.trees], [t.height for t in p.trees]
([0, 3, 15, 12], [6, 6, 6, 6])
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from supermesh.topologies import add_link, add_node
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule import reverse_packing

__all__ = ["chiplet_path", "smbi_corner_trees"]


def chiplet_path(n: int) -> nx.MultiDiGraph:
    """``n`` chiplets in a row, ``0 - 1 - ... - n-1``, joined by two-way unit links.

    Examples
    --------
    >>> sorted(chiplet_path(3).edges(keys=True))
    [(0, 1, 0), (1, 0, 0), (1, 2, 0), (2, 1, 0)]
    """
    G = nx.MultiDiGraph()
    for v in range(n):
        add_node(G, v, pos=(float(v), 0.0))
    for v in range(n - 1):
        add_link(G, v, v + 1)
    return G


def smbi_corner_trees(n: int, *, direction: str = "out") -> TreePacking:
    """Four arc-disjoint corner-rooted spanning trees of height 2n-2 on ``smbi:nxn``.

    Top-left: along row 0, then down every column. Top-right: down its column, then left along
    every row. Bottom-right and bottom-left: the same turned by 180 degrees. Two trees share a
    direction of a link only on the perimeter, where SMBi doubles it; keys are given in tree
    order. ``direction="in"`` returns the same trees with every arc reversed (ReduceScatter).

    Examples
    --------
    >>> smbi_corner_trees(3).trees[0].arcs[:3]
    ((0, 1, 0), (0, 3, 0), (1, 2, 0))
    """

    def idx(r: int, c: int) -> int:
        return r * n + c

    last = n - 1
    plans = [
        (idx(0, 0), [(idx(0, c), idx(0, c + 1)) for c in range(last)]
         + [(idx(r, c), idx(r + 1, c)) for c in range(n) for r in range(last)]),
        (idx(0, last), [(idx(r, last), idx(r + 1, last)) for r in range(last)]
         + [(idx(r, c), idx(r, c - 1)) for r in range(n) for c in range(1, n)]),
        (idx(last, last), [(idx(last, c), idx(last, c - 1)) for c in range(1, n)]
         + [(idx(r, c), idx(r - 1, c)) for c in range(n) for r in range(1, n)]),
        (idx(last, 0), [(idx(r, 0), idx(r - 1, 0)) for r in range(1, n)]
         + [(idx(r, c), idx(r, c + 1)) for r in range(n) for c in range(last)]),
    ]  # fmt: skip
    used: dict[tuple[int, int], int] = defaultdict(int)
    trees = []
    for root, pairs in plans:
        arcs = []
        for u, v in pairs:
            arcs.append((u, v, used[(u, v)]))
            used[(u, v)] += 1
        trees.append(Tree(root=root, arcs=tuple(arcs), height=2 * n - 2))
    h = 2 * n - 2
    packing = TreePacking(
        f"smbi:{n}x{n}", "out", "optimal", (TreeSet(tuple(trees), h),), h, h, method="hand"
    )
    return reverse_packing(packing) if direction == "in" else packing
