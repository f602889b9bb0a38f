"""Build the trees a sweep needs, once per topology and collective kind, locally or on dask.

The topologies are independent tasks, longest first (root sets of one tree per chiplet before
the others, larger grids before smaller), so that the workers finish together.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.sim.defaults import TREE_ALGORITHMS
from supermesh.sim.sweep.cases import SweepCase, by_topology
from supermesh.sim.tree_sets import phase_trees_for, trees_key
from supermesh.topologies import build, compute_nodes

__all__ = ["build_trees", "open_sweep_executor"]


@dataclass(frozen=True)
class _TreeJob:
    spec: str
    cases: tuple[SweepCase, ...]
    time_limit: float
    fast: bool


def _tree_job(job: _TreeJob) -> tuple[dict[Any, Any], float, dict[Any, str]]:
    """Build one topology's trees: (cache entries, seconds, errors by key)."""
    start = time.perf_counter()
    built: dict[Any, Any] = {}
    errors: dict[Any, str] = {}
    G = build(job.spec)
    for case in job.cases:  # each needs trees (build_trees)
        key = trees_key(G, case.algorithm, case.collective)
        if key in built or key in errors:
            continue
        try:
            built[key] = phase_trees_for(
                G, case.algorithm, case.collective, time_limit=job.time_limit, fast=job.fast
            )
        except SupermeshError as exc:  # run_sweep reports it on the case's row
            errors[key] = str(exc)
    return built, time.perf_counter() - start, errors


def _tree_work(job: _TreeJob) -> tuple[bool, int]:
    """A guess of a job's work: root sets (one tree per chiplet) first, then by size."""
    sets = any(c.collective in ("reducescatter", "allgather") for c in job.cases)
    return sets, len(compute_nodes(build(job.spec)))


def open_sweep_executor(workers: int, scheduler: Any, tasks: int) -> Any:
    """Local processes or a dask client for a sweep's tasks (imported only when used)."""
    from supermesh.parallel import open_executor

    return open_executor(workers=workers, scheduler=scheduler, tasks=tasks)


def build_trees(
    cases: Sequence[SweepCase],
    *,
    time_limit: float = 60.0,
    cache: MutableMapping[Any, Any] | None = None,
    workers: int = 1,
    fast: bool = False,
    scheduler: Any = None,
) -> dict[str, float]:
    """Build every tree the cases need into ``cache``, once per topology and collective kind.

    Parameters
    ----------
    cases : sequence of SweepCase
    time_limit : float
        CP-SAT seconds per tree set.
    cache : dict, optional
        Filled with the trees under :func:`~supermesh.sim.tree_sets.trees_key`; keys already
        there are not rebuilt.
    workers : int
        Local processes; topologies are independent tasks (``1``: in this process).
    fast : bool
        ReduceScatter / AllGather root sets in the fast mode of
        :func:`~supermesh.trees.roots.sets.root_sets`.
    scheduler : str or dask cluster, optional
        Build on a dask.distributed cluster (each topology on a worker) instead.

    Returns
    -------
    dict
        Topology -> seconds its trees took (in its worker). A topology whose trees fail is left
        out of the cache; :func:`run_sweep` then reports the error on its rows.

    Examples
    --------
    >>> cache = {}
    >>> secs = build_trees([SweepCase("smbi:4x4", "allreduce", "pipeline", 1)], cache=cache)
    >>> trees = cache[("trees", "smbi:4x4", "pipeline", "allreduce", None)]
    >>> list(secs), [len(s.trees) for s in trees]
    (['smbi:4x4'], [4])
    """
    from supermesh.parallel import map_tasks

    cache = {} if cache is None else cache
    jobs = []
    for spec, idx in by_topology(list(cases)).items():
        tree_cases = [cases[i] for i in idx if cases[i].algorithm in TREE_ALGORITHMS]
        if not tree_cases:  # baselines only: nothing to build (nor a topology to read)
            continue
        G = build(spec)
        need = tuple(c for c in tree_cases if trees_key(G, c.algorithm, c.collective) not in cache)
        if need:
            jobs.append(_TreeJob(spec, need, time_limit, fast))
    jobs.sort(key=_tree_work, reverse=True)  # longest first: the workers finish together
    with open_sweep_executor(workers, scheduler, len(jobs)) as ex:
        results = map_tasks(_tree_job, jobs, executor=ex, progress=False, description="trees")
    seconds = {}
    for job, (built, secs, _errors) in zip(jobs, results, strict=True):
        cache.update(built)
        seconds[job.spec] = secs
    return seconds
