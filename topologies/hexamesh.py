"""HexaMesh: chiplets in a brick-wall arrangement, up to six links each.

Each row is shifted by half a chiplet against its neighbours, so a chiplet touches its west and east
neighbours and the two chiplets that overlap it in the row above and in the row below
(Iff et al., "HexaMesh: Scaling to Hundreds of Chiplets with an Optimized Chiplet Arrangement",
DAC 2023). The full hexagon of radius r has rows of r+1, ..., 2r+1, ..., r+1 chiplets,
n = 3r(r+1)+1 chiplets (7, 19, 37, 61, ...).

Coordinates and ids
    Chiplets sit on half-chiplet x units: row ``y`` (0 at the top) holds chiplets at
    ``x = s_y, s_y + 2, ...``. Rows are centred on the longest row, with ``s_y`` moved by one half
    unit where needed so that neighbouring rows always differ in parity (the brick-wall offset).
    Two chiplets are linked when they are at ``(y, x)`` and ``(y, x +- 2)`` or ``(y +- 1, x +- 1)``.
    Node ids are row-major from the top-left chiplet, as for every grid family; row lengths are
    listed from the top row down. ``col`` holds the half-unit ``x``; ``pos`` is ``(x / 2, -y)``.
    The brief numbers its 3-4-3 example from the bottom row; for an odd number of rows whose
    lengths read the same both ways (every full hexagon, 3-4-3) the construction is symmetric
    top to bottom, so the two numberings give the same adjacency. Other row lists are anchored on
    the top row (it keeps its centred position; a later row moves half a unit if its parity is
    wrong), so read bottom-up they may shift differently.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import add_link, add_node, new_topology

__all__ = ["brick_positions", "hexagon_rows", "hexamesh"]


def hexagon_rows(radius: int) -> list[int]:
    """Row lengths of the full hexagon of ``radius``: r+1, ..., 2r+1, ..., r+1.

    Examples
    --------
    >>> hexagon_rows(2)
    [3, 4, 5, 4, 3]
    """
    return [*range(radius + 1, 2 * radius + 2), *range(2 * radius, radius, -1)]


def _radius(rows: Sequence[int]) -> int | None:
    """The radius if ``rows`` is a full hexagon, else ``None``."""
    if len(rows) % 2 == 1 and len(rows) >= 3:
        r = (len(rows) - 1) // 2
        if list(rows) == hexagon_rows(r):
            return r
    return None


def brick_positions(row_lengths: Sequence[int]) -> list[tuple[int, int]]:
    """Brick-wall positions ``(y, x)`` (x in half-chiplet units) of every chiplet, in id order.

    Rows are centred on the longest row; a row whose centred start has the parity of its
    neighbour is moved by one half unit (left if there is room, else right).

    Examples
    --------
    >>> brick_positions([2, 3])
    [(0, 1), (0, 3), (1, 0), (1, 2), (1, 4)]
    """
    widest = max(row_lengths)
    start0 = widest - row_lengths[0]
    out: list[tuple[int, int]] = []
    for y, length in enumerate(row_lengths):
        start = widest - length
        if start % 2 != (start0 + y) % 2:
            start += -1 if start > 0 else 1
        out.extend((y, start + 2 * i) for i in range(length))
    return out


def _check_rows(row_lengths: Sequence[int]) -> list[int]:
    rows = list(row_lengths)
    if not rows or any(not isinstance(n, int) or isinstance(n, bool) or n < 1 for n in rows):
        raise SpecError(
            f"hexamesh row lengths {rows!r} must be positive integers",
            hint="e.g. hexamesh:3-4-3 or hexamesh:r2",
        )
    if sum(rows) < 2:
        raise SpecError(
            "hexamesh needs at least 2 chiplets", hint="e.g. hexamesh:r1 or hexamesh:3-4-3"
        )
    return rows


def hexamesh(row_lengths: Sequence[int]) -> nx.MultiDiGraph:
    """HexaMesh brick wall with the given row lengths (top row first).

    Parameters
    ----------
    row_lengths : sequence of int
        Chiplets per row, from the top; each at least 1, at least 2 chiplets in all.
        ``hexagon_rows(r)`` gives the full hexagon of radius ``r`` (spec ``hexamesh:rR``).

    Returns
    -------
    networkx.MultiDiGraph
        Compute chiplets with ``row`` = brick row, ``col`` = half-unit x; one bidirectional
        link of class ``"mesh"`` per touching pair. Graph attributes: ``family="hexamesh"``,
        ``spec`` (``hexamesh:rR`` for a full hexagon, else ``hexamesh:a-b-c``), ``rows`` (number
        of rows), ``cols`` (longest row), ``params={"row_lengths": [...]}``.

    Raises
    ------
    SpecError
        If a row length is not a positive integer or there are fewer than 2 chiplets.

    References
    ----------
    P. Iff, M. Besta, M. Cavalcante, T. Fischer, L. Benini, T. Hoefler, "HexaMesh: Scaling to
    Hundreds of Chiplets with an Optimized Chiplet Arrangement", DAC 2023.

    Examples
    --------
    >>> G = hexamesh(hexagon_rows(2))
    >>> G.graph["spec"], G.number_of_nodes(), G.number_of_edges() // 2
    ('hexamesh:r2', 19, 42)
    >>> sorted(hexamesh([3, 4, 3]).successors(4))
    [0, 1, 3, 5, 7, 8]
    """
    rows = _check_rows(row_lengths)
    radius = _radius(rows)
    size = f"r{radius}" if radius is not None else "-".join(map(str, rows))
    G = new_topology(
        "hexamesh",
        f"hexamesh:{size}",
        f"HexaMesh {size} ({sum(rows)} chiplets)",
        rows=len(rows),
        cols=max(rows),
        params={"row_lengths": rows},
    )
    positions = brick_positions(rows)
    index = {p: i for i, p in enumerate(positions)}
    for node, (y, x) in enumerate(positions):
        add_node(G, node, pos=(x / 2, -y), row=y, col=x)
    for node, (y, x) in enumerate(positions):
        # each link once: east, and the two chiplets of the row below
        for other in ((y, x + 2), (y + 1, x - 1), (y + 1, x + 1)):
            if other in index:
                add_link(G, node, index[other])
    return G
