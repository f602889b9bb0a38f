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
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from supermesh.errors import SpecError
from supermesh.sim.parameters import check_params, parse_parameter

__all__ = ["PRESETS", "SimParams", "get_preset", "params_from_text"]


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

    def whole_packets(self, nbytes: float) -> int:
        """``nbytes`` rounded to the nearest whole number of packets, at least one (a chunk
        holding part of a packet costs a whole flit or more for it).

        Examples
        --------
        >>> get_preset("paper").whole_packets(10_000), get_preset("paper").whole_packets(100)
        (8192, 4096)
        """
        return max(1, round(nbytes / self.packet_bytes)) * self.packet_bytes

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


def params_from_text(preset: str, pairs: Iterable[str] = ()) -> SimParams:
    """The preset with ``NAME=VALUE`` overrides applied, each parsed in its field's type.

    Parameters
    ----------
    preset : {"booksim", "paper"}
    pairs : iterable of str
        Overrides as typed after ``--set`` (see :data:`~supermesh.sim.parameters.PARAMETERS`
        for names, types, ranges).

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
        # names in any case, as specs and option values are (FLIT_TIME=20)
        name, text = name.strip().lower(), text.strip()
        if not sep or not name or not text:
            raise SpecError(f"--set {pair!r} is not NAME=VALUE", hint="e.g. --set hop_latency=12")
        values[name] = parse_parameter(name, text)
    return get_preset(preset, **values)
