"""The points of a sweep and the columns of its rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from supermesh.sim.collectives import check_collective
from supermesh.topologies import build, compute_nodes

__all__ = ["ROW_FIELDS", "SweepCase", "by_topology", "sweep_cases"]

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


def by_topology(cases: Sequence[SweepCase]) -> dict[str, list[int]]:
    """Case indices per topology, topologies in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for i, case in enumerate(cases):
        groups.setdefault(case.spec, []).append(i)
    return groups
