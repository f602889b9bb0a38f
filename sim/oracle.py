"""A plain event simulation of a :class:`~supermesh.sim.program.Program`: the test oracle.

Obviously correct and slow: every transfer is an object in a heap-ordered event loop. An arc starts
its FIFO head as soon as the arc is free and the head's data are there; a delivery frees the arc
(``release`` later) and may make other transfers ready. :mod:`supermesh.sim.engine` must give the
same times on every program (the tests check it).
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from supermesh.sim.program import DeadlockError, Phase, Program

__all__ = ["OracleTiming", "simulate_events"]


class OracleTiming:
    """Start and delivery time of every transfer, and the phase and run end times.

    Attributes
    ----------
    start, finish : list of list of numpy.ndarray
        ``start[p][b][c]``: start of transfer ``c`` of block ``b`` in phase ``p``.
    phase_start, phase_done : list of float
    end : float
    """

    def __init__(self) -> None:
        self.start: list[list[np.ndarray]] = []
        self.finish: list[list[np.ndarray]] = []
        self.phase_start: list[float] = []
        self.phase_done: list[float] = []
        self.end = 0.0


def _run_phase(
    phase: Phase, release: float, t0: float
) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    nb = phase.size
    starts = [np.full(int(phase.count[b]), np.nan) for b in range(nb)]
    finish = [np.full(int(phase.count[b]), np.nan) for b in range(nb)]
    # FIFO of each arc: (group, chunk, block position)
    order = sorted(
        ((int(phase.group[b]), c, b) for b in range(nb) for c in range(int(phase.count[b]))),
    )
    queues: dict[int, deque[tuple[int, int]]] = {}
    for _, c, b in order:
        queues.setdefault(int(phase.arc[b]), deque()).append((b, c))
    dependents: dict[tuple[int, int], list[tuple[int, int]]] = {}
    remaining: dict[tuple[int, int], int] = {}
    ready: dict[tuple[int, int], float] = {}
    for b in range(nb):
        for c in range(int(phase.count[b])):
            remaining[(b, c)] = len(phase.deps[b])
            ready[(b, c)] = t0
            for d in phase.deps[b]:
                if c >= int(phase.count[d]):
                    raise DeadlockError(f"block {b} waits for chunk {c} that block {d} never sends")
                dependents.setdefault((d, c), []).append((b, c))
    avail = dict.fromkeys(queues, t0)
    busy = dict.fromkeys(queues, False)
    events: list[tuple[float, int, str, int, int]] = []
    seq = 0

    def push(time: float, kind: str, x: int, y: int = 0) -> None:
        nonlocal seq
        heapq.heappush(events, (time, seq, kind, x, y))
        seq += 1

    for arc in queues:
        push(t0, "try", arc)
    done = 0
    last = t0
    while events:
        now, _, kind, x, y = heapq.heappop(events)
        if kind == "deliver":
            b, c = x, y
            finish[b][c] = now
            last = max(last, now)
            done += 1
            arc = int(phase.arc[b])
            busy[arc] = False
            queues[arc].popleft()
            avail[arc] = now + release
            push(avail[arc], "try", arc)
            for g in dependents.get((b, c), ()):
                remaining[g] -= 1
                ready[g] = max(ready[g], now + float(phase.delay[g[0]]))
                if remaining[g] == 0:
                    push(ready[g], "try", int(phase.arc[g[0]]))
            continue
        arc = x
        if busy[arc] or not queues[arc]:
            continue
        head = queues[arc][0]
        if remaining[head] > 0:
            continue  # its last dependency's delivery will try again
        when = max(avail[arc], ready[head])
        if when > now:
            push(when, "try", arc)
            continue
        b, c = head
        busy[arc] = True
        starts[b][c] = now
        push(now + float(phase.duration[b]), "deliver", b, c)
    if done != sum(len(s) for s in starts):
        raise DeadlockError(
            f"{sum(len(s) for s in starts) - done} transfers never start: the FIFO order and the "
            "dependencies wait on each other",
            hint="order each link's transfers so that no transfer waits behind one it feeds",
        )
    return starts, finish, last


def simulate_events(program: Program) -> OracleTiming:
    """Run ``program`` transfer by transfer in an event loop.

    Parameters
    ----------
    program : Program

    Returns
    -------
    OracleTiming

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
    >>> prog = Program(list(idx), [pb.build(start=0.0)], release=1.0)
    >>> simulate_events(prog).end  # third chunk: first hop 22-32, second hop 33-43
    43.0
    """
    out = OracleTiming()
    t = 0.0
    last = 0.0
    for i, phase in enumerate(program.phases):
        t0 = float(phase.start) if phase.start is not None else t + program.barrier if i else 0.0
        starts, finish, last = _run_phase(phase, program.release, t0)
        if phase.size and phase.transfers:
            done = last + phase.final_delay
        else:
            last, done = t0, t0
        out.start.append(starts)
        out.finish.append(finish)
        out.phase_start.append(t0)
        out.phase_done.append(done)
        t = done
    out.end = max(last + program.drain, t) if program.phases else 0.0
    return out
