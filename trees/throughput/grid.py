"""Grid facts the constructions need: arc multiplicities, dihedral maps, orbits of roots.

:func:`grid_multiplicity` reads a topology as a grid of compute chiplets (or says it is not
one), :func:`grid_pattern` gives the multiplicities of the mesh and of SMBi to compare with,
:func:`grid_maps` the dihedral maps of the grid that keep every multiplicity (the same maps as
:mod:`supermesh.topologies.symmetry`, as numpy permutations), and :class:`Orbits` one root per
orbit with the relabelling that gives every other root's trees from its representative's.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import numpy as np

from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.throughput import exact_fraction
from supermesh.trees.throughput.combs import E, N, S, W

__all__ = ["DIRS", "Orbits", "grid_maps", "grid_multiplicity", "grid_pattern"]

DIRS = {(0, 1): E, (-1, 0): N, (0, -1): W, (1, 0): S}
"""``(drow, dcol)`` of a step -> its direction (E, N, W, S as in :mod:`~.combs`)."""


def grid_multiplicity(G: nx.MultiDiGraph) -> tuple[int, int, np.ndarray, Fraction] | None:
    """``(rows, cols, mult, bandwidth)`` when ``G`` is a grid of compute chiplets, else None.

    ``mult[v, d]`` counts the arcs from ``v`` to its neighbour in direction ``d`` (E, N, W, S).
    None when a node is not a compute chiplet, ids are not row-major, an arc joins nodes that
    are not grid neighbours, the parallel arcs of a pair are not keyed ``0, 1, ...``, or
    bandwidths differ.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> rows, cols, mult, bw = grid_multiplicity(build("smbi:3x3"))
    >>> mult[0].tolist(), mult[4].tolist(), bw
    ([2, 0, 0, 2], [1, 1, 1, 1], Fraction(1, 1))
    """
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if not isinstance(rows, int) or not isinstance(cols, int) or rows < 1 or cols < 1:
        return None
    n = rows * cols
    if n < 2 or sorted(G.nodes) != list(range(n)) or len(compute_nodes(G)) != n:
        return None
    for v, data in G.nodes(data=True):
        if (data.get("row", v // cols), data.get("col", v % cols)) != (v // cols, v % cols):
            return None
    mult = np.zeros((n, 4), dtype=np.int64)
    keys: dict[tuple[int, int], list[int]] = {}
    bws = set()
    for u, v, k, bw in G.edges(keys=True, data="bandwidth", default=1.0):
        step = DIRS.get((v // cols - u // cols, v % cols - u % cols))
        if step is None:
            return None
        mult[u, step] += 1
        keys.setdefault((u, v), []).append(int(k))
        bws.add(float(bw))
    if len(bws) != 1 or any(sorted(ks) != list(range(len(ks))) for ks in keys.values()):
        return None
    bw = exact_fraction(bws.pop())
    return (rows, cols, mult, bw) if bw > 0 else None


def grid_pattern(rows: int, cols: int, doubled: bool) -> np.ndarray:
    """The arc multiplicities of the mesh (``doubled``: every perimeter link doubled, SMBi).

    Examples
    --------
    >>> grid_pattern(3, 3, True)[1].tolist(), grid_pattern(3, 3, False)[1].tolist()
    ([2, 0, 2, 1], [1, 0, 1, 1])
    """
    ids = np.arange(rows * cols)
    y, c = ids // cols, ids % cols
    extra = 1 if doubled else 0
    along_row = 1 + extra * ((y == 0) | (y == rows - 1))
    along_col = 1 + extra * ((c == 0) | (c == cols - 1))
    mult = np.zeros((rows * cols, 4), dtype=np.int64)
    mult[:, E] = np.where(c < cols - 1, along_row, 0)
    mult[:, W] = np.where(c > 0, along_row, 0)
    mult[:, N] = np.where(y > 0, along_col, 0)
    mult[:, S] = np.where(y < rows - 1, along_col, 0)
    return mult


def grid_maps(rows: int, cols: int, mult: np.ndarray) -> list[np.ndarray]:
    """The dihedral maps of the grid (node permutations, identity first) keeping ``mult``."""
    ids = np.arange(rows * cols)
    y, c = ids // cols, ids % cols
    R, C = rows - 1, cols - 1
    coords = [(y, c), (R - y, c), (y, C - c), (R - y, C - c)]
    if rows == cols:
        coords += [(c, y), (C - c, y), (c, R - y), (C - c, R - y)]
    code = np.full(9, -1)
    for (dy, dx), d in DIRS.items():
        code[(dy + 1) * 3 + dx + 1] = d
    maps = []
    for gy, gc in coords:
        g = gy * cols + gc
        ok = True
        for d, (sy, sx) in ((d, s) for s, d in DIRS.items()):
            has = mult[:, d] > 0
            src = ids[has]
            dst = (y[has] + sy) * cols + c[has] + sx
            step = (g[dst] // cols - g[src] // cols + 1) * 3 + g[dst] % cols - g[src] % cols + 1
            image = code[step]
            if np.any(image < 0) or not np.array_equal(mult[g[src], image], mult[src, d]):
                ok = False
                break
        if ok:
            maps.append(g)
    return maps


class Orbits:
    """One root per orbit of the maps, and how every root is reached from its representative."""

    def __init__(self, n: int, maps: list[np.ndarray], reps: list[int] | None = None) -> None:
        """``reps``: the representatives to use, in this order (default the first of each)."""
        self.maps = maps
        self.rep_of = np.full(n, -1, dtype=np.int64)
        self.via = np.zeros(n, dtype=np.int64)
        self.reps: list[int] = []
        for r in range(n) if reps is None else reps:
            if self.rep_of[r] >= 0:
                continue
            self.reps.append(r)
            for mi, g in enumerate(maps):
                if self.rep_of[g[r]] < 0:
                    self.rep_of[g[r]] = r
                    self.via[g[r]] = mi
        self.index = {r: i for i, r in enumerate(self.reps)}

    def parents(self, base: np.ndarray, roots: np.ndarray) -> np.ndarray:
        """Parents of ``roots`` from the representatives' ``base``: g(parent) at g(v)."""
        out = np.empty((len(roots), base.shape[1], base.shape[2]), dtype=np.int32)
        for i, r in enumerate(roots):
            g = self.maps[self.via[r]]
            out[i][:, g] = g[base[self.index[int(self.rep_of[r])]]]
        return out

    def labels(self, base: np.ndarray, roots: np.ndarray) -> np.ndarray:
        """Per-node values of ``roots`` (arc keys) from the representatives': base at g(v)."""
        out = np.empty((len(roots), base.shape[1], base.shape[2]), dtype=base.dtype)
        for i, r in enumerate(roots):
            out[i][:, self.maps[self.via[r]]] = base[self.index[int(self.rep_of[r])]]
        return out
