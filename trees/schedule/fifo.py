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
import random
from collections.abc import Sequence

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.oriented import OrientedTree

__all__ = ["FIFO_ROUNDS", "Job", "fifo_slots"]

Job = tuple[int, int]  # (tree index, node whose parent arc carries the transfer)
# rounds list-scheduled to find a steady-state order; schedules and the simulator use the same
FIFO_ROUNDS = 10


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
    schedules that break ties at random (seeded) are tried too and the shortest is kept.

    Parameters
    ----------
    trees : sequence of OrientedTree
        Trees as parent -> child arcs.
    kind : {"forward", "reduce"}
        AllGather / broadcast (down the trees) or ReduceScatter / reduce (up the trees).
    rounds : int
        Rounds to schedule: the number of chunks per tree, at most :data:`FIFO_ROUNDS`.
    tries : int
        Random tie-breaks tried when ``rounds == 1``.
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
    return best_order


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
