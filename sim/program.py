"""The data the engines run: per-link FIFOs of chunk transfers with dependencies.

A :class:`Program` is a list of :class:`Phase` objects run one after another (an AllReduce has a
reduce-scatter phase, a global barrier, then an all-gather phase). A phase is a list of *blocks*.
A block is ``count`` transfers (chunks ``0 .. count-1``) of the same kind over one arc: for tree
collectives, the chunks one tree edge carries. Transfer ``c`` of block ``b``:

- may start once every transfer ``c`` of the blocks in ``deps[b]`` has been delivered, plus
  ``delay[b]`` (aggregation before a reduce, a copy before a forward);
- is delivered ``duration[b]`` after it starts and holds its arc all that time;
- waits for its turn in its arc's FIFO: the arc serves its transfers in the order
  (``group``, chunk, position in the block list), one at a time, the next starting ``release``
  after the previous delivery (head-of-line blocking: a transfer waiting for data holds up the
  transfers behind it).

Groups are the root sets of a ReduceScatter/AllGather (all sets share the FIFOs, set by set, with no
barrier) or the steps of a ring. Dependencies point to blocks of the same or an earlier group.

Stages (optional, used only with finite buffers, see :func:`supermesh.sim.oracle.simulate_events`)
    Each block may carry a ``stage`` tag (default 0): the step of the collective it belongs to when
    several run inside one phase (an AllReduce's RS = 0 and AG = 1 behind a barrier block). A
    delivered chunk keeps its receive-buffer slot until every dependent of the *same* stage has
    started; a dependent of another stage (the barrier, a gather waiting on a reduced result) only
    reads a value already absorbed at the receiver and holds no slot. The fast engine ignores it.

Link costs (:func:`apply_link_costs`)
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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from supermesh.errors import SupermeshError, TopologyError
from supermesh.topologies.model import Arc

if TYPE_CHECKING:
    import networkx as nx

    from supermesh.sim.presets import SimParams

__all__ = [
    "DeadlockError",
    "Phase",
    "PhaseBuilder",
    "Program",
    "apply_link_costs",
    "arc_costs",
    "link_duration",
    "with_link_costs",
]


class DeadlockError(SupermeshError):
    """The FIFO order and the dependencies wait on each other: the schedule never finishes.

    Parameters
    ----------
    message : str
    hint : str, optional
    stuck : sequence of (phase, block, chunk), optional
        The transfers that can never start (the heads of the blocked FIFOs), where known.

    Examples
    --------
    >>> DeadlockError("stuck", stuck=[(0, 1, 2)]).stuck
    ((0, 1, 2),)
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        stuck: Sequence[tuple[int, int, int]] = (),
    ) -> None:
        super().__init__(message, hint=hint)
        self.stuck = tuple(stuck)


@dataclass
class Phase:
    """One phase: blocks of transfers sharing per-arc FIFOs.

    Attributes
    ----------
    arc, count, group : numpy.ndarray of int
        Per block: arc index (into :attr:`Program.arcs`), number of transfers, FIFO group.
    duration, delay : numpy.ndarray of float
        Per block: start-to-delivery time of each transfer, and the delay after its dependencies.
    payload : numpy.ndarray of int
        Per block: bytes each transfer carries (for energy and bandwidth accounting).
    deps : list of tuple of int
        Per block: the blocks whose same-numbered transfer it waits for.
    start : float or None
        Start time of the phase; ``None`` means after the previous phase's barrier.
    final_delay : float
        Delay after the last delivery before the phase counts as done (aggregation at the roots).
    label : str
        ``"reduce"``, ``"forward"`` or ``"mixed"`` (informative).
    stage : numpy.ndarray of int or None
        Per block: the stage tag for buffer accounting (see the module docstring); ``None``
        means every block is stage 0.
    """

    arc: np.ndarray
    count: np.ndarray
    group: np.ndarray
    duration: np.ndarray
    delay: np.ndarray
    payload: np.ndarray
    deps: list[tuple[int, ...]]
    start: float | None = None
    final_delay: float = 0.0
    label: str = "forward"
    stage: np.ndarray | None = None

    @property
    def size(self) -> int:
        """Number of blocks."""
        return len(self.deps)

    @property
    def transfers(self) -> int:
        """Number of transfers (sum of the block counts)."""
        return int(self.count.sum())


@dataclass
class Program:
    """Phases over a list of arcs, with the global timing constants.

    Attributes
    ----------
    arcs : list of (src, dst, key)
        Arc ``i`` of every phase's ``arc`` array.
    phases : list of Phase
    release : float
        Gap between a delivery and the next start on the same arc.
    barrier : float
        Gap between a phase being done and the next phase starting.
    drain : float
        Gap between the last delivery and the end of the run.
    meta : dict
        Informative: collective, bytes, chunk counts, tree heights.
    """

    arcs: list[Arc]
    phases: list[Phase]
    release: float = 0.0
    barrier: float = 0.0
    drain: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def transfers(self) -> int:
        """Total number of transfers."""
        return sum(p.transfers for p in self.phases)


class PhaseBuilder:
    """Collects blocks for one phase, interning arcs into a shared arc table.

    Parameters
    ----------
    arc_index : dict
        Arc -> index, shared by all phases of a program (extended as arcs are added).
    """

    def __init__(self, arc_index: dict[Arc, int]) -> None:
        self.arc_index = arc_index
        self._arc: list[int] = []
        self._count: list[int] = []
        self._group: list[int] = []
        self._duration: list[float] = []
        self._delay: list[float] = []
        self._payload: list[int] = []
        self._deps: list[tuple[int, ...]] = []
        self._stage: list[int] = []

    def add(
        self,
        arc: Arc,
        *,
        count: int,
        duration: float,
        payload: int,
        group: int = 0,
        deps: Sequence[int] = (),
        delay: float = 0.0,
        stage: int = 0,
    ) -> int:
        """Append a block and return its id (its position in the phase).

        ``stage`` tags the block for buffer accounting (see the module docstring).
        """
        idx = self.arc_index.setdefault(arc, len(self.arc_index))
        self._arc.append(idx)
        self._count.append(int(count))
        self._group.append(int(group))
        self._duration.append(float(duration))
        self._delay.append(float(delay))
        self._payload.append(int(payload))
        self._deps.append(tuple(int(d) for d in deps))
        self._stage.append(int(stage))
        return len(self._deps) - 1

    def set_deps(self, block: int, deps: Sequence[int]) -> None:
        """Replace the dependencies of ``block`` (for builders that add parents first)."""
        self._deps[block] = tuple(int(d) for d in deps)

    def build(
        self, *, start: float | None = None, final_delay: float = 0.0, label: str = "forward"
    ) -> Phase:
        """Freeze the collected blocks into a :class:`Phase` (blocks sorted by group, stably)."""
        group = np.asarray(self._group, dtype=np.int64)
        order = np.argsort(group, kind="stable")
        new_id = np.empty(len(order), dtype=np.int64)
        new_id[order] = np.arange(len(order))
        deps = [tuple(int(new_id[d]) for d in self._deps[i]) for i in order]
        stage = np.asarray(self._stage, dtype=np.int64)[order] if any(self._stage) else None
        return Phase(
            arc=np.asarray(self._arc, dtype=np.int64)[order],
            count=np.asarray(self._count, dtype=np.int64)[order],
            group=group[order],
            duration=np.asarray(self._duration, dtype=np.float64)[order],
            delay=np.asarray(self._delay, dtype=np.float64)[order],
            payload=np.asarray(self._payload, dtype=np.int64)[order],
            deps=deps,
            start=start,
            final_delay=final_delay,
            label=label,
            stage=stage,
        )


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
