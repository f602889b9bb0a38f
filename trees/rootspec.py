"""Root lists by name: ``corners``, ``sides`` or a comma list of node ids.

``corners``
    The four corner chiplets clockwise from the top-left: TL ``(0, 0)``, TR ``(0, C-1)``,
    BR ``(R-1, C-1)``, BL ``(R-1, 0)``.
``sides``
    One chiplet per side: each side is walked clockwise from its first corner (north from TL
    rightwards, east from TR downwards, south from BR leftwards, west from BL upwards, as
    :func:`supermesh.topologies.perimeter_sides` does) and the chiplet at position ``L // 2`` of
    that walk is taken (``L`` chiplets on the side, position 0 = the corner). In ``(row, col)``:
    north ``(0, C//2)``, east ``(R//2, C-1)``, south ``(R-1, C-1-C//2)``, west ``(R-1-R//2, 0)``,
    in that order. On odd sides this is the exact middle; on even sides the four choices are
    images of each other under a quarter turn (4x4: ids 2, 11, 13, 4).
``LIST``
    Comma-separated node ids, e.g. ``0,3,3,12``; a repeated id roots several trees.

``corners`` and ``sides`` need a grid family (``rows`` and ``cols`` in the topology).
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import check_node

__all__ = ["ROOT_NAMES", "corner_positions", "resolve_roots", "side_positions"]

ROOT_NAMES = ("corners", "sides")


def corner_positions(rows: int, cols: int) -> list[tuple[int, int]]:
    """``(row, col)`` of the corners clockwise from the top-left.

    Examples
    --------
    >>> corner_positions(4, 4)
    [(0, 0), (0, 3), (3, 3), (3, 0)]
    """
    return [(0, 0), (0, cols - 1), (rows - 1, cols - 1), (rows - 1, 0)]


def side_positions(rows: int, cols: int) -> list[tuple[int, int]]:
    """``(row, col)`` of the chiplet ``L // 2`` along each side, clockwise: N, E, S, W.

    Examples
    --------
    >>> side_positions(4, 4)
    [(0, 2), (2, 3), (3, 1), (1, 0)]
    >>> side_positions(5, 5)
    [(0, 2), (2, 4), (4, 2), (2, 0)]
    """
    return [
        (0, cols // 2),
        (rows // 2, cols - 1),
        (rows - 1, cols - 1 - cols // 2),
        (rows - 1 - rows // 2, 0),
    ]


def _grid_ids(G: nx.MultiDiGraph, name: str, positions: list[tuple[int, int]]) -> list[int]:
    where = {
        (d.get("row"), d.get("col")): int(n)
        for n, d in G.nodes(data=True)
        if d.get("kind") == "compute"
    }
    missing = [p for p in positions if p not in where]
    if missing:
        raise SpecError(
            f"roots {name!r}: {G.graph.get('spec', 'this topology')} has no compute chiplet at "
            f"(row, col) {missing[0]}",
            hint="give the roots as a comma list of node ids, e.g. --roots 0,3,12,15",
        )
    return [where[p] for p in positions]


def resolve_roots(G: nx.MultiDiGraph, text: str) -> list[int]:
    """Turn a root spec into node ids: ``corners``, ``sides`` or a comma list of ids.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (``corners`` / ``sides`` use its ``rows``, ``cols`` and node ``row``/``col``).
    text : str
        ``"corners"``, ``"sides"`` or ids like ``"0,3,3,12"`` (repeats allowed).

    Returns
    -------
    list of int
        One root per tree, in the order given (clockwise for the names).

    Raises
    ------
    SpecError
        An empty list, a token that is not an integer, or a name on a non-grid topology.
    TopologyError
        An id outside the topology (the message names it and the valid range).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("smbi:4x4")
    >>> resolve_roots(G, "corners"), resolve_roots(G, "sides"), resolve_roots(G, "5, 5,0")
    ([0, 3, 15, 12], [2, 11, 13, 4], [5, 5, 0])
    """
    spec = text.strip().lower()
    if spec in ROOT_NAMES:
        rows, cols = G.graph.get("rows"), G.graph.get("cols")
        if rows is None or cols is None or G.graph.get("family") == "hexamesh":
            raise SpecError(
                f"roots {spec!r} need a grid topology; "
                f"{G.graph.get('spec', 'this topology')} has no rows and columns",
                hint="give the roots as a comma list of node ids, e.g. --roots 0,3,7",
            )
        positions = (
            corner_positions(rows, cols) if spec == "corners" else side_positions(rows, cols)
        )
        return _grid_ids(G, spec, positions)
    tokens = [t.strip() for t in spec.split(",")]
    if not spec or any(not t for t in tokens):
        raise SpecError(
            f"root list {text!r} has an empty entry",
            hint="use corners, sides, or node ids separated by commas, e.g. 0,3,12,15",
        )
    roots = []
    for tok in tokens:
        try:
            value = int(tok)
        except ValueError:
            raise SpecError(
                f"root {tok!r} is not a node id",
                hint="use corners, sides, or node ids separated by commas, e.g. 0,3,12,15",
            ) from None
        if value not in G:
            raise TopologyError(
                f"root {value} is out of range: {G.graph.get('spec', 'this topology')} "
                f"has node ids 0 to {G.number_of_nodes() - 1}",
                hint="pick roots among the node ids (row-major from the top-left chiplet)",
            )
        roots.append(check_node(G, value, what="root"))
    return roots
