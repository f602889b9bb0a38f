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

Link costs
    Builders give every block the duration of its transfer over a *unit* arc;
    :func:`supermesh.sim.link_costs.apply_link_costs` rewrites them for each arc's own
    ``bandwidth`` and ``latency``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

import numpy as np

from supermesh.errors import SupermeshError
from supermesh.topologies.model import Arc

if TYPE_CHECKING:
    pass

__all__ = [
    "DeadlockError",
    "Dependencies",
    "Phase",
    "PhaseBuilder",
    "Program",
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


class Dependencies(Sequence[tuple[int, ...]]):
    """Per block, the blocks it waits for, held as two arrays instead of a tuple per block.

    A throughput packing of a 32x32 SuperMesh has 4 million blocks: a tuple of Python ints
    each costs about 90 bytes a block, these arrays 16.

    Parameters
    ----------
    start : numpy.ndarray
        ``blocks + 1`` offsets into ``flat``.
    flat : numpy.ndarray
        Block ``b`` waits for ``flat[start[b]:start[b + 1]]``.

    Examples
    --------
    >>> d = Dependencies(np.array([0, 0, 1, 3]), np.array([0, 0, 1]))
    >>> len(d), d[2], list(d)
    (3, (0, 1), [(), (0,), (0, 1)])
    """

    def __init__(self, start: np.ndarray, flat: np.ndarray) -> None:
        self.start = start
        self.flat = flat

    @classmethod
    def from_pairs(cls, block: np.ndarray, dep: np.ndarray, blocks: int) -> Dependencies:
        """The dependencies ``block[i]`` waits for ``dep[i]``, of ``blocks`` blocks; a block's
        keep the order of the pairs.

        Examples
        --------
        >>> d = Dependencies.from_pairs(np.array([2, 1, 2]), np.array([0, 0, 1]), 3)
        >>> list(d)
        [(), (0,), (0, 1)]
        """
        order = np.argsort(block, kind="stable")
        start = np.zeros(blocks + 1, dtype=np.int64)
        np.cumsum(np.bincount(block, minlength=blocks), out=start[1:])
        return cls(start, np.asarray(dep, dtype=np.int64)[order])

    def __len__(self) -> int:
        return len(self.start) - 1

    @overload
    def __getitem__(self, b: int) -> tuple[int, ...]: ...

    @overload
    def __getitem__(self, b: slice) -> list[tuple[int, ...]]: ...

    def __getitem__(self, b: int | slice) -> tuple[int, ...] | list[tuple[int, ...]]:
        if isinstance(b, slice):
            return [self[i] for i in range(*b.indices(len(self)))]
        if not -len(self) <= b < len(self):
            raise IndexError(b)
        b %= len(self)
        return tuple(self.flat[self.start[b] : self.start[b + 1]].tolist())


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
    deps : sequence of tuple of int
        Per block: the blocks whose same-numbered transfer it waits for (a list, or
        :class:`Dependencies` for programs of millions of blocks).
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
    deps: Sequence[tuple[int, ...]]
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
