"""The published procedures, as named baselines: TTO on the mesh and SuperMesh's Algorithm 1.

TTO (Three-Tree AllReduce, Laskar et al., HPCA 2024) roots three trees at three corners of a
mesh: top-left, bottom-right and top-right. The fourth corner (bottom-left) is left out of the
computation, because a mesh corner has 2 in-arcs and cannot be reached by 3 disjoint trees; it may
still relay. The top-left tree goes down column 0, then right along every row ("vertical, then
horizontal"); the bottom-right tree goes left along the last row, then up every column
("horizontal, then vertical"); the top-right tree is a BFS over the arcs left, which are exactly
the leftward arcs of every row but the last and the downward arcs of every column but the first,
so it reaches every chiplet except the left-out corner. (The reference artifact's middle tree
missed a corner; :func:`tto` checks every tree reaches its span.) All three trees have height
``(R - 1) + (C - 1)``, the top-left root's eccentricity, hence optimal.

Algorithm 1 (Laskar et al., MICRO 2025, section 4.2) builds one tree per root on SuperMesh:
a root off the border is first joined to its nearest border chiplet; each tree then takes, by BFS
over the arcs still free, the chiplets of ``R - 1`` rows and ``C - 1`` columns (we read this as
the window of ``R - 1`` rows and ``C - 1`` columns that holds the root and leaves out the row and
the column farthest from it), removing the arcs it uses; finally the trees take turns attaching one
remaining chiplet adjacent to them until all are reached. It can get stuck; it is a baseline, not
the method to rely on (see :func:`supermesh.trees.packing.search.pack_trees`).

References
----------
.. [1] S. Laskar, P. Majhi, S. Kim, F. Mahmud, A. Muzahid, E. J. Kim, "Enhancing Collective
   Communication in MCM Accelerators for Deep Learning Training", HPCA 2024.
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (Algorithm 1).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies.model import check_nodes, grid_positions
from supermesh.trees.bounds.heights import (
    WorkingNetwork,
    check_direction,
    eccentricities,
    tree_depths,
    working_network,
)
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.packing.construct import roots_certificate
from supermesh.trees.packing.greedy import prune_relays

__all__ = ["algorithm1", "tto", "tto_roots"]

Parents = dict[int, int]


def _packing(
    G: nx.MultiDiGraph,
    net: WorkingNetwork,
    roots: Sequence[int],
    trees: Sequence[Parents],
    span: list[int],
    method: str,
    span_field: tuple[int, ...] | None,
) -> TreePacking:
    for root, par in zip(roots, trees, strict=True):
        missing = sorted(set(span) - set(par) - {root})
        if missing:
            raise SolverError(
                f"{method}: the tree rooted at {root} does not reach {missing[:8]}",
                hint="this baseline cannot serve these roots; use the cpsat or construct method",
            )
    built = net.trees(roots, trees)
    ecc = eccentricities(net, roots, span)
    lower = max(e for e in ecc if e is not None)
    top = max(t.height for t in built)
    return TreePacking(
        str(G.graph.get("spec", "")),
        net.direction,
        "optimal" if top == lower else "feasible",
        (TreeSet(built, lower),),
        lower_bound=lower,
        objective=top,
        method=method,
        span=span_field,
        stats={"gap": top - lower},
    )


def tto_roots(G: nx.MultiDiGraph) -> tuple[list[int], int]:
    """TTO's roots (top-left, bottom-right, top-right) and the left-out corner (bottom-left).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> tto_roots(build("mesh:4x4"))
    ([0, 15, 3], 12)
    """
    rows, cols, where = grid_positions(G, what="TTO")
    return [where[0, 0], where[rows - 1, cols - 1], where[0, cols - 1]], where[rows - 1, 0]


def tto(G: nx.MultiDiGraph, *, direction: str = "out") -> TreePacking:
    """TTO's three arc-disjoint trees on a mesh (or any grid holding the mesh links).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology with every mesh link (``mesh``, ``smbi``, ...).
    direction : {"out", "in"}
        Out-trees (AllGather) or in-trees (ReduceScatter; arcs stored child -> parent).

    Returns
    -------
    TreePacking
        Method ``tto``; ``span`` is every compute chiplet but the bottom-left corner, which
        relays only. Status ``optimal``: the heights meet the eccentricity bound.

    Raises
    ------
    TopologyError
        ``G`` is not a full grid or lacks a mesh arc the trees need.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = tto(build("mesh:8x8"))
    >>> [t.root for t in p.trees], [t.height for t in p.trees], p.status
    ([0, 63, 7], [14, 14, 13], 'optimal')
    """
    check_direction(direction)
    rows, cols, where = grid_positions(G, what="TTO")
    roots, out = tto_roots(G)
    net = working_network(G, direction)
    span = sorted(v for v in where.values() if v != out)
    free = dict(net.capacity)

    def take(par: Parents, a: tuple[int, int], b: tuple[int, int]) -> None:
        u, v = where[a], where[b]
        if free.get((u, v), 0) <= 0:
            raise TopologyError(
                f"TTO needs the arc {u}->{v}, which {G.graph.get('spec', 'G')} lacks",
                hint="TTO runs on a mesh; use a topology that holds every mesh link",
            )
        free[(u, v)] -= 1
        par[v] = u

    first: Parents = {}
    for r in range(1, rows):
        take(first, (r - 1, 0), (r, 0))
    for r in range(rows):
        for c in range(1, cols):
            take(first, (r, c - 1), (r, c))
    second: Parents = {}
    for c in range(cols - 2, -1, -1):
        take(second, (rows - 1, c + 1), (rows - 1, c))
    for c in range(cols):
        for r in range(rows - 2, -1, -1):
            take(second, (r + 1, c), (r, c))
    third = _bfs(net, roots[2], free, set(net.nodes))
    trees = [prune_relays(p, set(span)) for p in (first, second, third)]
    return _packing(G, net, roots, trees, span, "tto", tuple(span))


def _bfs(
    net: WorkingNetwork, root: int, free: dict[tuple[int, int], int], allowed: set[int]
) -> Parents:
    """BFS tree from ``root`` over free arcs inside ``allowed``; uses (decrements) the arcs."""
    par: Parents = {}
    seen = {root}
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in net.succ[u]:
            if v not in seen and v in allowed and free[(u, v)] > 0:
                free[(u, v)] -= 1
                par[v] = u
                seen.add(v)
                queue.append(v)
    return par


def _grow_bfs(
    net: WorkingNetwork,
    par: Parents,
    root: int,
    free: dict[tuple[int, int], int],
    allowed: set[int],
) -> None:
    """Extend a tree layer by layer over free arcs inside ``allowed``; uses the arcs.

    Each new chiplet takes, among the arcs from the current layer, one of a doubled link first
    (the paper's "prioritising added links"), then the smallest tail id.
    """
    level = tree_depths(root, par)
    frontier = sorted(level, key=lambda v: (level[v], v))
    while frontier:
        offers: dict[int, tuple[int, int]] = {}
        for u in frontier:
            for v in net.succ[u]:
                if v not in level and v in allowed and free[(u, v)] > 0:
                    offer = (-free[(u, v)], u)
                    if v not in offers or offer < offers[v]:
                        offers[v] = offer
        for v, (_, u) in sorted(offers.items()):
            free[(u, v)] -= 1
            par[v] = u
            level[v] = level[u] + 1
        frontier = sorted(offers)


def algorithm1(G: nx.MultiDiGraph, roots: Sequence[int], *, direction: str = "out") -> TreePacking:
    """The SuperMesh paper's Algorithm 1 (see the module docstring), as a baseline.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology.
    roots : sequence of int
        One root per tree (compute chiplets).
    direction : {"out", "in"}

    Returns
    -------
    TreePacking
        Method ``algorithm1``; status ``optimal`` only when its heights happen to meet the
        eccentricity bound, else ``feasible``; ``infeasible`` (with Edmonds' certificate) when
        no procedure can succeed.

    Raises
    ------
    SolverError
        The procedure got stuck (a tree cannot reach a chiplet through the arcs left).
    TopologyError
        ``G`` is not a full grid, or a root is not a node.

    References
    ----------
    .. [1] S. Laskar et al., "SuperMesh", MICRO 2025, Algorithm 1.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = algorithm1(build("smbi:4x4"), [0, 3, 15, 12])
    >>> p.status in ("optimal", "feasible"), len(p.trees)
    (True, 4)
    """
    check_direction(direction)
    rows, cols, where = grid_positions(G, what="Algorithm 1")
    roots = check_nodes(G, roots, what="root")
    pos = {v: rc for rc, v in where.items()}
    bad = [r for r in roots if r not in pos]
    if bad:
        raise TopologyError(f"Algorithm 1 roots must be compute chiplets; {bad[0]} is not")
    span = sorted(where.values())
    cert = roots_certificate(G, roots, direction, span)
    if cert is not None:
        return TreePacking(
            str(G.graph.get("spec", "")),
            direction,
            "infeasible",
            method="algorithm1",
            certificate=cert,
        )
    net = working_network(G, direction)
    free = dict(net.capacity)
    grid = set(span)
    trees: list[Parents] = [{} for _ in roots]
    border = {v for v, (r, c) in pos.items() if r in (0, rows - 1) or c in (0, cols - 1)}
    for par, root in zip(trees, roots, strict=True):  # lines 7-9: join interior roots to the border
        if root not in border:
            _path_to(net, par, root, border, free)
    for par, root in zip(
        trees, roots, strict=True
    ):  # lines 10-13: BFS over N-1 rows and N-1 columns
        r0, c0 = pos[root]
        rows_in = range(rows - 1) if r0 <= (rows - 1) / 2 else range(1, rows)
        cols_in = range(cols - 1) if c0 <= (cols - 1) / 2 else range(1, cols)
        window = {where[r, c] for r in rows_in for c in cols_in} | set(par) | {root}
        _grow_bfs(net, par, root, free, window)
    levels = [tree_depths(root, par) for root, par in zip(roots, trees, strict=True)]
    while any(len(par) < len(grid) - 1 for par in trees):  # lines 14-19: round-robin
        for t, (par, root) in enumerate(zip(trees, roots, strict=True)):
            if len(par) == len(grid) - 1:
                continue
            step = _adjacent(net, par, root, free, grid, levels[t])
            if step is None:
                missing = sorted(grid - set(par) - {root})
                raise SolverError(
                    f"Algorithm 1 got stuck: tree {t} (root {root}) cannot reach {missing[:8]} "
                    "through the arcs left",
                    hint="use the cpsat or construct method, which always find trees when they "
                    "exist",
                )
            u, v = step
            free[(u, v)] -= 1
            par[v] = u
            levels[t][v] = levels[t][u] + 1
    return _packing(G, net, roots, trees, span, "algorithm1", None)


def _path_to(
    net: WorkingNetwork, par: Parents, root: int, border: set[int], free: dict[tuple[int, int], int]
) -> None:
    """Attach a shortest free path from ``root`` to its nearest border chiplet."""
    prev: dict[int, int] = {}
    seen = {root}
    queue = deque([root])
    while queue:
        u = queue.popleft()
        if u in border:
            while u != root:
                p = prev[u]
                free[(p, u)] -= 1
                par[u] = p
                u = p
            return
        for v in net.succ[u]:
            if v not in seen and free[(u, v)] > 0:
                seen.add(v)
                prev[v] = u
                queue.append(v)


def _adjacent(
    net: WorkingNetwork,
    par: Parents,
    root: int,
    free: dict[tuple[int, int], int],
    grid: set[int],
    level: dict[int, int],
) -> tuple[int, int] | None:
    """The free arc joining the tree to a new chiplet, shallowest tail first (then ids)."""
    options = [
        (level[u], -free[(u, v)], u, v)
        for u in level
        for v in net.succ[u]
        if v in grid and v != root and v not in par and free[(u, v)] > 0
    ]
    return min(options)[2:] if options else None
