"""The two named energy models, ``dsent`` and ``paper-text``, and how a spec string picks one.

``dsent`` (the default) is fitted to the reference's own DSENT output (32 nm) for three runs of
AllReduce of 512 MiB on 8x8 with the ``booksim`` timing (power in W over the run; flits are link
flit traversals of 256 B flits):

=============  ==========  =======  ========  =======  ========  ===========  ========
network        cycles      router   router    link     link      flits        energy
                           static   dynamic   static   dynamic
=============  ==========  =======  ========  =======  ========  ===========  ========
mesh, TTO      30,086,982  37.117   2.756     0.3575   1.232     279,279,264  1.2475 J
SMBi           22,571,976  37.117   3.454     0.4469   1.651     280,764,792  0.9631 J
SMAlter        22,571,981  37.117   3.454     0.3575   1.651     280,764,792  0.9611 J
=============  ==========  =======  ========  =======  ========  ===========  ========

Each constant follows from these numbers in closed form:

- ``router_static_watts`` 0.57995 W = 37.117 W / 64 routers, the same in all three runs although
  SMBi's border routers have 6 ports and the mesh's corners 3 (hence ``router_ports`` 6).
- ``link_pj_per_bit`` 0.064809 pJ: link dynamic energy (power x time) over flits x 2048 bits,
  the same in all three runs to 1e-5 (0.1327 nJ per flit hop).
- ``router_pj_per_bit`` 0.053991 pJ and ``router_clock_watts`` 0.010988 W: the router dynamic
  energy is not proportional to the flits (0.297 nJ per flit on the mesh, 0.278 on SMBi, with the
  same routers), so it has a part proportional to time, the clock; the mesh and SMBi runs give
  two equations in the two unknowns, ``E = router_pj_per_bit x 2 x flits x 2048 +
  router_clock_watts x 64 x T`` (each flit switched by two routers per hop).
- ``link_static_watts`` 1.5960 mW per channel: 0.3575 W / 224 channels (the mesh) and
  0.4469 W / 280 (SMBi) agree to 6e-5. The reference's SMAlter figure, 0.3575 W, is the mesh's
  224 channels; the SMAlter network has 256 (the mesh plus 32 added arcs), and this model charges
  all 256 (0.4086 W): it does not copy that accounting, which is 0.12% of SMAlter's energy.

``paper-text`` is what the paper's text states: 1.75 pJ per bit per hop on die-to-die links, plus
the 0.58 W per router of leakage the reference's DSENT runs report; nothing else. Its link
energy is 27 times DSENT's, so it overstates what the added links cost.

Spec strings (``--energy-model``): a model's name, optionally followed by constants to override,
``NAME("," KEY "=" VALUE)*``, e.g. ``dsent,router_ports=0`` or ``paper-text,link_pj_per_bit=0.5``.
"""

from __future__ import annotations

import math
from dataclasses import fields, replace
from typing import Any

from supermesh.errors import SpecError
from supermesh.sim.energy.model import ENERGY_FIELDS, EnergyModel

__all__ = ["DEFAULT_ENERGY_MODEL", "ENERGY_MODELS", "energy_model_from_text", "get_energy_model"]

ENERGY_MODELS: dict[str, EnergyModel] = {
    "dsent": EnergyModel(
        name="dsent",
        router_static_watts=0.57995,
        router_clock_watts=0.010988,
        router_pj_per_bit=0.053991,
        link_static_watts=0.0015960,
        link_pj_per_bit=0.064809,
        router_ports=6,
        length_exponent=1.0,
    ),
    "paper-text": EnergyModel(
        name="paper-text",
        router_static_watts=0.58,
        router_clock_watts=0.0,
        router_pj_per_bit=0.0,
        link_static_watts=0.0,
        link_pj_per_bit=1.75,
        router_ports=6,
        length_exponent=1.0,
    ),
}
"""The named energy models (see the module docstring for where each constant comes from)."""

DEFAULT_ENERGY_MODEL = "dsent"


def get_energy_model(name: str = DEFAULT_ENERGY_MODEL, **overrides: Any) -> EnergyModel:
    """A named energy model, with any constant overridden.

    Parameters
    ----------
    name : {"dsent", "paper-text"}
    **overrides
        Constants to replace (see :class:`~supermesh.sim.energy.model.EnergyModel`).

    Returns
    -------
    EnergyModel

    Raises
    ------
    SpecError
        Unknown model or constant, or a value the model refuses.

    Examples
    --------
    >>> get_energy_model().link_pj_per_bit
    0.064809
    >>> get_energy_model("paper-text", router_static_watts=0.5).router_static_watts
    0.5
    """
    if name not in ENERGY_MODELS:
        raise SpecError(
            f"unknown energy model {name!r}", hint=f"use one of: {', '.join(ENERGY_MODELS)}"
        )
    bad = sorted(set(overrides) - set(ENERGY_FIELDS))
    if bad:
        raise SpecError(
            f"unknown energy constant {bad[0]!r}", hint=f"known: {', '.join(ENERGY_FIELDS)}"
        )
    return replace(ENERGY_MODELS[name], **overrides)


def energy_model_from_text(text: str) -> EnergyModel:
    """The model a spec string names: ``NAME`` or ``NAME,KEY=VALUE,...``.

    The model's ``name`` is the spec as given, in lower case (so a result says which overrides it
    used).

    Parameters
    ----------
    text : str
        As typed after ``--energy-model``.

    Returns
    -------
    EnergyModel

    Raises
    ------
    SpecError
        An unknown model or constant, a part that is not ``KEY=VALUE``, or a value that is not a
        finite number >= 0.

    Examples
    --------
    >>> energy_model_from_text("dsent").name
    'dsent'
    >>> m = energy_model_from_text("dsent,router_ports=0,link_pj_per_bit=0.1")
    >>> m.name, m.router_ports, m.link_pj_per_bit
    ('dsent,router_ports=0,link_pj_per_bit=0.1', 0, 0.1)
    """
    if not isinstance(text, str) or not text.strip():
        raise SpecError("--energy-model is empty", hint=f"use one of: {', '.join(ENERGY_MODELS)}")
    # names in any case, as specs and option values are (DSENT,LINK_PJ_PER_BIT=0.1)
    name, *pairs = (p.strip() for p in text.strip().lower().split(","))
    kinds = {f.name: f.type for f in fields(EnergyModel)}
    overrides: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SpecError(
                f"--energy-model {text!r}: {pair!r} is not KEY=VALUE",
                hint="e.g. --energy-model dsent,router_static_watts=0.6",
            )
        if key not in ENERGY_FIELDS:
            raise SpecError(
                f"--energy-model {text!r}: unknown energy constant {key!r}",
                hint=f"known: {', '.join(ENERGY_FIELDS)}",
            )
        overrides[key] = _number(text, key, value.strip(), kinds[key] == "int")
    model = get_energy_model(name, **overrides)
    return replace(model, name=text.strip().lower()) if overrides else model


def _number(text: str, key: str, value: str, integer: bool) -> float | int:
    try:
        number = float(value) if value.isascii() else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0 or (integer and not number.is_integer()):
        unit, what = ENERGY_FIELDS[key]
        raise SpecError(
            f"--energy-model {text!r}: {key}={value!r} is not "
            + ("a whole number" if integer else "a finite number")
            + " >= 0",
            hint=f"{key} is {what}" + (f", in {unit}" if unit else ""),
        )
    return int(number) if integer else number
