"""Rings at the cut bound: arc-disjoint directed Hamiltonian cycles, one tree per cycle and rank.

Where every rank has the same in-degree ``k`` and ``k`` arc-disjoint directed Hamiltonian
cycles exist, each rank sends ``1/k`` of its data round each cycle (a path of ``n - 1`` arcs from
the rank: the ring AllGather of every cycle at once). Every arc then carries ``n - 1`` shares
of ``1/k``, so the rate is ``k n / (n - 1)`` links, which is the cut bound whenever a rank's
``k`` in-arcs are its bottleneck (mesh, SMBi and SMAlter at every even size measured here: 4x4
32/15, 64/15, 64/15; 8x8 128/63, 256/63, 256/63). Run with one chunk a tree, the schedule has
no fill: in slot ``s`` every arc sends the share it received in slot ``s - 1``, so every arc is
busy from the first slot to the last and the collective takes exactly ``n - 1`` transfers of a
share on every link (:func:`supermesh.sim.chunk_choice.ring_program` runs such a packing at
that one chunk size). Weighted trees of the smallest heights
(:func:`~supermesh.trees.throughput.pack.pack_throughput`) reach the same rate, but their one
round is a list schedule that loses slots on some grids (SMAlter 8x8: 68 slots where the busiest
link sends 63 transfers).

The cycles come from CP-SAT: one ``AddCircuit`` per undirected cycle, used in both directions
(``k // 2`` of them, plus one directed circuit when ``k`` is odd), with each link's copies
shared out among them. A graph whose ranks split into the two sides of a bipartite graph of
unequal sizes (every odd grid) has no Hamiltonian cycle, and is answered without a solve.

References
----------
.. [1] A. Kotzig, "Every Cartesian product of two circuits is decomposable into two Hamiltonian
   circuits", Centre de Recherches Mathématiques, Montréal, 1973 (the torus case).
.. [2] B. Alspach, J.-C. Bermond and D. Sotteau, "Decomposition into cycles I: Hamilton
   decompositions", in *Cycles and Rays*, Kluwer, 1990, pp. 9-18.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["RINGS_UP_TO", "hamiltonian_rings", "ring_packing"]

RINGS_UP_TO = 100
"""Ranks up to which :func:`ring_packing` looks for rings (CP-SAT, one worker: SMAlter 8x8 in
0.4 units of work, 0.7 s here; 10x10 in 3.2 units; 12x12 not within 3.6)."""

Arc = tuple[int, int, int]


def hamiltonian_rings(
    G: nx.MultiDiGraph, k: int, *, time_limit: float = 60.0
) -> list[tuple[Arc, ...]] | None:
    """``k`` arc-disjoint directed Hamiltonian cycles of ``G``, or None if none were found.

    Cycles come in pairs, one the other reversed (an undirected Hamiltonian cycle used both
    ways); an odd ``k`` adds one directed cycle. Deterministic: one CP-SAT worker, a fixed seed,
    and a work budget of :func:`~supermesh.trees.cpsat.work_of` ``(time_limit, 1)``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The network; every node must be on every cycle.
    k : int
        Number of cycles.
    time_limit : float
        Seconds (and their work) for the search.

    Returns
    -------
    list of tuple of (src, dst, key), or None
        Each cycle as its arcs in order, starting at the smallest node; None when the graph
        has fewer than 3 nodes, when it has no cycles of this form (CP-SAT's proof; a
        decomposition whose cycles are not pairs, as the complete digraph on 8 nodes has, is
        not looked for), or when the work ran out.

    Raises
    ------
    SpecError
        ``k`` is not a positive integer.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> (ring,) = hamiltonian_rings(build("mesh:2x3"), 1)
    >>> [u for u, _, _ in ring]
    [0, 3, 4, 5, 2, 1]
    >>> hamiltonian_rings(build("mesh:3x3"), 2) is None  # bipartite, 5 + 4 nodes
    True
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise SpecError(f"the number of rings must be a positive integer, got {k!r}")
    nodes = sorted(G.nodes)
    if len(nodes) < 3 or _unbalanced(G):
        return None
    from ortools.sat.python import cp_model

    from supermesh.trees.cpsat import new_solver, work_of

    index = {v: i for i, v in enumerate(nodes)}
    keys: dict[tuple[int, int], list[int]] = {}
    for u, v, key in G.edges(keys=True):
        if u != v:
            keys.setdefault((u, v), []).append(key)
    pairs = sorted(keys)
    regular = all(d == k for _, d in G.in_degree()) and all(d == k for _, d in G.out_degree())
    model = cp_model.CpModel()
    # uses[c][(u, v)]: cycle c (an undirected pair's first direction, or the odd directed one)
    # takes u -> v; a pair's reverse takes v -> u with it
    uses: list[dict[tuple[int, int], Any]] = []
    for c in range(k // 2 + k % 2):
        lits = {a: model.new_bool_var(f"c{c}_{a[0]}_{a[1]}") for a in pairs}
        model.add_circuit([(index[u], index[v], lit) for (u, v), lit in lits.items()])
        uses.append(lits)
    for u, v in pairs:
        taken = [lits[(u, v)] for lits in uses]
        # a pair's cycle run backwards uses u -> v where its forward run uses v -> u
        taken += [lits[(v, u)] for lits in uses[: k // 2] if (v, u) in lits]
        if regular:  # every arc is on some cycle: said outright (SMAlter 8x8 0.7 -> 0.4 s)
            model.add(sum(taken) == len(keys[(u, v)]))
        else:
            model.add(sum(taken) <= len(keys[(u, v)]))
        if (v, u) not in keys:  # a pair's cycle needs the way back on every link it takes
            for lits in uses[: k // 2]:
                model.add(lits[(u, v)] == 0)
    solver = new_solver(time_limit=time_limit, workers=1, deterministic_time=work_of(time_limit, 1))
    if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    succ = [{u: v for (u, v), lit in lits.items() if solver.boolean_value(lit)} for lits in uses]
    directed = [s for s in succ[: k // 2] for s in (s, {v: u for u, v in s.items()})]
    directed += succ[k // 2 :]
    free = {a: list(ks) for a, ks in keys.items()}  # copies of a link go out in key order
    rings = []
    for s in directed:
        arcs, u = [], nodes[0]
        for _ in nodes:
            arcs.append((u, s[u], free[(u, s[u])].pop(0)))
            u = s[u]
        rings.append(tuple(arcs))
    return rings


def _unbalanced(G: nx.MultiDiGraph) -> bool:
    """Whether ``G`` is disconnected, or bipartite with sides of different sizes: either way it
    has no Hamiltonian cycle (a cycle alternates sides)."""
    simple = nx.Graph(G.to_undirected(as_view=True))
    if not nx.is_connected(simple):
        return True
    if not nx.is_bipartite(simple):
        return False
    side = nx.bipartite.color(simple)
    return 2 * sum(side.values()) != len(side)


def ring_packing(
    G: nx.MultiDiGraph,
    direction: str = "out",
    *,
    time_limit: float = 60.0,
    memo: MutableMapping[Any, Any] | None = None,
) -> TreePacking | None:
    """The rings of ``G`` as a packing at the cut bound, or None where there are none.

    Offered where every node is a rank (no relays), there are at most :data:`RINGS_UP_TO` of
    them, every arc has the same bandwidth, and ``k`` (the least in-degree) Hamiltonian cycles
    reach the cut bound: ``k n / (n - 1)`` equal to
    :func:`~supermesh.trees.bounds.throughput.throughput_bound`, exactly.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
        Out-trees (AllGather: the path from each rank round a cycle) or in-trees
        (ReduceScatter: the path round the cycle into each rank).
    time_limit : float
        Seconds for the cycle search (:func:`hamiltonian_rings`).
    memo : mutable mapping, optional
        The topology's rings memo, shared by both directions: the packing (or its absence) is
        kept under ``direction`` and the cycles under ``"cycles"``, so an AllGather and a
        ReduceScatter on one topology solve for them once.

    Returns
    -------
    TreePacking or None
        ``k n`` trees of share ``1 / k`` and height ``n - 1``, one set, ``method="rings"``,
        ``status="feasible"`` (the rate is the bound; the heights are not the least), with
        ``stats["algbw_links"]`` and ``stats["rule"]``.

    Raises
    ------
    SpecError
        Unknown direction.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = ring_packing(build("smbi:4x4"))
    >>> len(p.trees), p.stats["algbw_links"], p.objective  # 4 rings of 16, the bound 64/15
    (64, '64/15', 15)
    >>> ring_packing(build("smbi:5x5")) is None  # 13 + 12 chiplets: no Hamiltonian cycle
    True
    """
    if direction not in ("out", "in"):
        raise SpecError(f"unknown direction {direction!r}", hint="use 'out' or 'in'")
    memo = {} if memo is None else memo
    if direction not in memo:
        memo[direction] = _build(G, direction, time_limit, time.perf_counter(), memo)
    found: TreePacking | None = memo[direction]
    return found


def _build(
    G: nx.MultiDiGraph,
    direction: str,
    time_limit: float,
    start: float,
    memo: MutableMapping[Any, Any],
) -> TreePacking | None:
    from supermesh.trees.bounds.throughput import throughput_bound

    ranks = compute_nodes(G)
    n = len(ranks)
    if n != G.number_of_nodes() or not 3 <= n <= RINGS_UP_TO:
        return None
    if len({float(d.get("bandwidth", 1.0)) for _, _, d in G.edges(data=True)}) > 1:
        return None
    k = min(min(d for _, d in G.in_degree()), min(d for _, d in G.out_degree()))
    rate = Fraction(k * n, n - 1)
    collective = "allgather" if direction == "out" else "reducescatter"
    bound = throughput_bound(G, collective)
    if k < 1 or rate != bound.value:
        return None
    if "cycles" not in memo:
        memo["cycles"] = hamiltonian_rings(G, k, time_limit=time_limit)
    rings = memo["cycles"]
    if rings is None:
        return None
    share = 1.0 / k
    trees = []
    for ring in rings:
        at = {u: i for i, (u, _, _) in enumerate(ring)}
        for r in ranks:
            i = at[r]
            # out: r's arc first, round to r's predecessor; in: from r's successor round to r
            path = [ring[(i + j) % n] for j in range(n - 1)]
            if direction == "in":
                path = [ring[(i + 1 + j) % n] for j in range(n - 1)]
            trees.append(Tree(r, tuple(path), n - 1, share))
    ecc = max(nx.eccentricity(nx.DiGraph(G)).values())
    stats: dict[str, Any] = {
        "collective": collective,
        "rule": f"rings: {k} arc-disjoint Hamiltonian cycles, one tree per cycle and rank",
        "optimum": str(bound.value),
        "optimum_float": float(bound.value),
        "bound_certificate": bound.certificate,
        "algbw_links": str(rate),
        "algbw_float": float(rate),
        "rate_fraction": 1.0,
        "rate_gap": 0.0,
        "eccentricity_bound": ecc,
        "height_gap": n - 1 - ecc,
        "shares": [str(Fraction(1, k))] * len(trees),
        "trees": len(trees),
        "parts": {
            "parts": k,
            "max_load": str(n - 1),
            "algbw_links": str(rate),
            "load_bound": str(n - 1),
            "proved": True,
            "method": "rings",
        },
        "wall_time": round(time.perf_counter() - start, 3),
    }
    return TreePacking(
        str(G.graph.get("spec", "")),
        direction,
        "feasible",
        sets=(TreeSet(tuple(trees), ecc),),
        lower_bound=ecc,
        objective=n - 1,
        method="rings",
        stats=stats,
    )
