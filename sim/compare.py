"""Speedups against what a user would otherwise run: the mesh, and TACOS.

For every simulated row (topology, collective, size, algorithm) of a sweep, two baselines are
simulated with the same preset and size:

- ``speedup_vs_mesh``: the same algorithm and collective on the plain 2D mesh of the same
  ``rows x cols`` (the network the chiplets would otherwise have; for ``pipeline`` AllReduce on
  a mesh that is TTO's three trees), divided by this row's time;
- ``speedup_vs_tacos``: TACOS (:mod:`supermesh.sim.baselines.tacos`) on the *same* topology
  (the collective synthesiser a user would otherwise run on it), divided by this row's time.

Both are ``None`` where the baseline does not exist (a topology without a grid, a collective
TACOS does not synthesise) or failed. A value above 1 means this row is faster.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.sim.presets import SimParams
from supermesh.sim.sweep import SweepCase, run_sweep
from supermesh.topologies import build

__all__ = ["COMPARE_FIELDS", "add_speedups", "mesh_spec_for"]

COMPARE_FIELDS = ("speedup_vs_mesh", "speedup_vs_tacos")
"""The row fields :func:`add_speedups` adds."""

_TACOS_COLLECTIVES = ("allgather", "reducescatter", "allreduce")


def mesh_spec_for(spec: str) -> str | None:
    """The plain mesh with the compute array of ``spec`` (``None`` without a grid).

    Examples
    --------
    >>> mesh_spec_for("smbi:8x8,added-latency=2"), mesh_spec_for("hexamesh:r2")
    ('mesh:8x8', None)
    """
    try:
        G = build(spec)
    except SupermeshError:
        return None
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if not rows or not cols or G.graph.get("family") == "hexamesh":
        return None
    return f"mesh:{rows}x{cols}"


def add_speedups(
    rows: Sequence[dict[str, Any]],
    params: SimParams,
    *,
    time_limit: float = 60.0,
    cache: MutableMapping[Any, Any] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """The rows of a sweep with :data:`COMPARE_FIELDS` filled in (baselines simulated as needed).

    Parameters
    ----------
    rows : sequence of dict
        From :func:`~supermesh.sim.sweep.run_sweep` (same ``params``).
    params : SimParams
    time_limit : float
        CP-SAT seconds per tree set for the mesh baselines.
    cache : dict, optional
        Shared with the sweep (trees, bounds, TACOS syntheses).
    on_row : callable, optional
        Called with each baseline row simulated (progress).

    Returns
    -------
    list of dict
        New row dicts, in order; a baseline already among ``rows`` is not simulated again.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.sweep import sweep_cases
    >>> p = get_preset()
    >>> rows = run_sweep(sweep_cases(["smbi:2x2"], ["allgather"], ["ring"], [1 << 16]), p)
    >>> out = add_speedups(rows, p)
    >>> out[0]["speedup_vs_mesh"], out[0]["speedup_vs_tacos"]  # the same ring; TACOS is 2x faster
    (1.0, 0.5036)
    """
    cache = {} if cache is None else cache
    have = {(r["topology"], r["collective"], r["algorithm"], r["bytes"]): r for r in rows}
    wanted: dict[tuple[str, str, str, int], SweepCase] = {}
    meshes: dict[str, str | None] = {}
    for r in rows:
        if r.get("error"):
            continue
        spec, coll, alg, size = r["topology"], r["collective"], r["algorithm"], r["bytes"]
        if spec not in meshes:
            meshes[spec] = mesh_spec_for(spec)
        mesh = meshes[spec]
        keys = []
        if mesh is not None:
            keys.append((mesh, coll, alg, size))
        if coll in _TACOS_COLLECTIVES:
            keys.append((spec, coll, "tacos", size))
        for key in keys:
            if key not in have and key not in wanted:
                wanted[key] = SweepCase(*key)
    if wanted:
        extra = run_sweep(list(wanted.values()), params, time_limit=time_limit, cache=cache)
        for key, row in zip(wanted, extra, strict=True):
            have[key] = row
            if on_row is not None:
                on_row(row)
    out = []
    for r in rows:
        row = dict(r)
        row["speedup_vs_mesh"] = row["speedup_vs_tacos"] = None
        if not r.get("error") and r.get("time"):
            spec, coll, alg, size = r["topology"], r["collective"], r["algorithm"], r["bytes"]
            mesh = meshes.get(spec)
            if mesh is not None:
                row["speedup_vs_mesh"] = _ratio(have.get((mesh, coll, alg, size)), r)
            row["speedup_vs_tacos"] = _ratio(have.get((spec, coll, "tacos", size)), r)
        out.append(row)
    return out


def _ratio(base: dict[str, Any] | None, row: dict[str, Any]) -> float | None:
    if not base or base.get("error") or not base.get("time"):
        return None
    return round(float(base["time"]) / float(row["time"]), 4)
