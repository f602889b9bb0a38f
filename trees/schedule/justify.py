"""List schedules of unit transfers over any dependency graph, improved by justification.

A collective whose transfers all take one slot (one chunk over one link) and whose links each
send one transfer a slot is a dependency graph of unit jobs on dedicated machines. An AllReduce
run without its barrier is such a graph that is not a forest: a root's forwards wait for its
reductions, so :mod:`~supermesh.trees.schedule.list_schedule` (one kind of tree transfer) does
not cover it.

:func:`unit_list_schedule` sends, on every link and in every slot, the ready job of lowest rank.
:func:`justified_schedule` improves such a schedule by *forward-backward improvement*
(justification): the schedule is run backwards, every job as late as the ones after it allow and
the latest first, then forwards again ranked by those latest starts, for as long as that
shortens it (Valls, Ballestin and Quintanilla, "Justification and RCPSP: a technique that pays",
EJOR 165, 2005; Tormos and Lova, Annals of OR 102, 2001). The schedule cannot be shorter than
:func:`slot_floor`, the most slots one link needs counting the slots before its first job can
start and after its last can end; on the free-share AllReduce trees of mesh 4x4, 5x5 and 8x8
justification comes within a slot of it (mesh 8x8, 16 chunks a tree: 145 slots in rounds of
one chunk a tree, 105 justified, the floor; mesh 4x4, 64 chunks: 774, 771, floor 770).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.schedule.list_schedule import lowest_bits

__all__ = [
    "UnitSchedule",
    "forward_backward",
    "justified_schedule",
    "slot_floor",
    "unit_list_schedule",
]


@dataclass(frozen=True, eq=False)  # arrays: no element-wise == or hash
class UnitSchedule:
    """A schedule of unit jobs.

    Attributes
    ----------
    slot : numpy.ndarray
        Per job: the slot it is sent in.
    length : int
        Slots until the last job was sent.
    passes : int
        List schedules computed (forward and backward) to find it.
    """

    slot: np.ndarray
    length: int
    passes: int


def _successors(n: int, dep_start: np.ndarray, dep_flat: np.ndarray) -> tuple[np.ndarray, ...]:
    """The graph reversed: per job, the jobs that wait for it, as (start, flat), and ``by``,
    where each reversed dependency sits in ``dep_flat`` (to carry per-dependency values)."""
    owner = np.repeat(np.arange(n), np.diff(dep_start))
    by = np.argsort(dep_flat, kind="stable")
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dep_flat, minlength=n), out=start[1:])
    return start, owner[by], by


def _check(arc: np.ndarray, dep_start: np.ndarray, dep_flat: np.ndarray, rank: np.ndarray) -> None:
    n = len(arc)
    if len(dep_start) != n + 1 or len(rank) != n:
        raise SpecError(
            f"{n} jobs need {n + 1} dependency offsets and {n} ranks, "
            f"not {len(dep_start)} and {len(rank)}"
        )
    if len(dep_flat) and (dep_flat.min() < 0 or dep_flat.max() >= n):
        raise SpecError("a dependency names a job that does not exist")


def unit_list_schedule(
    arc: np.ndarray, dep_start: np.ndarray, dep_flat: np.ndarray, rank: np.ndarray
) -> UnitSchedule:
    """The list schedule of unit jobs: each slot, each link sends its ready job of lowest rank.

    A job is ready the slot after the last job it waits for was sent. Ties of rank go to the
    lower job number.

    Parameters
    ----------
    arc : numpy.ndarray of int
        Per job: its link (``0 .. links - 1``).
    dep_start, dep_flat : numpy.ndarray of int
        The jobs job ``j`` waits for: ``dep_flat[dep_start[j]:dep_start[j + 1]]``.
    rank : numpy.ndarray
        Per job: its priority, lowest first (integer or float).

    Returns
    -------
    UnitSchedule

    Raises
    ------
    SpecError
        The arrays do not describe the same jobs.
    TopologyError
        The dependencies wait on each other (a cycle): some job never becomes ready.

    Examples
    --------
    Two jobs on link 0 and one on link 1 that waits for job 1:

    >>> arc, rank = np.array([0, 0, 1]), np.array([0, 1, 0])
    >>> s = unit_list_schedule(arc, np.array([0, 0, 0, 1]), np.array([1]), rank)
    >>> s.slot.tolist(), s.length
    ([0, 1, 2], 3)
    >>> s = unit_list_schedule(arc, np.array([0, 0, 0, 1]), np.array([1]), -rank)  # 1 first
    >>> s.slot.tolist(), s.length
    ([1, 0, 1], 2)
    """
    arc = np.asarray(arc, dtype=np.int64)
    dep_start = np.asarray(dep_start, dtype=np.int64)
    dep_flat = np.asarray(dep_flat, dtype=np.int64)
    _check(arc, dep_start, dep_flat, np.asarray(rank))
    n = len(arc)
    if n == 0:
        return UnitSchedule(np.zeros(0, dtype=np.int64), 0, 1)
    succ_start, succ, _ = _successors(n, dep_start, dep_flat)
    # each job's successors in a row padded with job n, a sentinel that never becomes ready
    fan = np.diff(succ_start)
    after = np.full((n + 1, max(1, int(fan.max()))), n, dtype=np.int64)
    after[np.repeat(np.arange(n), fan), np.arange(len(succ)) - np.repeat(succ_start[:-1], fan)] = (
        succ
    )
    links = int(arc.max()) + 1
    per_link = np.bincount(arc, minlength=links)
    link_start = np.zeros(links + 1, dtype=np.int64)
    np.cumsum(per_link, out=link_start[1:])
    by_link = np.lexsort((np.arange(n), np.asarray(rank), arc))
    local = np.empty(n, dtype=np.int64)
    local[by_link] = np.arange(n) - link_start[arc[by_link]]
    # a link's waiting jobs are a bit set in rank order: it sends its lowest bit
    width = -(-int(per_link.max()) // 64)
    cell = arc * width + (local >> 6)
    bit = np.left_shift(np.uint64(1), (local & 63).astype(np.uint64))
    words = np.zeros(links * width, dtype=np.uint64)
    table = words.reshape(links, width)
    rows = np.arange(links)
    # the sentinel is decremented by every padded row and must never reach 0
    waiting = np.append(np.diff(dep_start), np.iinfo(np.int64).max)
    slot = np.full(n, -1, dtype=np.int64)
    new = np.flatnonzero(waiting[:n] == 0)
    now = done = 0
    while done < n:
        # a job freed twice in one slot sets its bit twice: no harm
        np.bitwise_or.at(words, cell[new], bit[new])
        busy, first, low, pos = lowest_bits(table, rows)
        if len(busy) == 0:
            raise TopologyError("the dependencies wait on each other: some job never starts")
        job = by_link[link_start[busy] + pos]
        words[busy * width + first] ^= low
        slot[job] = now
        done += len(job)
        freed = after[job].ravel()
        np.subtract.at(waiting, freed, 1)
        new = freed[waiting[freed] == 0]
        now += 1
    return UnitSchedule(slot, now, 1)


def slot_floor(arc: np.ndarray, dep_start: np.ndarray, dep_flat: np.ndarray) -> int:
    """No unit schedule of these jobs is shorter: the most, over links, of the slots before any
    of its jobs can start, its jobs, and the slots its last job leaves for the ones after it.

    Parameters
    ----------
    arc, dep_start, dep_flat : numpy.ndarray of int
        As for :func:`unit_list_schedule`; the jobs must be numbered so that every job comes
        after the jobs it waits for.

    Returns
    -------
    int

    Raises
    ------
    SpecError
        A job waits for a later-numbered one.

    Examples
    --------
    A chain of three jobs over links 0, 1, 0: link 0 needs its two slots and one between them.

    >>> slot_floor(np.array([0, 1, 0]), np.array([0, 0, 1, 2]), np.array([0, 1]))
    3
    """
    arc = np.asarray(arc, dtype=np.int64)
    dep_start = np.asarray(dep_start, dtype=np.int64)
    dep_flat = np.asarray(dep_flat, dtype=np.int64)
    n = len(arc)
    if n == 0:
        return 0
    owner = np.repeat(np.arange(n), np.diff(dep_start))
    if np.any(dep_flat >= owner):
        raise SpecError("jobs must come after the jobs they wait for")
    one = np.ones(len(dep_flat), dtype=np.int64)
    head = _longest(n, owner, dep_flat, one, forward=True)
    tail = _longest(n, owner, dep_flat, one, forward=False)
    links = int(arc.max()) + 1
    big = np.iinfo(np.int64).max
    first = np.full(links, big, dtype=np.int64)
    last = np.full(links, big, dtype=np.int64)
    np.minimum.at(first, arc, head)
    np.minimum.at(last, arc, tail)
    load = np.bincount(arc, minlength=links)
    used = load > 0
    return int((first + load + last)[used].max())


def _longest(
    n: int, owner: np.ndarray, dep: np.ndarray, step: np.ndarray, *, forward: bool
) -> np.ndarray:
    """Per job, the longest chain before it (``forward``) or after it, each dependency ``i``
    (``owner[i]`` waits for ``dep[i]``) adding ``step[i]``: a slot each for unit jobs, a
    transfer time and its delay for :mod:`~supermesh.trees.schedule.timed`."""
    out = np.zeros(n, dtype=step.dtype)
    # relax every dependency until nothing changes: as many rounds as the longest chain
    while True:
        cand = np.zeros(n, dtype=step.dtype)
        if forward:
            np.maximum.at(cand, owner, out[dep] + step)
        else:
            np.maximum.at(cand, dep, out[owner] + step)
        grown = np.maximum(out, cand)
        if np.array_equal(grown, out):
            return out
        out = grown


def justified_schedule(
    arc: np.ndarray,
    dep_start: np.ndarray,
    dep_flat: np.ndarray,
    rank: np.ndarray,
    *,
    passes: int = 8,
    floor: int = 0,
) -> UnitSchedule:
    """:func:`unit_list_schedule` improved by forward-backward justification.

    The schedule is run backwards (the graph reversed, the job that ended last sent first),
    which places every job as late as the jobs after it allow; that one, read in reverse (a
    forward schedule too), forwards again ranked by those latest starts; and so on while each
    pass is shorter than the one before, for at most ``passes`` list schedules or until
    ``floor``. On the free-share AllReduce trees of mesh 4x4 to 8x8, SMBi 4x4 and SMAlter 5x5,
    the first backward pass found all but one slot of the gain, and no pass after an unchanged
    one found any.

    Parameters
    ----------
    arc, dep_start, dep_flat, rank
        As for :func:`unit_list_schedule`.
    passes : int
        At most this many list schedules (the first forward one included).
    floor : int
        Stop once this long (:func:`slot_floor`: nothing is shorter).

    Returns
    -------
    UnitSchedule
        The shortest schedule found, as a forward schedule.

    Raises
    ------
    SpecError
        The arrays do not describe the same jobs.
    TopologyError
        The dependencies wait on each other.

    Examples
    --------
    Link 0 sends job 0 then job 1 (ranked so); job 2 on link 1 waits for job 1 and job 3 on
    link 0 for job 2. Ranked badly it takes 4 slots; justified, job 1 goes first: 3 slots.

    >>> arc = np.array([0, 0, 1, 0])
    >>> dep_start, dep_flat = np.array([0, 0, 0, 1, 2]), np.array([1, 2])
    >>> unit_list_schedule(arc, dep_start, dep_flat, np.arange(4)).length
    4
    >>> justified_schedule(arc, dep_start, dep_flat, np.arange(4)).slot.tolist()
    [1, 0, 1, 2]
    """
    arc = np.asarray(arc, dtype=np.int64)
    dep_start = np.asarray(dep_start, dtype=np.int64)
    dep_flat = np.asarray(dep_flat, dtype=np.int64)
    first = unit_list_schedule(arc, dep_start, dep_flat, rank)
    if len(arc) == 0:
        return first
    succ_start, succ, _ = _successors(len(arc), dep_start, dep_flat)

    def forward(slot: np.ndarray) -> tuple[np.ndarray, float]:
        s = unit_list_schedule(arc, dep_start, dep_flat, slot)
        return s.slot, s.length

    def backward(slot: np.ndarray) -> tuple[np.ndarray, float]:
        back = unit_list_schedule(arc, succ_start, succ, -slot)
        return back.length - 1 - back.slot, back.length

    slot, length, used = forward_backward(
        first.slot, first.length, forward, backward, passes=passes, floor=floor
    )
    return UnitSchedule(slot, int(length), used)


def forward_backward(
    start: np.ndarray,
    length: float,
    forward: Callable[[np.ndarray], tuple[np.ndarray, float]],
    backward: Callable[[np.ndarray], tuple[np.ndarray, float]],
    *,
    passes: int,
    floor: float,
) -> tuple[np.ndarray, float, int]:
    """Justification's passes over a first schedule (its ``start`` times and ``length``).

    ``backward(start)`` schedules the reversed graph, the transfer that ended last first, and
    returns it read forwards (each as late as the ones after it allow); ``forward(start)``
    ranks by ``start`` and schedules forwards again (each as early as it may be). Passes
    alternate, the first backwards, while each is shorter than the best so far, for at most
    ``passes`` schedules in all (the first included) or until ``floor``. Serves
    :func:`justified_schedule` (unit jobs) and
    :func:`~supermesh.trees.schedule.timed.timed_justified_schedule` (transfers of their own
    durations).

    Returns
    -------
    start : numpy.ndarray
        The best schedule's starts.
    length : float
        Its length.
    used : int
        Schedules computed, the first included.

    Examples
    --------
    A pass that never helps: the first schedule stands, after one try.

    >>> same = lambda s: (s, 5.0)
    >>> forward_backward(np.zeros(2), 5.0, same, same, passes=8, floor=0)[1:]
    (5.0, 2)
    """
    best, used, backwards = (start, length), 1, True
    while used < passes and best[1] > floor:
        last = backward(best[0]) if backwards else forward(best[0])
        used += 1
        if last[1] >= best[1]:
            break
        best, backwards = last, not backwards
    return best[0], best[1], used
