"""The AllToAll throughput bound: the maximum concurrent multi-commodity flow, with its proof.

In an AllToAll every rank ``s`` sends a distinct block of ``M / n`` bytes to every other rank
``d``: ``n (n - 1)`` commodities of equal demand. If the blocks take time ``T``, routing them is
a flow of rate ``lambda = (M / n) / T`` for every commodity at once, so ``M / T <= n lambda*``
where ``lambda*`` is the maximum concurrent flow (Shahrokhi and Matula 1990) of the network with
arc capacities ``bandwidth``. The LP (one flow per source, summed over its destinations, which
is the same optimum)::

    max lambda   s.t.   sum_s g[s, a] <= c(a),   conservation with lambda into every d != s

Its dual gives arc lengths ``l >= 0``, and any lengths prove ``lambda* <= sum_a c(a) l(a) /
sum_{s != d} dist_l(s, d)`` (a flow of rate ``lambda`` uses at least ``lambda dist_l(s, d)``
length-weighted capacity per commodity). The certificate is those lengths: the bound reported
is the ratio they give, recomputed with shortest paths, so it holds whatever the LP solver's
precision. A simpler but weaker proof comes with it: a node set ``S`` whose entering capacity
must carry every block from outside to inside, ``lambda* <= c_in(S) / (|R \\ S| |R & S|)``
(the best of the sweep cuts of the dual lengths and the single nodes).

References
----------
.. [1] F. Shahrokhi and D. W. Matula, "The maximum concurrent flow problem", J. ACM 37(2), 1990.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
from ortools.linear_solver import pywraplp

from supermesh.errors import SolverError, TopologyError
from supermesh.sim.bounds import ThroughputBound
from supermesh.topologies.model import compute_nodes

__all__ = ["alltoall_bound", "concurrent_flow_ratio"]

_TINY = 1e-12


def concurrent_flow_ratio(
    G: nx.MultiDiGraph, lengths: dict[tuple[int, int, int], float], ranks: list[int]
) -> float:
    """``sum_a c(a) l(a) / sum_{s != d} dist_l(s, d)``: the concurrent flow bound of lengths.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Arc attribute ``bandwidth`` (default 1.0) is the capacity.
    lengths : dict
        Arc ``(src, dst, key)`` -> length (missing arcs: 0).
    ranks : list of int

    Returns
    -------
    float
        An upper bound on the maximum concurrent flow (per commodity).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")  # unit lengths: 8 arcs, 8 pairs at distance 1 and 4 at 2
    >>> concurrent_flow_ratio(G, dict.fromkeys(G.edges(keys=True), 1.0), [0, 1, 2, 3])
    0.5
    """
    H = nx.DiGraph()
    H.add_nodes_from(G.nodes)
    volume = 0.0
    for u, v, k, d in G.edges(keys=True, data=True):
        length = max(0.0, float(lengths.get((u, v, k), 0.0)))
        volume += float(d.get("bandwidth", 1.0)) * length
        if not H.has_edge(u, v) or H[u][v]["w"] > length:
            H.add_edge(u, v, w=length)
    # exact shortest paths, zero lengths included (a lifted zero would lower the ratio and
    # break the bound's direction)
    total = 0.0
    for s in ranks:
        dist = nx.single_source_dijkstra_path_length(H, s, weight="w")
        missing = [d for d in ranks if d not in dist]
        if missing:
            raise TopologyError(
                f"rank {missing[0]} cannot be reached from rank {s}",
                hint="check the topology's links",
            )
        total += sum(dist[d] for d in ranks if d != s)
    return volume / total if total > 0 else float("inf")


def _cut_ratio(G: nx.MultiDiGraph, side: set[int], ranks: list[int]) -> float:
    inside = sum(1 for r in ranks if r in side)
    pairs = inside * (len(ranks) - inside)
    if pairs == 0:
        return float("inf")
    entering = sum(
        float(d.get("bandwidth", 1.0))
        for u, v, d in G.edges(data=True)
        if v in side and u not in side
    )
    return entering / pairs


def _best_cut(
    G: nx.MultiDiGraph, lengths: dict[tuple[int, int, int], float], ranks: list[int]
) -> tuple[float, list[int]]:
    """The best of the single-node cuts and the sweep cuts of the dual lengths."""
    H = nx.DiGraph()
    H.add_nodes_from(G.nodes)
    for u, v, k in G.edges(keys=True):
        w = lengths.get((u, v, k), 0.0)
        if not H.has_edge(u, v) or H[u][v]["w"] > w:
            H.add_edge(u, v, w=w)
    candidates: list[set[int]] = []
    for x in sorted(G.nodes):
        candidates += [{x}, set(G.nodes) - {x}]
        dist = nx.single_source_dijkstra_path_length(H, x, weight="w")
        order = sorted(dist, key=lambda v: (dist[v], v))
        for i in range(1, len(order)):
            candidates.append(set(order[:i]))
    best, best_set = float("inf"), []
    for side in candidates:
        value = _cut_ratio(G, side, ranks)
        if value < best - 1e-12:
            best, best_set = value, sorted(side)
    return best, best_set


def alltoall_bound(G: nx.MultiDiGraph, ranks: list[int] | None = None) -> ThroughputBound:
    """The AllToAll bound ``M / T <= n lambda*`` (module docstring), in link units.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ranks : list of int, optional
        Default: the compute chiplets.

    Returns
    -------
    ThroughputBound
        ``value`` = ``n`` times the ratio the dual lengths prove; ``certificate``:
        ``lengths`` (``[src, dst, key, length]`` per arc with a positive length),
        ``lambda`` (the ratio; blocks per link-bandwidth time), ``lp_lambda`` (the LP's own
        optimum), and the best ``cut`` found (``set``, ``entering_bandwidth``, ``lambda``, a
        weaker bound a reader can check by hand).

    Raises
    ------
    TopologyError
        Fewer than 2 ranks, or a rank that cannot reach another.
    SolverError
        The LP was not solved.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = alltoall_bound(build("mesh:2x2"))  # 16 block-hops over 8 unit arcs: lambda 1/2
    >>> round(b.certificate["lambda"], 9), round(b.value, 9)
    (0.5, 2.0)
    """
    ranks = sorted(ranks if ranks is not None else compute_nodes(G))
    n = len(ranks)
    if n < 2:
        raise TopologyError("an AllToAll needs at least 2 ranks")
    arcs = sorted(G.edges(keys=True))
    nodes = sorted(G.nodes)
    lp = pywraplp.Solver.CreateSolver("GLOP")
    if lp is None:
        raise SolverError("OR-Tools has no GLOP linear solver here", hint="reinstall ortools")
    lam = lp.NumVar(0.0, lp.infinity(), "lambda")
    g = {(s, a): lp.NumVar(0.0, lp.infinity(), "") for s in ranks for a in arcs}
    rank_set = set(ranks)
    into: dict[int, list[tuple[int, int, int]]] = {v: [] for v in nodes}
    out_of: dict[int, list[tuple[int, int, int]]] = {v: [] for v in nodes}
    for a in arcs:
        into[a[1]].append(a)
        out_of[a[0]].append(a)
    for s in ranks:
        for v in nodes:
            net_in = lp.Sum([g[(s, a)] for a in into[v]]) - lp.Sum([g[(s, a)] for a in out_of[v]])
            if v == s:
                lp.Add(net_in == -(n - 1) * lam)
            elif v in rank_set:
                lp.Add(net_in == lam)
            else:
                lp.Add(net_in == 0)
    capacity = {}
    for a in arcs:
        bw = float(G.edges[a].get("bandwidth", 1.0))
        capacity[a] = lp.Add(lp.Sum([g[(s, a)] for s in ranks]) <= bw)
    lp.Maximize(lam)
    if lp.Solve() != pywraplp.Solver.OPTIMAL:
        raise SolverError("the AllToAll flow LP was not solved to optimality")
    lengths = {a: max(0.0, float(capacity[a].dual_value())) for a in arcs}
    ratio = concurrent_flow_ratio(G, lengths, ranks)
    cut_value, cut_set = _best_cut(G, lengths, ranks)
    entering = (
        cut_value
        * sum(1 for r in ranks if r in set(cut_set))
        * (n - sum(1 for r in ranks if r in set(cut_set)))
    )
    certificate = {
        "collective": "alltoall",
        "lambda": ratio,
        "lambda_fraction": str(Fraction(ratio).limit_denominator(10_000)),
        "lp_lambda": float(lam.solution_value()),
        "lengths": [[*a, lengths[a]] for a in arcs if lengths[a] > _TINY],
        "cut": {"set": cut_set, "entering_bandwidth": entering, "lambda": cut_value},
    }
    return ThroughputBound(n * ratio, certificate)
