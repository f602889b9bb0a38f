"""The points of a sweep, the columns of its rows, and the key of the trees each point needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from supermesh.sim.algorithms import TREE_ALGORITHMS
from supermesh.sim.collectives import check_collective
from supermesh.topologies import build, compute_nodes

__all__ = ["ROW_FIELDS", "SweepCase", "by_topology", "sweep_cases", "tree_key"]

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


def by_topology(cases: Sequence[SweepCase]) -> dict[str, list[int]]:
    """Case indices per topology, topologies in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        groups.setdefault(case.spec, []).append(i)
    return groups
