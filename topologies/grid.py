"""Grid families: the 2D mesh, the SuperMesh variants and the torus.

All take a rectangular ``rows x cols`` compute array; node ids are row-major from the top-left
chiplet. The SuperMesh variants add short links beside perimeter links only (Laskar et al.,
"SuperMesh: Energy-Efficient Collective Communications for Accelerators", MICRO 2025).
"""

from __future__ import annotations

import itertools
from typing import Literal

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import add_arc, add_link, add_node, grid_id, new_topology

__all__ = [
    "SIDES",
    "mesh",
    "partial_smalter",
    "partial_smbi",
    "perimeter_sides",
    "smalter",
    "smbi",
    "smuni",
    "torus",
]

Side = Literal["north", "east", "south", "west"]
SIDES: tuple[Side, ...] = ("north", "east", "south", "west")


def _check_size(family: str, rows: int, cols: int, minimum: int = 2) -> None:
    if rows < minimum or cols < minimum:
        raise SpecError(
            f"{family} needs at least {minimum}x{minimum} chiplets, got {rows}x{cols}",
            hint=f"use a size like {family}:{max(minimum, 4)}x{max(minimum, 4)}",
        )


def _mesh_graph(
    family: str, spec: str, name: str, rows: int, cols: int, params: dict[str, object]
) -> nx.MultiDiGraph:
    G = new_topology(family, spec, name, rows=rows, cols=cols, params=params)
    for r in range(rows):
        for c in range(cols):
            add_node(G, grid_id(r, c, cols), pos=(c, -r), row=r, col=c)
    for r in range(rows):
        for c in range(cols):
            u = grid_id(r, c, cols)
            if c + 1 < cols:
                add_link(G, u, u + 1)
            if r + 1 < rows:
                add_link(G, u, u + cols)
    return G


def perimeter_sides(rows: int, cols: int) -> dict[Side, list[tuple[int, int]]]:
    """The perimeter links of each side, clockwise, each side starting at its first corner.

    North runs left to right from the top-left corner, east top to bottom, south right to left,
    west bottom to top. Each link is ``(u, v)`` in that walking order.

    Examples
    --------
    >>> perimeter_sides(3, 3)["east"]
    [(2, 5), (5, 8)]
    """
    top = [grid_id(0, c, cols) for c in range(cols)]
    right = [grid_id(r, cols - 1, cols) for r in range(rows)]
    bottom = [grid_id(rows - 1, c, cols) for c in reversed(range(cols))]
    left = [grid_id(r, 0, cols) for r in reversed(range(rows))]
    walks: dict[Side, list[int]] = {"north": top, "east": right, "south": bottom, "west": left}
    return {side: list(itertools.pairwise(w)) for side, w in walks.items()}


def _spec(family: str, rows: int, cols: int, **opts: object) -> str:
    extra = "".join(f",{k}={v}" for k, v in sorted(opts.items()) if v is not None)
    return f"{family}:{rows}x{cols}{extra}"


def mesh(rows: int, cols: int) -> nx.MultiDiGraph:
    """2D mesh: a link between every pair of 4-neighbours.

    Parameters
    ----------
    rows, cols : int
        Size of the chiplet array, at least 2 each.

    Returns
    -------
    networkx.MultiDiGraph
        ``2 * (rows*(cols-1) + cols*(rows-1))`` arcs, all of class ``"mesh"``.

    Raises
    ------
    SpecError
        If a dimension is below 2.

    Examples
    --------
    >>> mesh(4, 4).number_of_edges()  # 4N(N-1)
    48
    """
    _check_size("mesh", rows, cols)
    return _mesh_graph("mesh", _spec("mesh", rows, cols), f"Mesh {rows}x{cols}", rows, cols, {})


def _double(G: nx.MultiDiGraph, links: list[tuple[int, int]], *, one_way: bool = False) -> None:
    for u, v in links:
        if one_way:
            add_arc(G, u, v, cls="added")
        else:
            add_link(G, u, v, cls="added")


def _alternate(links: list[tuple[int, int]], *, both_corners: bool) -> list[tuple[int, int]]:
    """Every other link from the side's first corner; optionally force the last one too."""
    chosen = links[::2]
    if both_corners and links and links[-1] not in chosen:
        chosen.append(links[-1])
    return chosen


def _check_side(side: str) -> Side:
    if side not in SIDES:
        raise SpecError(f"unknown side {side!r}", hint=f"use one of: {', '.join(SIDES)}")
    return side


def smbi(rows: int, cols: int) -> nx.MultiDiGraph:
    """SuperMeshBi: the mesh plus a second bidirectional link beside every perimeter link.

    Links per chiplet: corner 4, border 5, interior 4. On N x N it adds 8(N-1) arcs.

    Examples
    --------
    >>> G = smbi(4, 4)
    >>> G.number_of_edges() - mesh(4, 4).number_of_edges()
    24
    >>> G.out_degree(0), G.out_degree(1), G.out_degree(5)
    (4, 5, 4)
    """
    _check_size("smbi", rows, cols)
    G = _mesh_graph("smbi", _spec("smbi", rows, cols), f"SMBi {rows}x{cols}", rows, cols, {})
    for links in perimeter_sides(rows, cols).values():
        _double(G, links)
    return G


def smalter(rows: int, cols: int, *, corners: int | None = None) -> nx.MultiDiGraph:
    """SuperMeshAlter: a parallel link on every other perimeter link, from each side's corner.

    Each side is walked clockwise from its first corner and links 0, 2, 4, ... are doubled.
    A side with an odd number of links (even N) then has both end links doubled, so every chiplet
    has exactly 4 links and 4N arcs are added. A side with an even number of links (odd N) leaves
    its last link single: corners have 3 links (the variant the paper evaluated, 4(N-1) added arcs).

    Parameters
    ----------
    rows, cols : int
        Array size, at least 2 each.
    corners : {3, 4}, optional
        Only for a side with an even number of links: ``4`` also doubles the side's last link so
        every corner has 4 links, at the cost of one 5-link chiplet per such side (two adjacent
        doubled links; a counting argument shows one per side is unavoidable). Default 3 (paper).

    Raises
    ------
    SpecError
        On a size below 2x2 or ``corners`` not 3 or 4.

    Examples
    --------
    >>> smalter(4, 4).number_of_edges() - mesh(4, 4).number_of_edges()  # 4N
    16
    >>> smalter(5, 5).number_of_edges() - mesh(5, 5).number_of_edges()  # 4(N-1)
    16
    >>> max(d for _, d in smalter(5, 5, corners=4).out_degree())
    5
    """
    _check_size("smalter", rows, cols)
    if corners not in (None, 3, 4):
        raise SpecError(f"smalter corners={corners} is not 3 or 4", hint="use corners=4 or omit")
    G = _mesh_graph(
        "smalter",
        _spec("smalter", rows, cols, corners=corners if corners == 4 else None),
        f"SMAlter {rows}x{cols}" + (" (4-link corners)" if corners == 4 else ""),
        rows,
        cols,
        {"corners": corners} if corners == 4 else {},
    )
    for links in perimeter_sides(rows, cols).values():
        _double(G, _alternate(links, both_corners=corners == 4))
    return G


def _partial(
    family: str, rows: int, cols: int, io: str, alternate: bool, label: str
) -> nx.MultiDiGraph:
    _check_size(family, rows, cols)
    io_side = _check_side(io)
    G = _mesh_graph(
        family,
        _spec(family, rows, cols, io=io_side if io_side != "south" else None),
        f"{label} {rows}x{cols} (I/O {io_side})",
        rows,
        cols,
        {"io": io_side},
    )
    for side, links in perimeter_sides(rows, cols).items():
        if side != io_side:
            _double(G, _alternate(links, both_corners=False) if alternate else links)
    return G


def partial_smbi(rows: int, cols: int, *, io: str = "south") -> nx.MultiDiGraph:
    """SMBi with extra links on three sides only; side ``io`` is left for I/O chiplets.

    Examples
    --------
    >>> partial_smbi(4, 4).number_of_edges() - mesh(4, 4).number_of_edges()  # 3 sides x 3 x 2
    18
    """
    return _partial("partial-smbi", rows, cols, io, False, "Partial SMBi")


def partial_smalter(rows: int, cols: int, *, io: str = "south") -> nx.MultiDiGraph:
    """SMAlter with extra links on three sides only; side ``io`` is left for I/O chiplets.

    Examples
    --------
    >>> partial_smalter(6, 6, io="east").number_of_edges() - mesh(6, 6).number_of_edges()
    18
    """
    return _partial("partial-smalter", rows, cols, io, True, "Partial SMAlter")


def smuni(rows: int, cols: int, *, direction: str = "cw") -> nx.MultiDiGraph:
    """SuperMeshUni: one extra one-way arc beside every perimeter link, all the same way round.

    Parameters
    ----------
    direction : {"cw", "ccw"}
        Clockwise (default) or counter-clockwise around the perimeter.

    Examples
    --------
    >>> smuni(4, 4).number_of_edges() - mesh(4, 4).number_of_edges()  # 4(N-1)
    12
    """
    _check_size("smuni", rows, cols)
    if direction not in ("cw", "ccw"):
        raise SpecError(f"smuni direction {direction!r} is not cw or ccw", hint="use dir=cw|ccw")
    G = _mesh_graph(
        "smuni",
        _spec("smuni", rows, cols, dir=direction if direction != "cw" else None),
        f"SMUni {rows}x{cols} ({direction})",
        rows,
        cols,
        {"dir": direction},
    )
    for links in perimeter_sides(rows, cols).values():
        walk = links if direction == "cw" else [(v, u) for u, v in links]
        _double(G, walk, one_way=True)
    return G


def torus(rows: int, cols: int) -> nx.MultiDiGraph:
    """2D torus: the mesh plus a wrap-around link closing every row and column (class ``other``).

    Raises
    ------
    SpecError
        Below 3x3 (a 2-wide wrap would duplicate a mesh link).

    Examples
    --------
    >>> torus(4, 4).number_of_edges()  # 4 links per chiplet
    64
    """
    _check_size("torus", rows, cols, minimum=3)
    G = _mesh_graph("torus", _spec("torus", rows, cols), f"Torus {rows}x{cols}", rows, cols, {})
    for r in range(rows):
        add_link(G, grid_id(r, cols - 1, cols), grid_id(r, 0, cols), cls="other")
    for c in range(cols):
        add_link(G, grid_id(rows - 1, c, cols), grid_id(0, c, cols), cls="other")
    return G
