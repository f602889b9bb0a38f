"""One place where every CP-SAT solver of the package is configured.

Deterministic by default: a fixed ``random_seed`` and ``num_workers``, and with several workers
``interleave_search`` (CP-SAT's deterministic parallel mode), so the same inputs give the same
answer. CP-SAT's own SIGINT handler is switched off: it would turn Ctrl-C into an early
"feasible" answer instead of stopping the run (``supermesh prove`` and the CLI handle Ctrl-C).
"""

from __future__ import annotations

from ortools.sat.python import cp_model

__all__ = ["new_solver"]


def new_solver(*, time_limit: float, workers: int = 1, seed: int = 0) -> cp_model.CpSolver:
    """A CP-SAT solver with the package's settings.

    Parameters
    ----------
    time_limit : float
        Seconds before the search stops (then FEASIBLE or UNKNOWN, never OPTIMAL).
    workers : int
        ``num_workers`` (1 = single-threaded).
    seed : int
        ``random_seed``.

    Returns
    -------
    ortools.sat.python.cp_model.CpSolver

    Examples
    --------
    >>> s = new_solver(time_limit=5, workers=2)
    >>> s.parameters.num_workers, s.parameters.interleave_search, s.parameters.catch_sigint_signal
    (2, True, False)
    """
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, float(time_limit))
    solver.parameters.num_workers = max(1, int(workers))
    solver.parameters.random_seed = int(seed)
    solver.parameters.interleave_search = int(workers) > 1
    solver.parameters.catch_sigint_signal = False
    return solver
