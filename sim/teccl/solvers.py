"""The two solvers TE-CCL's models run on, configured once: CP-SAT (integer) and GLOP (LP).

CP-SAT runs with the package's settings (:func:`supermesh.trees.cpsat.new_solver`: one worker,
a fixed seed, a deterministic work budget besides the seconds), so the same model gives the
same answer. Each answer says what it proves: ``feasible`` (a schedule, and CP-SAT checked
it), ``infeasible`` (no schedule within the horizon: a proof), or ``unknown`` (the budget ran out
first; nothing is proven). The LP runs on GLOP, OR-Tools' simplex, which is deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ortools.linear_solver import pywraplp
from ortools.sat.python import cp_model

from supermesh.errors import SolverError
from supermesh.trees.cpsat import new_solver

__all__ = ["LP_SOLVERS", "CpsatAnswer", "LpAnswer", "new_lp", "solve_cpsat"]


@dataclass
class CpsatAnswer:
    """What one CP-SAT solve proved.

    Attributes
    ----------
    outcome : {"feasible", "infeasible", "unknown"}
    status : str
        CP-SAT's own status name.
    seconds, work : float
        Wall-clock seconds and deterministic work spent.
    size : int
        Number of decision variables.
    """

    outcome: str
    status: str
    seconds: float
    work: float
    size: int
    solver: Any = None

    def values(self, variables: Sequence[Any]) -> list[int]:
        """The solution's values of ``variables`` (only when feasible)."""
        return [int(self.solver.value(v)) for v in variables]


@dataclass
class LpAnswer:
    """What one LP solve gave: ``outcome`` ``"optimal"`` or the solver's status, and its cost."""

    outcome: str
    objective: float
    seconds: float
    size: int

    @classmethod
    def of(cls, lp: pywraplp.Solver, *, size: int) -> LpAnswer:
        """Solve ``lp`` and report."""
        start = time.perf_counter()
        status = lp.Solve()
        seconds = time.perf_counter() - start
        if status == pywraplp.Solver.OPTIMAL:
            return cls("optimal", float(lp.Objective().Value()), seconds, size)
        names = {pywraplp.Solver.INFEASIBLE: "infeasible", pywraplp.Solver.UNBOUNDED: "unbounded"}
        return cls(names.get(status, "not solved"), float("nan"), seconds, size)


LP_SOLVERS = {"exact": "GLOP", "fast": "PDLP"}
"""``exact``: GLOP's simplex (an infeasible answer is a proof); ``fast``: PDLP's first-order
method (an approximate optimum, several times faster on the large time-expanded LPs; used only
to guide the rounding, never for a bound)."""


def new_lp(kind: str = "exact") -> pywraplp.Solver:
    """A linear solver: GLOP (``exact``) or PDLP (``fast``), see :data:`LP_SOLVERS`.

    Raises
    ------
    SolverError
        If this OR-Tools build lacks that solver.

    Examples
    --------
    >>> new_lp().SolverVersion().startswith("Glop")
    True
    """
    lp = pywraplp.Solver.CreateSolver(LP_SOLVERS[kind])
    if lp is None:
        raise SolverError(
            f"OR-Tools has no {LP_SOLVERS[kind]} linear solver here", hint="reinstall ortools"
        )
    return lp


def solve_cpsat(model: cp_model.CpModel, *, work: float, seconds: float, size: int) -> CpsatAnswer:
    """Solve a CP-SAT model within a work budget; say what was proven.

    Parameters
    ----------
    model : cp_model.CpModel
    work : float
        Deterministic work budget (:func:`supermesh.trees.cpsat.work_of`).
    seconds : float
        Wall-clock limit (a safety net above the work budget).
    size : int
        Number of decision variables (reported).

    Returns
    -------
    CpsatAnswer

    Examples
    --------
    >>> m = cp_model.CpModel()
    >>> b = m.new_bool_var("b")
    >>> _ = m.add(b == 1)
    >>> a = solve_cpsat(m, work=1.0, seconds=5, size=1)
    >>> a.outcome, a.values([b])
    ('feasible', [1])
    """
    solver = new_solver(
        time_limit=max(seconds, 0.01), workers=1, deterministic_time=max(work, 1e-3)
    )
    start = time.perf_counter()
    status = solver.solve(model)
    elapsed = time.perf_counter() - start
    spent = float(solver.response_proto.deterministic_time)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        outcome = "feasible"
    elif status == cp_model.INFEASIBLE:
        outcome = "infeasible"
    elif status == cp_model.MODEL_INVALID:
        raise SolverError(f"CP-SAT refused the TE-CCL model: {model.validate()}")
    else:
        outcome = "unknown"
    return CpsatAnswer(outcome, solver.status_name(status), elapsed, spent, size, solver)
