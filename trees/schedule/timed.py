"""List schedules of transfers of unequal durations, improved by justification.

:mod:`~supermesh.trees.schedule.justify` schedules *unit* transfers: every chunk the same size,
one slot each. A pipeline of equal chunks pays its fill and its drain in whole chunks: the
first chunk crosses a tree's height before the far links have work, the last crosses it after
the near links are done. Chunks that ramp up from one packet and down again at the end
(:func:`~supermesh.sim.chunk_choice.ramped_sizes`) pay both in packets instead, but their
transfers no longer fit slots.

:func:`timed_list_schedule` is the list schedule of such transfers, timed as the simulator
times a FIFO (:mod:`supermesh.sim.program`): a transfer starts once the transfers it waits for
have been delivered plus its ``delay`` and once its link is free plus ``release``; whenever a
link is free it starts its ready transfer of lowest rank. :func:`timed_justified_schedule`
improves it by forward-backward improvement as
:func:`~supermesh.trees.schedule.justify.justified_schedule` does (Valls, Ballestin and
Quintanilla, "Justification and RCPSP: a technique that pays", EJOR 165, 2005), and
:func:`timed_floor` is the bound no order of the transfers beats: for every link, the earliest
any of its transfers can start, all its transfers, and the least time one of them leaves for
the transfers after it.

Measured on the free-share AllReduce trees of mesh 4x4, paper preset, 512 MiB: equal 256 KiB
chunks in one justified order run at 1.0039 of the cut bound; chunks ramping by 0.85 a step
from 4 KiB to 512 KiB, ordered by these schedules, at 1.0007.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.schedule.justify import _longest, _successors, forward_backward

__all__ = ["TimedSchedule", "timed_floor", "timed_justified_schedule", "timed_list_schedule"]


@dataclass(frozen=True, eq=False)  # arrays: no element-wise == or hash
class TimedSchedule:
    """A schedule of transfers with durations.

    Attributes
    ----------
    start : numpy.ndarray
        Per transfer: its start time.
    length : float
        The last delivery.
    passes : int
        List schedules computed (forward and backward) to find it.
    """

    start: np.ndarray
    length: float
    passes: int


def _arrays(
    arc: np.ndarray,
    duration: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    delay: np.ndarray,
) -> tuple[np.ndarray, ...]:
    arc = np.asarray(arc, dtype=np.int64)
    duration = np.asarray(duration, dtype=np.float64)
    dep_start = np.asarray(dep_start, dtype=np.int64)
    dep_flat = np.asarray(dep_flat, dtype=np.int64)
    delay = np.asarray(delay, dtype=np.float64)
    n = len(arc)
    if len(duration) != n or len(delay) != n or len(dep_start) != n + 1:
        raise SpecError(
            f"{n} transfers need {n} durations, {n} delays and {n + 1} dependency offsets, "
            f"not {len(duration)}, {len(delay)} and {len(dep_start)}"
        )
    if len(dep_flat) and (dep_flat.min() < 0 or dep_flat.max() >= n):
        raise SpecError("a dependency names a transfer that does not exist")
    if n and (duration.min() < 0 or delay.min() < 0):
        raise SpecError("durations and delays must not be negative")
    return arc, duration, dep_start, dep_flat, delay


def _schedule(
    arc: np.ndarray,
    duration: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    wait: np.ndarray,
    rank: np.ndarray,
    release: float,
) -> tuple[np.ndarray, float]:
    """The list schedule; ``wait[i]`` is the gap after dependency ``dep_flat[i]``."""
    n = len(arc)
    succ_start, succ, by = _successors(n, dep_start, dep_flat)
    gap = wait[by]  # each reversed dependency keeps its gap
    s_start, s_list, s_gap = succ_start.tolist(), succ.tolist(), gap.tolist()
    missing = np.diff(dep_start).tolist()
    where, took, order = arc.tolist(), duration.tolist(), np.asarray(rank).tolist()
    links = int(arc.max()) + 1
    free = [0.0] * links
    pending = [False] * links  # a look at the link is already queued
    ready: list[list[tuple[float, int]]] = [[] for _ in range(links)]
    at = [0.0] * n
    start = [0.0] * n
    # events: (time, 0, transfer) its data are there; (time, 1, link) the link may start one.
    # At equal times every arrival is seen before any link chooses.
    events = [(0.0, 0, j) for j in range(n) if missing[j] == 0]
    heapq.heapify(events)
    done, end = 0, 0.0
    while events:
        t, kind, x = heapq.heappop(events)
        if kind == 0:
            link = where[x]
            heapq.heappush(ready[link], (order[x], x))
            if not pending[link]:
                pending[link] = True
                heapq.heappush(events, (max(t, free[link]), 1, link))
            continue
        queue = ready[x]
        if not queue:
            pending[x] = False
            continue
        _, j = heapq.heappop(queue)
        start[j] = t
        finish = t + took[j]
        end = max(end, finish)
        free[x] = finish + release
        heapq.heappush(events, (free[x], 1, x))
        done += 1
        for i in range(s_start[j], s_start[j + 1]):
            s = s_list[i]
            at[s] = max(at[s], finish + s_gap[i])
            missing[s] -= 1
            if missing[s] == 0:
                heapq.heappush(events, (at[s], 0, s))
    if done < n:
        raise TopologyError("the dependencies wait on each other: some transfer never starts")
    return np.array(start, dtype=np.float64), end


def timed_list_schedule(
    arc: np.ndarray,
    duration: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    delay: np.ndarray,
    rank: np.ndarray,
    *,
    release: float = 0.0,
) -> TimedSchedule:
    """The list schedule: whenever a link is free, it starts its ready transfer of lowest rank.

    A transfer is ready ``delay`` after the last transfer it waits for was delivered; a link is
    free ``release`` after its last delivery (the simulator's FIFO timing,
    :mod:`supermesh.sim.program`). Ties of rank go to the lower transfer number.

    Parameters
    ----------
    arc : numpy.ndarray of int
        Per transfer: its link (``0 .. links - 1``).
    duration : numpy.ndarray of float
        Per transfer: start to delivery.
    dep_start, dep_flat : numpy.ndarray of int
        The transfers transfer ``j`` waits for: ``dep_flat[dep_start[j]:dep_start[j + 1]]``.
    delay : numpy.ndarray of float
        Per transfer: the gap after its last dependency's delivery.
    rank : numpy.ndarray
        Per transfer: its priority, lowest first.
    release : float
        Gap between a delivery and the next start on the same link.

    Returns
    -------
    TimedSchedule

    Raises
    ------
    SpecError
        The arrays do not describe the same transfers, or a duration or delay is negative.
    TopologyError
        The dependencies wait on each other (a cycle).

    Examples
    --------
    A long transfer and a short one on link 0; transfer 2 on link 1 waits for the short one:

    >>> arc, dur = np.array([0, 0, 1]), np.array([3.0, 1.0, 2.0])
    >>> deps = np.array([0, 0, 0, 1]), np.array([1])
    >>> s = timed_list_schedule(arc, dur, *deps, np.zeros(3), np.array([0, 1, 0]))
    >>> s.start.tolist(), s.length
    ([0.0, 3.0, 4.0], 6.0)
    >>> timed_list_schedule(arc, dur, *deps, np.zeros(3), np.array([1, 0, 0])).length
    4.0
    """
    arc, duration, dep_start, dep_flat, delay = _arrays(arc, duration, dep_start, dep_flat, delay)
    if len(rank) != len(arc):
        raise SpecError(f"{len(arc)} transfers need {len(arc)} ranks, not {len(rank)}")
    if len(arc) == 0:
        return TimedSchedule(np.zeros(0), 0.0, 1)
    owner = np.repeat(np.arange(len(arc)), np.diff(dep_start))
    start, end = _schedule(arc, duration, dep_start, dep_flat, delay[owner], rank, release)
    return TimedSchedule(start, end, 1)


def timed_justified_schedule(
    arc: np.ndarray,
    duration: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    delay: np.ndarray,
    rank: np.ndarray,
    *,
    release: float = 0.0,
    passes: int = 8,
    floor: float = 0.0,
) -> TimedSchedule:
    """:func:`timed_list_schedule` improved by forward-backward justification.

    The schedule is run backwards (the graph reversed, each gap kept on its dependency, the
    transfer that ended last sent first), which places every transfer as late as the ones
    after it allow; that one read in reverse is ranked by its starts and scheduled forwards
    again; and so on while each pass is shorter, for at most ``passes`` list schedules or
    until ``floor``. On the ramped free-share AllReduce trees of mesh 4x4 to 8x8 the passes
    stop after three to five.

    Parameters
    ----------
    arc, duration, dep_start, dep_flat, delay, rank, release
        As for :func:`timed_list_schedule`.
    passes : int
        At most this many list schedules (the first forward one included).
    floor : float
        Stop once this short (:func:`timed_floor`).

    Returns
    -------
    TimedSchedule
        The shortest schedule found, as a forward schedule.

    Raises
    ------
    SpecError
        The arrays do not describe the same transfers.
    TopologyError
        The dependencies wait on each other.

    Examples
    --------
    Link 0 sends a long transfer 0 and a short transfer 1; transfer 2 on link 1 waits for 1.
    Ranked 0 first it takes 6; justified, 1 goes first: 4.

    >>> arc, dur = np.array([0, 0, 1]), np.array([3.0, 1.0, 2.0])
    >>> deps = np.array([0, 0, 0, 1]), np.array([1])
    >>> s = timed_justified_schedule(arc, dur, *deps, np.zeros(3), np.arange(3))
    >>> s.start.tolist(), s.length  # the backward pass, read forwards
    ([1.0, 0.0, 2.0], 4.0)
    """
    arc, duration, dep_start, dep_flat, delay = _arrays(arc, duration, dep_start, dep_flat, delay)
    first = timed_list_schedule(arc, duration, dep_start, dep_flat, delay, rank, release=release)
    n = len(arc)
    if n == 0:
        return first
    wait = delay[np.repeat(np.arange(n), np.diff(dep_start))]
    back_start, back_flat, _ = _successors(n, dep_start, dep_flat)
    # a reversed dependency keeps the gap of the transfer that waited: its delay
    back_wait = delay[back_flat]

    def forward(start: np.ndarray) -> tuple[np.ndarray, float]:
        return _schedule(arc, duration, dep_start, dep_flat, wait, start, release)

    def backward(start: np.ndarray) -> tuple[np.ndarray, float]:
        b, length = _schedule(
            arc, duration, back_start, back_flat, back_wait, -(start + duration), release
        )
        return length - b - duration, length

    start, length, used = forward_backward(
        first.start, first.length, forward, backward, passes=passes, floor=floor
    )
    return TimedSchedule(start, length, used)


def timed_floor(
    arc: np.ndarray,
    duration: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    delay: np.ndarray,
    *,
    release: float = 0.0,
) -> float:
    """No schedule of these transfers is shorter: the most, over links, of the earliest any of
    its transfers can start, its transfers back to back, and the least time one of them leaves
    for the chain of transfers after it.

    Parameters
    ----------
    arc, duration, dep_start, dep_flat, delay, release
        As for :func:`timed_list_schedule`; the transfers must be numbered so that every one
        comes after the transfers it waits for.

    Returns
    -------
    float

    Raises
    ------
    SpecError
        A transfer waits for a later-numbered one, or the arrays disagree.

    Examples
    --------
    A chain of three transfers over links 0, 1, 0: link 1 waits 1 for the first, sends for 2
    and leaves 1 for the last.

    >>> timed_floor(np.array([0, 1, 0]), np.array([1.0, 2.0, 1.0]), np.array([0, 0, 1, 2]),
    ...             np.array([0, 1]), np.zeros(3))
    4.0
    """
    arc, duration, dep_start, dep_flat, delay = _arrays(arc, duration, dep_start, dep_flat, delay)
    n = len(arc)
    if n == 0:
        return 0.0
    owner = np.repeat(np.arange(n), np.diff(dep_start))
    if np.any(dep_flat >= owner):
        raise SpecError("transfers must come after the transfers they wait for")
    step = duration[dep_flat] + delay[owner]  # from a dependency's start to its waiter's
    head = _longest(n, owner, dep_flat, step, forward=True)
    tail = _longest(n, owner, dep_flat, duration[owner] + delay[owner], forward=False)
    links = int(arc.max()) + 1
    first = np.full(links, np.inf)
    last = np.full(links, np.inf)
    np.minimum.at(first, arc, head)
    np.minimum.at(last, arc, tail)
    busy = np.bincount(arc, weights=duration + release, minlength=links) - release
    used = np.bincount(arc, minlength=links) > 0
    return float((first + busy + last)[used].max())
