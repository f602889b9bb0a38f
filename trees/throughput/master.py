"""The master LP of the throughput column generation, in GLOP (OR-Tools' simplex).

Rows: one per root orbit (``lambda - sum of its columns' rates / |orbit| <= 0``) and one per arc
orbit (capacity); columns: ``lambda`` and one rate per tree column. The answer (rate, column
weights, prices, basis) is copied into a :class:`~supermesh.trees.throughput.model.Progress`.
"""

from __future__ import annotations

from typing import Any

from ortools.linear_solver import pywraplp

from supermesh.errors import SolverError
from supermesh.trees.throughput.model import Column, Network, Progress

__all__ = ["Master"]


class Master:
    """The master LP in GLOP, rebuilt from the columns (GLOP warm-starts new columns)."""

    def __init__(self, net: Network, progress: Progress | None = None) -> None:
        self.net = net
        self.solver = pywraplp.Solver.CreateSolver("GLOP")
        if self.solver is None:  # pragma: no cover - GLOP ships with OR-Tools
            raise SolverError("the GLOP LP solver is not available in this OR-Tools build")
        inf = self.solver.infinity()
        self.lam = self.solver.NumVar(0.0, inf, "lambda")
        self.root_row = {}
        for r in net.reps:
            row = self.solver.Constraint(-inf, 0.0)
            row.SetCoefficient(self.lam, 1.0)
            self.root_row[r] = row
        self.arc_row = [self.solver.Constraint(-inf, c) for c in net.orbit_cap]
        objective = self.solver.Objective()
        objective.SetCoefficient(self.lam, 1.0)
        objective.SetMaximization()
        self.vars: list[Any] = []
        self.roots: list[int] = []
        if progress is not None:
            for col in progress.columns:
                self.add(col)
            for j, ratio in progress.fixed.items():
                self.fix(j, ratio)
            for r in progress.closed:
                self.close(r, progress.fixed)

    def add(self, col: Column) -> None:
        net = self.net
        var = self.solver.NumVar(0.0, self.solver.infinity(), f"w{len(self.vars)}")
        self.root_row[col.root].SetCoefficient(var, -1.0 / net.root_orbit[col.root])
        count: dict[int, int] = {}
        for a in col.arcs:
            o = net.arc_orbit[a]
            count[o] = count.get(o, 0) + 1
        for o, k in count.items():
            self.arc_row[o].SetCoefficient(var, k / net.orbit_size[o])
        self.vars.append(var)
        self.roots.append(col.root)

    def fix(self, j: int, ratio: float) -> None:
        """Tie column ``j`` to the rate: ``w_j = ratio * lambda``."""
        row = self.solver.Constraint(0.0, 0.0)
        row.SetCoefficient(self.vars[j], 1.0)
        row.SetCoefficient(self.lam, -ratio)

    def close(self, root: int, fixed: dict[int, float]) -> None:
        """No more trees for ``root`` beyond the ``fixed`` columns (the others are set to 0)."""
        for j, (var, r) in enumerate(zip(self.vars, self.roots, strict=True)):
            if r == root and j not in fixed:
                var.SetUb(0.0)

    def solve(self, progress: Progress) -> Master:
        """Solve and copy the answer into ``progress``; returns the master to keep using.

        GLOP's incremental re-solve occasionally ends ABNORMAL after columns were added; the
        same model built afresh then solves, so that is the fallback.
        """
        master = self
        if self.solver.Solve() != pywraplp.Solver.OPTIMAL:
            master = Master(self.net, progress)
            status = master.solver.Solve()
            if status != pywraplp.Solver.OPTIMAL:
                raise SolverError(f"the throughput LP did not solve (GLOP status {status})")
        master._read(progress)
        return master

    def _read(self, progress: Progress) -> None:
        net = self.net
        progress.lam = self.lam.solution_value()
        progress.weights = [v.solution_value() for v in self.vars]
        pi = [max(0.0, row.dual_value()) for row in self.arc_row]
        progress.prices = [
            pi[net.arc_orbit[a]] / net.orbit_size[net.arc_orbit[a]] for a in range(len(net.arcs))
        ]
        progress.mu = {
            r: max(0.0, self.root_row[r].dual_value()) / net.root_orbit[r] for r in net.reps
        }
        progress.iterations += 1
        basic = pywraplp.Solver.BASIC
        progress.basic = [-1] if self.lam.basis_status() == basic else []
        progress.basic += [j for j, v in enumerate(self.vars) if v.basis_status() == basic]
        progress.tight = [("root", r) for r in net.reps if self.root_row[r].basis_status() != basic]
        progress.tight += [
            ("arc", o) for o, row in enumerate(self.arc_row) if row.basis_status() != basic
        ]
