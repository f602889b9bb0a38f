"""The root choices a certificate file proves heights for, rebuilt from their definitions.

``corners``
    the four corner chiplets clockwise from the top-left: ``(0, 0)``, ``(0, C-1)``,
    ``(R-1, C-1)``, ``(R-1, 0)``; on HexaMesh three alternate corners of the hexagon: the first
    chiplet of the top row, the last of the middle row, the first of the bottom row.
``sides``
    the chiplet ``L // 2`` along each side walked clockwise: ``(0, C//2)``, ``(R//2, C-1)``,
    ``(R-1, C-1-C//2)``, ``(R-1-R//2, 0)`` (grids only).
``corners3``
    the corners but the one where the clockwise walk of the I/O side ends (``io`` of a partial
    family, south by default: the bottom-left corner); that corner is left out of the span (it may
    only relay) when none of its two perimeter links gives it a second arc in (for in-trees:
    out), else the span is every compute chiplet.

A choice that does not exist on a topology (``sides`` on HexaMesh, any choice on a topology
without rows and columns) is ``n/a``. Nothing here runs :mod:`supermesh.trees.prove`.
"""

from __future__ import annotations

import networkx as nx

__all__ = ["NAMES", "choice_definition"]

NAMES = ("corners", "sides", "corners3")
_LAST_CORNER = {"north": 1, "east": 2, "south": 3, "west": 0}


def _cells(G: nx.MultiDiGraph) -> dict[tuple[int, int], int]:
    return {
        (int(d["row"]), int(d["col"])): int(n)
        for n, d in G.nodes(data=True)
        if d.get("kind") == "compute" and d.get("row") is not None and d.get("col") is not None
    }


def _hex_corners(G: nx.MultiDiGraph) -> list[int]:
    rows: dict[int, list[tuple[int, int]]] = {}
    for (r, c), n in _cells(G).items():
        rows.setdefault(r, []).append((c, n))
    last = max(rows)
    return [min(rows[0])[1], max(rows[last // 2])[1], min(rows[last])[1]]


def _walk(rows: int, cols: int, cells: dict[tuple[int, int], int]) -> list[int]:
    """The perimeter chiplets clockwise from the top-left corner."""
    ring = [(0, c) for c in range(cols - 1)] + [(r, cols - 1) for r in range(rows - 1)]
    ring += [(rows - 1, c) for c in range(cols - 1, 0, -1)] + [
        (r, 0) for r in range(rows - 1, 0, -1)
    ]
    return [cells[p] for p in ring]


def _undoubled(G: nx.MultiDiGraph, v: int, walk: list[int], direction: str) -> bool:
    i = walk.index(v)
    before, after = walk[i - 1], walk[(i + 1) % len(walk)]

    def arcs_in(u: int) -> int:
        return G.number_of_edges(u, v) if direction == "out" else G.number_of_edges(v, u)

    return max(arcs_in(before), arcs_in(after)) < 2


def choice_definition(
    G: nx.MultiDiGraph, name: str, *, direction: str = "out"
) -> tuple[list[int], list[int] | None] | None:
    """Roots and span (``None``: every compute chiplet) of a root choice, ``None`` if n/a.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    name : str
        A root choice of ``prove`` (``corners``, ``sides``, ``corners3``, ...).
    direction : {"out", "in"}

    Returns
    -------
    (list of int, list of int or None) or None
        The roots and the span (``None``: every compute chiplet); ``None`` when the choice
        does not apply to ``G``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> choice_definition(build("mesh:4x4"), "sides")
    ([2, 11, 13, 4], None)
    >>> choice_definition(build("smbi:3x3"), "corners3")  # doubled perimeter: every chiplet
    ([0, 2, 8], None)
    >>> choice_definition(build("mesh:3x3"), "corners3")
    ([0, 2, 8], [0, 1, 2, 3, 4, 5, 7, 8])
    """
    family, rows, cols = G.graph.get("family"), G.graph.get("rows"), G.graph.get("cols")
    if family == "hexamesh":
        return (_hex_corners(G), None) if name == "corners" else None
    if rows is None or cols is None or name not in NAMES:
        return None
    cells = _cells(G)
    if len(cells) != rows * cols:
        return None
    corners = [cells[0, 0], cells[0, cols - 1], cells[rows - 1, cols - 1], cells[rows - 1, 0]]
    if name == "corners":
        return corners, None
    if name == "sides":
        at = [
            (0, cols // 2),
            (rows // 2, cols - 1),
            (rows - 1, cols - 1 - cols // 2),
            (rows - 1 - rows // 2, 0),
        ]
        return [cells[p] for p in at], None
    side = (G.graph.get("params") or {}).get("io", "south")
    omit = corners[_LAST_CORNER.get(str(side), 3)]
    roots = [c for c in corners if c != omit]
    if _undoubled(G, omit, _walk(rows, cols, cells), direction):
        compute = sorted(n for n, k in G.nodes(data="kind") if k == "compute")
        return roots, [n for n in compute if n != omit]
    return roots, None
