"""The energy model: five constants per component, how routers scale with ports, links with length.

A network spends energy in four places, the four DSENT reports for the reference runs:

========================  =================================================================
component                 energy over a run of ``T`` seconds
========================  =================================================================
router static             ``sum over routers of router_static_watts x radix_factor x T``
router dynamic            ``router_pj_per_bit x bits switched`` (every flit a router's
                          crossbar moves) ``+ sum over routers of router_clock_watts x
                          radix_factor x T`` (the clock tree ticks whether flits pass or not)
link static               ``sum over channels of link_static_watts x length_factor x T``
link dynamic              ``sum over flit hops of link_pj_per_bit x flit bits x length_factor``
========================  =================================================================

A *channel* is one direction of a die-to-die link (an arc between two nodes that have routers);
the arc from a chiplet to the concentrating router it hangs on is that router's local port and
carries no link energy (:mod:`~supermesh.sim.energy.activity` says which is which).

``radix_factor(ports) = max(1, ports / router_ports)``: the per-router figures hold for routers of
up to ``router_ports`` ports (the reference charges every router of its mesh and SMBi runs the same,
whatever its radix, from 3 to 6 ports); a bigger router (a concentrating router with 4 chiplets
and 4 links has 8) leaks and clocks in proportion to its ports, since its input buffers, one
per port, hold nearly all its state (4 virtual channels of 318 flits of 2048 bits each, the
reference's configuration). ``router_ports = 0`` charges every router alike.

``length_factor(L) = max(1, L) ** length_exponent`` with ``L`` the link's length in chiplet
pitches (the interposer generators store it on each arc). The source is DSENT's electrical link
model, ``RepeatedLink``: a wire with repeaters at a fixed spacing, whose switched capacitance and
whose repeater count (hence leakage) both grow linearly with its length, so exponent 1: a Folded
Torus link of 2 pitches costs twice a mesh link, a Kite diagonal 1.41 times, a Double Butterfly
cross link up to 4.12 times. Links shorter than a pitch are charged as one pitch (the driver,
receiver and bumps of a die-to-die link do not shrink).

References
----------
C. Sun, C.-H. O. Chen, G. Kurian, L. Wei, J. Miller, A. Agarwal, L.-S. Peh, V. Stojanovic,
"DSENT - A Tool Connecting Emerging Photonics with Electronics for Opto-Electronic
Networks-on-Chip Modeling", NOCS 2012 (the router and repeated-link models).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from supermesh.errors import SpecError

__all__ = ["ENERGY_FIELDS", "EnergyModel"]

ENERGY_FIELDS: dict[str, tuple[str, str]] = {
    "router_static_watts": ("W per router", "the leakage of one router"),
    "router_clock_watts": ("W per router", "the clock power of one router, flits or not"),
    "router_pj_per_bit": ("pJ per bit", "the energy of a router switching one bit"),
    "link_static_watts": ("W per channel", "the leakage of one direction of a one-pitch link"),
    "link_pj_per_bit": ("pJ per bit", "the energy of one bit over one hop of a one-pitch link"),
    "router_ports": ("ports", "the largest router the per-router figures hold for (0: all)"),
    "length_exponent": ("", "how a longer link's energy grows: length ** this (1: linear)"),
}
"""Every constant of :class:`EnergyModel`: its unit and what it is."""


@dataclass(frozen=True)
class EnergyModel:
    """The constants of the energy model (see the module docstring for the formulas).

    Attributes
    ----------
    name : str
        Name of the model (``"dsent"``, ``"paper-text"``, or a name of your own).
    router_static_watts : float
        Leakage of one router, W.
    router_clock_watts : float
        Clock power of one router, W, spent for the whole run (the part of DSENT's router dynamic
        power that does not depend on traffic).
    router_pj_per_bit : float
        Energy of one router switching one bit (buffer write and read, crossbar), pJ. A flit
        crossing one link is switched twice: by the sender's router onto the link and by the
        receiver's router off it.
    link_static_watts : float
        Leakage of one channel (one direction of a link) one chiplet pitch long, W.
    link_pj_per_bit : float
        Energy of one bit over one hop of a link one chiplet pitch long, pJ.
    router_ports : int
        Routers of up to this many ports (links plus the local port) cost the per-router figures;
        bigger ones cost ``ports / router_ports`` times as much. 0: every router alike.
    length_exponent : float
        Links longer than a pitch cost ``length ** length_exponent`` times a one-pitch link
        (1: linear, DSENT's repeated wire; 0: every link alike).

    Raises
    ------
    SpecError
        A negative, infinite or non-numeric constant, a fractional ``router_ports``, or a
        ``length_exponent`` outside 0..3.

    Examples
    --------
    >>> m = EnergyModel("demo", 0.5, 0.01, 0.05, 0.002, 0.06)
    >>> m.radix_factor(5), m.radix_factor(9), m.length_factor(2.0), m.length_factor(0.7)
    (1.0, 1.5, 2.0, 1.0)
    """

    name: str
    router_static_watts: float
    router_clock_watts: float
    router_pj_per_bit: float
    link_static_watts: float
    link_pj_per_bit: float
    router_ports: int = 6
    length_exponent: float = 1.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError("an energy model needs a name", hint="e.g. name='mine'")
        for f in fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SpecError(
                    f"energy constant {f.name}={value!r} is not a number",
                    hint=_accepts(f.name),
                )
            if not math.isfinite(value) or value < 0:
                raise SpecError(
                    f"energy constant {f.name}={value!r} must be a finite number >= 0",
                    hint=_accepts(f.name),
                )
        if float(self.router_ports) != int(self.router_ports):
            raise SpecError(
                f"energy constant router_ports={self.router_ports!r} is not a whole number",
                hint=_accepts("router_ports"),
            )
        if self.length_exponent > 3:
            raise SpecError(
                f"energy constant length_exponent={self.length_exponent!r} is above 3",
                hint="1 is a repeated wire (linear in length), 0 charges every link alike",
            )

    def radix_factor(self, ports: int) -> float:
        """How many reference routers a router of ``ports`` ports costs (at least 1)."""
        if self.router_ports <= 0 or ports <= self.router_ports:
            return 1.0
        return ports / self.router_ports

    def length_factor(self, length: float) -> float:
        """How many one-pitch links a link ``length`` pitches long costs (at least 1)."""
        return float(max(1.0, float(length)) ** self.length_exponent)

    def to_json(self) -> dict[str, Any]:
        """Every constant, JSON-ready (the inverse of :meth:`from_json`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> EnergyModel:
        """The model :meth:`to_json` wrote.

        Raises
        ------
        SpecError
            A missing or unknown constant, or a value :class:`EnergyModel` refuses.

        Examples
        --------
        >>> m = EnergyModel("demo", 0.5, 0.01, 0.05, 0.002, 0.06)
        >>> EnergyModel.from_json(m.to_json()) == m
        True
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise SpecError(
                f"unknown energy constant {unknown[0]!r}", hint=f"known: {', '.join(sorted(known))}"
            )
        try:
            return cls(**doc)
        except TypeError as exc:
            raise SpecError(
                f"an energy model needs every constant: {exc}",
                hint=f"give {', '.join(sorted(known))}",
            ) from None


def _accepts(name: str) -> str:
    unit, what = ENERGY_FIELDS[name]
    return f"{name} is {what}" + (f", in {unit}" if unit else "")
