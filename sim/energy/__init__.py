"""Energy of a simulated collective, by component, as the reference's DSENT runs measure it.

Energy follows from what the run did to the network and how long it took, whatever the
algorithm: :func:`network_activity` reads the routers, the channels (with their lengths) and the
flits moved and switched from the topology and the simulated transfer list;
:func:`energy_breakdown` applies an :class:`EnergyModel` to that activity and the run's duration and
returns an :class:`EnergyBreakdown` (router static, router dynamic, link static, link dynamic, in
J). Every :class:`~supermesh.sim.result.SimResult` carries its activity and reports its energy by
the model its parameters name (``SimParams.energy_model``, a spec string
:func:`energy_model_from_text` reads).

Modules: :mod:`~supermesh.sim.energy.model` (the constants and the formulas),
:mod:`~supermesh.sim.energy.presets` (the named models ``dsent``, fitted to the reference's three
calibration runs, and ``paper-text``, the paper's 1.75 pJ/bit; the fit is written out there),
:mod:`~supermesh.sim.energy.activity` (routers, channels, flits),
:mod:`~supermesh.sim.energy.breakdown` (joules by component).

Examples
--------
>>> from supermesh.topologies import build
>>> from supermesh.sim import simulate_baseline
>>> r = simulate_baseline(build("mesh:2x2"), "ring", "allgather", 4 * 4096)
>>> r.energy.total > 0, r.activity.flits  # 4 ranks x 3 steps x one 17-flit packet
(True, 204)
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "ENERGY_FIELDS": "supermesh.sim.energy.model",
    "EnergyModel": "supermesh.sim.energy.model",
    "DEFAULT_ENERGY_MODEL": "supermesh.sim.energy.presets",
    "ENERGY_MODELS": "supermesh.sim.energy.presets",
    "energy_model_from_text": "supermesh.sim.energy.presets",
    "get_energy_model": "supermesh.sim.energy.presets",
    "NetworkActivity": "supermesh.sim.energy.activity",
    "network_activity": "supermesh.sim.energy.activity",
    "packet_flits": "supermesh.sim.energy.activity",
    "router_ports": "supermesh.sim.energy.activity",
    "COMPONENTS": "supermesh.sim.energy.breakdown",
    "EnergyBreakdown": "supermesh.sim.energy.breakdown",
    "energy_breakdown": "supermesh.sim.energy.breakdown",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
