"""Solving TE-CCL: the smallest finish time, proven where the budget allows, honest where not.

:func:`solve_teccl` finds a loop body (``chunks`` chunks per source, or per block of an
AllToAll) in these steps, each keeping the best schedule and the best proven lower bound:

1. a list schedule (:mod:`~supermesh.sim.teccl.rounding`) gives a first finish time ``UB``;
2. the combinatorial bounds (:mod:`~supermesh.sim.teccl.network`; AllGather: also the cut
   bound of :func:`supermesh.sim.bounds.cut_bound`; AllToAll: the concurrent-flow bound of
   :func:`supermesh.sim.multicommodity.alltoall_bound`) give ``LB``;
3. the LP relaxation at horizons ``LB, LB + 1, ...`` (while it is cheap): a horizon whose LP is
   infeasible has no schedule either, so ``LB`` rises to the first LP-feasible horizon; the LP
   at ``UB`` guides a repaired schedule (``lp-rounding``), which may lower ``UB``;
4. ``milp``: CP-SAT decides the integer model at horizons ``LB, LB + 1, ... UB - 1``: an
   infeasible horizon raises ``LB``, the first feasible one is optimal. No hint is given: the
   best schedule so far does not fit a shorter horizon, and as a partial hint it slowed CP-SAT
   down (with it, the 3x3 SMAlter AllToAll with 2 chunks was not settled in 20-30 s, searched
   upwards or downwards from ``UB - 1``; without it, it is proven at 10 epochs in 6-8 s). A
   solve that runs out of budget stops the search (``stats["stopped"] = "time limit"``).

``status`` is ``"optimal"`` when ``UB == LB`` (whatever method closed the gap), else
``"feasible"`` with the gap in ``epochs - lower_bound``. Method ``auto`` picks ``milp`` when the
integer model at ``UB`` has at most :data:`MILP_VARIABLES` variables, ``lp-rounding`` when the
LP has at most :data:`LP_VARIABLES`, and the list schedule alone beyond.
"""

from __future__ import annotations

import math
import time
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.teccl.alltoall import alltoall_lp, alltoall_milp, alltoall_variables, chunk_paths
from supermesh.sim.teccl.gather import gather_lp, gather_milp, gather_variables
from supermesh.sim.teccl.model import PROBLEMS, TecclSolution
from supermesh.sim.teccl.network import Network, network_of
from supermesh.sim.teccl.rounding import round_alltoall, round_gather
from supermesh.sim.teccl.solvers import CpsatAnswer

__all__ = ["LP_VARIABLES", "MILP_VARIABLES", "TECCL_METHODS", "solve_teccl"]

MILP_VARIABLES = 40_000
"""Largest integer model (variables at the first finish time) ``auto`` gives to CP-SAT."""
LP_VARIABLES = 1_500_000
"""Largest LP ``auto`` solves (beyond: the list schedule alone)."""
LP_BOUND_VARIABLES = 5_000
"""Largest LP solved (by GLOP, exactly) horizon by horizon to raise the lower bound; the
simplex slows down sharply beyond (27 s at 12,000 variables for a 4x4 AllToAll)."""
TECCL_METHODS = ("auto", "milp", "lp-rounding", "greedy")
WORK_PER_SECOND = 0.06
"""CP-SAT work granted per second of the time limit: what one worker counts per second on these
models here (ortools 9.15: 0.9 units in 15 s on the 3x3 AllToAll), twice the packing models'
rate of :data:`supermesh.trees.cpsat.DTIME_PER_WORKER_SECOND`, so a cut search uses about its
seconds and stops at the same point on every run."""


def _ceil(epochs: float) -> int:
    """``ceil`` of a bound computed in floats, forgiving a relative rounding error of 1e-9."""
    return math.ceil(epochs * (1 - 1e-9))


def _bounds(G: nx.MultiDiGraph, net: Network, problem: str, chunks: int) -> tuple[int, str]:
    if problem == "allgather":
        from supermesh.sim.bounds import cut_bound

        best, why = net.gather_bound(chunks)
        rho = cut_bound(G, reverse=net.reversed)
        cut = _ceil(chunks * net.size / rho.value)
        if cut > best:
            best, why = (
                cut,
                f"cut {rho.certificate['set']}: {chunks * net.size} chunks at rate {rho.value:.6g}",
            )
        return best, why
    from supermesh.sim.multicommodity import alltoall_bound

    best, why = net.alltoall_bound(chunks)
    lam = alltoall_bound(G).certificate["lambda"]
    flow = _ceil(chunks / lam)
    if flow > best:
        best, why = flow, f"concurrent flow: {chunks} chunks per pair at {lam:.6g} per epoch"
    return best, why


def solve_teccl(
    G: nx.MultiDiGraph,
    problem: str,
    chunks: int = 1,
    *,
    reverse: bool = False,
    time_limit: float = 60.0,
    method: str = "auto",
) -> TecclSolution:
    """A TE-CCL loop body for an AllGather or an AllToAll (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    problem : {"allgather", "alltoall"}
    chunks : int
        Chunks per source (AllGather) or per block (AllToAll).
    reverse : bool
        Solve on the reversed network (a ReduceScatter is this AllGather run backwards).
    time_limit : float
        Seconds for the whole solve (CP-SAT's work budget is derived from them, so a cut
        search is repeatable).
    method : {"auto", "milp", "lp-rounding", "greedy"}

    Returns
    -------
    TecclSolution

    Raises
    ------
    SpecError
        Unknown problem or method, or fewer than 1 chunk.
    TopologyError
        A rank cannot reach another.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = solve_teccl(build("mesh:2x2"), "alltoall", 2, time_limit=10)
    >>> s.epochs, s.lower_bound, s.status  # 32 block-hops on 8 arcs
    (4, 4, 'optimal')
    """
    if problem not in PROBLEMS:
        raise SpecError(f"TE-CCL solves {PROBLEMS}, not {problem!r}")
    if method not in TECCL_METHODS:
        raise SpecError(f"unknown TE-CCL method {method!r}", hint=f"use one of {TECCL_METHODS}")
    if chunks < 1:
        raise SpecError(f"chunks per source must be at least 1, got {chunks}")
    start = time.perf_counter()
    net = network_of(G, reverse=reverse)
    gather = problem == "allgather"
    sends, ub = (round_gather if gather else round_alltoall)(net, chunks)
    how = "greedy"
    lb, why = _bounds(G, net, problem, chunks)
    stats: dict[str, Any] = {"greedy_epochs": ub}

    def size_at(h: int) -> int:
        if gather:
            return len(gather_variables(net, chunks, h))
        return len(alltoall_variables(net, h))

    size = size_at(ub)
    stats["variables"] = size
    if method == "auto":
        method = (
            "milp"
            if size <= MILP_VARIABLES
            else "lp-rounding"
            if size <= LP_VARIABLES
            else "greedy"
        )
    solve_lp = gather_lp if gather else alltoall_lp
    if method in ("milp", "lp-rounding") and lb < ub:
        if size <= LP_BOUND_VARIABLES:
            while lb < ub:
                answer, _ = solve_lp(net, chunks, lb)
                if answer.outcome != "infeasible":
                    break
                lb, why = lb + 1, "LP relaxation infeasible one epoch earlier"
        if lb < ub:
            answer, flows = solve_lp(net, chunks, ub, kind="fast")
            stats["lp_seconds"] = round(answer.seconds, 3)
            if flows is not None:
                repaired, epochs = (round_gather if gather else round_alltoall)(net, chunks, flows)
                stats["lp_rounding_epochs"] = epochs
                if epochs < ub:
                    sends, ub, how = repaired, epochs, "lp-rounding"
    if method == "milp" and lb < ub:
        budget = WORK_PER_SECOND * max(time_limit, 0.0)
        while lb < ub:
            h = lb
            left = time_limit - (time.perf_counter() - start)
            if budget <= 1e-3 or left <= 0.01:
                stats["stopped"] = "time limit"
                break
            exact: CpsatAnswer
            if gather:
                exact, found = gather_milp(net, chunks, h, work=budget, seconds=left)
            else:
                exact, flows = alltoall_milp(net, chunks, h, work=budget, seconds=left)
                found = chunk_paths(net, chunks, flows) if flows is not None else []
            budget -= exact.work
            if exact.outcome == "infeasible":
                lb, why = h + 1, "integer model infeasible one epoch earlier (CP-SAT)"
            elif exact.outcome == "feasible":
                sends, ub, how = found, h, "milp"
                break
            else:
                stats["stopped"] = "time limit"
                break
    stats["bound_from"] = why
    stats["solve_seconds"] = round(time.perf_counter() - start, 3)
    return TecclSolution(
        topology=net.spec,
        problem=problem,
        ranks=net.ranks,
        chunks=chunks,
        sends=tuple(sorted(sends)),
        epochs=ub,
        lower_bound=lb,
        status="optimal" if ub == lb else "feasible",
        method=how,
        reversed=reverse,
        stats=stats,
    )
