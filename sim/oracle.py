"""A plain event simulation of a :class:`~supermesh.sim.program.Program`: the test oracle.

Obviously correct and slow: every transfer is an object in a heap-ordered event loop. An arc starts
its FIFO head as soon as the arc is free and the head's data are there; a delivery frees the arc
(``release`` later) and may make other transfers ready. :mod:`supermesh.sim.engine` must give the
same times on every program (the tests check it), with any per-block durations: a program timed
for its arcs' bandwidths and latencies (:func:`supermesh.sim.link_costs.apply_link_costs`) runs
here unchanged.

Finite buffers (``buffers=b``; the engine has none)
    The receiver of each arc has ``b`` chunk slots, taken in the arc's service order: the
    transfer ``k`` places down an arc's FIFO reuses the slot of the transfer ``k - b`` places down,
    so it may start only once that one has been *consumed*: every dependent transfer of the same
    stage (see :mod:`supermesh.sim.program`) has started, i.e. the chunk has been forwarded; a
    chunk nobody of its stage depends on (delivered to its destination, or only read by a barrier
    or a later stage) frees its slot on delivery. The sender takes the slot before it starts. This
    is the buffer model of :mod:`supermesh.verify.deadlock.fifo` (single-hop transfers), so a
    schedule :func:`~supermesh.verify.check_deadlock` calls deadlock-free with ``b`` slots finishes
    here, and a cycle it reports makes this loop stop with
    :class:`~supermesh.sim.program.DeadlockError`. More slots never make a transfer start later: the
    slot wait of ``b + 1`` slots is implied by the FIFO and slot waits of ``b`` slots, and every
    start time is a max-plus (monotone) function of the waits.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from supermesh.errors import SupermeshError
from supermesh.sim.program import DeadlockError, Phase, Program
from supermesh.topologies.model import Arc

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


def _label(phase_no: int, b: int, c: int, arcs: list[Arc], phase: Phase) -> str:
    u, v, k = arcs[int(phase.arc[b])]
    return f"phase {phase_no} block {b} chunk {c} on {u}->{v}#{k}"


def _run_phase(
    phase: Phase,
    release: float,
    t0: float,
    buffers: int | None = None,
    arcs: list[Arc] | None = None,
    phase_no: int = 0,
) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    nb = phase.size
    starts = [np.full(int(phase.count[b]), np.nan) for b in range(nb)]
    finish = [np.full(int(phase.count[b]), np.nan) for b in range(nb)]
    stage = phase.stage if phase.stage is not None else np.zeros(nb, dtype=np.int64)
    # FIFO of each arc: (group, chunk, block position)
    order = sorted(
        ((int(phase.group[b]), c, b) for b in range(nb) for c in range(int(phase.count[b]))),
    )
    queues: dict[int, deque[tuple[int, int]]] = {}
    fifo: dict[int, list[tuple[int, int]]] = {}  # the full service order (for buffer slots)
    place: dict[tuple[int, int], int] = {}  # position of a transfer in its arc's service order
    for _, c, b in order:
        arc = int(phase.arc[b])
        queues.setdefault(arc, deque()).append((b, c))
        place[(b, c)] = len(fifo.setdefault(arc, []))
        fifo[arc].append((b, c))
    dependents: dict[tuple[int, int], list[tuple[int, int]]] = {}
    remaining: dict[tuple[int, int], int] = {}
    ready: dict[tuple[int, int], float] = {}
    holders: dict[tuple[int, int], int] = {}  # same-stage dependents yet to start (slot held)
    for b in range(nb):
        for c in range(int(phase.count[b])):
            remaining[(b, c)] = len(phase.deps[b])
            ready[(b, c)] = t0
            holders.setdefault((b, c), 0)
            for d in phase.deps[b]:
                if c >= int(phase.count[d]):
                    raise DeadlockError(f"block {b} waits for chunk {c} that block {d} never sends")
                dependents.setdefault((d, c), []).append((b, c))
                if stage[d] == stage[b]:
                    holders[(d, c)] = holders.get((d, c), 0) + 1
    freed: dict[tuple[int, int], float] = {}  # when a transfer's receive slot became free
    avail = dict.fromkeys(queues, t0)
    busy = dict.fromkeys(queues, False)
    events: list[tuple[float, int, str, int, int]] = []
    seq = 0

    def push(time: float, kind: str, x: int, y: int = 0) -> None:
        nonlocal seq
        heapq.heappush(events, (time, seq, kind, x, y))
        seq += 1

    def slot_holder(head: tuple[int, int], arc: int) -> tuple[int, int] | None:
        """The transfer whose slot ``head`` reuses (``buffers`` places earlier), if any."""
        if buffers is None or place[head] < buffers:
            return None
        return fifo[arc][place[head] - buffers]

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
            if holders[(b, c)] == 0:
                freed[(b, c)] = now  # nobody forwards it: the slot frees on arrival
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
        held = slot_holder(head, arc)
        if held is not None:
            if held not in freed:
                continue  # the start of the holder's last consumer will try again
            when = max(when, freed[held])
        if when > now:
            push(when, "try", arc)
            continue
        b, c = head
        busy[arc] = True
        starts[b][c] = now
        push(now + float(phase.duration[b]), "deliver", b, c)
        if buffers is not None:
            for d in phase.deps[b]:
                if stage[d] == stage[b]:
                    holders[(d, c)] -= 1
                    if holders[(d, c)] == 0:
                        freed[(d, c)] = now
                        push(now, "try", int(phase.arc[d]))
    total = sum(len(s) for s in starts)
    if done != total:
        stuck = [(phase_no, q[0][0], q[0][1]) for q in queues.values() if q]
        names = ", ".join(
            _label(phase_no, b, c, arcs, phase) if arcs else f"block {b} chunk {c}"
            for _, b, c in stuck[:6]
        )
        more = ", ..." if len(stuck) > 6 else ""
        raise DeadlockError(
            f"{total - done} transfers never start: the FIFO order"
            + (" and" if buffers is None else ",")
            + " the dependencies"
            + ("" if buffers is None else f" and {buffers} buffer slot(s) per arc")
            + f" wait on each other; stuck at the head of their FIFOs: {names}{more}",
            hint="order each link's transfers so that no transfer waits behind one it feeds"
            + ("" if buffers is None else ", or give the links more buffer slots"),
            stuck=stuck,
        )
    return starts, finish, last


def simulate_events(program: Program, *, buffers: int | None = None) -> OracleTiming:
    """Run ``program`` transfer by transfer in an event loop.

    Parameters
    ----------
    program : Program
    buffers : int or None
        Chunk slots at the receiver of every arc (see the module docstring); ``None`` (default):
        unbounded, the timing :func:`supermesh.sim.engine.timing.run_program` computes.

    Returns
    -------
    OracleTiming

    Raises
    ------
    DeadlockError
        If some transfer can never start (data, FIFO and buffer waits form a cycle); its
        ``stuck`` attribute lists the ``(phase, block, chunk)`` at the head of each blocked FIFO,
        and the message names them with their arcs.
    SupermeshError
        If ``buffers`` is not a positive integer or None.

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
    >>> simulate_events(prog, buffers=1).end  # chunk k+1 reaches node 1 after chunk k left it
    43.0
    """
    if buffers is not None and (
        isinstance(buffers, bool) or not isinstance(buffers, int) or buffers < 1
    ):
        raise SupermeshError(
            f"buffers={buffers!r} is not a positive integer or None",
            hint="give the chunk slots per arc receiver, e.g. buffers=1 (store and forward)",
        )
    out = OracleTiming()
    t = 0.0
    last = 0.0
    for i, phase in enumerate(program.phases):
        t0 = float(phase.start) if phase.start is not None else t + program.barrier if i else 0.0
        starts, finish, last = _run_phase(phase, program.release, t0, buffers, program.arcs, i)
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
