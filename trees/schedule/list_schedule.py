"""List schedules of one chunk per tree arc over shared links, and their repair by deadlines.

Time runs in slots of one chunk; each link sends at most one transfer a slot; a transfer is
ready the slot after its data is complete (a broadcast: its parent's transfer was sent; a reduce:
every child's was). :func:`list_schedule` sends, on every link and in every slot, the ready
transfer ranked first, over the flat arrays of :class:`~supermesh.trees.schedule.forest.Forest`
(a link keeps its waiting transfers as a bit set in rank order and sends the lowest bit).

When one round is the whole collective (one chunk per tree) the length of that schedule is the
collective's time, and the rank decides it. :func:`repaired_schedule` ranks by deadline and
moves the deadlines of transfers that came late earlier, round after round: the *squeaky wheel*
of Joslin and Clements ("Squeaky wheel" optimization, JAIR 10, 1999), in the form of the
iterative flattening of job-shop scheduling (Cesta, Oddi and Smith, AAAI 2000): a schedule that
misses a target shows which transfers were late, and they go earlier in the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.schedule.forest import Forest

__all__ = [
    "ListSchedule",
    "lexsort",
    "list_schedule",
    "list_schedules",
    "lowest_bits",
    "repaired_schedule",
    "way_to_go",
]


@dataclass(frozen=True, eq=False)  # arrays: no element-wise == or hash
class ListSchedule:
    """One list schedule.

    Attributes
    ----------
    order : numpy.ndarray
        Per job: its position in its link's FIFO (in the round kept: ``rounds - 2``, or the
        only one).
    length : int
        Slots until the last transfer of every round was sent.
    slot : numpy.ndarray
        Per job: the slot it was sent in (the round kept).
    """

    order: np.ndarray
    length: int
    slot: np.ndarray


def way_to_go(f: Forest, kind: str) -> np.ndarray:
    """Per job: the transfers of its own tree from it on, itself included.

    A broadcast's height below the receiving node plus one, a reduce's depth of the sending
    node: the longest way still to go, by which list schedules rank their jobs.

    Parameters
    ----------
    f : Forest
    kind : {"forward", "reduce"}

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    SpecError
        ``kind`` is neither.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> from supermesh.trees.schedule.forest import forest
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2)])
    >>> way_to_go(f, "forward").tolist(), way_to_go(f, "reduce").tolist()
    ([2, 1], [1, 2])
    """
    if kind not in ("forward", "reduce"):
        raise SpecError(f"kind {kind!r} is not 'forward' or 'reduce'")
    return (f.below + 1 if kind == "forward" else f.depth).astype(np.int64)


def lexsort(keys: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`numpy.lexsort` (the last key first, ties by position), as one sort of codes.

    Each key is replaced by its dense rank and the ranks are packed into one integer per
    element, mixed-radix, most significant first (re-ranked whenever the next key would not fit
    in 62 bits), then the position: the codes are distinct, so one unstable sort of integers
    orders them. With a float key among several it is about ten times as fast as
    :func:`numpy.lexsort`, which sorts once per key (79,200 jobs, five keys: 24 ms against 2).

    Parameters
    ----------
    keys : sequence of numpy.ndarray
        One-dimensional, all of one length; integer, boolean or float (no NaN).

    Returns
    -------
    numpy.ndarray
        The indices that sort them.

    Examples
    --------
    >>> a, b = np.array([1, 0, 1, 0]), np.array([0.5, 0.5, 0.25, 0.5])
    >>> lexsort((a, b)).tolist(), np.lexsort((a, b)).tolist()
    ([2, 1, 3, 0], [2, 1, 3, 0])
    """
    n = len(keys[0]) if len(keys) else 0
    code = np.zeros(n, dtype=np.int64)
    span = 1
    limit = 1 << 62
    for k in reversed(list(keys)):
        k = np.asarray(k)
        if n == 0:
            break
        if k.dtype.kind in "biu":
            low = int(k.min())
            digit, radix = k.astype(np.int64) - low, int(k.max()) - low + 1
        else:
            values, digit = np.unique(k, return_inverse=True)
            radix = len(values)
        if span * radix >= limit:
            values, code = np.unique(code, return_inverse=True)
            span = len(values)
        code = code * radix + digit.reshape(-1)
        span *= radix
    if span * n >= limit:
        code = np.unique(code, return_inverse=True)[1]
    return np.argsort(code * n + np.arange(n))


def lowest_bits(table: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each link's lowest set bit, where a link's waiting transfers are the bits of its row of
    ``table`` (64 a word, lowest first).

    Parameters
    ----------
    table : numpy.ndarray of uint64
        ``links x words``.
    rows : numpy.ndarray
        ``arange(links)``.

    Returns
    -------
    busy, first, low, position : numpy.ndarray
        The links with a bit set, the word holding each one's lowest bit, that bit alone, and
        its position in the row.

    Examples
    --------
    >>> table = np.array([[0, 6], [0, 0], [1, 0]], dtype=np.uint64)  # bits 65 and 66; -; 0
    >>> [x.tolist() for x in lowest_bits(table, np.arange(3))]
    [[0, 2], [1, 0], [2, 1], [65, 0]]
    """
    if table.shape[1] == 1:  # one word a link: no search for the first word that is not 0
        busy = np.flatnonzero(table[:, 0])
        first = np.zeros(len(busy), dtype=np.int64)
        word = table[busy, 0]
    else:
        first = (table != 0).argmax(axis=1)
        word = table[rows, first]
        busy = np.flatnonzero(word)
        word, first = word[busy], first[busy]
    low = word & (~word + np.uint64(1))
    return busy, first, low, first * 64 + np.log2(low.astype(np.float64)).astype(np.int64)


def list_schedule(
    f: Forest, arc: np.ndarray, kind: str, rounds: int, keys: tuple[np.ndarray, ...]
) -> ListSchedule:
    """A list schedule of ``rounds`` rounds, jobs ranked by ``keys``.

    A link serves its rounds in turn (every transfer of round ``c`` before any of ``c + 1``,
    the FIFO discipline between chunks) and within a round sends its best-ranked ready
    transfer.

    Parameters
    ----------
    f : Forest
        The trees; a job is the transfer over one tree arc.
    arc : numpy.ndarray
        Per job: its link (``Forest.arc_ids()[1]``).
    kind : {"forward", "reduce"}
        Down the trees (a broadcast) or up them (a reduce).
    rounds : int
        Chunks per tree scheduled.
    keys : tuple of numpy.ndarray
        The rank, in :func:`numpy.lexsort` order (the last key first).

    Returns
    -------
    ListSchedule

    Raises
    ------
    SpecError
        ``kind`` is neither.
    TopologyError
        The trees' dependencies never let some transfer start.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> from supermesh.trees.schedule.forest import forest
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(1, ((1, 0, 0), (1, 2, 0)), 1)])
    >>> s = list_schedule(f, f.arc_ids()[1], "forward", 1, (f.node, f.tree, -f.below))
    >>> s.order.tolist(), s.slot.tolist(), s.length  # 1->2 sends tree 1 first
    ([0, 1, 0, 0], [0, 1, 0, 0], 2)
    """
    if kind not in ("forward", "reduce"):
        raise SpecError(f"kind {kind!r} is not 'forward' or 'reduce'")
    n = f.jobs
    keep = max(0, rounds - 2)
    n_arcs = int(arc.max()) + 1
    on_arc = np.bincount(arc, minlength=n_arcs)
    arc_start = np.zeros(n_arcs + 1, dtype=np.int64)
    np.cumsum(on_arc, out=arc_start[1:])
    by_arc = lexsort((*keys, arc))  # each arc's jobs in rank order
    job_at = by_arc  # job_at[arc_start[a] + r]: the arc's job of rank r
    local = np.empty(n, dtype=np.int64)
    local[by_arc] = np.arange(n) - arc_start[arc[by_arc]]
    width = -(-int(on_arc.max()) * rounds // 64)
    words = np.zeros(n_arcs * width, dtype=np.uint64)
    rows = np.arange(n_arcs)
    if kind == "forward":
        new_jobs = np.flatnonzero(f.parent < 0)
        remaining = np.zeros(0, dtype=np.int64)
    else:
        fan = np.diff(f.child_start)
        new_jobs = np.flatnonzero(fan == 0)
        remaining = np.tile(fan, rounds)
    new_jobs = np.tile(new_jobs, rounds)
    new_rounds = np.repeat(np.arange(rounds), len(new_jobs) // rounds)
    sent = np.zeros(n_arcs, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    slot = np.zeros(n, dtype=np.int64)
    one = np.uint64(1)
    total = rounds * n
    done = 0
    now = 0
    # one round (no later round waits) and links of at most 64 transfers a round (one word a
    # link) are the common cases, and skip their steps: a slot costs array calls, not elements
    single, narrow = rounds == 1, width == 1
    c = np.zeros(0, dtype=np.int64)
    while done < total:
        a = arc[new_jobs]
        at = local[new_jobs] if single else new_rounds * on_arc[a] + local[new_jobs]
        if narrow:
            np.bitwise_or.at(words, a, np.left_shift(one, at.astype(np.uint64)))
        else:
            np.bitwise_or.at(
                words, a * width + (at >> 6), np.left_shift(one, (at & 63).astype(np.uint64))
            )
        busy, first, low, at = lowest_bits(words.reshape(n_arcs, width), rows)
        if not single:
            c = at // on_arc[busy]
            ok = c == sent[busy] // on_arc[busy]  # an entry of a later round waits
            busy, first, low, c, at = busy[ok], first[ok], low[ok], c[ok], at[ok]
            at = at - c * on_arc[busy]
        if len(busy) == 0:
            raise TopologyError("the trees' dependencies never let some transfer start")
        job = job_at[arc_start[busy] + at]
        words[busy * width + first] ^= low
        if single:
            order[job] = sent[busy]
            slot[job] = now
        else:
            kept = c == keep
            order[job[kept]] = sent[busy[kept]] - keep * on_arc[busy[kept]]
            slot[job[kept]] = now
        sent[busy] += 1
        done += len(busy)
        if kind == "forward":
            new_jobs = f.children_of(job)
            if not single:
                new_rounds = np.repeat(c, f.child_start[job + 1] - f.child_start[job])
        else:
            up = f.parent[job]
            cell = up[up >= 0] if single else (c * n + up)[up >= 0]
            np.subtract.at(remaining, cell, np.ones(len(cell), dtype=remaining.dtype))
            cell = cell[remaining[cell] == 0]
            # a job freed by two children in one slot is taken once (its count is not read again)
            mark = np.arange(1, len(cell) + 1)
            remaining[cell] = mark
            cell = cell[remaining[cell] == mark]
            new_jobs = cell if single else cell % n
            if not single:
                new_rounds = cell // n
        now += 1
    return ListSchedule(order, now, slot)


def list_schedules(
    f: Forest, arc: np.ndarray, kind: str, keys: Sequence[tuple[np.ndarray, ...]]
) -> list[ListSchedule]:
    """One-round list schedules of ``f``, one per rank, computed as one.

    Each is the :func:`list_schedule` of one round ranked by its ``keys``. They are run
    together as one schedule of that many copies of the forest, which share no link: each copy
    is scheduled exactly as it would be alone, and a slot's array operations are paid once for
    all of them (32 random tie-breaks of a 2,400-transfer forest cost about what three
    schedules cost one at a time).

    Parameters
    ----------
    f : Forest
        The trees.
    arc : numpy.ndarray
        Per job: its link (``Forest.arc_ids()[1]``).
    kind : {"forward", "reduce"}
        Down the trees or up them.
    keys : sequence of tuple of numpy.ndarray
        Per schedule, its rank as in :func:`list_schedule`; every tuple has the same number of
        keys.

    Returns
    -------
    list of ListSchedule
        In the order of ``keys``.

    Raises
    ------
    SpecError
        ``kind`` is neither, or the tuples have different numbers of keys.
    TopologyError
        The trees' dependencies never let some transfer start.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> from supermesh.trees.schedule.forest import forest
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(0, ((0, 1, 0),), 1)])
    >>> arc = f.arc_ids()[1]
    >>> good, bad = list_schedules(f, arc, "forward", [(-f.below,), (f.below,)])
    >>> good.length, bad.length  # 0->1 sends the tree with more to go first, or last
    (2, 3)
    """
    if len({len(k) for k in keys}) > 1:
        raise SpecError("every schedule needs the same number of rank keys")
    copies = len(keys)
    if copies == 0:
        return []
    n = f.jobs
    stacked = _copies(f, copies)
    n_arcs = int(arc.max()) + 1 if n else 0
    arcs = (arc[None, :] + n_arcs * np.arange(copies)[:, None]).ravel()
    joined = tuple(np.concatenate(k) for k in zip(*keys, strict=True))
    s = list_schedule(stacked, arcs, kind, 1, joined)
    out = []
    for c in range(copies):
        part = slice(c * n, (c + 1) * n)
        slot = s.slot[part]
        out.append(ListSchedule(s.order[part], int(slot.max(initial=-1)) + 1, slot))
    return out


def _copies(f: Forest, copies: int) -> Forest:
    """``copies`` disjoint copies of ``f`` as one forest (copy ``c``'s jobs offset by ``c n``)."""
    n, t = f.jobs, len(f.roots)
    job_shift = np.repeat(np.arange(copies, dtype=np.int64) * n, n)
    parent = np.tile(f.parent.astype(np.int64), copies)
    parent = np.where(parent >= 0, parent + job_shift, -1)
    kids = len(f.children)
    child_start = np.concatenate(
        [f.child_start[:-1].astype(np.int64) + c * kids for c in range(copies)]
        + [np.array([copies * kids], dtype=np.int64)]
    )
    children = (f.children[None, :] + n * np.arange(copies)[:, None]).ravel()
    tree = (f.tree[None, :] + t * np.arange(copies)[:, None]).ravel()
    start = np.concatenate([f.start[:-1] + c * n for c in range(copies)] + [np.array([copies * n])])
    return Forest(
        roots=np.tile(f.roots, copies),
        tree=tree,
        up=np.tile(f.up, copies),
        node=np.tile(f.node, copies),
        key=np.tile(f.key, copies),
        start=start,
        parent=parent,
        depth=np.tile(f.depth, copies),
        below=np.tile(f.below, copies),
        child_start=child_start,
        children=children,
    )


def repaired_schedule(
    f: Forest, arc: np.ndarray, kind: str, iterations: int, seed: int = 0
) -> ListSchedule:
    """The shortest one-round list schedule found by moving late transfers' deadlines earlier.

    Each job starts with the deadline a schedule of the lower bound's length would give it
    (the slot by which it must go for the way still to go behind it to fit: a broadcast's
    height below the receiving node, a reduce's depth of the sending node), which ranks jobs
    exactly as :func:`~supermesh.trees.schedule.fifo.fifo_order`'s longest way to go first.
    Each iteration list-schedules by deadline (ties at random), and every job sent later than a
    schedule one slot shorter than the best so far allows has its deadline moved one slot
    earlier, and the jobs its data come from no later than one slot before it. It stops at
    ``iterations``, or once the length is the lower bound: the most transfers on one link,
    or the longest chain of one tree.

    Parameters
    ----------
    f : Forest
        The trees.
    arc : numpy.ndarray
        Per job: its link (``Forest.arc_ids()[1]``).
    kind : {"forward", "reduce"}
        Down the trees or up them.
    iterations : int
        List schedules to try (at least one: the first is the longest-way-first rank with
        ties by tree and node, as :func:`~supermesh.trees.schedule.fifo.fifo_order`'s).
    seed : int
        Seed of the random ties.

    Returns
    -------
    ListSchedule
        The shortest schedule found (the first of that length).

    Raises
    ------
    SpecError
        ``kind`` is neither.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> from supermesh.trees.schedule.forest import forest
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(1, ((1, 0, 0), (1, 2, 0)), 1)])
    >>> repaired_schedule(f, f.arc_ids()[1], "forward", 4).length  # two on link 1->2
    2
    """
    behind = way_to_go(f, kind)
    floor = max(int(np.bincount(arc).max()), int(f.depth.max()))
    deadline = -behind.astype(np.float64)
    best = current = list_schedule(f, arc, kind, 1, (f.node, f.tree, deadline))
    rng = np.random.default_rng(seed)
    for _ in range(iterations - 1):
        if best.length <= floor:
            break
        late = np.flatnonzero(current.slot + behind > best.length - 1)
        deadline[late] -= 1.0
        _push_back(f, kind, deadline, late)
        current = list_schedule(f, arc, kind, 1, (f.node, f.tree, rng.random(f.jobs), deadline))
        if current.length < best.length:
            best = current
    return best


def _push_back(f: Forest, kind: str, deadline: np.ndarray, late: np.ndarray) -> None:
    """Move the deadlines of the jobs ``late`` waits on to at least one slot before its own."""
    jobs = late
    for _ in range(int(f.depth.max())):
        if kind == "forward":
            feed = f.parent[jobs]
            ok = feed >= 0
            src, feed = jobs[ok], feed[ok]
        else:
            counts = f.child_start[jobs + 1] - f.child_start[jobs]
            src, feed = np.repeat(jobs, counts), f.children_of(jobs)
        if len(feed) == 0:
            return
        np.minimum.at(deadline, feed, deadline[src] - 1.0)
        jobs = np.unique(feed)
