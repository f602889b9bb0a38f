"""The report: what a user wants to see first about a few topologies, side by side.

:func:`build_report` composes every engine's part for each topology: its metrics, its tree counts
with proof (Edmonds / Frank certificates), the AllReduce trees and their heights, the AllGather
throughput bound with the rate and height of the throughput packing, how far it is
from the cheapest design reaching its tree count, the family statement for all sizes where one is
known, and the simulated AllReduce / ReduceScatter / AllGather times with speedups against the
last topology given (the baseline), and their energy as a share of the baseline's (by the
energy model named by ``energy_model``: ``dsent`` by default, see :mod:`supermesh.sim.energy`),
and the speedup against TACOS run on the same topology (the synthesiser a user would otherwise
run, :mod:`supermesh.sim.baselines.tacos`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.topologies import build, metrics
from supermesh.trees.bounds.counts import check_roots
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.model import TreeSet
from supermesh.trees.schedule import reversible

__all__ = ["COLLECTIVES", "build_report", "report_errors"]

COLLECTIVES = ("allreduce", "reducescatter", "allgather")
_TACOS_ONE_WAY = (
    "TACOS's AllReduce runs its ReduceScatter backwards on its AllGather's links, which one-way "
    "arcs do not allow"
)


def _corners(G: nx.MultiDiGraph) -> list[int] | None:
    from supermesh.trees.rootspec import resolve_roots

    try:
        return resolve_roots(G, "corners")
    except SupermeshError:
        return None


def _trees_part(G: nx.MultiDiGraph, m: dict[str, Any], time_limit: float) -> dict[str, Any]:
    from supermesh.trees.schedule.collective import collective_trees

    part: dict[str, Any] = {"any_roots": m["arc_connectivity"]}
    free = max_trees_free(G)
    part["free_roots"] = free.to_json()
    corners = _corners(G)
    if corners is not None:
        part["corners"] = check_roots(G, corners).to_json()
    part["allgather_throughput"] = _guarded(partial(_throughput_part, G, time_limit))
    packing = collective_trees(G, "allreduce", time_limit=time_limit, direction="out")
    trees: TreeSet = packing.sets[0]
    part["allreduce_trees"] = {
        "roots": trees.roots,
        "heights": [t.height for t in trees.trees],
        "lower_bound": trees.lower_bound,
        "max_height": trees.height,
    }
    return part


def _throughput_part(G: nx.MultiDiGraph, time_limit: float) -> dict[str, Any]:
    """The AllGather cut bound and the throughput packing's rate and height (exact shares)."""
    from supermesh.trees.throughput.pack import pack_throughput

    p = pack_throughput(G, time_limit=time_limit, proof_time_limit=time_limit)
    st = p.stats
    return {
        "bound": st["optimum"],
        "rate": st.get("algbw_links"),
        "rate_fraction": st.get("rate_fraction"),
        "max_height": p.objective,
        "lower_bound": p.lower_bound,
        "eccentricity_bound": st["eccentricity_bound"],
        "status": p.status,
        "trees": len(p.trees),
    }


def _sim_part(
    G: nx.MultiDiGraph, nbytes: int, preset: str, time_limit: float, energy_model: str
) -> dict[str, Any]:
    from supermesh.sim import get_preset, run_algorithm

    params = get_preset(preset, energy_model=energy_model)
    cache: dict[Any, Any] = {}
    out: dict[str, Any] = {}
    for collective in COLLECTIVES:
        # one collective refused (e.g. an AllGather too large to simulate) must not hide the
        # others; the algorithm is the one `sim` runs by default on this topology
        out[collective] = _guarded(
            partial(
                lambda c: run_algorithm(
                    G, None, c, nbytes, params, cache=cache, time_limit=time_limit
                ).to_json(arcs=False),
                collective,
            )
        )
    tacos: dict[str, Any] = {}
    for collective in COLLECTIVES:
        if collective == "allreduce" and not reversible(G):
            tacos[collective] = {"skipped": _TACOS_ONE_WAY}
            continue
        tacos[collective] = _guarded(
            partial(
                lambda c: run_algorithm(G, "tacos", c, nbytes, params, cache=cache).to_json(
                    arcs=False
                ),
                collective,
            )
        )
    out["tacos"] = tacos
    return out


def _design_part(G: nx.MultiDiGraph, time_limit: float) -> dict[str, Any]:
    from supermesh.trees.design.optimise import design_gap

    return design_gap(G, time_limit=time_limit)


def _family_part(G: nx.MultiDiGraph) -> dict[str, Any] | None:
    from supermesh.trees.prove.statement import family_statement

    return family_statement(G)


def _guarded(fn: Callable[[], Any]) -> Any:
    # one topology's part failing (e.g. no trees exist) must not hide the rest of the report
    try:
        return fn()
    except SupermeshError as exc:
        return {"error": str(exc), "hint": exc.hint}


def build_report(
    specs: Sequence[str],
    *,
    nbytes: int = 4 << 20,
    preset: str = "booksim",
    simulate: bool = True,
    design: bool = True,
    time_limit: float = 10.0,
    energy_model: str = "dsent",
) -> dict[str, Any]:
    """Compare topologies: metrics, tree counts with proof, heights, design gap, simulated times.

    Parameters
    ----------
    specs : sequence of str
        Topology specs or files; the last one is the baseline for speedups.
    nbytes : int
        Collective size for the simulated times (default 4 MiB).
    preset : {"booksim", "paper"}
        Simulator preset.
    simulate, design : bool
        Include the simulated times / the design gap.
    time_limit : float
        CP-SAT seconds per tree set, and the design search's seconds.
    energy_model : str
        Energy model spec (:func:`supermesh.sim.energy.energy_model_from_text`).

    Returns
    -------
    dict
        ``topologies``: one object per spec with ``spec``, ``metrics``, ``trees``,
        ``family`` (all-sizes statement or null), ``design_gap`` and ``sim`` (one result per
        collective, and under ``tacos`` TACOS's result per collective); ``speedups``: per spec
        and collective, baseline time over this time; ``energy_ratios``: per spec and
        collective, this energy over the baseline's; ``speedups_vs_tacos``: per spec and
        collective, TACOS's time on that topology over this time.

    Raises
    ------
    SpecError, InputFileError
        A spec that cannot be built, or an unknown energy model.

    Examples
    --------
    >>> r = build_report(["smbi:4x4", "mesh:4x4"], simulate=False, design=False)
    >>> [t["trees"]["any_roots"] for t in r["topologies"]]
    [4, 2]
    """
    from supermesh.sim.energy import energy_model_from_text

    energy_model = energy_model_from_text(energy_model).name
    graphs = [build(s) for s in specs]
    entries: list[dict[str, Any]] = []
    for G in graphs:
        m = metrics(G)
        entry: dict[str, Any] = {"spec": G.graph["spec"], "name": G.graph["name"], "metrics": m}
        entry["trees"] = _guarded(partial(_trees_part, G, m, time_limit))
        entry["family"] = _guarded(partial(_family_part, G))
        if design:
            entry["design_gap"] = _guarded(partial(_design_part, G, time_limit))
        if simulate:
            entry["sim"] = _guarded(partial(_sim_part, G, nbytes, preset, time_limit, energy_model))
        entries.append(entry)
    report: dict[str, Any] = {
        "bytes": nbytes,
        "preset": preset,
        "energy_model": energy_model,
        "baseline": entries[-1]["spec"],
        "topologies": entries,
    }
    if simulate:
        report["speedups"] = _speedups(entries)
        report["energy_ratios"] = _energy_ratios(entries)
        report["speedups_vs_tacos"] = {
            e["spec"]: {
                c: _ratio(_time(e.get("sim", {}).get("tacos", {}), c), _time(e.get("sim", {}), c))
                for c in COLLECTIVES
            }
            for e in entries
        }
    return report


def _ratio(base: float | None, time: float | None) -> float | None:
    return round(base / time, 4) if base and time else None


def _time(sim: dict[str, Any], collective: str) -> float | None:
    doc = sim.get(collective) if isinstance(sim, dict) else None
    if not isinstance(doc, dict):
        return None
    value = doc.get("cycles", doc.get("seconds"))
    return float(value) if isinstance(value, (int, float)) else None


def _speedups(entries: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    base = entries[-1].get("sim", {})
    out: dict[str, dict[str, float | None]] = {}
    for e in entries:
        row: dict[str, float | None] = {}
        for c in COLLECTIVES:
            t, b = _time(e.get("sim", {}), c), _time(base, c)
            row[c] = round(b / t, 4) if t and b else None
        out[e["spec"]] = row
    return out


def _energy(sim: dict[str, Any], collective: str) -> float | None:
    doc = sim.get(collective) if isinstance(sim, dict) else None
    value = doc.get("energy_joules") if isinstance(doc, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def _energy_ratios(entries: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    base = entries[-1].get("sim", {})
    out: dict[str, dict[str, float | None]] = {}
    for e in entries:
        row: dict[str, float | None] = {}
        for c in COLLECTIVES:
            mine, b = _energy(e.get("sim", {}), c), _energy(base, c)
            row[c] = round(mine / b, 4) if mine is not None and b else None
        out[e["spec"]] = row
    return out


def report_errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every part of a report that failed: where (spec and part), the error and its hint.

    A report whose parts all computed has none; a part that does not apply (TACOS's AllReduce
    on one-way arcs) is marked ``skipped`` with the reason, not an error.

    Examples
    --------
    >>> doc = {"topologies": [{"spec": "mesh:4x4", "sim": {"error": "no trees", "hint": "h"}}]}
    >>> report_errors(doc)
    [{'spec': 'mesh:4x4', 'part': 'sim', 'error': 'no trees', 'hint': 'h'}]
    """
    found: list[dict[str, Any]] = []

    def walk(doc: Any, spec: str, part: str) -> None:
        if isinstance(doc, dict):
            if isinstance(doc.get("error"), str):
                found.append(
                    {"spec": spec, "part": part, "error": doc["error"], "hint": doc.get("hint")}
                )
                return
            for key, value in doc.items():
                walk(value, spec, f"{part} {key}".strip())

    for entry in report.get("topologies", []):
        for key, value in entry.items():
            if key not in ("spec", "name", "metrics"):
                walk(value, entry["spec"], key)
    return found
