"""Grids of simulations (topologies x sizes x algorithms x collectives) as flat rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.collectives import check_collective
from supermesh.sim.presets import SimParams
from supermesh.topologies import build, compute_nodes

__all__ = ["ROW_FIELDS", "SweepCase", "run_sweep", "sweep_cases"]

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


def run_sweep(
    cases: Iterable[SweepCase],
    params: SimParams,
    *,
    time_limit: float = 60.0,
    cache: MutableMapping[Any, Any] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Simulate every case; a case that fails gets its error message instead of numbers.

    Parameters
    ----------
    cases : iterable of SweepCase
    params : SimParams
    time_limit : float
        CP-SAT seconds per tree set.
    cache : dict, optional
        Trees and bounds shared across cases (one is made if not given).
    on_row : callable, optional
        Called with each row as it is produced (progress reporting).

    Returns
    -------
    list of dict
        One row per case with the keys of :data:`ROW_FIELDS`.
    """
    cache = {} if cache is None else cache
    graphs: dict[str, Any] = {}
    rows = []
    seconds_mode = params.report == "seconds"
    for case in cases:
        row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
        row.update(
            topology=case.spec,
            collective=case.collective,
            algorithm=case.algorithm,
            bytes=case.nbytes,
            unit="seconds" if seconds_mode else params.unit,
        )
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
            )
        except SupermeshError as exc:
            row["error"] = str(exc)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows
