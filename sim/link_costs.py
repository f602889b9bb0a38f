"""Link costs: every transfer timed with its own arc's bandwidth and latency.

Builders give every block the duration of its transfer over a *unit* arc: the serialisation
of its payload plus the preset's ``hop_latency``. :func:`apply_link_costs` rewrites each
block's duration for its own arc's ``bandwidth`` ``b`` and ``latency`` ``l`` (the arc
attributes of :mod:`supermesh.topologies.model`, relative to the preset's link)::

    pipelined link (preset link_pipelined=True, "paper"):   serialisation / b + hop_latency * l
    held link      (preset link_pipelined=False, "booksim"): serialisation * l / b + hop_latency

In the reference's modified BookSim the channel is not pipelined: a flit holds the link for
the link's whole latency (20 cycles on a unit link), so a link ``l`` times longer holds every
flit ``l`` times longer, while the router and interface overheads (``hop_latency``) stay. On
a pipelined link (the paper's 25 GB/s and 20 ns per hop) the wire latency is paid once per
hop. Arcs with ``b = l = 1`` keep their durations bit for bit, so unit-cost topologies time
exactly as before. Both engines then time every transfer with its own arc's costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from supermesh.errors import TopologyError
from supermesh.sim.program import Program
from supermesh.topologies.model import Arc

if TYPE_CHECKING:
    import networkx as nx

    from supermesh.sim.presets import SimParams

__all__ = [
    "apply_link_costs",
    "arc_costs",
    "link_duration",
    "serial_capacity_network",
    "with_link_costs",
]


def link_duration(
    unit_duration: float | np.ndarray,
    hop_latency: float,
    bandwidth: float | np.ndarray,
    latency: float | np.ndarray,
    *,
    pipelined: bool,
) -> float | np.ndarray:
    """A transfer's duration on an arc of relative ``bandwidth`` and ``latency``.

    Parameters
    ----------
    unit_duration : float or numpy.ndarray
        Its duration on a unit arc: serialisation plus ``hop_latency``.
    hop_latency : float
        The per-hop latency included in ``unit_duration`` (the preset's ``hop_latency``).
    bandwidth, latency : float or numpy.ndarray
        The arc's relative bandwidth (> 0) and latency (>= 0).
    pipelined : bool
        The preset's ``link_pipelined`` (see the module docstring for both formulas).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> link_duration(1031.0, 11.0, 1.0, 2.0, pipelined=False)  # booksim: 51 flits x 40 cycles
    2051.0
    >>> link_duration(511.52, 20.0, 1.0, 2.0, pipelined=True)  # paper: a second 20 ns
    531.52
    """
    serial = unit_duration - hop_latency
    if pipelined:
        return serial / bandwidth + hop_latency * latency
    return serial * latency / bandwidth + hop_latency


def arc_costs(G: nx.MultiDiGraph, arcs: Sequence[Arc]) -> tuple[np.ndarray, np.ndarray]:
    """The ``bandwidth`` and ``latency`` of each arc (1.0 where an attribute is missing).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    arcs : sequence of (src, dst, key)

    Returns
    -------
    bandwidth, latency : numpy.ndarray
        One value per arc, in the order of ``arcs``.

    Raises
    ------
    TopologyError
        An arc missing from ``G``, a bandwidth that is not positive or a latency that is
        negative (or not finite).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> bw, lat = arc_costs(build("folded-torus:4x4"), [(0, 1, 0), (0, 2, 0)])
    >>> bw.tolist(), lat.tolist()
    ([1.0, 1.0], [1.0, 2.0])
    """
    bw = np.ones(len(arcs))
    lat = np.ones(len(arcs))
    for i, (u, v, k) in enumerate(arcs):
        if not G.has_edge(u, v, key=k):
            raise TopologyError(f"arc {u}->{v} key {k} is not in the topology")
        data = G.edges[u, v, k]
        b = float(data.get("bandwidth", 1.0))
        lt = float(data.get("latency", 1.0))
        if not (np.isfinite(b) and b > 0):
            raise TopologyError(
                f"arc {u}->{v} key {k} has bandwidth {b!r}; it must be positive",
                hint="set a positive bandwidth (1.0 = one base link) in the topology",
            )
        if not (np.isfinite(lt) and lt >= 0):
            raise TopologyError(
                f"arc {u}->{v} key {k} has latency {lt!r}; it must be a non-negative number",
                hint="set the latency relative to one base link (1.0) in the topology",
            )
        bw[i], lat[i] = b, lt
    return bw, lat


def with_link_costs(
    program: Program,
    bandwidth: np.ndarray,
    latency: np.ndarray,
    *,
    hop_latency: float,
    pipelined: bool,
) -> Program:
    """``program`` with every block's duration set for its arc's costs (see the docstring).

    Parameters
    ----------
    program : Program
        Durations for unit arcs.
    bandwidth, latency : numpy.ndarray
        Per arc of ``program.arcs``.
    hop_latency : float
        The latency part of every unit duration.
    pipelined : bool
        Link model (see :func:`link_duration`).

    Returns
    -------
    Program
        A new program (the input is not changed); the same object when every arc is a unit arc.

    Examples
    --------
    >>> idx = {}
    >>> from supermesh.sim.program import PhaseBuilder
    >>> pb = PhaseBuilder(idx)
    >>> _ = pb.add((0, 1, 0), count=2, duration=10.0, payload=1)
    >>> prog = Program(list(idx), [pb.build(start=0.0)])
    >>> slow = with_link_costs(prog, np.array([0.5]), np.array([1.0]), hop_latency=2.0,
    ...                        pipelined=True)
    >>> slow.phases[0].duration.tolist()  # 8 / 0.5 + 2
    [18.0]
    """
    unit = (bandwidth == 1.0) & (latency == 1.0)
    if bool(unit.all()):
        return program
    phases = []
    for phase in program.phases:
        arc = phase.arc
        scaled = link_duration(
            phase.duration, hop_latency, bandwidth[arc], latency[arc], pipelined=pipelined
        )
        # unit arcs keep their durations exactly (no rounding from subtracting and adding back)
        duration = np.where(unit[arc], phase.duration, scaled) if len(arc) else phase.duration
        phases.append(replace(phase, duration=np.asarray(duration, dtype=np.float64)))
    meta = dict(program.meta)
    meta["link_costs"] = True
    return replace(program, phases=phases, meta=meta)


def apply_link_costs(G: nx.MultiDiGraph, program: Program, params: SimParams) -> Program:
    """``program`` timed with the ``bandwidth`` and ``latency`` of ``G``'s arcs.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    program : Program
        Built with unit-arc durations (every builder of :mod:`supermesh.sim` does).
    params : SimParams
        Its ``hop_latency`` and ``link_pipelined`` decide the formula (module docstring).

    Returns
    -------
    Program

    Raises
    ------
    TopologyError
        See :func:`arc_costs`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.collectives import tree_program
    >>> from supermesh.trees.model import Tree
    >>> G = build("folded-torus:4x4")
    >>> t = Tree(0, ((0, 2, 0),), 1)  # a length-2 link: latency 2
    >>> prog = apply_link_costs(G, tree_program(G, [[t]], "broadcast", 12288, get_preset()),
    ...                         get_preset())
    >>> prog.phases[0].duration.tolist()  # 51 flits x 40 cycles + 11
    [2051.0]
    """
    bw, lat = arc_costs(G, program.arcs)
    return with_link_costs(
        program,
        bw,
        lat,
        hop_latency=params.hop_latency,
        pipelined=params.link_pipelined,
    )


def serial_capacity_network(G: nx.MultiDiGraph, params: SimParams) -> nx.MultiDiGraph:
    """``G`` with each arc's ``bandwidth`` replaced by the rate it moves payload at.

    A cut bound counts how fast bytes can cross a cut. On a pipelined link (preset
    ``link_pipelined=True``) that is the arc's ``bandwidth`` ``b``; on a held link ("booksim")
    a flit holds the link ``l`` times as long as on a unit link, so the arc carries ``b / l``
    (see the module docstring): a local port of latency 0.05 moves 20 unit links' worth, a
    length-2 wire half of one. A zero-latency arc never limits a cut; it gets more capacity
    than all other arcs together. ``G`` itself is returned when nothing changes (pipelined
    links, or every latency 1), so unit-cost bounds stay bit for bit.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    params : SimParams

    Returns
    -------
    networkx.MultiDiGraph
        ``G`` or a copy with new ``bandwidth`` values (the ``latency`` values kept).

    Raises
    ------
    TopologyError
        See :func:`arc_costs`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> G = build("cmesh:4x4")
    >>> H = serial_capacity_network(G, get_preset("booksim"))
    >>> sorted({round(d["bandwidth"], 6) for _, _, d in H.edges(data=True)})
    [0.5, 20.0]
    >>> serial_capacity_network(G, get_preset("paper")) is G
    True
    """
    arcs = list(G.edges(keys=True))
    bandwidth, latency = arc_costs(G, arcs)
    if params.link_pipelined or bool(np.all(latency == 1.0)):
        return G
    free = float(bandwidth.sum()) + 1.0
    rate = np.where(latency > 0, bandwidth / np.where(latency > 0, latency, 1.0), free)
    H = G.copy()
    for (u, v, k), r in zip(arcs, rate.tolist(), strict=True):
        H[u][v][k]["bandwidth"] = r
    return H
