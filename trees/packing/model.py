"""CP-SAT model for arc-disjoint spanning arborescences of bounded height.

Model (one per height bound ``H``), for trees ``t`` with roots ``r_t`` in the working orientation
(:func:`~supermesh.trees.bounds.heights.working_network`; in-trees are out-trees of the reversed
graph):

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # OR-Tools is imported when a model is built, not with the package
    from ortools.sat.python import cp_model

from supermesh.trees.bounds.heights import WorkingNetwork, tree_depths
from supermesh.trees.cpsat import new_solver

__all__ = [
    "Budget",
    "PackingModel",
    "PackingProblem",
    "SolveResult",
    "add_hint",
    "build_model",
    "fix_parents",
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
    work : float
        CP-SAT's deterministic time spent (repeatable, unlike ``wall_time``).
    cut : {None, "work budget", "time limit"}
        What cut the search short (``None``: it ended with an answer, a proof or a found
        packing of a feasibility model). Only a ``"time limit"`` cut depends on the machine.
    """

    status: str
    parents: list[Parents] | None
    objective: float | None
    bound: float | None
    wall_time: float
    work: float = 0.0
    cut: str | None = None


WORK_FLOOR = 1e-3
"""Work below which no further solve is started (CP-SAT's smallest budget in ``new_solver``)."""

STOPS = ("done", "work budget", "time limit")
"""What ended a search, least to most machine-dependent (a later one overrides)."""


@dataclass
class Budget:
    """The work and the seconds of one search, and which limit stopped it.

    Every stopping decision of a search rests on the work (CP-SAT deterministic time), so a
    search cut by its budget gives the same answer on any machine under any load; the seconds
    only bound the whole call.

    Attributes
    ----------
    work : float
        CP-SAT deterministic time for every solve together.
    deadline : float
        ``time.perf_counter()`` value at which the search must end (the wall-clock bound).
    used : float
        Work spent so far.
    stopped : {"done", "work budget", "time limit"}
        ``"time limit"`` only when the wall clock ran out first (an overloaded machine).

    Examples
    --------
    >>> b = Budget.start(0.5, seconds=60)
    >>> b.room(), b.spend(0.5, "work budget"), b.room(), b.stopped
    (True, None, False, 'work budget')
    """

    work: float
    deadline: float
    used: float = 0.0
    stopped: str = "done"

    @classmethod
    def start(cls, work: float, seconds: float) -> Budget:
        """A budget of ``work`` that must also end within ``seconds`` from now."""
        return cls(work, time.perf_counter() + seconds)

    def seconds(self) -> float:
        """Wall-clock seconds left."""
        return self.deadline - time.perf_counter()

    def work_left(self) -> float:
        """Work not yet spent."""
        return self.work - self.used

    def stop(self, why: str) -> None:
        """Record a limit that cut the search (the most machine-dependent one wins)."""
        if STOPS.index(why) > STOPS.index(self.stopped):
            self.stopped = why

    def spend(self, work: float, cut: str | None = None) -> None:
        """Count a solve's work, and the limit that cut it, if one did."""
        self.used += work
        if cut is not None:
            self.stop(cut)

    def room(self) -> bool:
        """Whether another solve may start: work left first, then the wall clock."""
        if self.work_left() < WORK_FLOOR:
            self.stop("work budget")
            return False
        if self.seconds() <= 0:
            self.stop("time limit")
            return False
        return True

    def stats(self) -> dict[str, Any]:
        """``work_limit``, ``work_used`` (repeatable) and ``stopped``."""
        return {
            "work_limit": round(self.work, 6),
            "work_used": round(self.used, 6),
            "stopped": self.stopped,
        }


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
    >>> from supermesh.trees.bounds.heights import bfs_distances, working_network
    >>> net = working_network(build("smbi:3x3"))
    >>> roots = (0, 2, 8, 6)
    >>> p = PackingProblem(net, roots, frozenset(range(9)),
    ...                    tuple(bfs_distances(net, r) for r in roots), max_height=4)
    >>> model, var = build_model(p)
    >>> solve(model, var, p, time_limit=5).status
    'feasible'
    """
    H = problem.max_height
    from ortools.sat.python import cp_model

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
    size = {"bool_vars": sum(len(xt) for xt in x), "int_vars": sum(len(d) for d in depth)}
    variables = PackingModel(x, depth, height, top, size)
    if problem.hint is not None:
        add_hint(model, variables, problem.roots, problem.hint)
    if problem.fixed is not None:
        fix_parents(model, variables, problem.fixed)
    return model, variables


def add_hint(
    model: cp_model.CpModel, variables: PackingModel, roots: Sequence[int], trees: Sequence[Parents]
) -> None:
    """Hint a known packing (one parent map per tree) to CP-SAT: arcs and depths."""
    for t, parents in enumerate(trees):
        chosen = {(p, c) for c, p in parents.items()}
        for pair, var in variables.x[t].items():
            model.add_hint(var, pair in chosen)
        levels = tree_depths(roots[t], parents)
        for v, var in variables.depth[t].items():
            if v in levels:
                model.add_hint(var, levels[v])


def fix_parents(model: cp_model.CpModel, variables: PackingModel, fixed: Sequence[Parents]) -> None:
    """Force parent choices (child -> parent per tree); an unreachable one makes it infeasible."""
    for t, keep in enumerate(fixed):
        for child, parent in keep.items():
            var = variables.x[t].get((parent, child))
            if var is None:
                model.add_bool_or([])  # the kept arc is out of reach at this height
            else:
                model.add(var == 1)


def solve(
    model: cp_model.CpModel,
    variables: PackingModel,
    problem: PackingProblem,
    *,
    time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    deterministic_time: float | None = None,
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
    deterministic_time : float, optional
        CP-SAT work budget (default: :func:`~supermesh.trees.cpsat.new_solver`'s, derived from
        ``time_limit``). A search cut by it repeats exactly; one cut by ``time_limit`` may not.

    Returns
    -------
    SolveResult
    """
    solver = new_solver(
        time_limit=time_limit, workers=workers, seed=seed, deterministic_time=deterministic_time
    )
    start = time.perf_counter()
    code = solver.solve(model)
    wall = time.perf_counter() - start
    work = float(solver.deterministic_time)
    from ortools.sat.python import cp_model

    names = {
        cp_model.OPTIMAL: "optimal",
        cp_model.FEASIBLE: "feasible",
        cp_model.INFEASIBLE: "infeasible",
    }
    status = names.get(code, "unknown")
    cut = None  # a found packing of a feasibility model is a complete answer
    if code == cp_model.UNKNOWN or (code == cp_model.FEASIBLE and problem.objective != "none"):
        over = work >= solver.parameters.max_deterministic_time * (1 - 1e-9)
        cut = "work budget" if over else "time limit"
    if status not in ("optimal", "feasible"):
        return SolveResult(status, None, None, None, wall, work, cut)
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
        work,
        cut,
    )
