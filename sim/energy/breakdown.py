"""Energy of a run by component: :func:`energy_breakdown` applies a model to what the run did.

The four components are the ones DSENT reports (router static, router dynamic, link static, link
dynamic); router dynamic is kept as its two parts, switching (per bit) and clock (per second),
since they respond differently to a faster schedule: a shorter run saves every per-second term
(both statics and the clock) and none of the per-bit ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from supermesh.errors import InputFileError
from supermesh.sim.energy.activity import NetworkActivity
from supermesh.sim.energy.model import EnergyModel

__all__ = ["COMPONENTS", "EnergyBreakdown", "energy_breakdown"]

COMPONENTS = ("router_static", "router_dynamic", "link_static", "link_dynamic")
"""The four components, in the order the reference (and Figure 14) stacks them."""


@dataclass(frozen=True)
class EnergyBreakdown:
    """Energy of one run in joules, by component.

    Attributes
    ----------
    router_static : float
        Router leakage.
    router_switching : float
        Routers moving flits (buffers and crossbars).
    router_clock : float
        Router clock trees, for the whole run.
    link_static : float
        Channel leakage.
    link_dynamic : float
        Flits over channels.

    Examples
    --------
    >>> e = EnergyBreakdown(1.0, 0.25, 0.25, 0.5, 2.0)
    >>> e.router_dynamic, e.total, e.power(2.0)["total"]
    (0.5, 4.0, 2.0)
    >>> EnergyBreakdown.from_json(e.to_json()) == e
    True
    """

    router_static: float
    router_switching: float
    router_clock: float
    link_static: float
    link_dynamic: float

    @property
    def router_dynamic(self) -> float:
        """Router dynamic energy as DSENT reports it: switching plus clock."""
        return self.router_switching + self.router_clock

    @property
    def total(self) -> float:
        """Sum of the components."""
        return self.router_static + self.router_dynamic + self.link_static + self.link_dynamic

    def component(self, name: str) -> float:
        """One of :data:`COMPONENTS` (or ``total``, ``router_switching``, ``router_clock``)."""
        return float(getattr(self, name))

    def power(self, seconds: float) -> dict[str, float]:
        """Average power in W of each of :data:`COMPONENTS` and the ``total`` over ``seconds``."""
        names = (*COMPONENTS, "total")
        if seconds <= 0:
            return dict.fromkeys(names, 0.0)
        return {name: self.component(name) / seconds for name in names}

    def ratio(self, other: EnergyBreakdown) -> float:
        """This total over ``other``'s (``inf`` if ``other`` spent nothing)."""
        return self.total / other.total if other.total > 0 else float("inf")

    def to_json(self) -> dict[str, float]:
        """JSON-ready dict: each component in J, the two router parts, the total."""
        return {
            "router_static_joules": self.router_static,
            "router_dynamic_joules": self.router_dynamic,
            "link_static_joules": self.link_static,
            "link_dynamic_joules": self.link_dynamic,
            "total_joules": self.total,
            "router_switching_joules": self.router_switching,
            "router_clock_joules": self.router_clock,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> EnergyBreakdown:
        """The breakdown :meth:`to_json` wrote (the derived sums are not read).

        Raises
        ------
        InputFileError
            A missing or non-numeric component.
        """
        try:
            return cls(**{f.name: float(doc[f"{f.name}_joules"]) for f in fields(cls)})
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(
                f"not an energy breakdown: {exc!r}",
                hint="router_static, router_switching, router_clock, link_static and "
                "link_dynamic (each _joules) are needed",
            ) from None


def energy_breakdown(
    activity: NetworkActivity, seconds: float, model: EnergyModel
) -> EnergyBreakdown:
    """The energy of a run that did ``activity`` in ``seconds``, by ``model``.

    Parameters
    ----------
    activity : NetworkActivity
        From :func:`~supermesh.sim.energy.activity.network_activity`, or written by hand for a
        network the simulator did not run.
    seconds : float
        Duration of the run.
    model : EnergyModel

    Returns
    -------
    EnergyBreakdown

    Examples
    --------
    The reference's mesh run (64 routers, 224 one-pitch channels, 279,279,264 flit hops of 2048
    bits, 30,086,982 ns) by the ``dsent`` model, in W as the reference reports it:

    >>> from supermesh.sim.energy.presets import get_energy_model
    >>> a = NetworkActivity(((5, 64),), ((1.0, 224),), ((1.0, 279279264),), 558558528, 2048)
    >>> e = energy_breakdown(a, 30086982e-9, get_energy_model("dsent"))
    >>> {k: round(v, 4) for k, v in e.power(30086982e-9).items()}  # doctest: +NORMALIZE_WHITESPACE
    {'router_static': 37.1168, 'router_dynamic': 2.756, 'link_static': 0.3575,
     'link_dynamic': 1.232, 'total': 41.4624}
    >>> round(e.total, 4)  # the reference: 1.2475 J
    1.2475
    """
    routers = sum(model.radix_factor(p) * c for p, c in activity.routers)
    pitches = sum(model.length_factor(length) * c for length, c in activity.channels)
    flit_pitches = sum(model.length_factor(length) * f for length, f in activity.link_flits)
    bits = activity.flit_bits
    seconds = max(float(seconds), 0.0)
    return EnergyBreakdown(
        router_static=model.router_static_watts * routers * seconds,
        router_switching=model.router_pj_per_bit * 1e-12 * bits * activity.router_flits,
        router_clock=model.router_clock_watts * routers * seconds,
        link_static=model.link_static_watts * pitches * seconds,
        link_dynamic=model.link_pj_per_bit * 1e-12 * bits * flit_pitches,
    )
