"""Simulation parameters and the two named presets (``booksim`` and ``paper``).

Time is kept in one internal unit (:attr:`SimParams.unit`: a cycle for ``booksim``, a nanosecond
for ``paper``); :attr:`SimParams.seconds_per_unit` converts. Every field can be overridden with
:func:`dataclasses.replace` or :func:`get_preset` keywords.

The transfer of one chunk over one directed link (store-and-forward; the link is held until the
receiver has the whole chunk) takes::

    duration = packets * (ceil(packet_bytes / flit_bytes) + header_flits) * flit_time + hop_latency

and the next transfer on that link can start ``link_release`` later. A transfer waiting on data
starts ``reduce_delay`` after its last child delivered (reduce phases: the chunk is aggregated
first) or ``forward_delay`` after its parent delivered (broadcast phases).

The ``booksim`` numbers and where they come from (the reference: a Python event loop driving a
modified BookSim2 network, the MICRO 2025 artifact of the SuperMesh paper):

- 4096 B messages of 16 body flits of 256 B plus a head flit; 3 messages per chunk; each flit
  holds a router-to-router link for 20 cycles (the modified channel is not pipelined): 1020
  cycles a chunk.
- ``hop_latency`` 11 cycles: what a chunk hop costs beyond serialisation, from the cycle the sender
  picks the transfer to the cycle the receiver sees the last message (send event 1, message buffer
  1, injection link 1, the two router pipelines and the ejection link, message buffer 1).
- ``link_release`` 1: the sender notices the free link one cycle after delivery, so a stream of
  chunks on one link runs at 1032 cycles a chunk. The three calibration runs fix
  ``hop_latency + link_release`` = 12 exactly (the slope of cycles against chunk count is 1032.0).
- ``reduce_delay`` 4: delivery, 1 cycle to schedule the aggregation, 2 cycles to add 3072 fp32
  values (192 per vault on a 128-wide row), 1 cycle to schedule the send.
- ``forward_delay`` 0.5: the reference processes same-cycle events in Python ``set`` order, which
  changes from run to run (string hashing); a forward happens in the delivery cycle or the next
  with equal odds, so the expected value is used (the calibration runs show both).
- ``reduce_start`` 1, ``forward_start`` 0, ``barrier_delay`` 1: AllReduce starts its reduce-scatter
  at cycle 1 and its all-gather one cycle after the last root finished aggregating.
- ``drain`` 19: the reference's clock stops when BookSim is idle, 19 cycles after the last
  delivery (the credit of the last flit returns over the 20-cycle link).

The ``paper`` preset is what the paper's text states: 25 GB/s links and 20 ns per hop, with no
event-loop delays; it reports seconds.

Link costs: ``link_pipelined`` says how an arc's relative ``latency`` enters its transfer time
(:mod:`supermesh.sim.program`). ``booksim`` False: the modified BookSim channel is not pipelined,
so a link ``l`` times longer holds every flit ``l`` times longer (``flit_time * l``).
``paper`` True: the wire latency is paid once per hop (``hop_latency * l``).

Energy: ``energy_model`` names the energy model a result reports (a spec string of
:mod:`supermesh.sim.energy`: ``dsent``, fitted to the reference's DSENT runs, or ``paper-text``,
the paper's 1.75 pJ/bit per hop; its constants live there, not here).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from supermesh.errors import SpecError

__all__ = [
    "PARAMETERS",
    "PRESETS",
    "Parameter",
    "SimParams",
    "check_params",
    "get_preset",
    "params_from_text",
]


@dataclass(frozen=True)
class Parameter:
    """What one :class:`SimParams` field may hold: its type, its range, its unit, its meaning.

    Attributes
    ----------
    kind : {"int", "float", "bool", "choice", "text"}
        ``text`` fields describe the preset and cannot be set with ``--set``.
    low, high : float, optional
        The range, both ends included unless ``low_open`` (then ``value > low``).
    unit : str
        ``"time unit"`` is the preset's unit (:attr:`SimParams.unit`: a cycle or a ns).
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
"""Every :class:`SimParams` field: type, range, unit and meaning, checked in one place
(:func:`check_params`)."""


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


@dataclass(frozen=True)
class SimParams:
    """All knobs of the link model (see the module docstring for the meaning of each).

    Attributes
    ----------
    name : str
        Preset name (informative).
    unit : str
        Name of the internal time unit (``"cycle"`` or ``"ns"``).
    report : {"cycles", "seconds"}
        What the result reports as its main time.
    seconds_per_unit : float
        Seconds per internal time unit.
    chunk_bytes : int
        Bytes a tree edge carries per chunk (the pipelining unit).
    packet_bytes, flit_bytes, header_flits : int
        Packetisation of a chunk.
    flit_time : float
        Time a flit holds a link.
    hop_latency, link_release, reduce_delay, forward_delay : float
        Per-hop latency, link turnaround and dependency delays.
    reduce_start, forward_start, barrier_delay, drain : float
        Phase start times, the AllReduce barrier and the end-of-run drain.
    cut_through : bool
        Pipeline per packet instead of per chunk (a node forwards each packet as soon as it has it).
    link_pipelined : bool
        How an arc's ``latency`` enters its transfer time (see the module docstring).
    energy_model : str
        Energy model spec (:func:`supermesh.sim.energy.energy_model_from_text`).

    Examples
    --------
    >>> p = get_preset("booksim")
    >>> p.chunk_time(), p.chunk_period()
    (1031.0, 1032.0)
    """

    name: str = "booksim"
    unit: str = "cycle"
    report: str = "cycles"
    seconds_per_unit: float = 1e-9
    chunk_bytes: int = 12288
    packet_bytes: int = 4096
    flit_bytes: int = 256
    header_flits: int = 1
    flit_time: float = 20.0
    hop_latency: float = 11.0
    link_release: float = 1.0
    reduce_delay: float = 4.0
    forward_delay: float = 0.5
    reduce_start: float = 1.0
    forward_start: float = 0.0
    barrier_delay: float = 1.0
    drain: float = 19.0
    cut_through: bool = False
    link_pipelined: bool = False
    energy_model: str = "dsent"

    def __post_init__(self) -> None:
        check_params(self)

    def packet_time(self, nbytes: int | None = None) -> float:
        """Serialisation time of one packet of ``nbytes`` (default: a full packet)."""
        size = self.packet_bytes if nbytes is None else nbytes
        flits = math.ceil(size / self.flit_bytes) + self.header_flits
        return flits * self.flit_time

    def serialisation(self, nbytes: int) -> float:
        """Time a link is busy sending ``nbytes`` cut into packets (the last may be short)."""
        full, rest = divmod(int(nbytes), self.packet_bytes)
        time = full * self.packet_time()
        return time + (self.packet_time(rest) if rest else 0.0)

    def chunk_time(self) -> float:
        """Start-to-delivery time of one chunk over one hop."""
        return self.serialisation(self.chunk_bytes) + self.hop_latency

    def chunk_period(self) -> float:
        """Time between two chunks on a busy link (``chunk_time + link_release``)."""
        return self.chunk_time() + self.link_release

    def link_bandwidth(self) -> float:
        """Raw payload bytes per time unit of one link (packets back to back, no overheads)."""
        return self.packet_bytes / self.packet_time()

    def to_seconds(self, time: float) -> float:
        """Convert an internal time to seconds."""
        return float(time) * self.seconds_per_unit

    def to_json(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


_PAPER_FLIT_NS = 4096 / 25.0  # 4096 B at 25 GB/s = 163.84 ns

PRESETS: dict[str, SimParams] = {
    "booksim": SimParams(),
    "paper": SimParams(
        name="paper",
        unit="ns",
        report="seconds",
        seconds_per_unit=1e-9,
        flit_bytes=4096,
        header_flits=0,
        flit_time=_PAPER_FLIT_NS,
        hop_latency=20.0,
        link_release=0.0,
        reduce_delay=0.0,
        forward_delay=0.0,
        reduce_start=0.0,
        forward_start=0.0,
        barrier_delay=0.0,
        drain=0.0,
        link_pipelined=True,
    ),
}


def get_preset(name: str = "booksim", **overrides: Any) -> SimParams:
    """A named preset, with any field overridden.

    Parameters
    ----------
    name : {"booksim", "paper"}
    **overrides
        Field values to replace (see :class:`SimParams`).

    Returns
    -------
    SimParams

    Raises
    ------
    SpecError
        Unknown preset or field.

    Examples
    --------
    >>> get_preset("paper").chunk_time()  # 12288 B at 25 GB/s + 20 ns
    511.52
    >>> get_preset("booksim", drain=0).drain
    0
    """
    if name not in PRESETS:
        raise SpecError(f"unknown preset {name!r}", hint=f"use one of: {', '.join(PRESETS)}")
    known = {f.name for f in fields(SimParams)}
    bad = sorted(set(overrides) - known)
    if bad:
        raise SpecError(
            f"unknown simulation parameter {bad[0]!r}", hint=f"known: {', '.join(sorted(known))}"
        )
    return replace(PRESETS[name], **overrides)


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


def params_from_text(preset: str, pairs: Iterable[str] = ()) -> SimParams:
    """The preset with ``NAME=VALUE`` overrides applied, each parsed in its field's type.

    Parameters
    ----------
    preset : {"booksim", "paper"}
    pairs : iterable of str
        Overrides as typed after ``--set`` (see :data:`PARAMETERS` for names, types, ranges).

    Returns
    -------
    SimParams

    Raises
    ------
    SpecError
        A pair that is not ``NAME=VALUE``, an unknown or fixed name, a value of the wrong type
        or out of range (the message names the parameter and its range).

    Examples
    --------
    >>> params_from_text("booksim", ["drain=0", "cut_through=true"]).drain
    0
    >>> params_from_text("booksim", ["chunk_bytes=1.5"])
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: --set chunk_bytes=1.5 is not an integer
    """
    values: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name or not text:
            raise SpecError(f"--set {pair!r} is not NAME=VALUE", hint="e.g. --set hop_latency=12")
        if name not in PARAMETERS:
            raise SpecError(
                f"--set {name}: unknown simulation parameter {name!r}",
                hint=f"known: {', '.join(n for n, p in PARAMETERS.items() if p.kind != 'text')}"
                " (`supermesh sim --list-params`)",
            )
        value = _parse_value(name, text, PARAMETERS[name])
        problem = _problem(value, PARAMETERS[name])
        if problem:
            raise _refuse(name, text, PARAMETERS[name], problem, typed=True)
        values[name] = value
    return get_preset(preset, **values)
