"""CP-SAT model for arc-disjoint spanning arborescences of bounded height.

Model (one per height bound ``H``), for trees ``t`` with roots ``r_t`` in the working orientation
(:func:`~supermesh.trees.heights.working_network`; in-trees are out-trees of the reversed graph):

- ``x[t, u, v]`` Boolean: tree ``t`` uses one copy of the pair ``u -> v``;
- ``sum_t x[t, u, v] <= cap(u, v)`` (parallel arcs are one pair with capacity = multiplicity;
  decoding hands out the keys);
- a span node other than ``r_t`` has exactly one chosen in-arc per tree; a relay (non-span)
  node at most one, it needs one as soon as it has a chosen out-arc, and it is not a leaf;
- ``d[t, v]`` integer in ``[dist(r_t, v), H]`` (BFS distance), and ``x[t, u, v]`` implies
  ``d[t, v] = d[t, u] + 1``. Depths increase along chosen arcs, so chosen arcs form trees
  hanging from the roots, and ``H`` bounds every height.

Tight domains make the model local: an arc ``u -> v`` exists for tree ``t`` only if
``max(dist(u), dist(v) - 1) <= H - 1``. Objectives: none (feasibility for one ``H``), the
maximum height (``"max"``), or, with the maximum fixed, balance (``"balance"``: first the
smallest spread max - min of the heights, then the smallest sum).

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (the 4-tree pipelined collectives).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
from ortools.sat.python import cp_model

from supermesh.errors import SolverError
from supermesh.topologies.model import check_nodes
from supermesh.trees.construct import construct_parents, roots_certificate
from supermesh.trees.heights import (
    WorkingNetwork,
    bfs_distances,
    check_direction,
    resolve_span,
    tree_depths,
    working_network,
)
from supermesh.trees.model import TreePacking, TreeSet

__all__ = [
    "PackingModel",
    "PackingProblem",
    "SolveResult",
    "build_model",
    "pack_trees",
    "solve",
]

Parents = dict[int, int]
"""One tree as child -> parent in the working orientation (root absent)."""


@dataclass(frozen=True)
class PackingProblem:
    """Everything :func:`build_model` needs.

    Attributes
    ----------
    net : WorkingNetwork
        The oriented topology.
    roots : tuple of int
        One root per tree.
    span : frozenset of int
        Nodes every tree must reach (others may relay).
    dist : tuple of dict
        BFS distances from each root (``dist[t][v]``).
    max_height : int
        ``H``: upper bound on every depth.
    objective : {"none", "max", "balance"}
        What to optimise (see the module docstring).
    hint : sequence of Parents, optional
        A known packing (one parent map per tree) to start from.
    fixed : sequence of Parents, optional
        Parent choices to keep (child -> parent per tree): a local repair frees the rest.
    """

    net: WorkingNetwork
    roots: tuple[int, ...]
    span: frozenset[int]
    dist: tuple[dict[int, int], ...]
    max_height: int
    objective: str = "none"
    hint: Sequence[Parents] | None = None
    fixed: Sequence[Parents] | None = None


@dataclass
class PackingModel:
    """The CP-SAT variables of a built model, indexed per tree."""

    x: list[dict[tuple[int, int], cp_model.IntVar]]
    depth: list[dict[int, cp_model.IntVar]]
    height: list[cp_model.IntVar]
    top: cp_model.IntVar | None = None
    size: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SolveResult:
    """Outcome of one CP-SAT solve.

    Attributes
    ----------
    status : {"optimal", "feasible", "infeasible", "unknown"}
        CP-SAT's verdict (``unknown``: time limit before any solution or proof).
    parents : list of Parents or None
        The trees found.
    objective, bound : float or None
        Objective value and CP-SAT's proven bound (objective models only).
    wall_time : float
        Seconds spent in the solver.
    """

    status: str
    parents: list[Parents] | None
    objective: float | None
    bound: float | None
    wall_time: float


def _tree_nodes(problem: PackingProblem, t: int) -> list[int]:
    dist = problem.dist[t]
    return [
        v for v in problem.net.nodes if dist.get(v, problem.max_height + 1) <= problem.max_height
    ]


def build_model(problem: PackingProblem) -> tuple[cp_model.CpModel, PackingModel]:
    """Build the CP-SAT model of ``problem`` (see the module docstring).

    Parameters
    ----------
    problem : PackingProblem

    Returns
    -------
    model : ortools.sat.python.cp_model.CpModel
    variables : PackingModel

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.heights import bfs_distances, working_network
    >>> net = working_network(build("smbi:3x3"))
    >>> roots = (0, 2, 8, 6)
    >>> p = PackingProblem(net, roots, frozenset(range(9)),
    ...                    tuple(bfs_distances(net, r) for r in roots), max_height=4)
    >>> model, var = build_model(p)
    >>> solve(model, var, p, time_limit=5).status
    'feasible'
    """
    H = problem.max_height
    model = cp_model.CpModel()
    k = len(problem.roots)
    x: list[dict[tuple[int, int], cp_model.IntVar]] = []
    depth: list[dict[int, cp_model.IntVar]] = []
    height: list[cp_model.IntVar] = []
    uses: dict[tuple[int, int], list[cp_model.IntVar]] = {}
    for t, root in enumerate(problem.roots):
        dist = problem.dist[t]
        nodes = _tree_nodes(problem, t)
        d = {v: model.new_int_var(dist[v], 0 if v == root else H, f"d{t}_{v}") for v in nodes}
        xt: dict[tuple[int, int], cp_model.IntVar] = {}
        for u in nodes:
            if dist[u] > H - 1:
                continue
            for v in problem.net.succ[u]:
                if v == root or v not in d or dist[v] - 1 > H - 1:
                    continue
                var = model.new_bool_var(f"x{t}_{u}_{v}")
                xt[(u, v)] = var
                uses.setdefault((u, v), []).append(var)
                model.add(d[v] == d[u] + 1).only_enforce_if(var)
        into: dict[int, list[cp_model.IntVar]] = {v: [] for v in nodes}
        out_of: dict[int, list[cp_model.IntVar]] = {v: [] for v in nodes}
        for (u, v), var in xt.items():
            into[v].append(var)
            out_of[u].append(var)
        for v in nodes:
            if v == root:
                continue
            if v in problem.span:
                model.add_exactly_one(into[v])
            else:
                model.add_at_most_one(into[v])
                for var in out_of[v]:
                    model.add_bool_or(into[v]).only_enforce_if(var)
                model.add(sum(into[v]) <= sum(out_of[v]))
        h = model.new_int_var(max(dist[v] for v in problem.span), H, f"h{t}")
        if problem.objective == "balance":
            model.add_max_equality(h, [d[v] for v in problem.span])
        elif problem.objective == "max":
            for v in problem.span:
                model.add(d[v] <= h)
        x.append(xt)
        depth.append(d)
        height.append(h)
    for pair, vs in uses.items():
        if len(vs) > problem.net.capacity[pair]:
            model.add(sum(vs) <= problem.net.capacity[pair])
    top = None
    if problem.objective == "max":
        top = model.new_int_var(max(h.proto.domain[0] for h in height), H, "top")
        model.add_max_equality(top, height)
        model.minimize(top)
    elif problem.objective == "balance":
        low = model.new_int_var(0, H, "low")
        model.add_min_equality(low, height)
        weight = k * H + 1
        model.minimize(weight * (H - low) + sum(height))
    if problem.hint is not None:
        _add_hint(model, problem, x, depth)
    for t, keep in enumerate(problem.fixed or ()):
        for child, parent in keep.items():
            var = x[t].get((parent, child))
            if var is None:
                model.add_bool_or([])  # the kept arc is out of reach at this height
            else:
                model.add(var == 1)
    size = {"bool_vars": sum(len(xt) for xt in x), "int_vars": sum(len(d) for d in depth)}
    return model, PackingModel(x, depth, height, top, size)


def _add_hint(
    model: cp_model.CpModel,
    problem: PackingProblem,
    x: list[dict[tuple[int, int], cp_model.IntVar]],
    depth: list[dict[int, cp_model.IntVar]],
) -> None:
    assert problem.hint is not None
    for t, parents in enumerate(problem.hint):
        chosen = {(p, c) for c, p in parents.items()}
        for pair, var in x[t].items():
            model.add_hint(var, pair in chosen)
        levels = tree_depths(problem.roots[t], parents)
        for v, var in depth[t].items():
            if v in levels:
                model.add_hint(var, levels[v])


def solve(
    model: cp_model.CpModel,
    variables: PackingModel,
    problem: PackingProblem,
    *,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
) -> SolveResult:
    """Solve a model from :func:`build_model` and read back the trees.

    Parameters
    ----------
    model, variables : from :func:`build_model`
    problem : PackingProblem
        The problem the model was built from.
    time_limit : float
        Seconds before CP-SAT stops (then FEASIBLE or UNKNOWN, never optimal).
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed`` (fixed for determinism).

    Returns
    -------
    SolveResult
    """
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, float(time_limit))
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed)
    start = time.perf_counter()
    code = solver.solve(model)
    wall = time.perf_counter() - start
    names = {
        cp_model.OPTIMAL: "optimal",
        cp_model.FEASIBLE: "feasible",
        cp_model.INFEASIBLE: "infeasible",
    }
    status = names.get(code, "unknown")
    if status not in ("optimal", "feasible"):
        return SolveResult(status, None, None, None, wall)
    parents = [
        {v: u for (u, v), var in xt.items() if solver.boolean_value(var)} for xt in variables.x
    ]
    has_objective = problem.objective != "none"
    if not has_objective and status == "optimal":
        status = "feasible"  # a pure feasibility model: "found" is all it can say
    return SolveResult(
        status,
        parents,
        solver.objective_value if has_objective else None,
        solver.best_objective_bound if has_objective else None,
        wall,
    )


def _heights(roots: Sequence[int], trees: Sequence[Parents]) -> list[int]:
    return [max(tree_depths(r, p).values()) for r, p in zip(roots, trees)]


def _eccentricity_certificate(
    roots: Sequence[int], dist: Sequence[dict[int, int]], span: Sequence[int], cap: int
) -> dict[str, Any]:
    t, v = max(
        ((t, v) for t in range(len(roots)) for v in span), key=lambda tv: dist[tv[0]][tv[1]]
    )
    return {
        "reason": f"no packing of height <= {cap}",
        "root": roots[t],
        "node": v,
        "distance": dist[t][v],
        "max_height": cap,
    }


@dataclass
class _Search:
    """Book-keeping of the height search: best trees so far and the proven bound."""

    roots: tuple[int, ...]
    lower: int
    best: list[Parents] | None = None
    heights: list[int] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def top(self) -> int | None:
        return max(self.heights) if self.best is not None else None

    def offer(self, trees: list[Parents] | None, *, key: Any = None) -> bool:
        """Keep ``trees`` if better (by ``key(heights)``, default (max, sum)); say if kept."""
        if trees is None:
            return False
        rank = key or (lambda hs: (max(hs), sum(hs)))
        hs = _heights(self.roots, trees)
        if self.best is None or rank(hs) < rank(self.heights):
            self.best, self.heights = trees, hs
            return True
        return False


def _run(
    problem: PackingProblem, search: _Search, budget: float, workers: int, seed: int
) -> SolveResult:
    model, var = build_model(problem)
    result = solve(model, var, problem, time_limit=budget, workers=workers, seed=seed)
    search.runs.append(
        {
            "objective": problem.objective,
            "max_height": problem.max_height,
            "status": result.status,
            "wall_time": round(result.wall_time, 3),
            **var.size,
        }
    )
    return result


def pack_trees(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
    max_height: int | None = None,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    balance: bool = True,
    warm_start: bool = True,
) -> TreePacking:
    """Arc-disjoint arborescences with the given roots and the smallest maximum height.

    Stage 1 minimises the tallest tree: the eccentricity lower bound is tried first as a
    feasibility question (tight domains make it fast), then, if it fails, CP-SAT minimises the
    maximum height below the warm start's. Stage 2 (``balance``) keeps that maximum and makes the
    heights as equal as possible (largest smallest height), then their sum as small as possible.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    roots : sequence of int
        One root per tree (repeats allowed).
    direction : {"out", "in"}
        Out-trees (broadcast, AllGather) or in-trees (reduce, ReduceScatter; arcs stored
        child -> parent).
    span : iterable of int, optional
        Nodes every tree must reach (default: the compute chiplets); other nodes may relay.
    max_height : int, optional
        Reject packings taller than this (infeasible if none exists).
    time_limit : float
        Seconds for the whole call (construction, both stages).
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    balance : bool
        Run stage 2.
    warm_start : bool
        Start from :func:`~supermesh.trees.construct.construct_parents` (hint and fallback).

    Returns
    -------
    TreePacking
        ``optimal``: the tallest tree equals a proven lower bound (``lower_bound``: the
        eccentricity bound or a CP-SAT proof). ``feasible``: the time ran out; ``lower_bound``
        and ``stats["gap"]`` say how far from proven. ``infeasible``: ``certificate`` is
        Edmonds' cut (``set``, ``entering_arcs``, ``required``), or a distance that exceeds
        ``max_height``, or ``{"reason": ..., "solver": "cpsat"}`` when CP-SAT proved that no
        packing of height ``<= max_height`` exists. ``stats`` holds the runs, the balance status
        and timings.

    Raises
    ------
    SolverError
        The time ran out before any packing was found.
    TopologyError, SpecError
        A root or span node not in ``G``; an unknown direction.

    References
    ----------
    .. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = pack_trees(build("smalter:6x6"), [3, 23, 32, 12], time_limit=20)
    >>> p.status, p.objective, p.lower_bound  # mid-side roots need the bound + 1
    ('optimal', 9, 9)
    """
    start = time.perf_counter()
    check_direction(direction)
    roots = tuple(check_nodes(G, roots, what="root"))
    targets = resolve_span(G, span)
    spec = str(G.graph.get("spec", ""))
    span_field = None if span is None else tuple(targets)

    def done(status: str, **kw: Any) -> TreePacking:
        stats = kw.pop("stats", {})
        stats["wall_time"] = round(time.perf_counter() - start, 3)
        return TreePacking(spec, direction, status, method="cpsat", span=span_field,
                           stats=stats, **kw)

    cert = roots_certificate(G, roots, direction, targets)
    if cert is not None:
        return done("infeasible", certificate=cert)
    net = working_network(G, direction)
    dist = tuple(bfs_distances(net, r) for r in roots)
    ecc = [max(d[v] for v in targets) for d in dist]
    lower = max(ecc)
    if max_height is not None and max_height < lower:
        return done("infeasible", certificate=_eccentricity_certificate(roots, dist, targets,
                                                                         max_height))
    cap = max_height if max_height is not None else len(net.nodes) - 1
    search = _Search(roots, lower)
    span_set = frozenset(targets)
    if warm_start:
        everything = len(targets) == len(net.nodes)
        warm = construct_parents(G, net, roots, targets, spans_all=True if everything else None)
        if warm is not None and max(_heights(roots, warm)) <= cap:
            search.offer(warm)
    stats: dict[str, Any] = {"eccentricities": ecc, "warm_start": search.top}

    def left() -> float:
        return start + time_limit - time.perf_counter()

    proven = lower
    # Stage 1a: is the eccentricity bound reachable? First by repairing the warm start locally.
    if search.top is not None and search.top > proven:
        _repair(net, roots, span_set, dist, proven, search, left, workers, seed)
    if (search.top is None or search.top > proven) and left() > 0:
        p = PackingProblem(net, roots, span_set, dist, proven)
        r = _run(p, search, left(), workers, seed)
        search.offer(r.parents)
        if r.status == "infeasible":
            proven += 1
    # Stage 1b: minimise the maximum height between the bound and the best known.
    if (search.top is None or search.top > proven) and left() > 0 and proven <= cap:
        ub = cap if search.top is None else search.top - 1
        p = PackingProblem(net, roots, span_set, dist, ub, "max")
        r = _run(p, search, left(), workers, seed)
        search.offer(r.parents)
        if r.status == "optimal":
            proven = int(r.objective or proven)
        elif r.status == "infeasible":
            proven = ub + 1
        elif r.bound is not None:
            proven = max(proven, int(-(-r.bound // 1)))
    if search.best is None:
        if proven > cap:
            return done("infeasible", certificate={"reason": f"no packing of height <= {cap}",
                                                   "solver": "cpsat", "max_height": cap},
                        lower_bound=proven, stats={**stats, "runs": search.runs})
        raise SolverError(
            f"no packing found within the time limit of {time_limit:g} s",
            hint="raise the time limit or try the construct method",
        )
    top = search.top
    assert top is not None
    proven = min(proven, top)
    stats["balance"] = _balance(net, roots, span_set, dist, top, search, left, workers, seed,
                                balance)
    built = net.trees(roots, search.best)
    stats.update(gap=top - proven, runs=search.runs)
    return done(
        "optimal" if top == proven else "feasible",
        sets=(TreeSet(built, proven),),
        lower_bound=proven,
        objective=top,
        stats=stats,
    )


def _ball(net: WorkingNetwork, centre: set[int], radius: int) -> set[int]:
    """Nodes within ``radius`` hops of ``centre``, arcs taken both ways."""
    seen = set(centre)
    frontier = list(centre)
    for _ in range(radius):
        frontier = [w for v in frontier for w in net.succ[v] + net.pred[v] if w not in seen]
        seen.update(frontier)
    return seen


REPAIR_RADII = (3, 6)
"""Hops around the too-deep nodes that a local repair frees (the rest of the warm start stays)."""


def _repair(
    net: WorkingNetwork,
    roots: tuple[int, ...],
    span: frozenset[int],
    dist: tuple[dict[int, int], ...],
    height: int,
    search: _Search,
    left: Any,
    workers: int,
    seed: int,
) -> None:
    """Try to bring the warm start down to ``height`` by re-solving only around its deep nodes.

    A large-neighbourhood step: the parent choices far from every node deeper than ``height``
    are kept, the rest is solved by CP-SAT. Success gives a packing of that height; failure
    proves nothing (the kept part may be the obstacle), so the caller then solves in full.
    """
    assert search.best is not None
    warm = search.best
    levels = [tree_depths(r, p) for r, p in zip(roots, warm)]
    deep = {v for lv in levels for v, x in lv.items() if x > height}
    if not deep or len(deep) > max(16, len(net.nodes) // 20):
        return
    for radius in REPAIR_RADII:
        if left() <= 0:
            return
        region = _ball(net, deep, radius)
        fixed = [{c: p for c, p in par.items() if c not in region} for par in warm]
        problem = PackingProblem(net, roots, span, dist, height, hint=warm, fixed=fixed)
        result = _run(problem, search, min(left(), max(1.0, left() / 4)), workers, seed)
        if result.parents is not None:
            search.offer(result.parents)
            return


def _balance(
    net: WorkingNetwork,
    roots: tuple[int, ...],
    span: frozenset[int],
    dist: tuple[dict[int, int], ...],
    top: int,
    search: _Search,
    left: Any,
    workers: int,
    seed: int,
    enabled: bool,
) -> str:
    """Stage 2: with the maximum fixed at ``top``, equalise the heights, then minimise the sum."""
    assert search.best is not None
    hs = search.heights
    if min(hs) == top:
        return "optimal"  # all trees at the maximum: spread 0, sum forced
    if not enabled:
        return "off"
    if left() <= 0:
        return "not run (time limit)"
    p = PackingProblem(net, roots, span, dist, top, "balance", hint=search.best)
    r = _run(p, search, left(), workers, seed)
    search.offer(r.parents, key=lambda hs: (max(hs), max(hs) - min(hs), sum(hs)))
    return r.status if r.status in ("optimal", "feasible") else "not improved"
