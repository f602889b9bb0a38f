"""Running a program on the fast engine: phase after phase, each phase group by group.

:func:`run_program` starts each phase when the one before is done (or at the start it states) and
reports a :class:`PhaseTiming` per phase and the end of the run (:class:`Timing`). Inside a phase,
:class:`PhaseRun` holds what the group solvers share (the arc free times, what every block
delivered) and hands each group, in FIFO order, to the first solver that takes it:
:func:`~supermesh.sim.engine.levels.solve_levels` for arc-disjoint trees of equal chunk counts,
else :func:`~supermesh.sim.engine.sequential.solve_periodic`, else
:func:`~supermesh.sim.engine.sequential.solve_general`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from supermesh.sim.engine.frontier import solve_frontier
from supermesh.sim.engine.levels import fits_levels, solve_levels
from supermesh.sim.engine.samples import Samples
from supermesh.sim.engine.sequential import solve_general, solve_periodic
from supermesh.sim.program import Dependencies, Phase, Program

__all__ = ["PERIODIC_FROM", "PERIODIC_PROBE", "PhaseRun", "PhaseTiming", "Timing", "run_program"]

_SAMPLES = 64  # start times kept per block for time series
PERIODIC_FROM = 1 << 22
"""Transfers in a tree group above which the periodic path is tried first."""
PERIODIC_PROBE = 4096
"""Chunks the periodic path computes one by one looking for the repetition before giving up."""


@dataclass
class PhaseTiming:
    """What the engine reports for one phase.

    Attributes
    ----------
    start, done, last_finish : float
        Phase start, phase done (after its final delay), last delivery.
    first_start, last_finish_block : numpy.ndarray
        Per block: first start and last delivery.
    samples : Samples
        Per block: sampled start times and the busy time each sample stands for
        (``samples[b]``; :meth:`Samples.points` gives them all at once).
    starts : list of numpy.ndarray or None
        Per block: every start time (only when asked for).
    """

    start: float
    done: float
    last_finish: float
    first_start: np.ndarray
    last_finish_block: np.ndarray
    samples: Samples = field(default_factory=lambda: Samples(0))
    starts: list[np.ndarray] | None = None


@dataclass
class Timing:
    """Engine output for a whole program: phase timings and the end of the run."""

    end: float
    phases: list[PhaseTiming]


class PhaseRun:
    """One phase while its groups are solved: the state the group solvers read and update.

    Parameters
    ----------
    phase : Phase
    n_arcs : int
        Number of arcs of the program.
    t0 : float
        When the phase starts.
    release : float
        The gap between two transfers on one arc.
    keep : bool
        Keep every start time (else only samples).

    Attributes
    ----------
    p : Phase
    t0, rel : float
        Phase start and release gap.
    avail : numpy.ndarray
        Per arc: when it is free for the next transfer.
    finish : list of numpy.ndarray or None
        Per block: its delivery times, kept only for blocks some other group waits for.
    first, last : numpy.ndarray
        Per block: first start and last delivery.
    samples : Samples
        Per block: sampled start times with the busy time each stands for.
    starts : list
        Per block: every start time (only when asked for).
    dep_start, dep_flat : numpy.ndarray
        The dependencies as arrays: block ``b`` waits for
        ``dep_flat[dep_start[b]:dep_start[b + 1]]``.
    """

    def __init__(self, phase: Phase, n_arcs: int, t0: float, release: float, keep: bool):
        self.p = phase
        self.t0 = t0
        self.rel = release
        self.avail = np.full(n_arcs, t0, dtype=np.float64)
        nb = phase.size
        self.finish: list[np.ndarray | None] = [None] * nb
        self.first = np.full(nb, np.nan)
        self.last = np.full(nb, np.nan)
        self.samples = Samples(nb)
        self.keep = keep
        self.starts: list[np.ndarray] = [np.empty(0)] * nb
        if isinstance(phase.deps, Dependencies):
            self.dep_start, self.dep_flat = phase.deps.start, phase.deps.flat
            sizes = np.diff(self.dep_start)
        else:
            sizes = np.fromiter(map(len, phase.deps), dtype=np.int64, count=nb)
            self.dep_start = np.zeros(nb + 1, dtype=np.int64)
            np.cumsum(sizes, out=self.dep_start[1:])
            count = int(self.dep_start[-1])
            chain = itertools.chain.from_iterable(phase.deps)
            self.dep_flat = np.fromiter(chain, dtype=np.int64, count=count)
        # blocks some block of another group waits for: their delivery vectors are kept
        owner = np.repeat(np.arange(nb), sizes)
        other = phase.group[self.dep_flat] != phase.group[owner]
        self.needed = set(np.unique(self.dep_flat[other]).tolist())

    def record(self, b: int, s: np.ndarray, f: np.ndarray) -> None:
        """Store block ``b``'s start times ``s`` and delivery times ``f`` (one per chunk)."""
        if b in self.needed:
            self.finish[b] = f
        self.first[b] = s[0]
        self.last[b] = f[-1]
        stride = max(1, len(s) // _SAMPLES)
        self.samples.put(b, s[::stride].copy(), float(self.p.duration[b]) * stride)
        if self.keep:
            self.starts[b] = s.copy()

    def record_many(
        self,
        blocks: np.ndarray,
        begin: np.ndarray,
        counts: np.ndarray,
        s: np.ndarray,
        f: np.ndarray,
    ) -> None:
        """Store many blocks at once: block ``blocks[i]`` has the ``counts[i]`` (at least one)
        start times ``s`` and delivery times ``f`` from ``begin[i]`` on, one per chunk."""
        self.first[blocks] = s[begin]
        self.last[blocks] = f[begin + counts - 1]
        for i in np.flatnonzero(np.isin(blocks, list(self.needed))).tolist():
            self.finish[int(blocks[i])] = f[begin[i] : begin[i] + counts[i]].copy()
        stride = np.maximum(1, counts // _SAMPLES)
        kept = -(-counts // stride)  # samples per block: chunks 0, stride, 2 stride, ...
        rank = np.arange(int(kept.sum())) - np.repeat(np.cumsum(kept) - kept, kept)
        times = s[np.repeat(begin, kept) + rank * np.repeat(stride, kept)]
        self.samples.put_many(blocks, kept, times, self.p.duration[blocks] * stride)
        if self.keep:
            for i, b in enumerate(blocks.tolist()):
                self.starts[b] = s[begin[i] : begin[i] + counts[i]].copy()

    def needs_vectors(self, b: int) -> bool:
        """Whether block ``b``'s every time must be kept (another group waits, or asked for)."""
        return self.keep or b in self.needed

    def record_summary(
        self, blocks: np.ndarray, n: int, at: Callable[[np.ndarray], np.ndarray]
    ) -> None:
        """Record ``blocks`` of ``n`` chunks each from ``at`` (chunk indices -> start times,
        one row per block) alone.

        What :meth:`record` keeps of blocks that no other group waits for, without their ``n``
        times in memory: a periodic group of any length costs its samples only.
        """
        stride = max(1, n // _SAMPLES)
        idx = np.arange(0, n, stride)
        ends = at(np.array([0, n - 1]))
        dur = self.p.duration[blocks].astype(np.float64)
        self.first[blocks] = ends[:, 0]
        self.last[blocks] = ends[:, 1] + dur
        kept = np.full(len(blocks), len(idx), dtype=np.int64)
        self.samples.put_many(blocks, kept, at(idx).ravel(), dur * stride)

    def run(self) -> None:
        """Solve every group of the phase in FIFO order.

        Raises
        ------
        DeadlockError
            If some transfer can never start.
        """
        p = self.p
        if p.size == 0:
            return
        bounds = np.flatnonzero(np.diff(p.group)) + 1
        edges = [0, *bounds.tolist(), p.size]
        for lo, hi in itertools.pairwise(edges):
            if fits_levels(self, lo, hi):
                # a long pipeline: its times repeat once it fills, so try the periodic path,
                # which then costs the fill; the level path holds blocks x chunks of times
                large = int(p.count[lo:hi].sum()) > PERIODIC_FROM
                if not (large and solve_periodic(self, lo, hi, probe=PERIODIC_PROBE)):
                    solve_levels(self, lo, hi)
            elif not solve_periodic(self, lo, hi) and not solve_frontier(self, lo, hi):
                solve_general(self, lo, hi)


def run_program(program: Program, *, keep_starts: bool = False) -> Timing:
    """Exact start and delivery times of every transfer of ``program``.

    Parameters
    ----------
    program : Program
    keep_starts : bool
        Keep every start time (memory: one float per transfer); otherwise only 64 samples per
        block are kept for time series.

    Returns
    -------
    Timing

    Raises
    ------
    DeadlockError
        If some transfer can never start.

    Examples
    --------
    >>> from supermesh.sim.program import PhaseBuilder, Program
    >>> idx = {}
    >>> pb = PhaseBuilder(idx)
    >>> a = pb.add((0, 1, 0), count=3, duration=10.0, payload=1)
    >>> b = pb.add((1, 2, 0), count=3, duration=10.0, payload=1, deps=[a], delay=1.0)
    >>> run_program(Program(list(idx), [pb.build(start=0.0)], release=1.0)).end
    43.0
    """
    n_arcs = len(program.arcs)
    phases: list[PhaseTiming] = []
    t = 0.0
    last = 0.0
    for i, phase in enumerate(program.phases):
        t0 = float(phase.start) if phase.start is not None else t + program.barrier if i else 0.0
        run = PhaseRun(phase, n_arcs, t0, program.release, keep_starts)
        run.run()
        if phase.size and phase.transfers:
            last = float(np.nanmax(run.last))
            done = last + phase.final_delay
        else:
            last, done = t0, t0
        phases.append(
            PhaseTiming(
                start=t0,
                done=done,
                last_finish=last,
                first_start=run.first,
                last_finish_block=run.last,
                samples=run.samples,
                starts=run.starts if keep_starts else None,
            )
        )
        t = done
    end = max(last + program.drain, t) if program.phases else 0.0
    return Timing(end=end, phases=phases)
