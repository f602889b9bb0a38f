"""Run a sweep: every case simulated, a failing case's row carrying its error message.

Trees first (:func:`~supermesh.sim.sweep.trees.build_trees`, in parallel when there are
workers), then the simulations, one topology per task; the rows do not depend on the number of
workers, and with a checkpoint the sweep resumes where a killed run stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.energy.breakdown import COMPONENTS
from supermesh.sim.presets import SimParams
from supermesh.sim.sweep.cases import ROW_FIELDS, SweepCase, by_topology
from supermesh.sim.sweep.checkpoint import case_key, fingerprint, read_checkpoint
from supermesh.sim.sweep.trees import build_trees, open_sweep_executor
from supermesh.topologies import build, compute_nodes

__all__ = ["run_sweep"]


def _row(case: SweepCase, params: SimParams) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    row.update(
        topology=case.spec,
        collective=case.collective,
        algorithm=case.algorithm,
        bytes=case.nbytes,
        unit="seconds" if params.report == "seconds" else params.unit,
    )
    return row


def _simulate(
    cases: Sequence[SweepCase],
    params: SimParams,
    time_limit: float,
    cache: MutableMapping[Any, Any],
    on_row: Callable[[dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    """Simulate the cases in this process, in order."""
    graphs: dict[str, Any] = {}
    rows = []
    seconds_mode = params.report == "seconds"
    for case in cases:
        row = _row(case, params)
        try:
            if case.spec not in graphs:
                graphs[case.spec] = build(case.spec)
            G = graphs[case.spec]
            row["chiplets"] = len(compute_nodes(G))
            r = run_algorithm(
                G,
                case.algorithm,
                case.collective,
                case.nbytes,
                params,
                cache=cache,
                time_limit=time_limit,
                bins=0,
            )
            scale = params.seconds_per_unit if seconds_mode else 1.0
            row.update(
                time=r.seconds if seconds_mode else r.time,
                seconds=r.seconds,
                algbw=r.nbytes / (r.time * scale) if r.time else None,
                lower_bound=r.lower_bound * scale if r.lower_bound is not None else None,
                ratio_to_bound=r.ratio_to_bound,
                max_link_utilization=r.max_link_utilization,
                energy_joules=r.energy.total,
                **{f"{c}_joules": r.energy.component(c) for c in COMPONENTS},
                flits=r.activity.flits,
            )
        except SupermeshError as exc:
            row["error"] = str(exc)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


@dataclass(frozen=True)
class _SimJob:
    cases: tuple[SweepCase, ...]
    params: SimParams
    time_limit: float
    cache: dict[Any, Any]


def _sim_job(job: _SimJob) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    """Simulate one topology's cases in a worker: (rows, the cache it ends with)."""
    cache = dict(job.cache)
    return _simulate(job.cases, job.params, job.time_limit, cache, None), cache


def _of(key: Any, spec: str) -> bool:
    return isinstance(key, tuple) and len(key) > 1 and key[1] == spec


def run_sweep(
    cases: Iterable[SweepCase],
    params: SimParams,
    *,
    time_limit: float = 60.0,
    cache: MutableMapping[Any, Any] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    workers: int = 1,
    fast_trees: bool = False,
    scheduler: Any = None,
    checkpoint: str | Path | None = None,
) -> list[dict[str, Any]]:
    """Simulate every case; a case that fails gets its error message instead of numbers.

    With ``checkpoint`` the sweep can be resumed: every finished row is appended to that file
    (JSON lines, headed by the settings), and a sweep started again with the same file and
    settings reuses the rows already there and simulates only the rest, giving the same rows
    as an uninterrupted run. Remove the file once the rows are written out
    (:func:`checkpoint_path` names the one the CLI uses).

    Parameters
    ----------
    cases : iterable of SweepCase
    params : SimParams
    time_limit : float
        CP-SAT seconds per tree set.
    cache : dict, optional
        Trees and bounds shared across cases (one is made if not given); filled as the sweep
        goes, also from the workers.
    on_row : callable, optional
        Called with each row as it is produced (progress reporting; with workers, a topology's
        rows when it finishes).
    workers : int
        Local processes: the trees (:func:`build_trees`) and then the simulations run one
        topology per task. ``1`` runs everything here, in order.
    fast_trees : bool
        Build ReduceScatter / AllGather root sets in the fast mode (see :func:`build_trees`).
    scheduler : str or dask cluster, optional
        Run the tasks (each topology's trees, then its simulations) on a dask.distributed
        cluster instead of local processes (see :func:`supermesh.parallel.open_executor`).
    checkpoint : str or Path, optional
        The resume file (see above).

    Returns
    -------
    list of dict
        One row per case, in the order of ``cases``, with the keys of :data:`ROW_FIELDS`.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.sweep import sweep_cases
    >>> cases = sweep_cases(["smbi:4x4"], ["allreduce"], ["pipeline"], [4 << 20])
    >>> [row["time"] for row in run_sweep(cases, get_preset("booksim"), time_limit=10)]
    [187859.5]
    """
    cases = list(cases)
    if checkpoint is None:
        return _run(cases, params, time_limit, cache, on_row, workers, fast_trees, scheduler)
    path = Path(checkpoint)
    settings = fingerprint(params, time_limit, fast_trees)
    done = read_checkpoint(path, settings)
    todo = [c for c in cases if tuple(case_key(c)) not in done]
    if not done:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"sweep": settings}) + "\n", encoding="utf-8")
    with path.open("a", encoding="utf-8") as log:

        def keep(row: dict[str, Any]) -> None:
            case = SweepCase(row["topology"], row["collective"], row["algorithm"], row["bytes"])
            log.write(json.dumps({"case": case_key(case), "row": row}) + "\n")
            log.flush()
            if on_row is not None:
                on_row(row)

        fresh = _run(todo, params, time_limit, cache, keep, workers, fast_trees, scheduler)
    made = {tuple(case_key(c)): row for c, row in zip(todo, fresh, strict=True)}
    return [made.get(tuple(case_key(c))) or done[tuple(case_key(c))] for c in cases]


def _run(
    cases: list[SweepCase],
    params: SimParams,
    time_limit: float,
    cache: MutableMapping[Any, Any] | None,
    on_row: Callable[[dict[str, Any]], None] | None,
    workers: int,
    fast_trees: bool,
    scheduler: Any,
) -> list[dict[str, Any]]:
    cache = {} if cache is None else cache
    parallel = workers > 1 or scheduler is not None
    if parallel or fast_trees:
        build_trees(
            cases,
            time_limit=time_limit,
            cache=cache,
            workers=workers,
            fast=fast_trees,
            scheduler=scheduler,
        )
    groups = by_topology(cases)
    if not parallel or len(groups) < 2:
        return _simulate(cases, params, time_limit, cache, on_row)
    from supermesh.parallel import run_tasks

    jobs = [
        _SimJob(
            tuple(cases[i] for i in idx),
            params,
            time_limit,
            {k: v for k, v in cache.items() if _of(k, spec)},
        )
        for spec, idx in groups.items()
    ]
    rows: list[dict[str, Any] | None] = [None] * len(cases)
    order = list(groups.values())
    with open_sweep_executor(workers, scheduler, len(jobs)) as ex:
        for done in run_tasks(_sim_job, jobs, executor=ex, progress=False, description="sweep"):
            got, more = done.value
            cache.update(more)
            for i, row in zip(order[done.index], got, strict=True):
                rows[i] = row
                if on_row is not None:
                    on_row(row)
    return [r for r in rows if r is not None]
