"""A stated, simple energy model: link energy per bit per hop plus router leakage over time.

``E = E_link + E_static`` with

- ``E_link = bits moved x hops x link_energy_pj_per_bit``: every transfer's payload (whole packets:
  the padding of a last chunk counts, head flits do not) on every arc it crosses. The paper uses
  1.75 pJ/bit for its die-to-die links (DSENT, 32 nm).
- ``E_static = routers x router_static_watts x time``: one router per chiplet, leaking for the whole
  run. 0.58 W is what DSENT reports per router for the reference configuration (4 VCs of 318 flits
  of 2048 bits); it dominates, which is why a faster collective also uses less energy (the paper's
  Figure 14).

The model ignores router dynamic energy and link leakage (both a few percent in the reference runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from supermesh.sim.presets import SimParams

__all__ = ["Energy", "energy"]


@dataclass(frozen=True)
class Energy:
    """Energy of one run in joules.

    Attributes
    ----------
    link_dynamic, router_static : float
    """

    link_dynamic: float
    router_static: float

    @property
    def total(self) -> float:
        """Sum of the parts."""
        return self.link_dynamic + self.router_static

    def to_json(self) -> dict[str, float]:
        """JSON-ready dict with the parts and the total."""
        return {
            "link_dynamic_joules": self.link_dynamic,
            "router_static_joules": self.router_static,
            "total_joules": self.total,
        }


def energy(bytes_hops: float, seconds: float, routers: int, params: SimParams) -> Energy:
    """Energy of a run that moved ``bytes_hops`` byte-hops in ``seconds`` on ``routers`` routers.

    Parameters
    ----------
    bytes_hops : float
        Sum over transfers of payload bytes (each transfer crosses one arc).
    seconds : float
        Duration of the run.
    routers : int
        Routers (chiplets) powered during the run.
    params : SimParams
        ``link_energy_pj_per_bit`` and ``router_static_watts``.

    Returns
    -------
    Energy

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> e = energy(1e6, 1e-3, 16, get_preset())
    >>> round(e.link_dynamic * 1e6, 3), round(e.router_static * 1e3, 3)  # 14 uJ, 9.28 mJ
    (14.0, 9.28)
    """
    link = bytes_hops * 8.0 * params.link_energy_pj_per_bit * 1e-12
    static = routers * params.router_static_watts * seconds
    return Energy(link_dynamic=link, router_static=static)
