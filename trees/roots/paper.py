"""The SuperMesh paper's rule for ReduceScatter / AllGather root sets, as a baseline.

Laskar et al. (MICRO 2025, section 4.2, figure 8) take the roots "one from each side, from the
outer boundary inward", and three from three different sides where only three trees fit (odd
SMAlter). We read this as: walk the rings of the grid from the outside in; walk each ring clockwise
from its top-left corner, its north side left to right, east top to bottom, south right to left,
west bottom to top (each side starting at its first corner, as
:func:`supermesh.topologies.grid.perimeter_sides` does); interleave the four side walks (the first
chiplet of north, east, south, west, then the second of each, ...) and cut the whole sequence into
consecutive sets of ``k``. With ``k = 4`` on a square grid each set is the ``j``-th chiplet of
every side of one ring (the first set is the four corners); with ``k = 3`` any three consecutive
chiplets of the interleaved walk lie on three different sides. A ring that is a single row or
column (or chiplet) is walked in row-major order. The last set is smaller when ``k`` does not
divide the number of chiplets.

References
----------
.. [1] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (section 4.2, figure 8: root selection on a 6x6 SMAlter).
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import grid_positions

__all__ = ["paper_root_sets", "ring_walk"]


def ring_walk(rows: int, cols: int) -> list[tuple[int, int]]:
    """Every ``(row, col)`` once: rings from the outside in, the four sides of each interleaved.

    Examples
    --------
    >>> ring_walk(3, 3)
    [(0, 0), (0, 2), (2, 2), (2, 0), (0, 1), (1, 2), (2, 1), (1, 0), (1, 1)]
    >>> ring_walk(2, 3)[:4]
    [(0, 0), (0, 2), (1, 2), (1, 0)]
    """
    order: list[tuple[int, int]] = []
    i = 0
    while 2 * i < min(rows, cols):
        r0, r1, c0, c1 = i, rows - 1 - i, i, cols - 1 - i
        if r0 == r1 or c0 == c1:  # a single row, column or chiplet in the middle
            order += [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
            break
        sides = [
            [(r0, c) for c in range(c0, c1)],
            [(r, c1) for r in range(r0, r1)],
            [(r1, c) for c in range(c1, c0, -1)],
            [(r, c0) for r in range(r1, r0, -1)],
        ]
        for j in range(max(len(s) for s in sides)):
            order += [s[j] for s in sides if j < len(s)]
        i += 1
    return order


def paper_root_sets(
    G: nx.MultiDiGraph, *, k: int | None = None, direction: str = "out"
) -> list[list[int]]:
    """Root sets by the paper's rule: one root per side, from the outside in (module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology (every ``(row, col)`` a compute chiplet; memory chiplets may be attached).
    k : int, optional
        Roots per set. Default: the largest size that fits every set
        (:func:`supermesh.trees.roots.sets.root_set_size`): 4 on SMBi and even SMAlter, 3 on odd
        SMAlter and partial SuperMesh, 2 on the mesh.
    direction : {"out", "in"}
        Only used to pick the default ``k``.

    Returns
    -------
    list of list of int
        Sets of ``k`` node ids (the last one smaller when ``k`` does not divide the count), in
        the paper's order: outer ring first, roots within a set in side order N, E, S, W.

    Raises
    ------
    TopologyError
        ``G`` is not a full grid of compute chiplets.
    SpecError
        ``k`` is below 1.

    References
    ----------
    .. [1] S. Laskar et al., "SuperMesh", MICRO 2025, section 4.2 and figure 8.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> paper_root_sets(build("smbi:4x4"))
    [[0, 3, 15, 12], [1, 7, 14, 8], [2, 11, 13, 4], [5, 6, 10, 9]]
    >>> paper_root_sets(build("smalter:5x5"))[:2]  # odd SMAlter: 3 roots, 3 different sides
    [[0, 4, 24], [20, 1, 9]]
    """
    rows, cols, where = grid_positions(
        G,
        what="the paper's root rule",
        hint="use method 'optimise', which works on any topology",
    )
    if k is None:
        from supermesh.trees.roots.size import root_set_size

        k = root_set_size(G, direction=direction).k
    if k < 1:
        raise SpecError(f"k = {k} roots per set is not possible", hint="use k >= 1")
    order = [where[p] for p in ring_walk(rows, cols)]
    return [order[i : i + k] for i in range(0, len(order), k)]
