"""Memory chiplets attached to chosen sides of a compute array.

Memory chiplets are not ranks of a collective: trees need only span the compute chiplets, memory
chiplets may relay. They are linked only to compute chiplets, never to each other, as on AMD's
AIE-ML array: its memory tiles form a row between the compute tiles and the south interface row
(AMD UG1603, "AIE-ML / AIE-ML v2 Memory Tile"), and the memory-tile stream switch has "no east or
west stream ports" (AMD AM020, "AIE-ML Memory Tile Locks Module and Stream Switch"; a memory
tile's DMA can read its east/west neighbours' memory, but that is not a network link).

Grid families (mesh, SuperMesh variants)
    One memory chiplet per boundary compute chiplet of each chosen side, just outside the array
    (row -1 for north, ``rows`` for south, col ``cols`` for east, -1 for west), each linked to its
    chiplet by one bidirectional link of class ``"memory"``. A corner chiplet on two memory sides
    gets two memory links; that extra port is why the SuperMesh paper moves to HexaMesh when memory
    and compute share one interconnect (``metrics`` shows the radix).

HexaMesh
    Memory chiplets take the outer brick positions of the chosen sides: north/south, the brick row
    above the top row (below the bottom row) wherever it touches a compute chiplet (a row of
    L chiplets gets L+1 memory chiplets); east/west, one position beyond each row's last (first)
    chiplet. Each memory chiplet is linked to every compute chiplet it touches under the brick-wall
    rule, so most get two links and every boundary chiplet keeps at most 6 ports.

Numbering: memory ids follow every existing node, side by side in the order north, east, south,
west; along a side left to right (north, south) or top to bottom (east, west).
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import add_link, add_node

__all__ = ["SIDES", "attach_memory", "canonical_sides"]

SIDES: tuple[str, ...] = ("north", "east", "south", "west")


def canonical_sides(sides: Iterable[str]) -> list[str]:
    """Validate side names and return them once each in the order north, east, south, west.

    Raises
    ------
    SpecError
        On an unknown side or an empty list.

    Examples
    --------
    >>> canonical_sides(["south", "north", "south"])
    ['north', 'south']
    """
    chosen = list(sides)
    bad = [s for s in chosen if s not in SIDES]
    if bad or not chosen:
        raise SpecError(
            f"memory sides {chosen!r} are not a list of {', '.join(SIDES)}",
            hint="e.g. memory=south or memory=south+north",
        )
    return [s for s in SIDES if s in chosen]


def _grid_sites(G: nx.MultiDiGraph, side: str) -> list[tuple[int, int, list[int]]]:
    """``(row, col, [compute chiplets to link])`` of each memory chiplet on a grid side."""
    rows, cols = G.graph["rows"], G.graph["cols"]
    at = {(d["row"], d["col"]): n for n, d in G.nodes(data=True) if d["kind"] == "compute"}
    if side in ("north", "south"):
        r, out = (0, -1) if side == "north" else (rows - 1, rows)
        return [(out, c, [at[r, c]]) for c in range(cols)]
    c, out = (cols - 1, cols) if side == "east" else (0, -1)
    return [(r, out, [at[r, c]]) for r in range(rows)]


def _brick_sites(G: nx.MultiDiGraph, side: str) -> list[tuple[int, int, list[int]]]:
    """``(y, x, [compute chiplets touched])`` of each memory chiplet on a HexaMesh side."""
    at = {(d["row"], d["col"]): n for n, d in G.nodes(data=True) if d["kind"] == "compute"}
    nrows = G.graph["rows"]
    xs = {y: sorted(x for (yy, x) in at if yy == y) for y in range(nrows)}
    if side in ("north", "south"):
        y = -1 if side == "north" else nrows
        edge = xs[0] if side == "north" else xs[nrows - 1]
        sites = [(y, x) for x in range(edge[0] - 1, edge[-1] + 2, 2)]
    else:
        sites = [(y, xs[y][-1] + 2 if side == "east" else xs[y][0] - 2) for y in range(nrows)]
    out = []
    for y, x in sites:
        touch = [(y, x - 2), (y, x + 2), (y - 1, x - 1), (y - 1, x + 1), (y + 1, x - 1)]
        touch.append((y + 1, x + 1))
        out.append((y, x, sorted(at[p] for p in touch if p in at)))
    return out


def attach_memory(G: nx.MultiDiGraph, sides: Iterable[str]) -> nx.MultiDiGraph:
    """Return a copy of ``G`` with memory chiplets on the chosen sides (``G`` is not changed).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid-family topology (mesh, SuperMesh variants) or a HexaMesh, without memory yet.
    sides : iterable of str
        Any of ``north``, ``east``, ``south``, ``west`` (repeats ignored).

    Returns
    -------
    networkx.MultiDiGraph
        The new topology: memory chiplets (``kind="memory"``) numbered after every existing node,
        linked by class-``"memory"`` links (see the module docstring for the placement rule).
        ``spec`` gains ``,memory=S1+S2`` (sides in canonical order) so that ``build(spec)``
        regenerates it; ``name`` and ``params["memory"]`` say which sides.

    Raises
    ------
    SpecError
        On an unknown side.
    TopologyError
        If ``G`` already has memory chiplets or its family does not take memory.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = attach_memory(build("mesh:2x3"), ["south"])
    >>> G.graph["spec"], sorted(G.successors(6)), G.nodes[6]["row"]
    ('mesh:2x3,memory=south', [3], 2)
    """
    from supermesh.topologies.spec import FAMILIES

    chosen = canonical_sides(sides)
    family = G.graph.get("family")
    if family not in FAMILIES or not FAMILIES[family].memory:
        takes = sorted(f for f, fam in FAMILIES.items() if fam.memory)
        raise TopologyError(
            f"cannot attach memory to a {family!r} topology",
            hint=f"memory attaches to: {', '.join(takes)}",
        )
    if any(k == "memory" for _, k in G.nodes(data="kind")):
        raise TopologyError(
            f"{G.graph.get('spec')} already has memory chiplets",
            hint="attach all memory sides at once, e.g. memory=south+north",
        )
    H = G.copy()
    H.graph["params"] = {**G.graph.get("params", {}), "memory": chosen}
    H.graph["spec"] = f"{G.graph['spec']},memory={'+'.join(chosen)}"
    H.graph["name"] = f"{G.graph.get('name', '')} + memory ({', '.join(chosen)})"
    brick = family == "hexamesh"
    node = max(H.nodes) + 1
    for side in chosen:
        for row, col, targets in _brick_sites(G, side) if brick else _grid_sites(G, side):
            pos = (col / 2, -row) if brick else (col, -row)
            add_node(H, node, kind="memory", pos=pos, row=row, col=col)
            for target in targets:
                add_link(H, node, target, cls="memory")
            node += 1
    return H
