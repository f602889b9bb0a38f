"""One place where every CP-SAT solver of the package is configured.

What is deterministic (the same model and parameters give the same answer):

* the search itself: a fixed ``random_seed`` and ``num_workers``; with one worker CP-SAT runs
  sequentially, with several :func:`new_solver` sets ``interleave_search`` (CP-SAT's
  deterministic parallel mode: workers run in batches and share results only between batches);
* every answer reached before a limit: OPTIMAL and INFEASIBLE (a proof), and a found solution of
  a pure feasibility model;
* where a search is cut short, the cut when it falls on the *deterministic* limit: besides the
  time limit in seconds, :func:`new_solver` sets ``max_deterministic_time`` (CP-SAT's count of
  work, in units meant to be close to a second on a fast machine) to ``DTIME_PER_WORKER_SECOND *
  workers * time_limit``. On a machine that is not overloaded this budget runs out first, so the
  same work is done, and the same FEASIBLE answer and bound come back, whatever the load.

What is not:

* a solve cut by the wall-clock ``max_time_in_seconds`` (kept as the upper bound the user asked
  for): on a machine slow enough that the seconds run out before the work budget, a FEASIBLE
  answer, its bound, or FEASIBLE against UNKNOWN may differ from run to run;
* a search whose wall-clock safety net fires before its work budget runs out. The searches
  built on these solves (``pack_trees``, ``root_sets``' partition search, ``design``) hand each
  solve the *work* left, never the seconds left, and decide when to stop on that work alone;
  their seconds only bound the call, and they report when those ran out first
  (``stats["stopped"] == "time limit"``, ``stats["time_limit_hit"]``);
* results across OR-Tools versions, CPUs or operating systems (not promised by CP-SAT).

Measured here (ortools 9.15, 2 shared cores, packing models of 8x8 to 16x16 grids): CP-SAT
counts 0.03 to 0.05 deterministic units per second with one worker and 0.06 to 0.17 with two,
hence 0.03 per worker and second. With two workers interleaved, a batch ends only when every
full-problem chunk (1 unit each) does, so a model one worker solves in 0.5 s often takes 8 s or
its whole limit; the work budget shortens those runs too.

CP-SAT's own SIGINT handler is switched off: it would turn Ctrl-C into an early "feasible" answer
instead of stopping the run (``supermesh prove`` and the CLI handle Ctrl-C).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing OR-Tools costs about a second: only when a model is solved
    from ortools.sat.python import cp_model

__all__ = ["DTIME_PER_WORKER_SECOND", "new_solver", "work_of"]

DTIME_PER_WORKER_SECOND = 0.03  # deterministic work granted per worker and second of time limit


def work_of(seconds: float, workers: int) -> float:
    """The work budget of ``seconds`` of ``workers`` CP-SAT workers (``DTIME_PER_WORKER_SECOND``).

    The one conversion from a user's seconds to CP-SAT work: :func:`new_solver`, the packing,
    design and root-set searches all budget with it.

    Examples
    --------
    >>> round(work_of(60, 2), 6)
    3.6
    """
    return DTIME_PER_WORKER_SECOND * max(1, int(workers)) * max(float(seconds), 0.0)


def new_solver(
    *,
    time_limit: float,
    workers: int = 1,
    seed: int = 0,
    deterministic_time: float | None = None,
) -> cp_model.CpSolver:
    """A CP-SAT solver with the package's settings (see the module docstring).

    Parameters
    ----------
    time_limit : float
        Seconds before the search stops (then FEASIBLE or UNKNOWN, never OPTIMAL): an upper
        bound on the wall-clock time.
    workers : int
        ``num_workers`` (1 = single-threaded).
    seed : int
        ``random_seed``.
    deterministic_time : float, optional
        CP-SAT ``max_deterministic_time``, the work budget that makes a cut search repeatable
        (default ``DTIME_PER_WORKER_SECOND * workers * time_limit``; ``math.inf`` turns it off).

    Returns
    -------
    ortools.sat.python.cp_model.CpSolver

    Examples
    --------
    >>> s = new_solver(time_limit=5, workers=2)
    >>> s.parameters.num_workers, s.parameters.interleave_search, s.parameters.catch_sigint_signal
    (2, True, False)
    >>> s.parameters.max_time_in_seconds, round(s.parameters.max_deterministic_time, 6)
    (5.0, 0.3)
    """
    workers = max(1, int(workers))
    seconds = max(0.01, float(time_limit))
    if deterministic_time is None:
        deterministic_time = work_of(seconds, workers)
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.max_deterministic_time = max(1e-3, float(deterministic_time))
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = int(seed)
    solver.parameters.interleave_search = workers > 1
    solver.parameters.catch_sigint_signal = False
    return solver
