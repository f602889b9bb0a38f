"""The FIFO order of each link when many trees share it, from a list schedule.

All the trees of a throughput packing (:mod:`supermesh.trees.throughput.pack`) run at once, so many
trees share each link. In the reference discipline (BRIEF section 4) a link serves its FIFO
strictly in order, chunk by chunk, and within a chunk in a fixed order: a transfer whose data has
not arrived holds up every transfer behind it. With one tree per link the order is harmless; with
dozens of trees per link the reference's depth order makes links wait on each other (an 8x8
SuperMesh packing at the optimal rate then runs about 20% below it).

A schedule is free to choose the FIFO order of its links (the ``step`` of a schedule table).
:func:`fifo_slots` chooses it by list scheduling rounds of one chunk of every tree: every link
sends one chunk per slot, a transfer is ready once its data is there (AllGather: the parent sent
it; ReduceScatter: every child did), and among ready transfers a link takes the one with the
longest way still to go (the height below it for AllGather, its depth for ReduceScatter). Each
link then serves every chunk in the order of those slots. The schedule tables
(:func:`supermesh.trees.schedule.build.build_schedule`) and the simulator
(:func:`supermesh.sim.packing.packing_program`) both use it.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.oriented import OrientedTree

__all__ = [
    "FIFO_ROUNDS",
    "FIFO_WORK",
    "STREAMS_PER_TREE",
    "Job",
    "fifo_slots",
    "stream_counts",
    "streamed",
]

Job = tuple[int, int]  # (tree index, node whose parent arc carries the transfer)
# rounds list-scheduled to find a steady-state order; schedules and the simulator use the same
FIFO_ROUNDS = 10
FIFO_WORK = 300_000
"""Transfers times rounds a list schedule may take: big packings get fewer rounds (at least 3,
whose middle one is already the steady state; an SMBi 8x8 packing runs equally fast with 3 or
10), so that a 16x16 packing's order costs seconds, not a minute."""
STREAMS_PER_TREE = 8
"""At most this many streams per tree on average (:func:`stream_counts`)."""


def stream_counts(chunks: Sequence[int]) -> list[list[int]]:
    """Split trees' chunk counts into streams of (nearly) one common length.

    A link serves its FIFO chunk by chunk: chunk ``c`` of every tree on it before chunk
    ``c + 1`` of any, so trees advance at one chunk per round whatever their shares. A tree that
    carries twice the chunks of another then runs alone for the second half of the collective,
    and links whose load was balanced over the whole run are not balanced over each half (the
    exact-share packing of a 4x4 mesh runs 8% above the bound that way, the same trees in
    equal parts 0.04% above the chunk-level bound). Cutting every tree into streams of one
    length ``L`` (a stream is the tree again, carrying consecutive chunks of its range) gives
    every stream the same chunk count, so each round a link sends each tree's chunks in
    proportion to its share, the rate the packing was built for.

    ``L`` is chosen so that the streams come out as equal as possible: the smallest tree is cut
    into ``m = 1, 2, ...`` streams (``L`` its count over ``m``), every tree of ``C`` chunks into
    ``max(1, round(C / L))`` streams whose counts differ by at most one, and the ``m`` whose
    longest stream is the least longer than its shortest is kept, among those with at most
    :data:`STREAMS_PER_TREE` streams per tree on average (ties: fewer streams). Where even the
    smallest tree as one stream needs more (shares far apart), ``L`` is the total over that
    budget and the small trees keep one shorter stream each.

    Parameters
    ----------
    chunks : sequence of int
        Chunks per tree (at least 1 each).

    Returns
    -------
    list of list of int
        Per tree, the chunk count of each of its streams (they add up to the tree's count).

    Examples
    --------
    >>> stream_counts([2731, 1366, 1365])  # share 1 against shares 1/2: two streams and one
    [[1366, 1365], [1366], [1365]]
    >>> stream_counts([5, 5, 5])
    [[5], [5], [5]]
    """
    if not chunks:
        return []
    budget = STREAMS_PER_TREE * len(chunks)
    smallest = min(chunks)
    # a stream no shorter than this keeps the total within the budget even after rounding
    shortest_length = sum(chunks) / (budget - len(chunks))
    lengths = [smallest / m for m in range(1, smallest + 1) if smallest / m >= shortest_length]
    best: tuple[float, list[list[int]]] | None = None
    for length in lengths or [shortest_length]:
        split = [_even(c, max(1, round(c / length))) for c in chunks]
        if sum(len(x) for x in split) > budget:
            split = [_even(c, max(1, math.floor(c / length))) for c in chunks]
        spread = max(max(x) for x in split) / min(min(x) for x in split)
        if best is None or spread < best[0] - 1e-12:
            best = (spread, split)
    assert best is not None
    return best[1]


def streamed(p: TreePacking, ranks: int, nbytes: int, chunk_bytes: int) -> TreePacking:
    """``p`` with each tree repeated as the streams :func:`stream_counts` cuts it into.

    Unequal shares give unequal chunk counts, which a FIFO served chunk by chunk runs at equal
    rates; the copies (each with its tree's share divided among them) carry equal counts, so
    the schedule table and the simulator both run every tree at its share's rate. The arcs'
    loads, and so the rate, are those of ``p``.

    Parameters
    ----------
    p : TreePacking
        A weighted packing (one set; ``stats["shares"]`` exact where present).
    ranks : int
        Ranks sharing the collective (each root owns ``nbytes / ranks``).
    nbytes, chunk_bytes : int
        Collective size and chunk size in bytes: they fix each tree's chunk count.

    Returns
    -------
    TreePacking
        The same set with every tree repeated once per stream, each copy with its share over
        the stream count; ``stats["streams"]`` records the chunks per root and the counts.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> p = pack_throughput(build("mesh:2x3"))  # shares 3/4 and 1/4
    >>> q = streamed(p, 6, 6 * 4 * 12288, 12288)  # 4 chunks a root: 3 streams and 1
    >>> len(p.trees), len(q.trees), sorted(set(q.stats["shares"]))
    (12, 24, ['1/4'])
    """
    from supermesh.trees.schedule.weighted import split_block  # it orders by fifo_slots

    trees = list(p.trees)
    exact = [Fraction(x) for x in p.stats.get("shares", [t.share for t in trees])]
    mine: dict[int, list[int]] = {}
    for i, t in enumerate(trees):
        mine.setdefault(t.root, []).append(i)
    counts = [0] * len(trees)
    block = max(1, math.ceil(nbytes / (ranks * chunk_bytes)))
    for idx in mine.values():
        split = split_block(max(block, len(idx)), [float(exact[i]) for i in idx])
        for i, c in zip(idx, split, strict=True):
            counts[i] = c
    out: list[Tree] = []
    shares: list[Fraction] = []
    for t, x, parts in zip(trees, exact, stream_counts(counts), strict=True):
        one = x / len(parts)
        out += [Tree.from_sorted_arcs(t.root, t.arcs, t.height, float(one))] * len(parts)
        shares += [one] * len(parts)
    stats = dict(p.stats)
    stats["shares"] = [str(x) for x in shares]
    stats["trees"] = len(out)
    stats["streams"] = {"chunks_per_root": block, "streams": len(out), "trees": len(trees)}
    return replace(p, sets=(TreeSet(tuple(out), p.sets[0].lower_bound),), stats=stats)


def _even(count: int, k: int) -> list[int]:
    """``count`` chunks in ``k`` streams whose counts differ by at most one."""
    base, extra = divmod(count, k)
    return [base + 1] * extra + [base] * (k - extra)


def fifo_slots(
    trees: Sequence[OrientedTree], kind: str, *, rounds: int = 1, tries: int = 32, seed: int = 0
) -> dict[Job, int]:
    """Each link's order of transfers, from a list schedule of ``rounds`` rounds.

    Time runs in slots of one chunk. In every slot each link sends one ready transfer of its
    current round (chunk), the one with the longest way still to go (AllGather: the height
    below the receiving node; ReduceScatter: the sending node's depth), and moves to the next
    round once it has sent every transfer of this one (the FIFO discipline between chunks). A
    transfer is ready the slot after its data is complete (AllGather: the parent sent it;
    ReduceScatter: every child did). The order the links used in round ``rounds - 2`` (the
    steady state when there are several rounds; the only round otherwise) is returned. With a
    single round, where the length of that one schedule is the whole collective, ``tries``
    schedules that break ties at random (seeded) are tried too and the shortest is kept; for a
    reduce, the broadcast schedules of the same trees run backwards in time (every link's order
    reversed: children deliver before their parent's arc is used) are candidates too, which on
    SMBi 4x4 turns a 1.9% gap to the bound at 64 MiB into none.

    Parameters
    ----------
    trees : sequence of OrientedTree
        Trees as parent -> child arcs.
    kind : {"forward", "reduce"}
        AllGather / broadcast (down the trees) or ReduceScatter / reduce (up the trees).
    rounds : int
        Rounds to schedule: the number of chunks per tree, at most :data:`FIFO_ROUNDS`; never
        more than :data:`FIFO_WORK` over the transfers of one round, nor fewer than 3 for that
        cap.
    tries : int
        Random tie-breaks tried when ``rounds == 1``; at most :data:`FIFO_WORK` over the
        transfers, less one (none for a 16x16 packing).
    seed : int
        Seed of those tie-breaks.

    Returns
    -------
    dict
        ``(tree index, node) -> position`` in the FIFO of the node's parent arc.

    Examples
    --------
    >>> from supermesh.trees.oriented import OrientedTree
    >>> a = OrientedTree(0, [(0, 1, 0), (1, 2, 0)])
    >>> b = OrientedTree(1, [(1, 2, 0), (1, 0, 0)])
    >>> fifo_slots([a, b], "forward")[(1, 2)]  # b first on 1->2: a's chunk is not there yet
    0
    """
    if kind not in ("forward", "reduce"):
        raise SpecError(f"kind {kind!r} is not 'forward' or 'reduce'")
    rounds = max(1, int(rounds))
    jobs = sum(len(t.parent) for t in trees)
    rounds = min(rounds, max(3, FIFO_WORK // max(1, jobs)))
    tries = min(tries, max(0, FIFO_WORK // max(1, jobs) - 1))
    best_order, best_length = _best(trees, kind, rounds, tries, seed)
    if kind == "reduce" and rounds == 1:
        # a broadcast run backwards in time is a reduce: each link's order reversed
        order, length = _best(trees, "forward", rounds, tries, seed)
        if length < best_length:
            best_order = _reversed(trees, order)
    return best_order


def _best(
    trees: Sequence[OrientedTree], kind: str, rounds: int, tries: int, seed: int
) -> tuple[dict[Job, int], int]:
    """The shortest of the list schedules (longest way to go first, then random ties)."""
    prio: dict[Job, tuple[float, ...]] = {}
    for ti, t in enumerate(trees):
        below: dict[int, int] = {}
        for v in sorted(t.depth, key=lambda x: -t.depth[x]):
            below[v] = max((below[c] + 1 for c in t.children.get(v, ())), default=0)
        for v in t.parent:
            prio[(ti, v)] = (-(below[v] if kind == "forward" else t.depth[v]),)
    best_order, best_length = _list_schedule(trees, kind, rounds, prio)
    rng = random.Random(seed)
    for _ in range(tries if rounds == 1 else 0):
        noisy = {job: (*key, rng.random()) for job, key in prio.items()}
        order, length = _list_schedule(trees, kind, rounds, noisy)
        if length < best_length:
            best_order, best_length = order, length
    return best_order, best_length


def _reversed(trees: Sequence[OrientedTree], order: dict[Job, int]) -> dict[Job, int]:
    """Every link's FIFO order backwards."""
    on_arc: dict[tuple[int, int, int], int] = {}
    for ti, v in order:
        arc = trees[ti].parent[v]
        on_arc[arc] = on_arc.get(arc, 0) + 1
    return {(ti, v): on_arc[trees[ti].parent[v]] - 1 - pos for (ti, v), pos in order.items()}


def _list_schedule(
    trees: Sequence[OrientedTree], kind: str, rounds: int, prio: dict[Job, tuple[float, ...]]
) -> tuple[dict[Job, int], int]:
    """One list schedule (see :func:`fifo_slots`): the kept round's order and the length."""
    keep = max(0, rounds - 2)
    need: dict[Job, int] = {}
    on_arc: dict[tuple[int, int, int], int] = {}
    for ti, t in enumerate(trees):
        for v, arc in t.parent.items():
            if kind == "forward":
                need[(ti, v)] = 1 if arc[0] != t.root else 0
            else:
                need[(ti, v)] = len(t.children.get(v, ()))
            on_arc[arc] = on_arc.get(arc, 0) + 1
    left = {(ti, v, c): k for (ti, v), k in need.items() for c in range(rounds)}
    pending = [(0, ti, v, c) for (ti, v, c), k in left.items() if k == 0]
    heapq.heapify(pending)
    current = dict.fromkeys(on_arc, 0)
    todo = dict(on_arc)
    queues: dict[tuple[int, int, int], list[tuple[tuple[float, ...], int, int]]] = {
        a: [] for a in on_arc
    }
    later: dict[tuple[tuple[int, int, int], int], list[Job]] = {}
    order: dict[Job, int] = {}
    sent: dict[tuple[int, int, int], int] = dict.fromkeys(on_arc, 0)
    total = rounds * len(need)
    done = 0
    now = 0
    while done < total:
        while pending and pending[0][0] <= now:
            _, ti, v, c = heapq.heappop(pending)
            arc = trees[ti].parent[v]
            if c == current[arc]:
                heapq.heappush(queues[arc], (prio[(ti, v)], ti, v))
            else:
                later.setdefault((arc, c), []).append((ti, v))
        finished = []
        for arc, queue in queues.items():
            if not queue:
                continue
            _, ti, v = heapq.heappop(queue)
            c = current[arc]
            if c == keep:
                order[(ti, v)] = sent[arc]
                sent[arc] += 1
            finished.append((ti, v, c))
            done += 1
            todo[arc] -= 1
            if todo[arc] == 0 and c + 1 < rounds:
                current[arc] = c + 1
                todo[arc] = on_arc[arc]
                for job in later.pop((arc, c + 1), []):
                    heapq.heappush(queue, (prio[job], *job))
        if not finished and not pending:
            raise TopologyError("the trees' dependencies never let some transfer start")
        for ti, v, c in finished:
            t = trees[ti]
            if kind == "forward":
                for child in t.children.get(v, ()):
                    heapq.heappush(pending, (now + 1, ti, child, c))
            else:
                u = t.parent[v][0]
                if u != t.root:
                    left[(ti, u, c)] -= 1
                    if left[(ti, u, c)] == 0:
                        heapq.heappush(pending, (now + 1, ti, u, c))
        now += 1
    return order, now
