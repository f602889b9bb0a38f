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

import math
import random
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import numpy as np

from supermesh.errors import SpecError
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.oriented import OrientedTree
from supermesh.trees.schedule.forest import Forest, forest
from supermesh.trees.schedule.list_schedule import (
    list_schedule,
    list_schedules,
    repaired_schedule,
    way_to_go,
)

__all__ = [
    "FIFO_ROUNDS",
    "FIFO_WORK",
    "REPAIR_WORK",
    "STREAMS_PER_TREE",
    "Job",
    "fifo_order",
    "fifo_orders",
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
REPAIR_WORK = 1_000_000
"""Transfers times schedules one round's repair may take (SMBi 8x8 at 8 chunks a tree, 129,024
transfers: 7 schedules, and the fourth already meets the busiest link; a 32x32 packing: none)."""
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

    :func:`fifo_order` (the list schedule) of the :func:`~supermesh.trees.schedule.forest.forest`
    of ``trees``, keyed by job.

    Parameters
    ----------
    trees : sequence of OrientedTree
        Trees as parent -> child arcs.
    kind : {"forward", "reduce"}
    rounds, tries, seed
        See :func:`fifo_order`.

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
    f = forest(trees)
    pos = fifo_order(f, kind, rounds=rounds, tries=tries, seed=seed)
    return dict(zip(zip(f.tree.tolist(), f.node.tolist(), strict=True), pos.tolist(), strict=True))


def fifo_order(
    f: Forest, kind: str, *, rounds: int = 1, tries: int = 32, seed: int = 0
) -> np.ndarray:
    """Each job's position in its link's FIFO, from a list schedule of ``rounds`` rounds.

    Time runs in slots of one chunk. In every slot each link sends one ready transfer of its
    current round (chunk), the one with the longest way still to go (AllGather: the height
    below the receiving node; ReduceScatter: the sending node's depth; ties: the lower tree
    index, then the lower node), and moves to the next round once it has sent every transfer of
    this one (the FIFO discipline between chunks). A transfer is ready the slot after its data
    is complete (AllGather: the parent sent it; ReduceScatter: every child did). The order the
    links used in round ``rounds - 2`` (the steady state when there are several rounds; the
    only round otherwise) is returned. With a single round, where the length of that one
    schedule is the whole collective, ``tries`` schedules that break ties at random (seeded)
    are tried too, and as many repaired ones
    (:func:`~supermesh.trees.schedule.list_schedule.repaired_schedule`: late transfers'
    deadlines move earlier), which replace the shortest of those only where they are shorter
    still (SMAlter 5x5, AllGather of 4 MiB, 2,400 transfers over links of at most 32: 37 slots,
    36 with random ties, 35 repaired); the schedules of the other kind on the same trees
    run backwards in time (every link's order reversed: for a reduce, children deliver before
    their parent's arc is used; for a broadcast, a node receives before it sends on) are
    candidates too. For a reduce this turns a 1.9% gap to the bound at 64 MiB on SMBi 4x4 into
    none; for a broadcast on a ReduceScatter's trees reversed
    (:func:`supermesh.sim.packing_choice.other_packings`) it is that ReduceScatter's schedule
    mirrored, which brings SMAlter 5x5's AllGather of 512 MiB (paper preset) from 1.023 of the
    bound to 1.001.

    Every slot is a few array operations over the links: each link keeps its waiting
    transfers as a bit set in the order of their keys, and sends the lowest bit set (a 32x32
    SuperMesh packing, 4.2 million transfers over 1,100 slots, takes about a second).

    Parameters
    ----------
    f : Forest
        The trees (:func:`~supermesh.trees.schedule.forest.forest`); a job is a transfer over
        one tree arc, and arcs ``up -> node`` (key included) are the links.
    kind : {"forward", "reduce"}
        AllGather / broadcast (down the trees) or ReduceScatter / reduce (up the trees).
    rounds : int
        Rounds to schedule: the number of chunks per tree, at most :data:`FIFO_ROUNDS`; never
        more than :data:`FIFO_WORK` over the transfers of one round, nor fewer than 3 for that
        cap.
    tries : int
        Random tie-breaks and repairs tried when ``rounds == 1``: at most :data:`FIFO_WORK`
        and :data:`REPAIR_WORK` over the transfers, less one (none and two for a 16x16
        SuperMesh packing).
    seed : int
        Seed of those tie-breaks.

    Returns
    -------
    numpy.ndarray
        Per job of ``f``: its position in the FIFO of its arc.

    Raises
    ------
    SpecError
        ``kind`` is neither.
    TopologyError
        The trees' dependencies never let some transfer start.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(1, ((1, 0, 0), (1, 2, 0)), 1)])
    >>> fifo_order(f, "forward").tolist()  # on 1->2, tree 1 first: tree 0's chunk is not there
    [0, 1, 0, 0]
    """
    return fifo_orders(f, (kind,), rounds=rounds, tries=tries, seed=seed)[kind]


def fifo_orders(
    f: Forest, kinds: Sequence[str], *, rounds: int = 1, tries: int = 32, seed: int = 0
) -> dict[str, np.ndarray]:
    """:func:`fifo_order` of each of ``kinds`` on the same forest, sharing their schedules.

    With one round, a kind's order and the other kind's are chosen among the same four
    schedules (each kind's random ties and repair, the other's run backwards), so an AllReduce,
    which needs both, computes them once. A kind stops looking once its best schedule is as
    short as the most transfers on one link or the longest chain of one tree (no schedule is
    shorter), so the result is :func:`fifo_order`'s.

    Parameters
    ----------
    f : Forest
    kinds : sequence of {"forward", "reduce"}
    rounds, tries, seed
        See :func:`fifo_order`.

    Returns
    -------
    dict
        ``kind -> `` :func:`fifo_order` ``(f, kind, ...)``.

    Raises
    ------
    SpecError
        A kind is neither.
    TopologyError
        The trees' dependencies never let some transfer start.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> f = forest([Tree(0, ((0, 1, 0), (1, 2, 0)), 2), Tree(1, ((1, 0, 0), (1, 2, 0)), 1)])
    >>> both = fifo_orders(f, ("reduce", "forward"))
    >>> both["forward"].tolist() == fifo_order(f, "forward").tolist()
    True
    """
    for kind in kinds:
        if kind not in ("forward", "reduce"):
            raise SpecError(f"kind {kind!r} is not 'forward' or 'reduce'")
    rounds = max(1, int(rounds))
    jobs = f.jobs
    rounds = min(rounds, max(3, FIFO_WORK // max(1, jobs)))
    repairs = min(tries, max(0, REPAIR_WORK // max(1, jobs) - 1))
    tries = min(tries, max(0, FIFO_WORK // max(1, jobs) - 1))
    if jobs == 0:
        return {kind: np.zeros(0, dtype=np.int64) for kind in kinds}
    _, arc = f.arc_ids()
    if rounds > 1:
        return {
            kind: list_schedule(f, arc, kind, rounds, (f.node, f.tree, -way_to_go(f, kind))).order
            for kind in kinds
        }
    on_arc = np.bincount(arc)
    floor = max(int(on_arc.max()), int(f.depth.max()))
    found: dict[tuple[str, str], tuple[np.ndarray, int]] = {}

    def schedule(how: str, k: str) -> tuple[np.ndarray, int]:
        if (how, k) not in found:
            if how == "tied":
                found[how, k] = _tied(f, arc, k, tries, seed)
            else:
                s = repaired_schedule(f, arc, k, 1 + repairs, seed)
                found[how, k] = s.order, s.length
        return found[how, k]

    out = {}
    for kind in kinds:
        # a broadcast run backwards in time is a reduce and a reduce run backwards a
        # broadcast: each link's order reversed
        other = "reduce" if kind == "forward" else "forward"
        # the repairs replace the random ties' schedules only where they are shorter
        steps = [("tied", kind), ("tied", other)]
        steps += [("repaired", kind), ("repaired", other)] if repairs else []
        best_order, best_length = schedule(*steps[0])
        for how, k in steps[1:]:
            if best_length <= floor:
                break
            order, length = schedule(how, k)
            if length < best_length:
                best_order = order if k == kind else on_arc[arc] - 1 - order
                best_length = length
        out[kind] = best_order
    return out


def _tied(f: Forest, arc: np.ndarray, kind: str, tries: int, seed: int) -> tuple[np.ndarray, int]:
    """The shortest list schedule of one round: longest way first, then random ties."""
    prio = -way_to_go(f, kind)
    rng = random.Random(seed)
    # the first schedule's constant noise leaves the rank (node, tree, prio)
    noises = [np.zeros(f.jobs)]
    noises += [np.array([rng.random() for _ in range(f.jobs)]) for _ in range(tries)]
    found = list_schedules(f, arc, kind, [(f.node, f.tree, x, prio) for x in noises])
    best = min(range(len(found)), key=lambda i: found[i].length)  # the first of the shortest
    return found[best].order, found[best].length
