"""Where a user's nodes are drawn and which grid cell each holds.

Positions follow the rule documented in
:func:`~supermesh.topologies.formats.convert.from_networkx`: a layout function, a mapping, two
coordinate attributes, one position attribute, the grid cells, else a seeded spring layout.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies.formats.labels import as_int, as_point, grid_label, where

__all__ = [
    "LAYOUT_SEED",
    "PosRule",
    "full_grid",
    "grid_cells",
    "node_positions",
    "spring_positions",
]

PosRule = (
    str
    | tuple[str, str]
    | Mapping[Hashable, Sequence[float]]
    | Callable[[nx.Graph], Mapping[Hashable, Sequence[float]]]
    | None
)

LAYOUT_SEED = 0
"""Seed of the spring layout given to graphs that carry no positions (drawings repeat)."""

_SPRING_MAX_NODES = 500  # networkx's spring layout needs scipy beyond this; use a circle


def node_positions(
    G: nx.Graph,
    order: list[Hashable],
    pos: PosRule,
    grid: dict[Hashable, tuple[int, int]],
    source: str,
) -> dict[Hashable, tuple[float, float]]:
    """Every node's drawing position, by the rule documented in :func:`from_networkx`."""
    if callable(pos) and not isinstance(pos, Mapping):
        layout = pos(G)
        return {n: as_point(layout[n], where(source, f"layout position of {n!r}")) for n in order}
    if isinstance(pos, Mapping):
        missing = [n for n in order if n not in pos]
        if missing:
            raise TopologyError(where(source, f"pos gives no position for node {missing[0]!r}"))
        return {n: as_point(pos[n], where(source, f"position of node {n!r}")) for n in order}
    if isinstance(pos, tuple):
        xattr, yattr = pos
        out = {}
        for n in order:
            d = G.nodes[n]
            if xattr not in d or yattr not in d:
                raise TopologyError(
                    where(source, f"node {n!r} has no {xattr!r} / {yattr!r} attribute"),
                    hint="give every node both coordinates, or pass pos=None for a layout",
                )
            out[n] = as_point((d[xattr], d[yattr]), where(source, f"node {n!r} position"))
        return out
    data = [G.nodes[n] for n in order]
    if isinstance(pos, str):
        have = [pos in d for d in data]
        if all(have):
            return {
                n: as_point(d[pos], where(source, f"node {n!r} {pos}"))
                for n, d in zip(order, data, strict=True)
            }
        if any(have):
            n = order[have.index(False)]
            raise TopologyError(
                where(source, f"node {n!r} has no {pos!r} attribute while others have one"),
                hint=f"give every node a {pos!r}, or none (a layout is computed)",
            )
        if all("x" in d and "y" in d for d in data):
            return node_positions(G, order, ("x", "y"), grid, source)
    if order and len(grid) == len(order):
        return {n: (float(grid[n][1]), -float(grid[n][0])) for n in order}
    return spring_positions(G, order)


def spring_positions(G: nx.Graph, order: list[Hashable]) -> dict[Hashable, tuple[float, float]]:
    H = nx.Graph()
    H.add_nodes_from(order)
    H.add_edges_from((u, v) for u, v, *_ in G.edges if u != v)
    if len(H) < _SPRING_MAX_NODES:
        layout = nx.spring_layout(H, seed=LAYOUT_SEED)
    else:
        layout = nx.circular_layout(H)
    return {n: (round(float(layout[n][0]), 6), round(float(layout[n][1]), 6)) for n in order}


def grid_cells(G: nx.Graph, order: list[Hashable], source: str) -> dict[Hashable, tuple[int, int]]:
    """``(row, col)`` per node from ``row`` / ``col`` attributes, else from (row, col) labels."""
    out = {}
    for n in order:
        d = G.nodes[n]
        if d.get("row") is not None and d.get("col") is not None:
            out[n] = (
                as_int(d["row"], where(source, f"node {n!r} row")),
                as_int(d["col"], where(source, f"node {n!r} col")),
            )
        elif "row" not in d and "col" not in d and (rc := grid_label(n)) is not None:
            out[n] = rc
    return out  # type: ignore[return-value]


def full_grid(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """``(rows, cols)`` when ``cells`` are exactly the cells of a rectangle from (0, 0)."""
    if not cells:
        return None
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    if len(cells) == rows * cols and set(cells) == {
        (r, c) for r in range(rows) for c in range(cols)
    }:
        return rows, cols
    return None
