"""What a simulation reports: :class:`SimResult`, JSON-ready, and how it is assembled."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from supermesh.sim.bounds import ThroughputBound
from supermesh.sim.energy.activity import NetworkActivity, network_activity
from supermesh.sim.energy.breakdown import EnergyBreakdown, energy_breakdown
from supermesh.sim.energy.model import EnergyModel
from supermesh.sim.energy.presets import energy_model_from_text
from supermesh.sim.engine.timing import Timing
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.topologies.model import arcs as topology_arcs

__all__ = ["SimResult", "assemble"]


@dataclass
class SimResult:
    """Outcome of one simulated collective.

    Attributes
    ----------
    topology, collective, algorithm : str
    nbytes : int
        Collective size (the whole vector).
    time : float
        Completion time in the preset's internal unit (cycles for ``booksim``, ns for ``paper``).
    seconds : float
        Completion time in seconds.
    params : SimParams
    phases : list of dict
        ``label``, ``start``, ``done`` of each phase (internal unit).
    bound : ThroughputBound or None
        Cut bound on the algorithm bandwidth, in link units.
    lower_bound : float or None
        Shortest possible completion time by the cut bound (internal unit).
    arc_busy : dict
        Arc ``(src, dst, key)`` -> time it was held (every arc of the topology, 0 if unused).
    timeseries : dict
        ``t`` (bin centres) and ``utilization`` (share of all arcs busy) for plots.
    activity : NetworkActivity
        Routers, channels and flits of the run; :attr:`energy` applies the energy model that
        ``params.energy_model`` names to it, :meth:`energy_with` any other.
    meta : dict
        Chunk counts, tree heights, numbers of transfers and trees.

    Examples
    --------
    >>> from supermesh.sim.algorithms import run_algorithm
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> r = run_algorithm(build("smbi:4x4"), "pipeline", "allreduce", 4 << 20, get_preset())
    >>> r.time, round(r.time / r.lower_bound, 3)
    (187859.5, 1.295)
    """

    topology: str
    collective: str
    algorithm: str
    nbytes: int
    time: float
    seconds: float
    params: SimParams
    phases: list[dict[str, Any]]
    bound: ThroughputBound | None
    lower_bound: float | None
    arc_busy: dict[tuple[int, int, int], float]
    timeseries: dict[str, list[float]]
    activity: NetworkActivity
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def energy_model(self) -> EnergyModel:
        """The energy model ``params.energy_model`` names."""
        return energy_model_from_text(self.params.energy_model)

    @property
    def energy(self) -> EnergyBreakdown:
        """Energy of the run by component, by :attr:`energy_model`."""
        return energy_breakdown(self.activity, self.seconds, self.energy_model)

    def energy_with(self, model: EnergyModel | str) -> EnergyBreakdown:
        """Energy of the run by another model (an :class:`EnergyModel` or a spec string).

        Examples
        --------
        >>> from supermesh.topologies import build
        >>> from supermesh.sim import simulate_baseline
        >>> r = simulate_baseline(build("mesh:2x2"), "ring", "allreduce", 1 << 20)
        >>> r.energy_with("paper-text").total > r.energy.total  # 27x the link energy
        True
        """
        if isinstance(model, str):
            model = energy_model_from_text(model)
        return energy_breakdown(self.activity, self.seconds, model)

    @property
    def algbw(self) -> float:
        """Algorithm bandwidth: bytes per internal time unit."""
        return self.nbytes / self.time if self.time > 0 else float("inf")

    @property
    def ratio_to_bound(self) -> float | None:
        """Completion time over the cut bound's time (at least 1)."""
        if self.lower_bound is None or self.lower_bound <= 0:
            return None
        return self.time / self.lower_bound

    @property
    def utilization(self) -> dict[tuple[int, int, int], float]:
        """Arc -> share of the run it was held."""
        if self.time <= 0:
            return dict.fromkeys(self.arc_busy, 0.0)
        return {a: b / self.time for a, b in self.arc_busy.items()}

    @property
    def max_link_utilization(self) -> float:
        """Largest arc utilisation."""
        return max(self.utilization.values(), default=0.0)

    @property
    def mean_link_utilization(self) -> float:
        """Mean utilisation over every arc of the topology."""
        u = self.utilization
        return sum(u.values()) / len(u) if u else 0.0

    def reported_time(self) -> float:
        """The main time in the preset's reporting unit (cycles, or seconds)."""
        return self.seconds if self.params.report == "seconds" else self.time

    def to_json(self, *, arcs: bool = True) -> dict[str, Any]:
        """JSON-ready dict.

        Keys: ``cycles`` (booksim-like presets) or ``seconds``, ``bytes``,
        ``algbw_bytes_per_cycle`` or ``algbw_bytes_per_second``, ``lower_bound`` and
        ``ratio_to_bound`` (same unit as the time), ``max_link_utilization``, ``energy_joules``,
        then details (``phases``, ``bound``, ``energy``, ``timeseries``, ``links``, ``params``).
        ``energy`` holds the model's name, each component in J (router static / dynamic, link
        static / dynamic, the total, the two router parts), the average power of each in W,
        ``flits`` (flit hops over channels), ``router_flits`` (flits switched by routers),
        ``routers``, ``channels``, the model's constants and the activity they were applied to.
        """
        seconds_mode = self.params.report == "seconds"
        scale = self.params.seconds_per_unit if seconds_mode else 1.0
        doc: dict[str, Any] = {
            "topology": self.topology,
            "collective": self.collective,
            "algorithm": self.algorithm,
            "preset": self.params.name,
        }
        if seconds_mode:
            doc["seconds"] = self.seconds
        else:
            doc["cycles"] = self.time
        doc["bytes"] = self.nbytes
        if seconds_mode:
            doc["algbw_bytes_per_second"] = self.nbytes / self.seconds if self.seconds else None
        else:
            doc["algbw_bytes_per_cycle"] = self.algbw
        doc["lower_bound"] = self.lower_bound * scale if self.lower_bound is not None else None
        doc["ratio_to_bound"] = self.ratio_to_bound
        doc["max_link_utilization"] = self.max_link_utilization
        doc["mean_link_utilization"] = self.mean_link_utilization
        e = self.energy
        doc["energy_joules"] = e.total
        doc["energy"] = {
            "model": self.energy_model.name,
            **e.to_json(),
            "power_watts": e.power(self.seconds),
            "flits": self.activity.flits,
            "router_flits": self.activity.router_flits,
            "routers": self.activity.n_routers,
            "channels": self.activity.n_channels,
            "constants": self.energy_model.to_json(),
            "activity": self.activity.to_json(),
        }
        doc["bound"] = (
            {
                "algbw_links": self.bound.value,
                "algbw": self.bound.value * self.params.link_bandwidth() / scale,
                "certificate": self.bound.certificate,
            }
            if self.bound is not None
            else None
        )
        doc["phases"] = [
            {k: (v * scale if isinstance(v, float) else v) for k, v in p.items()}
            for p in self.phases
        ]
        doc["unit"] = "seconds" if seconds_mode else self.params.unit
        doc["meta"] = self.meta
        doc["timeseries"] = {
            "t": [t * scale for t in self.timeseries["t"]],
            "utilization": self.timeseries["utilization"],
        }
        if arcs:
            util = self.utilization
            doc["links"] = [
                {"arc": list(a), "busy": b * scale, "utilization": util[a]}
                for a, b in self.arc_busy.items()
            ]
        doc["params"] = self.params.to_json()
        return doc


def _timeseries(
    program: Program, timing: Timing, end: float, n_arcs: int, bins: int
) -> dict[str, list[float]]:
    if end <= 0 or bins <= 0 or n_arcs == 0:
        return {"t": [], "utilization": []}
    longest = max((float(p.duration.max()) for p in program.phases if p.size), default=1.0)
    nb = int(max(1, min(bins, math.floor(end / max(longest, 1e-12)))))
    width = end / nb
    points = [pt.samples.points() for pt in timing.phases]
    times = [s for s, _ in points if len(s)]
    weights = [w for s, w in points if len(s)]
    hist: np.ndarray = np.zeros(nb)
    if times:
        idx = np.minimum((np.concatenate(times) / width).astype(np.int64), nb - 1)
        hist = np.bincount(idx, weights=np.concatenate(weights), minlength=nb)
    util = np.minimum(hist / (width * n_arcs), 1.0)
    centres = (np.arange(nb) + 0.5) * width
    return {"t": centres.tolist(), "utilization": util.tolist()}


def assemble(
    G: nx.MultiDiGraph,
    program: Program,
    timing: Timing,
    params: SimParams,
    *,
    collective: str,
    algorithm: str,
    nbytes: int,
    bound: ThroughputBound | None,
    bins: int = 100,
) -> SimResult:
    """Collect a :class:`SimResult` from an engine run.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    program : Program
    timing : Timing
        From :func:`supermesh.sim.engine.timing.run_program`.
    params : SimParams
    collective, algorithm : str
    nbytes : int
    bound : ThroughputBound or None
    bins : int
        Time-series bins (fewer when the run is short).

    Returns
    -------
    SimResult
    """
    busy = dict.fromkeys(topology_arcs(G), 0.0)
    for phase in program.phases:
        if not phase.size:
            continue
        per_block = phase.count * phase.duration
        totals = np.bincount(phase.arc, weights=per_block, minlength=len(program.arcs))
        for i, value in enumerate(totals):
            if value:
                arc = program.arcs[i]
                busy[arc] = busy.get(arc, 0.0) + float(value)
    energy_model_from_text(params.energy_model)  # a bad spec fails here, not in the report
    end = timing.end
    seconds = params.to_seconds(end)
    lower = None
    if bound is not None and bound.value > 0 and math.isfinite(bound.value):
        lower = nbytes / (bound.value * params.link_bandwidth())
    phases = [
        {"label": ph.label, "start": pt.start, "done": pt.done}
        for ph, pt in zip(program.phases, timing.phases, strict=False)
    ]
    meta = dict(program.meta)
    meta["transfers"] = program.transfers
    return SimResult(
        topology=str(G.graph.get("spec", "")),
        collective=collective,
        algorithm=algorithm,
        nbytes=int(nbytes),
        time=end,
        seconds=seconds,
        params=params,
        phases=phases,
        bound=bound,
        lower_bound=lower,
        arc_busy=busy,
        timeseries=_timeseries(program, timing, end, len(busy), bins),
        activity=network_activity(G, program, params),
        meta=meta,
    )
