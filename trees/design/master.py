"""The master problem of the design search: a CP-SAT model over candidate links.

One Boolean per candidate link; per node, the chosen links ending there fit its port budget; per
known cut condition (:class:`~supermesh.trees.design.cuts.Cut`), enough chosen links cross the
set. Cuts arrive lazily from max-flow, so the model is a relaxation of the true problem: its
optimum is a lower bound on the cheapest design, and it *is* the cheapest design as soon as the
chosen links pass the max-flow check.

Objective: ``weight * cost + over``, where ``over`` counts the nodes that end with more links than
the base topology's largest link count (only when some budget allows that) and ``weight`` is one
more than the number of such nodes, so cost comes first and, among the cheapest designs, the one
needing the fewest larger routers wins.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
from ortools.sat.python import cp_model

from supermesh.budget import check_memory
from supermesh.trees.cpsat import new_solver
from supermesh.trees.design.candidates import Candidate
from supermesh.trees.design.cuts import Cut, crossing, entering

__all__ = [
    "Master",
    "MasterSolution",
    "add_bounds",
    "add_cut",
    "add_nogood",
    "build_master",
    "check_design_size",
    "solve_master",
]


DESIGN_BYTES = 1.2e9
"""Peak bytes of ``design mesh:64x64 --target-trees 4`` (4,096 nodes; the CP-SAT master, the
max-flow networks and the graph copies of the greedy start): 1.2 GB measured; 96x96 took
4.9 GB, so the peak grows as the nodes to the power :data:`DESIGN_EXPONENT`."""
DESIGN_EXPONENT = 1.75


def check_design_size(G: nx.MultiDiGraph) -> None:
    """Refuse a design search whose estimated peak memory is above the cap, before any work.

    Raises
    ------
    ResourceError
        Above :func:`supermesh.budget.memory_cap`, naming the estimate.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> check_design_size(build("mesh:64x64"))
    >>> check_design_size(build("mesh:96x96"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: a design search on mesh:96x96 (9,216 nodes) needs about ...
    """
    nodes = G.number_of_nodes()
    check_memory(
        DESIGN_BYTES * (nodes / 4096) ** DESIGN_EXPONENT,
        f"a design search on {G.graph.get('spec', 'this topology')} ({nodes:,} nodes)",
        hint="design a smaller grid (the links a family adds repeat with its size: prove "
        "shows which sizes a family holds for)",
    )


@dataclass
class Master:
    """A CP-SAT master model and what it holds (built by :func:`build_master`).

    Attributes
    ----------
    model : CpModel
    x : list of IntVar
        One Boolean per candidate, in candidate order.
    weight : int
        Objective weight of the cost (see the module docstring).
    n_over : int
        Number of "more links than the base maximum" indicators in the objective.
    cuts : dict
        Set -> requirement of every cut added so far.
    hopeless : Cut or None
        A cut that no selection can meet (too few candidates cross it), if one was added.
    """

    model: cp_model.CpModel
    x: list[cp_model.IntVar]
    weight: int
    n_over: int
    cuts: dict[frozenset[int], int] = field(default_factory=dict)
    hopeless: Cut | None = None
    nogoods: int = 0


@dataclass(frozen=True)
class MasterSolution:
    """One solve of the master: ``status`` is ``optimal``, ``feasible``, ``infeasible`` or
    ``unknown`` (time ran out with no solution); ``bound`` a proven lower bound on the cost;
    ``work`` the CP-SAT deterministic time spent; ``cut`` what cut the solve short (``None``,
    ``"work budget"`` or ``"time limit"``, the only one that depends on the machine)."""

    status: str
    selection: tuple[int, ...] | None
    cost: int | None
    bound: int | None
    wall_time: float
    work: float = 0.0
    cut: str | None = None


def build_master(
    cands: Sequence[Candidate],
    room: Mapping[int, int],
    spare: Mapping[int, int],
) -> Master:
    """Build the master model with the port budgets and the cost objective.

    Parameters
    ----------
    cands : sequence of Candidate
    room : mapping
        Node -> links it may still gain within its budget.
    spare : mapping
        Node -> links it may gain before it has more than the base topology's largest count.

    Returns
    -------
    Master

    Examples
    --------
    >>> from supermesh.trees.design.candidates import Candidate
    >>> m = build_master([Candidate(0, 1, 1, "x")], {0: 1, 1: 1}, {0: 1, 1: 1})
    >>> len(m.x), m.weight
    (1, 1)
    """
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x_{c.u}_{c.v}") for c in cands]
    at: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(cands):
        at[c.u].append(i)
        at[c.v].append(i)
    over = []
    for v, idx in sorted(at.items()):
        r = max(room.get(v, 0), 0)
        ends = sum(x[i] for i in idx)
        if r < len(idx):
            model.add(ends <= r)
        s = max(min(spare.get(v, 0), r), 0)
        if s < min(r, len(idx)):
            flag = model.new_bool_var(f"over_{v}")
            model.add(ends <= s + (r - s) * flag)
            over.append(flag)
    weight = len(over) + 1
    model.minimize(weight * sum(c.cost * x[i] for i, c in enumerate(cands)) + sum(over))
    return Master(model, x, weight, len(over))


def add_cut(master: Master, G: nx.MultiDiGraph, cands: Sequence[Candidate], cut: Cut) -> bool:
    """Add the condition "enough chosen links cross ``cut.members``"; ``False`` if not new.

    The right-hand side is ``cut.required`` minus the arcs of the base topology ``G`` that
    already enter the set.
    """
    if master.cuts.get(cut.members, 0) >= cut.required:
        return False
    master.cuts[cut.members] = cut.required
    rhs = cut.required - entering(G, cut.members)
    if rhs <= 0:
        return True
    idx = crossing(cands, cut.members)
    if len(idx) < rhs and master.hopeless is None:
        master.hopeless = cut
    master.model.add(sum(master.x[i] for i in idx) >= rhs)
    return True


def add_bounds(
    master: Master,
    cands: Sequence[Candidate],
    groups: Sequence[tuple[frozenset[int], int, int, Any]],
    cost: int,
) -> None:
    """Add the counting bounds as redundant constraints (they help CP-SAT prove the optimum).

    ``groups`` are the terms of :func:`~supermesh.trees.design.proof.counting_groups`: at
    least ``links`` chosen links inside each group's nodes; ``cost`` bounds the total cost.
    """
    for nodes, links, _, _ in groups:
        inside = [x for c, x in zip(cands, master.x, strict=True) if c.u in nodes and c.v in nodes]
        if links > 0:
            master.model.add(sum(inside) >= links)
    if cost > 0:
        master.model.add(sum(c.cost * x for c, x in zip(cands, master.x, strict=True)) >= cost)


def add_nogood(master: Master, selection: Sequence[int]) -> None:
    """Forbid ``selection`` and every subset of it: at least one other candidate must be chosen.

    Valid whenever the selection fails a target that more links can only help (heights, a
    Steiner packing): a subset has fewer arcs and fails too.
    """
    chosen = set(selection)
    master.model.add_bool_or([v for i, v in enumerate(master.x) if i not in chosen])
    master.nogoods += 1


_STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
}


def solve_master(
    master: Master,
    cands: Sequence[Candidate],
    *,
    hint: Sequence[int] | None,
    time_limit: float,
    workers: int,
    seed: int,
    deterministic_time: float | None = None,
) -> MasterSolution:
    """Solve the master once (deterministic: fixed ``random_seed`` and ``num_workers``).

    Parameters
    ----------
    hint : sequence of int, optional
        Candidate indices of a selection believed good (a known design); a solution hint.
    time_limit : float
        Seconds (an upper bound on the wall clock).
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    deterministic_time : float, optional
        CP-SAT work budget (default :func:`~supermesh.trees.cpsat.new_solver`'s, derived from
        ``time_limit``): a solve cut by it repeats exactly.

    Returns
    -------
    MasterSolution
    """
    start = time.perf_counter()
    master.model.clear_hints()
    if hint is not None:
        chosen = set(hint)
        for i, v in enumerate(master.x):
            master.model.add_hint(v, i in chosen)
    solver = new_solver(
        time_limit=time_limit, workers=workers, seed=seed, deterministic_time=deterministic_time
    )
    code = solver.solve(master.model)
    status = _STATUS.get(code, "unknown")
    wall = time.perf_counter() - start
    work = float(solver.deterministic_time)
    cut = None
    if code in (cp_model.UNKNOWN, cp_model.FEASIBLE):
        over = work >= solver.parameters.max_deterministic_time * (1 - 1e-9)
        cut = "work budget" if over else "time limit"
    if status == "infeasible":
        return MasterSolution(status, None, None, None, wall, work)
    raw = solver.best_objective_bound
    bound = None
    if math.isfinite(raw):  # objective >= ceil(raw); over <= n_over gives the cost bound
        bound = max(0, -(-(math.ceil(raw - 1e-9) - master.n_over) // master.weight))
    if status == "unknown":
        return MasterSolution(status, None, None, bound, wall, work, cut)
    selection = tuple(i for i, v in enumerate(master.x) if solver.value(v))
    cost = sum(cands[i].cost for i in selection)
    return MasterSolution(status, selection, cost, bound, wall, work, cut)
