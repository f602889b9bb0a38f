"""Fast tree constructions: a closed form for doubled perimeters and a Lovász-style greedy.

These give valid arc-disjoint trees in polynomial time, without a solver. They are the warm
start of :func:`supermesh.trees.packing.search.pack_trees` and its fallback when nobody wants to
wait.

Closed form ("combs", for grids whose perimeter links are doubled, e.g. SMBi). Give each root a
side it lies on (distinct sides). A root on the north side runs along row 0 both ways, then down
every column; east: along its column, then left along every row; south: along the last row, then
up every column; west: along column 0, then right along every row. Inside the grid each tree owns
one direction (down, left, up, right), so interior arcs are used once; perimeter arcs are used at
most twice, which a doubled perimeter allows. Every path is monotone, hence shortest: each tree is
a BFS tree and its height is its root's eccentricity, the lower bound. Corner roots are the case
where each root sits at the start of its side (TL north, TR east, BR south, BL west).

Greedy (:mod:`supermesh.trees.packing.greedy`): breadth-first round-robin growth; with Lovász's
check it always succeeds when Edmonds' condition holds on all nodes.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies.model import check_nodes, grid_positions
from supermesh.trees.bounds.counts import check_roots
from supermesh.trees.bounds.heights import (
    WorkingNetwork,
    check_direction,
    eccentricities,
    resolve_span,
    tree_depths,
    working_network,
)
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.packing.greedy import greedy_parents, prune_relays

__all__ = ["comb_parents", "construct_parents", "construct_trees", "roots_certificate"]

Parents = dict[int, int]
SIDES = ("north", "east", "south", "west")
BOTH_ORDERS_UP_TO = 400  # nodes: above this the reversed root order is tried only on failure
LOCAL_SEARCH = 16  # nodes a Lovász check explores before it trusts the arc (then verified)


def roots_certificate(
    G: nx.MultiDiGraph, roots: Sequence[int], direction: str, span: Iterable[int] | None
) -> dict[str, Any] | None:
    """Edmonds' certificate that no arc-disjoint trees with these roots exist, or ``None``.

    The one place the packing code asks :func:`supermesh.trees.bounds.counts.check_roots`.
    """
    bound = check_roots(G, roots, direction=direction, span=span)
    if bound.feasible or bound.certificate is None:
        return None
    return {**bound.certificate, "roots": list(bound.roots)}


def _grid(G: nx.MultiDiGraph) -> dict[tuple[int, int], int] | None:
    try:
        return grid_positions(G)[2]
    except TopologyError:  # not a grid: the closed forms do not apply
        return None


def _comb(
    side: str, r0: int, c0: int, rows: int, cols: int
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Grid moves ``(parent, child)`` of one comb tree."""
    moves = []
    if side in ("north", "south"):
        edge = 0 if side == "north" else rows - 1
        step = 1 if side == "north" else -1
        for c in range(cols):
            if c != c0:
                toward = c - 1 if c > c0 else c + 1
                moves.append(((edge, toward), (edge, c)))
            for i in range(1, rows):
                r = edge + step * i
                moves.append(((r - step, c), (r, c)))
    else:
        edge = cols - 1 if side == "east" else 0
        step = -1 if side == "east" else 1
        for r in range(rows):
            if r != r0:
                toward = r - 1 if r > r0 else r + 1
                moves.append(((toward, edge), (r, edge)))
            for i in range(1, cols):
                c = edge + step * i
                moves.append(((r, c - step), (r, c)))
    return moves


def _on_side(side: str, r: int, c: int, rows: int, cols: int) -> bool:
    return {"north": r == 0, "south": r == rows - 1, "west": c == 0, "east": c == cols - 1}[side]


def comb_parents(
    G: nx.MultiDiGraph, net: WorkingNetwork, roots: Sequence[int], span: Iterable[int]
) -> list[Parents] | None:
    """The closed-form comb trees (module docstring), or ``None`` where they do not fit.

    They fit when the topology is a full grid, at most 4 roots sit on distinct sides, every
    span node is a grid chiplet, and the working network has every arc the combs use, with
    enough parallel copies (SMBi: always, for any roots on distinct sides).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("smbi:5x5")
    >>> trees = comb_parents(G, working_network(G), [0, 4, 24, 20], range(25))
    >>> [max(tree_depths(r, p).values()) for r, p in zip([0, 4, 24, 20], trees, strict=True)]
    [8, 8, 8, 8]
    """
    where = _grid(G)
    if where is None or len(roots) > 4 or len(roots) == 0:
        return None
    rows, cols = G.graph["rows"], G.graph["cols"]
    ids = set(where.values())
    targets = set(span)
    if not targets <= ids:
        return None
    pos = {v: (G.nodes[v]["row"], G.nodes[v]["col"]) for v in roots if v in ids}
    if len(pos) != len(set(roots)):
        return None
    for sides in itertools.permutations(SIDES, len(roots)):
        if not all(_on_side(s, *pos[r], rows, cols) for s, r in zip(sides, roots, strict=True)):
            continue
        trees = [
            {where[b]: where[a] for a, b in _comb(s, *pos[r], rows, cols)}
            for s, r in zip(sides, roots, strict=True)
        ]
        use: dict[tuple[int, int], int] = {}
        for par in trees:
            for child, parent in par.items():
                use[(parent, child)] = use.get((parent, child), 0) + 1
        if all(net.capacity.get(p, 0) >= n for p, n in use.items()):
            return [prune_relays(p, targets) for p in trees]
    return None


def _max_height(roots: Sequence[int], trees: Sequence[Parents]) -> tuple[int, int]:
    hs = [max(tree_depths(r, p).values()) for r, p in zip(roots, trees, strict=True)]
    return max(hs, default=0), sum(hs)


def construct_parents(
    G: nx.MultiDiGraph,
    net: WorkingNetwork,
    roots: Sequence[int],
    span: Sequence[int],
    *,
    spans_all: bool | None = None,
) -> list[Parents] | None:
    """Best construction found (smallest maximum height, then sum), or ``None``.

    Tries the comb trees, the greedy with local Lovász checks, and, if both fail and Edmonds'
    condition holds on all nodes (``spans_all``), the greedy with exact checks, which then
    cannot fail. Relays are pruned from every tree.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    net : WorkingNetwork
        ``G`` oriented for the direction asked.
    roots, span : sequences of int
    spans_all : bool, optional
        Whether arc-disjoint trees spanning *every* node exist with these roots (computed with
        :func:`~supermesh.trees.bounds.counts.check_roots` when not given).

    Returns
    -------
    list of dict or None
        One parent map (child -> parent, working orientation) per tree.
    """
    comb = comb_parents(G, net, roots, span)
    if comb is not None:
        return comb
    for base in _greedy_networks(G, net, roots, span, spans_all):
        found = _greedy_tries(base, roots, span)
        if found:
            return min(found, key=lambda trees: _max_height(roots, trees))
    return None


def _greedy_networks(
    G: nx.MultiDiGraph,
    net: WorkingNetwork,
    roots: Sequence[int],
    span: Sequence[int],
    spans_all: bool | None,
) -> Iterable[tuple[WorkingNetwork, bool]]:
    """Networks to grow on, with whether Edmonds' condition holds on all of their nodes."""
    everything = list(net.nodes)
    if spans_all is None:
        spans_all = roots_certificate(G, roots, net.direction, everything) is None
    if spans_all:
        yield net, True
        return
    inner = sorted(set(span) | set(roots))
    if len(inner) < len(everything):
        sub = G.subgraph(inner)
        if roots_certificate(sub, roots, net.direction, inner) is None:
            yield net.restrict(inner), True
    yield net, False


def _greedy_tries(
    base: tuple[WorkingNetwork, bool], roots: Sequence[int], span: Sequence[int]
) -> list[list[Parents]]:
    net, exact = base
    targets = list(net.nodes) if exact else list(span)
    found: list[list[Parents]] = []
    k = len(roots)
    for order in (list(range(k)), list(range(k))[::-1]):
        if found and len(net.nodes) > BOTH_ORDERS_UP_TO:
            break
        ordered = [roots[i] for i in order]
        trees = greedy_parents(net, ordered, targets, checked=exact, budget=LOCAL_SEARCH)
        if trees is not None:
            back: list[Parents] = [{} for _ in roots]
            for i, tree in zip(order, trees, strict=True):
                back[i] = prune_relays(tree, set(span))
            found.append(back)
    if not found and exact:
        trees = greedy_parents(net, roots, targets, checked=True)
        if trees is not None:
            found.append([prune_relays(t, set(span)) for t in trees])
    return found


def construct_trees(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> TreePacking:
    """Arc-disjoint trees with the given roots from the fast constructions (no solver).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    roots : sequence of int
        One root per tree (repeats allowed).
    direction : {"out", "in"}
        Out-trees (broadcast, AllGather) or in-trees (reduce, ReduceScatter).
    span : iterable of int, optional
        Nodes every tree must reach (default: the compute chiplets); others may relay.

    Returns
    -------
    TreePacking
        ``optimal`` when the tallest tree meets the eccentricity lower bound, else ``feasible``
        (``stats["gap"]`` = height - bound); ``infeasible`` with Edmonds' certificate when a cut
        rules the roots out.

    Raises
    ------
    SolverError
        When no construction is found although no cut rules the roots out (a Steiner span):
        try :func:`~supermesh.trees.packing.search.pack_trees`.
    TopologyError, SpecError
        A root or span node not in ``G``; an unknown direction.

    References
    ----------
    .. [1] L. Lovász, "On two minimax theorems in graph", J. Combin. Theory B 21, 1976.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = construct_trees(build("smbi:6x6"), [0, 5, 35, 30])
    >>> p.status, p.objective, p.lower_bound
    ('optimal', 10, 10)
    """
    start = time.perf_counter()
    check_direction(direction)
    roots = check_nodes(G, roots, what="root")
    targets = resolve_span(G, span)
    spec = str(G.graph.get("spec", ""))
    span_field = None if span is None else tuple(targets)
    cert = roots_certificate(G, roots, direction, targets)
    if cert is not None:
        return TreePacking(
            spec, direction, "infeasible", method="construct", span=span_field, certificate=cert
        )
    net = working_network(G, direction)
    ecc = eccentricities(net, roots, targets)
    lower = max(e for e in ecc if e is not None)
    trees = construct_parents(G, net, roots, targets)
    if trees is None:
        raise SolverError(
            f"no construction found for roots {list(roots)} on {spec or 'this topology'}",
            hint="use the solver (method cpsat), which also proves infeasibility",
        )
    built = net.trees(roots, trees)
    top = max(t.height for t in built)
    return TreePacking(
        spec,
        direction,
        "optimal" if top == lower else "feasible",
        (TreeSet(built, lower),),
        lower_bound=lower,
        objective=top,
        method="construct",
        span=span_field,
        stats={"gap": top - lower, "wall_time": round(time.perf_counter() - start, 3)},
    )
