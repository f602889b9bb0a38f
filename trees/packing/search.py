"""Height-optimal packing of arc-disjoint arborescences: the search around the CP-SAT model.

:func:`pack_trees` proves optimal heights in stages, each a model from
:mod:`supermesh.trees.packing.model`:

1. Warm start: :func:`~supermesh.trees.packing.construct.construct_parents` (closed-form combs, the
   Lovász greedy). If its tallest tree meets the eccentricity lower bound, that is the proof.
2. Stage 1a, the bound as a feasibility question (tight depth domains keep the model local):
   first a local repair of the warm start (its parent choices far from every too-deep node are
   kept, the rest re-solved), then the full model, which either finds trees or proves the bound
   unreachable (SMAlter mid-side roots, for example, need exactly the bound + 1).
3. Stage 1b, only if a gap remains: CP-SAT minimises the maximum height below the best known.
4. Stage 2 (balance), with the maximum fixed: the heights as equal as possible (largest smallest
   height), then the smallest sum.

Status: ``optimal`` only when the tallest tree equals a proven lower bound; ``feasible`` when the
budget ran out (``stats["gap"]``); ``infeasible`` with a certificate.

Determinism: the stages spend a *work* budget, CP-SAT's deterministic time (by default
``DTIME_PER_WORKER_SECOND * workers * time_limit``, :mod:`supermesh.trees.cpsat`). Each solve
gets the work left, a repair a quarter of it, and stage 2 is skipped when none is left; no
decision reads the clock. So a given seed and worker count give the same trees, status and
statistics (but wall times) under any load, whether the search ends or the budget cuts it
(``stats["stopped"]``: ``"done"`` or ``"work budget"``). The wall-clock ``time_limit`` stays the
upper bound of the call; if it fires first (an overloaded machine), ``stats["stopped"]`` says
``"time limit"`` and that answer may differ from run to run.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (the 4-tree pipelined collectives).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx

from supermesh.errors import SolverError, SpecError
from supermesh.topologies.model import check_nodes
from supermesh.trees.bounds.heights import (
    WorkingNetwork,
    bfs_distances,
    check_direction,
    resolve_span,
    tree_depths,
    working_network,
)
from supermesh.trees.cpsat import work_of
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.packing.construct import construct_parents, roots_certificate
from supermesh.trees.packing.model import (
    Budget,
    PackingModel,
    PackingProblem,
    SolveResult,
    add_hint,
    build_model,
    fix_parents,
    solve,
)

if TYPE_CHECKING:  # OR-Tools is imported when a model is built, not with the package
    from ortools.sat.python import cp_model

__all__ = ["pack_trees"]

Parents = dict[int, int]


def _heights(roots: Sequence[int], trees: Sequence[Parents]) -> list[int]:
    return [max(tree_depths(r, p).values()) for r, p in zip(roots, trees, strict=True)]


def _eccentricity_certificate(
    roots: Sequence[int], dist: Sequence[dict[int, int]], span: Sequence[int], cap: int
) -> dict[str, Any]:
    """A root and a span node farther apart than ``cap``: no tree of height <= cap exists."""
    t, v = max(((t, v) for t in range(len(roots)) for v in span), key=lambda tv: dist[tv[0]][tv[1]])
    return {
        "kind": "eccentricity",
        "reason": f"no packing of height <= {cap}",
        "root": roots[t],
        "node": v,
        "distance": dist[t][v],
        "max_height": cap,
    }


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

Built = tuple["cp_model.CpModel", PackingModel]
Rank = Callable[[list[int]], tuple[int, ...]]


@dataclass
class _Search:
    """The state of one height search: best trees so far, the proven bound, the runs made.

    Solves spend the work of ``limit`` (CP-SAT deterministic time, the same on every run); its
    seconds only bound the whole call. ``limit.stopped`` says which limit ended the search.
    """

    net: WorkingNetwork
    roots: tuple[int, ...]
    span: frozenset[int]
    dist: tuple[dict[int, int], ...]
    proven: int
    cap: int
    limit: Budget
    workers: int
    seed: int
    best: list[Parents] | None = None
    heights: list[int] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def top(self) -> int | None:
        """The tallest tree of the best packing, ``None`` before one is known."""
        return max(self.heights) if self.best is not None else None

    def open(self) -> bool:
        """Whether the maximum height is not yet proven and a solve may start."""
        return (self.top is None or self.top > self.proven) and self.limit.room()

    def offer(self, trees: list[Parents] | None, rank: Rank | None = None) -> None:
        """Keep ``trees`` if better by ``rank(heights)`` (default: max, then sum)."""
        if trees is None:
            return
        key = rank or (lambda hs: (max(hs), sum(hs)))
        hs = _heights(self.roots, trees)
        if self.best is None or key(hs) < key(self.heights):
            self.best, self.heights = trees, hs

    def problem(self, height: int, objective: str = "none", **kw: Any) -> PackingProblem:
        return PackingProblem(self.net, self.roots, self.span, self.dist, height, objective, **kw)

    def run(
        self,
        problem: PackingProblem,
        budget: float | None = None,
        built: Built | None = None,
        rank: Rank | None = None,
    ) -> SolveResult:
        """Build (unless given) and solve one model with ``budget`` work (default: all left)."""
        model, var = built or build_model(problem)
        work = self.limit.work_left() if budget is None else budget
        result = solve(
            model, var, problem, time_limit=max(self.limit.seconds(), 0.01),
            workers=self.workers, seed=self.seed, deterministic_time=work,
        )  # fmt: skip
        # a sub-budget's cut (a repair) is part of the plan, not a limit of the search
        self.limit.spend(result.work, result.cut if budget is None else None)
        if result.cut == "time limit":
            self.limit.stop("time limit")
        self.runs.append(
            {
                "objective": problem.objective,
                "max_height": problem.max_height,
                "status": result.status,
                "work": round(result.work, 6),
                "wall_time": round(result.wall_time, 3),
                **var.size,
            }
        )
        self.offer(result.parents, rank)
        return result

    def at_bound(self) -> None:
        """Stage 1a: trees of the proven bound's height, or the proof there are none."""
        problem = self.problem(self.proven)
        built = build_model(problem)
        if self.best is not None:
            self.repair(problem, built)
        if self.open() and self.run(problem, built=built).status == "infeasible":
            self.proven += 1

    def repair(self, problem: PackingProblem, built: Built) -> None:
        """Bring the best packing down to the problem's height by re-solving near deep nodes.

        A large-neighbourhood step: parent choices far from every node deeper than the height
        are kept and the rest is solved (on a copy of the built model) with a quarter of the
        work left (at least :data:`~supermesh.trees.cpsat.DTIME_PER_WORKER_SECOND` per worker).
        Failure proves nothing (the kept part may be the obstacle); the caller then solves in
        full.
        """
        assert self.best is not None
        warm, height = self.best, problem.max_height
        levels = [tree_depths(r, p) for r, p in zip(self.roots, warm, strict=True)]
        deep = {v for lv in levels for v, x in lv.items() if x > height}
        if not deep or len(deep) > max(16, len(self.net.nodes) // 20):
            return
        model, variables = built
        for radius in REPAIR_RADII:
            if not self.open():
                return
            region = _ball(self.net, deep, radius)
            local = model.clone()
            kept = [{c: p for c, p in par.items() if c not in region} for par in warm]
            fix_parents(local, variables, kept)
            add_hint(local, variables, self.roots, warm)
            left = self.limit.work_left()
            share = min(left, max(work_of(1.0, self.workers), left / 4))
            self.run(problem, share, (local, variables))
            self.runs[-1]["repair_radius"] = radius

    def minimise(self) -> None:
        """Stage 1b: minimise the maximum height below the best known (or the cap)."""
        ub = self.cap if self.top is None else self.top - 1
        result = self.run(self.problem(ub, "max"))
        if result.status == "optimal" and result.objective is not None:
            self.proven = int(result.objective)
        elif result.status == "infeasible":
            self.proven = ub + 1
        elif result.bound is not None:
            self.proven = max(self.proven, math.ceil(result.bound))

    def balance(self, enabled: bool) -> str:
        """Stage 2: with the maximum fixed, equal heights first, then the smallest sum."""
        assert self.top is not None
        top = self.top
        if min(self.heights) == top:
            return "optimal"  # every tree at the maximum: spread 0, the sum is forced
        if not enabled:
            return "off"
        if not self.limit.room():
            return f"not run ({self.limit.stopped})"
        problem = self.problem(top, "balance", hint=self.best)
        result = self.run(problem, rank=lambda hs: (max(hs), max(hs) - min(hs), sum(hs)))
        return result.status if result.status in ("optimal", "feasible") else "not improved"


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
    work_limit: float | None = None,
) -> TreePacking:
    """Arc-disjoint arborescences with the given roots and the smallest maximum height.

    Stage 1 minimises the tallest tree (the eccentricity bound first, as a feasibility question;
    then, if it fails, the maximum height below the warm start's). Stage 2 (``balance``) keeps
    that maximum and makes the heights as equal as possible (largest smallest height), then their
    sum as small as possible. See the module docstring.

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
        Seconds for the whole call (construction, both stages): an upper bound on the wall
        clock. The stages themselves spend a work budget (``work_limit``), so that the answer
        does not depend on the machine's load.
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    balance : bool
        Run stage 2.
    warm_start : bool
        Start from :func:`~supermesh.trees.packing.construct.construct_parents` (hint and fallback).
    work_limit : float, optional
        CP-SAT deterministic time for all solves together (default
        ``DTIME_PER_WORKER_SECOND * workers * time_limit``, see :mod:`supermesh.trees.cpsat`):
        each solve gets the work left, and stage 2 is skipped when none is left.

    Returns
    -------
    TreePacking
        ``optimal``: the tallest tree equals a proven lower bound (``lower_bound``: the
        eccentricity bound or a CP-SAT proof). ``feasible``: the time ran out; ``lower_bound``
        and ``stats["gap"]`` say how far from proven. ``infeasible``: ``certificate`` is
        Edmonds' cut (``set``, ``entering_arcs``, ``required``, ``roots``), or a root-node
        distance above ``max_height`` (``kind: "eccentricity"``), or ``{"kind": "solver",
        "solver": "cpsat", ...}`` when CP-SAT proved that no packing of height
        ``<= max_height`` exists. ``stats`` holds the runs (with the ``work`` each spent), the
        balance status, ``work_limit``, ``work_used``, timings and ``stopped``: ``"done"``
        (no limit cut the search), ``"work budget"`` (the same on every run) or ``"time limit"``
        (the wall clock ran out first, on an overloaded machine: then the answer may differ
        from run to run).

    Raises
    ------
    SolverError
        The time ran out before any packing was found.
    TopologyError, SpecError
        A root or span node not in ``G``; an unknown direction; a negative ``work_limit``.

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
    if work_limit is None:
        work_limit = work_of(time_limit, workers)
    if not work_limit >= 0:
        raise SpecError(f"work_limit = {work_limit} must be >= 0", hint="e.g. 0.5, or leave it out")
    roots = tuple(check_nodes(G, roots, what="root"))
    targets = resolve_span(G, span)
    stats: dict[str, Any] = {}
    limit = Budget.start(work_limit, seconds=time_limit)  # decisions rest on the work only

    def done(status: str, **kw: Any) -> TreePacking:
        stats.update(limit.stats())
        stats["wall_time"] = round(time.perf_counter() - start, 3)
        return TreePacking(
            str(G.graph.get("spec", "")),
            direction,
            status,
            method="cpsat",
            span=None if span is None else tuple(targets),
            stats=stats,
            **kw,
        )

    cert = roots_certificate(G, roots, direction, targets)
    if cert is not None:
        return done("infeasible", certificate=cert)
    net = working_network(G, direction)
    dist = tuple(bfs_distances(net, r) for r in roots)
    ecc = [max(d[v] for v in targets) for d in dist]
    stats["eccentricities"] = ecc
    if max_height is not None and max_height < max(ecc):
        cert = _eccentricity_certificate(roots, dist, targets, max_height)
        return done("infeasible", certificate=cert)
    cap = max_height if max_height is not None else len(net.nodes) - 1
    search = _Search(net, roots, frozenset(targets), dist, max(ecc), cap, limit, workers, seed)
    if warm_start:
        everything = len(targets) == len(net.nodes)
        warm = construct_parents(G, net, roots, targets, spans_all=True if everything else None)
        if warm is not None and max(_heights(roots, warm)) <= cap:
            search.offer(warm)
    stats["warm_start"] = search.top
    if search.open():
        search.at_bound()
    if search.open() and search.proven <= cap:
        search.minimise()
    stats["runs"] = search.runs
    if search.best is None or search.top is None:
        if search.proven > cap:
            cert = {
                "kind": "solver",
                "reason": f"no packing of height <= {cap}",
                "solver": "cpsat",
                "max_height": cap,
            }
            return done("infeasible", certificate=cert, lower_bound=search.proven)
        raise SolverError(
            f"no packing found within the time limit of {time_limit:g} s "
            f"(work budget {work_limit:g})",
            hint="raise the time limit or try the construct method",
        )
    top = search.top
    proven = min(search.proven, top)
    stats["balance"] = search.balance(balance)
    stats["gap"] = top - proven
    return done(
        "optimal" if top == proven else "feasible",
        sets=(TreeSet(net.trees(roots, search.best), proven),),
        lower_bound=proven,
        objective=top,
    )
