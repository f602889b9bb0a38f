"""Routes and rings on a topology, as the baseline algorithms walk them.

- :func:`grid_shape`: ``(rows, cols)`` when the topology is a full row-major grid of compute
  chiplets (the shape dimension-order routing and the grid cycles need), else ``None``.
- :func:`link_arc`: one arc of the link ``u -> v``, a salt picking among parallel arcs.
- :func:`route`: the arcs of a shortest route, dimension-order on a grid, BFS elsewhere.
- :func:`grid_cycle`, :func:`grid_cycle_but_corner`: Hamiltonian cycles of a grid (an even side),
  and of an odd x odd grid less its bottom-right corner.
- :func:`ring_order`: the node order the unidirectional ring follows on any topology.
"""

from __future__ import annotations

import itertools

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies.model import Arc, compute_nodes

__all__ = [
    "grid_cycle",
    "grid_cycle_but_corner",
    "grid_shape",
    "link_arc",
    "ring_order",
    "route",
]


def grid_shape(G: nx.MultiDiGraph) -> tuple[int, int] | None:
    """``(rows, cols)`` of a full grid topology, or ``None``.

    A full grid has ``rows`` and ``cols`` in its graph attributes, is not a HexaMesh, and its
    compute chiplets are exactly ``0 .. rows * cols - 1`` (row-major).

    Parameters
    ----------
    G : networkx.MultiDiGraph

    Returns
    -------
    tuple of int or None

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> grid_shape(build("mesh:3x4"))
    (3, 4)
    """
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if not rows or not cols or G.graph.get("family") == "hexamesh":
        return None
    ranks = compute_nodes(G)
    if len(ranks) != rows * cols or ranks != list(range(rows * cols)):
        return None
    return int(rows), int(cols)


def link_arc(G: nx.MultiDiGraph, u: int, v: int, salt: int = 0) -> Arc:
    """One arc from ``u`` to ``v``: key number ``salt`` (modulo their count) in sorted order.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    u, v : int
        The link's ends.
    salt : int, default 0
        Picks among parallel arcs.

    Returns
    -------
    Arc
        ``(u, v, key)``.

    Raises
    ------
    TopologyError
        There is no link from ``u`` to ``v``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> link_arc(build("mesh:2x2"), 0, 1)
    (0, 1, 0)
    """
    keys = sorted(G[u][v]) if G.has_edge(u, v) else []
    if not keys:
        raise TopologyError(f"no link from {u} to {v}")
    return (u, v, keys[salt % len(keys)])


def route(
    G: nx.MultiDiGraph, u: int, v: int, *, salt: int = 0, grid: tuple[int, int] | None = None
) -> list[Arc]:
    """Arcs of a shortest route from ``u`` to ``v``.

    Grids use dimension-order routing (along the row first, then the column) when those links
    exist; other topologies a BFS shortest path. ``salt`` picks among parallel arcs; ``grid``
    (rows, cols) saves working out whether ``G`` is a full grid on every call.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> route(build("mesh:3x3"), 0, 8)
    [(0, 1, 0), (1, 2, 0), (2, 5, 0), (5, 8, 0)]
    """
    if u == v:
        return []
    path: list[int] | None = None
    grid = grid if grid is not None else grid_shape(G)
    if grid is not None:
        cols = grid[1]
        (r0, c0), (r1, c1) = divmod(u, cols), divmod(v, cols)
        nodes = [u]
        c, r = c0, r0
        while c != c1:
            c += 1 if c1 > c else -1
            nodes.append(r * cols + c)
        while r != r1:
            r += 1 if r1 > r else -1
            nodes.append(r * cols + c)
        if all(G.has_edge(a, b) for a, b in itertools.pairwise(nodes)):
            path = nodes
    if path is None:
        try:
            path = nx.shortest_path(nx.DiGraph(G), u, v)
        except nx.NetworkXNoPath:
            raise TopologyError(f"node {v} cannot be reached from node {u}") from None
    return [link_arc(G, a, b, salt) for a, b in itertools.pairwise(path)]


def grid_cycle(rows: int, cols: int) -> list[int] | None:
    """A Hamiltonian cycle of a ``rows x cols`` grid (node ids row-major), or ``None``.

    With an even number of rows: row 0 left to right, a snake over columns ``1..cols-1`` of the
    other rows, back up column 0 (transposed when only the columns are even). An odd x odd grid
    has none (it is bipartite with one colour larger); :func:`grid_cycle_but_corner` covers all
    but its bottom-right corner.

    Examples
    --------
    >>> grid_cycle(2, 3)
    [0, 1, 2, 5, 4, 3]
    >>> grid_cycle(3, 3) is None
    True
    """
    if rows % 2 == 1 and cols % 2 == 1:
        return None
    if rows % 2 == 1:
        cycle_t = grid_cycle(cols, rows)
        assert cycle_t is not None
        return [(x % rows) * cols + x // rows for x in cycle_t]
    seq = [(0, c) for c in range(cols)]
    for r in range(1, rows):
        cs = range(cols - 1, 0, -1) if r % 2 == 1 else range(1, cols)
        seq += [(r, c) for c in cs]
    seq += [(r, 0) for r in range(rows - 1, 0, -1)]
    return [r * cols + c for r, c in seq]


def grid_cycle_but_corner(rows: int, cols: int) -> list[int]:
    """A cycle through every node of an odd x odd grid except its bottom-right corner.

    Examples
    --------
    >>> grid_cycle_but_corner(3, 3)
    [0, 1, 2, 5, 4, 7, 6, 3]
    """
    seq = [(0, c) for c in range(cols)]
    for r in range(1, rows - 2):
        cs = range(cols - 1, 0, -1) if r % 2 == 1 else range(1, cols)
        seq += [(r, c) for c in cs]
    r = rows - 2
    seq.append((r, cols - 1))
    for p, c in enumerate(range(cols - 2, 0, -1)):
        seq += [(r, c), (r + 1, c)] if p % 2 == 0 else [(r + 1, c), (r, c)]
    seq += [(rows - 1, 0), (rows - 2, 0)]
    seq += [(x, 0) for x in range(rows - 3, 0, -1)]
    return [a * cols + b for a, b in seq]


def ring_order(G: nx.MultiDiGraph) -> list[int]:
    """The order of the nodes the unidirectional ring visits (consecutive nodes, and last to first).

    A grid with an even side: its Hamiltonian cycle (:func:`grid_cycle`). An odd x odd grid: the
    cycle that skips the bottom-right corner, with the corner visited between its upper neighbour
    and that neighbour's successor (the hop out of the corner then takes 2 links). Other
    topologies: a DFS preorder of the compute chiplets (the ranks in id order when they are not
    connected among themselves).

    Parameters
    ----------
    G : networkx.MultiDiGraph

    Returns
    -------
    list of int

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> ring_order(build("mesh:3x3"))
    [0, 1, 2, 5, 8, 4, 7, 6, 3]
    """
    grid = grid_shape(G)
    ranks = compute_nodes(G)
    if grid is not None:
        cycle = grid_cycle(*grid)
        if cycle is not None:
            return cycle
        rows, cols = grid
        # odd x odd: the cycle that skips the bottom-right corner, with the corner visited
        # between its upper neighbour and that neighbour's successor (a 2-hop link back)
        order = grid_cycle_but_corner(rows, cols)
        corner = rows * cols - 1
        order.insert(order.index(corner - cols) + 1, corner)
        return order
    # DFS preorder over the compute chiplets: neighbours mostly follow each other
    und = nx.Graph(G.subgraph(ranks))
    if not nx.is_connected(und):
        return ranks
    return list(nx.dfs_preorder_nodes(und, ranks[0]))
