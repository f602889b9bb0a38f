"""What a design's claims are re-derived from: candidate families, the flow condition, counting.

Independent re-statements of the documented rules (none of :mod:`supermesh.trees.design` runs):
:func:`candidate_pairs` rebuilds a named candidate family, :func:`flow_failure` tests Edmonds'
condition by max-flow, :func:`ends_needed` and :func:`counting_bound` recount the counting
argument (see :mod:`supermesh.verify.topology.design`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

__all__ = ["candidate_pairs", "counting_bound", "ends_needed", "flow_failure", "requirements"]

Pair = tuple[int, int]


def _pair(u: int, v: int) -> Pair:
    return (u, v) if u < v else (v, u)


def _cells(G: nx.MultiDiGraph) -> dict[tuple[int, int], int]:
    if G.graph.get("rows") is None or G.graph.get("family") == "hexamesh":
        return {}
    out = {}
    for n, d in G.nodes(data=True):
        if d.get("kind") == "compute" and d.get("row") is not None and d.get("col") is not None:
            out[int(d["row"]), int(d["col"])] = n
    return out


def candidate_pairs(G: nx.MultiDiGraph, family: str) -> set[Pair]:
    """The pairs a named candidate family offers on base ``G`` (the documented definitions).

    ``perimeter-parallel``: consecutive chiplets of the grid's perimeter that are linked (on
    HexaMesh: linked compute chiplets that both lack a brick neighbour); ``any-parallel``: every
    linked pair; ``diagonal``: grid chiplets ``(r, c)`` and ``(r + 1, c +- 1)``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    family : {"perimeter-parallel", "any-parallel", "diagonal"}
        The candidate family of a design.

    Returns
    -------
    set of (int, int)
        Unordered chiplet pairs, smaller id first.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> sorted(candidate_pairs(build("mesh:2x3"), "diagonal"))
    [(0, 4), (1, 3), (1, 5), (2, 4)]
    """
    linked = {_pair(u, v) for u, v in G.edges()}
    if family == "any-parallel":
        return linked
    if family == "perimeter-parallel" and G.graph.get("family") == "hexamesh":
        ring = set()
        for n, k in G.nodes(data="kind"):
            brick = {v for v in G.successors(n) if G.nodes[v].get("kind") == "compute"}
            if k == "compute" and len(brick) < 6:
                ring.add(n)
        return {p for p in linked if p[0] in ring and p[1] in ring}
    cells = _cells(G)
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if family == "perimeter-parallel" and cells:
        edge = {(r, c) for r, c in cells if r in (0, rows - 1) or c in (0, cols - 1)}
        out = set()
        for r, c in edge:
            for rr, cc in ((r, c + 1), (r + 1, c)):
                along = (rr == r and r in (0, rows - 1)) or (cc == c and c in (0, cols - 1))
                if (rr, cc) in edge and along:
                    p = _pair(cells[r, c], cells[rr, cc])
                    if p in linked:
                        out.add(p)
        return out
    if family == "diagonal" and cells:
        return {
            _pair(u, cells[r + 1, c + dc])
            for (r, c), u in cells.items()
            for dc in (-1, 1)
            if (r + 1, c + dc) in cells
        }
    return set()


def requirements(target: dict[str, Any], span: list[int]) -> list[tuple[list[int] | None, str]]:
    """(roots or None for any, direction) per condition the target asks for.

    Parameters
    ----------
    target : dict
        A design's ``target`` (``roots``, ``direction``).
    span : list of int

    Returns
    -------
    list of (list of int or None, str)

    Examples
    --------
    >>> requirements({"roots": [[0, 1], [2, 3]], "direction": "both"}, [0, 1, 2, 3])[:2]
    [([0, 1], 'out'), ([0, 1], 'in')]
    """
    roots = target.get("roots")
    dirs = ["out", "in"] if target.get("direction") == "both" else [str(target.get("direction"))]
    if roots == "any":
        return [(None, d) for d in dirs]
    sets: list[Any] = roots if roots and isinstance(roots[0], list) else [roots]
    return [(list(s), d) for s in sets for d in dirs]


def _capacity(G: nx.MultiDiGraph, direction: str) -> nx.DiGraph:
    D = nx.DiGraph()
    D.add_nodes_from(G)
    for (u, v), c in Counter(G.edges()).items():
        a, b = (u, v) if direction == "out" else (v, u)
        D.add_edge(a, b, capacity=c)
    return D


def flow_failure(
    G: nx.MultiDiGraph, k: int, roots: list[int] | None, direction: str, span: list[int]
) -> str | None:
    """``None`` when Edmonds' flow condition holds for ``k`` trees, else why it fails.

    ``roots`` ``None``: every ordered pair of span nodes is joined by ``k`` arc-disjoint paths
    (checked through one pivot node: Menger); else a source with one arc per tree into each root
    reaches every span node with ``len(roots)`` units of flow. ``direction="in"`` reverses arcs.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    k : int
        Trees asked for.
    roots : list of int or None
        Their roots (``None``: free roots).
    direction : {"out", "in"}
    span : list of int
        The nodes every tree must reach.

    Returns
    -------
    str or None
        ``None`` when the condition holds, else which flow falls short.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> flow_failure(build("smbi:3x3"), 4, None, "out", list(range(9))) is None
    True
    >>> flow_failure(build("mesh:3x3"), 3, None, "out", list(range(9)))
    'fewer than 3 arc-disjoint paths from 0 to 1'
    """
    D = _capacity(G, direction)
    if roots is None:
        pivot = span[0]
        for v in span[1:]:
            for s, t in ((pivot, v), (v, pivot)):
                if nx.maximum_flow_value(D, s, t) < k:
                    return f"fewer than {k} arc-disjoint paths from {s} to {t}"
        return None
    source = "source"
    for r, c in Counter(roots).items():
        D.add_edge(source, r, capacity=c)
    for v in span:
        if nx.maximum_flow_value(D, source, v) < len(roots):
            return f"fewer than {len(roots)} arc-disjoint paths from the roots {roots} to {v}"
    return None


def counting_bound(
    G: nx.MultiDiGraph,
    need: dict[int, int],
    pairs: dict[Pair, int],
    room: dict[int, int],
) -> tuple[int, int]:
    """(links, cost) at least needed: per group of usable candidates, see the module docstring.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    need : dict
        Chiplet -> link ends it must gain (:func:`ends_needed`).
    pairs : dict
        Candidate pair -> its cost.
    room : dict
        Chiplet -> the link ends its port budget still allows.

    Returns
    -------
    (int, int)
        Links and cost every design must add at least.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")  # 0 and 3 lie on one side of the chessboard: no link serves both
    >>> counting_bound(G, {0: 1, 3: 1}, {(0, 1): 1, (1, 3): 1}, {0: 1, 1: 2, 3: 1})
    (2, 2)
    """
    H = nx.Graph()
    for (u, v), c in pairs.items():
        if room.get(u, 0) > 0 and room.get(v, 0) > 0:
            H.add_edge(u, v, cost=c)
    links = cost = 0
    for v, d in need.items():
        if d and v not in H:
            return (10**9, 10**9)  # a needy node without any usable candidate: no design
    cheapest = {v: min(H.edges[v, w]["cost"] for w in H[v]) for v in H}
    for comp in nx.connected_components(H):
        sub = H.subgraph(comp)
        ends = {v: need.get(v, 0) for v in comp}
        if nx.is_bipartite(sub):
            a, b = nx.bipartite.sets(sub)
            sides = [sum(ends[v] for v in a), sum(ends[v] for v in b)]
            costs = [sum(ends[v] * cheapest[v] for v in a), sum(ends[v] * cheapest[v] for v in b)]
            links += max(sides)
            cost += max(costs)
        else:
            links += math.ceil(sum(ends.values()) / 2)
            cost += math.ceil(sum(ends[v] * cheapest[v] for v in comp) / 2)
    return links, cost


def ends_needed(
    G: nx.MultiDiGraph,
    k: int,
    reqs: Sequence[tuple[list[int] | None, str]],
    span: list[int],
    pairs: Iterable[Pair] = (),
) -> dict[int, int]:
    """Span node -> link ends it must gain: trees that must enter it (leave it) minus its arcs.

    Each tree rooted elsewhere must enter a span node ``v`` (in-trees: leave it), and an added
    link gives each end one arc in and one out. A relay hanging off ``v`` alone (a memory chiplet
    with one link) is taken into ``v``'s set, its arcs to ``v`` not counted, when every candidate
    pair crossing that set ends at ``v``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    k : int
        Trees per requirement.
    reqs : sequence of (roots or None, direction)
        The design's requirements (``None``: any roots).
    span : list of int
        The chiplets every tree must reach.
    pairs : iterable of (int, int)
        Candidate pairs (they decide which relays are folded in).

    Returns
    -------
    dict
        Span node -> link ends it lacks (0 left out only when nothing is needed).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> ends_needed(build("mesh:2x2"), 3, [(None, "out")], [0, 1, 2, 3])
    {0: 1, 1: 1, 2: 1, 3: 1}
    >>> G = build("mesh:2x2,memory=south")  # 4 and 5 hang off 2 and 3: their arcs do not count
    >>> ends_needed(G, 3, [(None, "out")], [0, 1, 2, 3], [(0, 1), (2, 3)])
    {0: 1, 1: 1, 2: 1, 3: 1}
    """
    inside = set(span)
    hanging: dict[int, set[int]] = defaultdict(set)
    for m in G:
        around = set(G.successors(m)) | set(G.predecessors(m))
        if m not in inside and len(around) == 1 and next(iter(around)) in inside:
            hanging[next(iter(around))].add(m)
    candidates = list(pairs)
    need: dict[int, int] = defaultdict(int)
    for v in span:
        side = {v} | hanging.get(v, set())
        if any((a in side) != (b in side) and v not in (a, b) for a, b in candidates):
            side = {v}
        for roots, direction in reqs:
            wanted = k if roots is None else sum(1 for r in roots if r not in side)
            if direction == "out":
                have = sum(1 for a, b in G.in_edges(list(side)) if a not in side)
            else:
                have = sum(1 for a, b in G.out_edges(list(side)) if b not in side)
            need[v] = max(need[v], wanted - have)
    return {v: d for v, d in need.items() if d > 0}
