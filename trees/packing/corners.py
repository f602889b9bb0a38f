"""Grid corners for the corner constructions: their ids, the omitted one, and the criterion test.

:func:`grid_corners` numbers the corners clockwise from the top-left, :func:`omitted_corner` names
the corner three-corner trees leave out (the end of the I/O side's clockwise walk), and
:func:`undoubled_perimeter` lists the perimeter chiplets without a doubled perimeter in-arc: the
exceptions to the corner criterion of :mod:`supermesh.trees.packing.closedform`, whose
constructions ask here.
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies import grid
from supermesh.trees.bounds.heights import working_network
from supermesh.trees.rootspec import corner_positions

__all__ = ["grid_corners", "omitted_corner", "undoubled_perimeter"]

_CORNER_INDEX = {"north": 1, "east": 2, "south": 3, "west": 0}
"""For each side, the index (TL=0, TR=1, BR=2, BL=3) of the corner its clockwise walk ends at."""


def _dims(G: nx.MultiDiGraph) -> tuple[int, int]:
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if rows is None or cols is None or G.graph.get("family") == "hexamesh":
        raise TopologyError(
            f"{G.graph.get('spec', 'this topology')} is not a grid of rows and columns",
            hint="corner constructions need a grid family (mesh, smbi, smalter, ...)",
        )
    return int(rows), int(cols)


def grid_corners(G: nx.MultiDiGraph) -> list[int]:
    """Corner ids clockwise from the top-left: TL, TR, BR, BL.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> grid_corners(build("mesh:3x4"))
    [0, 3, 11, 8]
    """
    rows, cols = _dims(G)
    return [r * cols + c for r, c in corner_positions(rows, cols)]


def _perimeter_walk(rows: int, cols: int) -> list[int]:
    return [u for links in grid.perimeter_sides(rows, cols).values() for u, _ in links]


def undoubled_perimeter(G: nx.MultiDiGraph, *, direction: str = "out") -> list[int]:
    """Perimeter chiplets with no doubled perimeter in-arc (the corner criterion's exceptions).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology.
    direction : {"out", "in"}
        For in-trees the arcs are reversed (out-arcs of ``G`` are counted).

    Returns
    -------
    list of int
        Sorted ids; empty means four corner trees of height ``R + C - 2`` exist (the corner
        criterion of :mod:`supermesh.trees.packing.closedform`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> undoubled_perimeter(build("smalter:5x5")), undoubled_perimeter(build("mesh:2x2"))
    ([], [0, 1, 2, 3])
    """
    rows, cols = _dims(G)
    net = working_network(G, direction)
    walk = _perimeter_walk(rows, cols)
    bad = []
    for i, v in enumerate(walk):
        before, after = walk[i - 1], walk[(i + 1) % len(walk)]
        if max(net.capacity.get((before, v), 0), net.capacity.get((after, v), 0)) < 2:
            bad.append(v)
    return sorted(set(bad))


def omitted_corner(G: nx.MultiDiGraph) -> int:
    """The corner left out by :func:`~supermesh.trees.packing.closedform.three_corner_trees`.

    The corner where the clockwise walk of the I/O side ends (partial families; BL for the
    default south side), and BL on families without an I/O side.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> omitted_corner(build("mesh:4x4")), omitted_corner(build("partial-smbi:4x4,io=east"))
    (12, 15)
    """
    side = (G.graph.get("params") or {}).get("io", "south")
    return grid_corners(G)[_CORNER_INDEX.get(str(side), 3)]
