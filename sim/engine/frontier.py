"""Wide groups solved frontier by frontier: every transfer whose predecessors are done, at once.

A throughput packing at one chunk per tree (:func:`~supermesh.sim.chunk_choice.chunk_candidates`
picks it above 100 ranks) is one group of millions of blocks of a single chunk each: nothing
repeats, so :func:`~supermesh.sim.engine.sequential.solve_periodic` does not take it, and solving
it one transfer at a time costs about 10 microseconds and 400 bytes of Python objects per transfer
(40 s and 1.7 GB on a 32x32 SuperMesh). The same max-plus recurrence solved on the dependency
graph of the transfers in topological layers (Kahn's algorithm, each layer a few array
operations) costs the depth of that graph in Python steps: about as many as the longest FIFO,
a thousand there.

A transfer's start is the latest of: the phase start; its FIFO predecessor's delivery plus the
release gap (the arc's free time for the first); and each dependency's delivery plus the
block's delay. A maximum does not depend on the order its terms arrive in, so the times are
exactly those of :func:`~supermesh.sim.engine.sequential.solve_general` (and of the oracle).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from supermesh.budget import check_memory
from supermesh.sim.program import DeadlockError

if TYPE_CHECKING:
    from supermesh.sim.engine.timing import PhaseRun

__all__ = ["FRONTIER_BYTES", "FRONTIER_FROM", "FRONTIER_WIDTH", "solve_frontier"]

FRONTIER_FROM = 50_000
"""Transfers in a group from which :func:`solve_frontier` takes it (fewer: one by one)."""
FRONTIER_WIDTH = 32
"""Transfers per layer below which a layer's array operations cost more than one by one: the
group is taken only when its transfers are at least this many times its longest FIFO."""
FRONTIER_BYTES = 80
"""Bytes of arrays per transfer :func:`solve_frontier` holds (counted: about 70)."""


def solve_frontier(run: PhaseRun, lo: int, hi: int) -> bool:
    """Solve the group of blocks ``lo:hi`` layer by layer of its transfer dependency graph.

    Takes what :func:`~supermesh.sim.engine.sequential.solve_general` takes (any counts,
    dependencies on earlier groups), with the same FIFO order inside the group: chunk, then
    position in the block list.

    Parameters
    ----------
    run : PhaseRun
        The phase being solved: its arc free times are advanced and every block is recorded.
    lo, hi : int
        The group's blocks, ``lo`` to ``hi - 1``.

    Returns
    -------
    bool
        False (nothing done) when the group is smaller than :data:`FRONTIER_FROM` transfers or
        narrower than :data:`FRONTIER_WIDTH` times its longest FIFO.

    Raises
    ------
    DeadlockError
        If a block waits for a chunk its dependency never sends, or the FIFO order and the
        dependencies wait on each other.
    ResourceError
        The arrays would not fit in memory (about :data:`FRONTIER_BYTES` per transfer).
    """
    p = run.p
    m = hi - lo
    counts = p.count[lo:hi]
    n = int(counts.sum())
    arcs = p.arc[lo:hi]
    if n < FRONTIER_FROM or n < FRONTIER_WIDTH * np.bincount(arcs, weights=counts).max():
        return False
    check_memory(
        FRONTIER_BYTES * n,
        f"solving {n:,} transfers layer by layer",
        "ask for a smaller --size, fewer chunks (a larger chunk_bytes) or a smaller topology",
    )
    offset = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=offset[1:])
    blk = np.repeat(np.arange(m, dtype=np.int32), counts)
    entry_arc = arcs[blk]
    # each arc's FIFO: chunk, then position in the block list
    if int(counts.max()) == 1:
        fifo = np.argsort(entry_arc, kind="stable")
    else:
        fifo = np.lexsort((blk, np.arange(n) - offset[blk], entry_arc))
    same = entry_arc[fifo[1:]] == entry_arc[fifo[:-1]]
    later = np.full(n, -1, dtype=np.int32)  # each transfer's successor in its FIFO
    later[fifo[:-1][same]] = fifo[1:][same]
    ready = np.full(n, run.t0)
    heads = fifo[np.r_[True, ~same]]
    ready[heads] = np.maximum(run.avail[entry_arc[heads]], run.t0)
    last = fifo[np.r_[~same, True]]
    del fifo, same, heads
    src, dst = _dependencies(run, lo, hi, offset, ready)
    indeg = np.bincount(dst, minlength=n).astype(np.int32)
    indeg[later[later >= 0]] += 1
    by_src = np.argsort(src, kind="stable")
    succ_start = np.searchsorted(src[by_src], np.arange(n + 1))
    del src
    dst = dst[by_src]
    del by_src
    duration, delay = p.duration[lo:hi], p.delay[lo:hi]
    start = np.empty(n)
    finish = np.empty(n)
    layer = np.flatnonzero(indeg == 0)
    seen = 0
    while len(layer):
        seen += len(layer)
        t = ready[layer]
        start[layer] = t
        done = t + duration[blk[layer]]
        finish[layer] = done
        a, b = succ_start[layer], succ_start[layer + 1]
        fan = b - a
        target = dst[np.arange(int(fan.sum())) + np.repeat(a - np.cumsum(fan) + fan, fan)]
        np.maximum.at(ready, target, np.repeat(done, fan) + delay[blk[target]])
        queued = later[layer]
        behind = queued >= 0
        queued = queued[behind]
        ready[queued] = np.maximum(ready[queued], done[behind] + run.rel)  # one each
        target = np.concatenate([target, queued])
        np.subtract.at(indeg, target, np.ones(len(target), dtype=np.int32))  # typed: fast
        layer = target[indeg[target] == 0]
        # a transfer freed twice in one layer is taken once (its count is not read again)
        mark = np.arange(1, len(layer) + 1, dtype=np.int32)
        indeg[layer] = mark
        layer = layer[indeg[layer] == mark]
    if seen != n:
        raise DeadlockError(
            f"{n - seen} transfers never start: the FIFO order and the dependencies wait on "
            "each other",
            hint="order each link's transfers so that no transfer waits behind one it feeds",
        )
    run.avail[entry_arc[last]] = finish[last] + run.rel
    sending = np.flatnonzero(counts > 0)
    run.record_many(lo + sending, offset[sending], counts[sending], start, finish)
    return True


def _dependencies(
    run: PhaseRun, lo: int, hi: int, offset: np.ndarray, ready: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The group's dependency arcs between transfers (source, target); dependencies on earlier
    groups are folded into ``ready``."""
    p = run.p
    counts = p.count[lo:hi]
    delay = p.delay[lo:hi]
    a, b = int(run.dep_start[lo]), int(run.dep_start[hi])
    dep = run.dep_flat[a:b]
    owner = np.repeat(np.arange(hi - lo), np.diff(run.dep_start[lo : hi + 1]))
    short = counts[owner] > p.count[dep]
    if short.any():
        # the first transfer in FIFO order (chunk, block) that waits for a chunk never sent
        bad = np.flatnonzero(short)
        i = bad[np.lexsort((owner[bad], p.count[dep[bad]]))[0]]
        raise DeadlockError(
            f"block {lo + int(owner[i])} waits for chunk {int(p.count[dep[i]])} that block "
            f"{int(dep[i])} never sends"
        )
    inside = (dep >= lo) & (dep < hi)
    for k, d in zip(owner[~inside].tolist(), dep[~inside].tolist(), strict=True):
        span = slice(int(offset[k]), int(offset[k + 1]))
        earlier = run.finish[d]
        assert earlier is not None  # PhaseRun keeps every block another group waits for
        np.maximum(ready[span], earlier[: int(counts[k])] + delay[k], out=ready[span])
    k, d = owner[inside], dep[inside] - lo
    fan = counts[k]
    rank = np.arange(int(fan.sum())) - np.repeat(np.cumsum(fan) - fan, fan)
    src = np.repeat(offset[d], fan) + rank
    dst = (np.repeat(offset[k], fan) + rank).astype(np.int32)
    return src, dst
