"""What every simulation parameter may hold, and the one check of values against it.

:data:`PARAMETERS` gives each field of :class:`~supermesh.sim.presets.SimParams` its type, range,
unit and meaning (``supermesh sim --list-params`` prints it); :func:`check_params` holds a whole
parameter set to it (every :class:`~supermesh.sim.presets.SimParams` is checked when made), and
:func:`parse_parameter` reads one ``--set NAME=VALUE`` in its field's type. A value that does not
fit raises :class:`~supermesh.errors.SpecError` naming the field and the range it takes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from supermesh.errors import SpecError
from supermesh.sim.energy.model import ENERGY_FIELDS

if TYPE_CHECKING:
    from supermesh.sim.presets import SimParams

__all__ = ["PARAMETERS", "Parameter", "check_params", "parse_parameter"]


@dataclass(frozen=True)
class Parameter:
    """What one :class:`~supermesh.sim.presets.SimParams` field holds: type, range, unit, meaning.

    Attributes
    ----------
    kind : {"int", "float", "bool", "choice", "text"}
        ``text`` fields describe the preset and cannot be set with ``--set``.
    low, high : float, optional
        The range, both ends included unless ``low_open`` (then ``value > low``).
    unit : str
        ``"time unit"`` is the preset's unit (:attr:`~supermesh.sim.presets.SimParams.unit`: a
        cycle or a ns).
    meaning : str
        One line for ``supermesh sim --list-params``.
    choices : tuple of str
        The values of a ``choice`` field.
    """

    kind: str
    meaning: str
    unit: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()

    def accepts(self) -> str:
        """What the field takes, in words (``"an integer 1 .. 2^40 (B)"``)."""
        if self.kind in ("bool", "text"):
            return "true or false" if self.kind == "bool" else "no value (set by --preset)"
        if self.kind == "choice":
            return f"one of: {self.range_text()}"
        what = "an integer" if self.kind == "int" else "a number"
        return f"{what} {self.range_text()}" + (f" ({self.unit})" if self.unit else "")

    def range_text(self) -> str:
        """The accepted values, short (``"> 0, <= 1e+09"``, ``"0 .. 2^40"``, ``"true, false"``)."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "text":
            return "set by --preset"
        if self.low_open:
            return f"> {_num(self.low or 0)}, <= {_num(self.high or math.inf)}"
        return f"{_num(self.low or 0)} .. {_num(self.high or math.inf)}"


def _num(x: float) -> str:
    if float(x).is_integer() and x >= 1024 and int(x) & (int(x) - 1) == 0:
        return f"2^{int(x).bit_length() - 1}"
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e6 else f"{x:g}"


_TIME = "time unit"
_DELAY = 1e12  # a million seconds of cycles: far past any run, far below float overflow
PARAMETERS: dict[str, Parameter] = {
    "name": Parameter("text", "preset name (informative)"),
    "unit": Parameter("text", "name of the internal time unit (cycle or ns)"),
    "report": Parameter("choice", "main time reported", choices=("cycles", "seconds")),
    "seconds_per_unit": Parameter("float", "seconds per time unit", "s", 0, 1, low_open=True),
    "chunk_bytes": Parameter("int", "bytes a tree edge carries per chunk", "B", 1, 2**40),
    "packet_bytes": Parameter("int", "bytes per packet (message)", "B", 1, 2**30),
    "flit_bytes": Parameter("int", "bytes per flit", "B", 1, 2**30),
    "header_flits": Parameter("int", "head flits per packet", "flits", 0, 10**6),
    "flit_time": Parameter("float", "time a flit holds a link", _TIME, 0, 1e9, low_open=True),
    "hop_latency": Parameter("float", "per-hop latency beyond serialisation", _TIME, 0, _DELAY),
    "link_release": Parameter("float", "link turnaround between chunks", _TIME, 0, _DELAY),
    "reduce_delay": Parameter("float", "aggregation before a reduce send", _TIME, 0, _DELAY),
    "forward_delay": Parameter("float", "delay before a broadcast forward", _TIME, 0, _DELAY),
    "reduce_start": Parameter("float", "start of the reduce phase", _TIME, 0, _DELAY),
    "forward_start": Parameter("float", "start of the broadcast phase", _TIME, 0, _DELAY),
    "barrier_delay": Parameter("float", "AllReduce barrier between phases", _TIME, 0, _DELAY),
    "drain": Parameter("float", "end-of-run drain after the last delivery", _TIME, 0, _DELAY),
    "cut_through": Parameter("bool", "pipeline per packet instead of per chunk"),
    "link_pipelined": Parameter(
        "bool", "a longer link costs latency once per hop (true) or per flit"
    ),
    "energy_model": Parameter("text", "energy model (set with --energy-model NAME,KEY=VALUE)"),
}
"""Every :class:`~supermesh.sim.presets.SimParams` field: type, range, unit and meaning, checked in
one place (:func:`check_params`)."""


def _refuse(name: str, value: Any, spec: Parameter, how: str, typed: bool = False) -> SpecError:
    said = f"--set {name}={value}" if typed else f"simulation parameter {name}={value!r}"
    return SpecError(
        f"{said} {how}",
        hint=f"{name} takes {spec.accepts()}"
        + "; `supermesh sim --list-params` lists every parameter",
    )


def check_params(params: SimParams) -> None:
    """Check every field of ``params`` against :data:`PARAMETERS` (type and range).

    Raises
    ------
    SpecError
        A value of the wrong type or outside its range, naming the field and the accepted range.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from supermesh.sim.presets import get_preset
    >>> check_params(get_preset("booksim"))
    >>> replace(get_preset("booksim"), drain=-5)
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: simulation parameter drain=-5 is out of range
    """
    for f in fields(params):
        problem = _problem(getattr(params, f.name), PARAMETERS[f.name])
        if problem:
            raise _refuse(f.name, getattr(params, f.name), PARAMETERS[f.name], problem)


def _problem(value: Any, spec: Parameter) -> str | None:
    """Why ``value`` does not fit ``spec`` (None: it fits)."""
    if spec.kind == "text":
        return None if isinstance(value, str) else "is not text"
    if spec.kind == "choice":
        return None if value in spec.choices else "is not one of the choices"
    if spec.kind == "bool":
        return None if isinstance(value, bool) else "is not true or false"
    number_types = (int,) if spec.kind == "int" else (int, float)
    if isinstance(value, bool) or not isinstance(value, number_types):
        return f"is not {'an integer' if spec.kind == 'int' else 'a number'}"
    if not math.isfinite(value):
        return "is not finite"
    low_ok = spec.low is None or (value > spec.low if spec.low_open else value >= spec.low)
    if not low_ok or (spec.high is not None and value > spec.high):
        return "is out of range"
    return None


_INT = re.compile(r"[+-]?[0-9]{1,19}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def _parse_value(name: str, text: str, spec: Parameter) -> Any:
    """One ``--set`` value in its field's type (ASCII digits only; range checked later)."""
    if spec.kind == "text":
        if name == "energy_model":
            raise SpecError(
                f"--set {name}={text}: the energy model has its own option",
                hint=f"write --energy-model {text}",
            )
        raise SpecError(
            f"--set {name}={text}: {name} is fixed by the preset",
            hint="choose the preset with --preset booksim|paper"
            + ("; rescale time with --set seconds_per_unit=..." if name == "unit" else ""),
        )
    if spec.kind == "bool":
        if text.lower() not in ("true", "false"):
            raise _refuse(name, text, spec, "is not true or false", True)
        return text.lower() == "true"
    if spec.kind == "choice":
        return text.lower()
    if spec.kind == "int":
        if not _INT.fullmatch(text):
            raise _refuse(name, text, spec, "is not an integer", True)
        return int(text)
    if not _FLOAT.fullmatch(text):
        raise _refuse(name, text, spec, "is not a number", True)
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def parse_parameter(name: str, text: str) -> Any:
    """One ``--set NAME=VALUE`` value in its field's type, checked against its range.

    Parameters
    ----------
    name : str
        A field of :class:`~supermesh.sim.presets.SimParams` (see :data:`PARAMETERS`).
    text : str
        The value as typed (ASCII digits only for numbers).

    Returns
    -------
    int, float, bool or str

    Raises
    ------
    SpecError
        An unknown or fixed name, a value of the wrong type or out of range (the message names
        the parameter as typed, the hint its range).

    Examples
    --------
    >>> parse_parameter("drain", "0"), parse_parameter("cut_through", "true")
    (0, True)
    >>> parse_parameter("chunk_bytes", "1.5")
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: --set chunk_bytes=1.5 is not an integer
    """
    if name not in PARAMETERS and ("energy" in name or "pj" in name or name in ENERGY_FIELDS):
        # energy constants were --set parameters once (link_energy_pj_per_bit); say where they went
        raise SpecError(
            f"--set {name}: energy constants are not simulation parameters",
            hint="give them to the energy model: --energy-model dsent,link_pj_per_bit=0.1 "
            f"(constants: {', '.join(ENERGY_FIELDS)})",
        )
    if name not in PARAMETERS:
        raise SpecError(
            f"--set {name}: unknown simulation parameter {name!r}",
            hint=f"known: {', '.join(n for n, p in PARAMETERS.items() if p.kind != 'text')}"
            " (`supermesh sim --list-params`)",
        )
    spec = PARAMETERS[name]
    value = _parse_value(name, text, spec)
    problem = _problem(value, spec)
    if problem:
        raise _refuse(name, text, spec, problem, typed=True)
    return value
