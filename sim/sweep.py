"""Grids of simulations (topologies x sizes x algorithms x collectives) as flat rows.

Trees are built once per (topology, algorithm, collective kind) and reused for every size: the
cache keys are those of :func:`~supermesh.sim.algorithms.run_algorithm` (AllReduce, Broadcast and
Reduce each have their own trees; ReduceScatter and AllGather share their root sets).
:func:`build_trees` builds what a list of cases needs, one task per topology; with ``workers``
above 1 the topologies run in parallel in local processes (:mod:`supermesh.parallel`), and so do
the simulations in :func:`run_sweep`. The rows do not depend on the number of workers.
``fast_trees`` builds ReduceScatter / AllGather root sets in the fast mode of
:func:`~supermesh.trees.roots.sets.root_sets` (a shorter running-order search; same partition,
heights and proofs).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.sim.algorithms import TREE_ALGORITHMS, phase_trees_for, run_algorithm, trees_key
from supermesh.sim.collectives import check_collective
from supermesh.sim.energy.breakdown import COMPONENTS
from supermesh.sim.presets import SimParams
from supermesh.topologies import build, compute_nodes

__all__ = [
    "ROW_FIELDS",
    "SweepCase",
    "build_trees",
    "checkpoint_path",
    "run_sweep",
    "sweep_cases",
    "tree_key",
]

ROW_FIELDS = (
    "topology",
    "chiplets",
    "collective",
    "algorithm",
    "bytes",
    "time",
    "unit",
    "seconds",
    "algbw",
    "lower_bound",
    "ratio_to_bound",
    "max_link_utilization",
    "energy_joules",
    "router_static_joules",
    "router_dynamic_joules",
    "link_static_joules",
    "link_dynamic_joules",
    "flits",
    "error",
)


@dataclass(frozen=True)
class SweepCase:
    """One point of a sweep."""

    spec: str
    collective: str
    algorithm: str
    nbytes: int


def sweep_cases(
    specs: Sequence[str],
    collectives: Sequence[str],
    algorithms: Sequence[str],
    sizes: Sequence[int] = (),
    per_chiplet: Sequence[int] = (),
) -> list[SweepCase]:
    """Every combination, topology-major (so trees are built once per topology).

    ``sizes`` are total bytes; ``per_chiplet`` sizes are multiplied by the number of compute
    chiplets of each topology (the paper's scalability study uses 375 KiB per chiplet).

    Examples
    --------
    >>> len(sweep_cases(["smbi:4x4", "mesh:4x4"], ["allreduce"], ["pipeline"], [1, 2]))
    4
    """
    cases = []
    for spec in specs:
        n = len(compute_nodes(build(spec))) if per_chiplet else 0
        totals = list(sizes) + [n * s for s in per_chiplet]
        for algorithm in algorithms:
            for collective in collectives:
                for nbytes in totals:
                    cases.append(SweepCase(spec, check_collective(collective), algorithm, nbytes))
    return cases


def tree_key(case: SweepCase) -> tuple[Any, ...] | None:
    """The cache key of the trees a case needs (``None`` for a baseline without trees).

    The same key :func:`~supermesh.sim.algorithms.run_algorithm` looks up.

    Examples
    --------
    >>> tree_key(SweepCase("smbi:4x4", "allgather", "pipeline", 1))
    ('trees', 'smbi:4x4', 'pipeline', 'sets', None)
    >>> tree_key(SweepCase("mesh:4x4", "allgather", "multitree", 1)) is None
    True
    """
    if case.algorithm not in TREE_ALGORITHMS:
        return None
    kind = case.collective if case.collective in ("allreduce", "broadcast", "reduce") else "sets"
    return ("trees", case.spec, case.algorithm, kind, None)


def _by_topology(cases: Sequence[SweepCase]) -> dict[str, list[int]]:
    """Case indices per topology, topologies in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        groups.setdefault(case.spec, []).append(i)
    return groups


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
    G = None
    for case in job.cases:
        key = tree_key(case)
        if key is None or key in errors:
            continue
        try:
            G = build(job.spec) if G is None else G
            key = trees_key(G, case.algorithm, case.collective)  # one-way RS: in-trees apart
            if key in built:
                continue
            built[key] = phase_trees_for(
                G, case.algorithm, case.collective, time_limit=job.time_limit, fast=job.fast
            )
        except SupermeshError as exc:  # run_sweep reports it on the case's row
            errors[key] = str(exc)
    return built, time.perf_counter() - start, errors


def _tree_work(job: _TreeJob) -> tuple[bool, int]:
    """A guess of a job's work: root sets (one tree per chiplet) first, then by size."""
    sets = any((tree_key(c) or ("",) * 4)[3] == "sets" for c in job.cases)
    return sets, len(compute_nodes(build(job.spec)))


def _executor(workers: int, scheduler: Any, tasks: int) -> Any:
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
        Filled with the trees under :func:`tree_key`; keys already there are not rebuilt.
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
    for spec, idx in _by_topology(list(cases)).items():
        need = tuple(c for c in (cases[i] for i in idx) if (k := tree_key(c)) and k not in cache)
        if need:
            jobs.append(_TreeJob(spec, need, time_limit, fast))
    jobs.sort(key=_tree_work, reverse=True)  # longest first: the workers finish together
    with _executor(workers, scheduler, len(jobs)) as ex:
        results = map_tasks(_tree_job, jobs, executor=ex, progress=False, description="trees")
    seconds = {}
    for job, (built, secs, _errors) in zip(jobs, results, strict=True):
        cache.update(built)
        seconds[job.spec] = secs
    return seconds


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


def checkpoint_path(output: str | Path) -> Path:
    """Where a sweep writing ``output`` keeps its finished rows until the file is written.

    Examples
    --------
    >>> checkpoint_path("runs/ar.csv").name
    '.ar.csv.rows.jsonl'
    """
    out = Path(output)
    return out.with_name(f".{out.name}.rows.jsonl")


def _fingerprint(params: SimParams, time_limit: float, fast_trees: bool) -> dict[str, Any]:
    return {"params": params.to_json(), "time_limit": time_limit, "fast_trees": fast_trees}


def _case_key(case: SweepCase) -> list[Any]:
    return [case.spec, case.collective, case.algorithm, case.nbytes]


def _read_checkpoint(path: Path, fingerprint: dict[str, Any]) -> dict[tuple[Any, ...], dict]:
    """Rows a killed sweep with the same settings finished (nothing if the settings differ)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[tuple[Any, ...], dict] = {}
    for number, line in enumerate(lines):
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:  # the line being written when the sweep was killed
            continue
        if number == 0:
            if doc != {"sweep": fingerprint}:
                return {}
            continue
        if isinstance(doc, dict) and isinstance(doc.get("row"), dict) and "case" in doc:
            found[tuple(doc["case"])] = doc["row"]
    return found


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
    fingerprint = _fingerprint(params, time_limit, fast_trees)
    done = _read_checkpoint(path, fingerprint)
    todo = [c for c in cases if tuple(_case_key(c)) not in done]
    if not done:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"sweep": fingerprint}) + "\n", encoding="utf-8")
    with path.open("a", encoding="utf-8") as log:

        def keep(row: dict[str, Any]) -> None:
            case = SweepCase(row["topology"], row["collective"], row["algorithm"], row["bytes"])
            log.write(json.dumps({"case": _case_key(case), "row": row}) + "\n")
            log.flush()
            if on_row is not None:
                on_row(row)

        fresh = _run(todo, params, time_limit, cache, keep, workers, fast_trees, scheduler)
    made = {tuple(_case_key(c)): row for c, row in zip(todo, fresh, strict=True)}
    return [made.get(tuple(_case_key(c))) or done[tuple(_case_key(c))] for c in cases]


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
    groups = _by_topology(cases)
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
    with _executor(workers, scheduler, len(jobs)) as ex:
        for done in run_tasks(_sim_job, jobs, executor=ex, progress=False, description="sweep"):
            got, more = done.value
            cache.update(more)
            for i, row in zip(order[done.index], got, strict=True):
                rows[i] = row
                if on_row is not None:
                    on_row(row)
    return [r for r in rows if r is not None]
