"""Arc-disjoint tree groups of equal chunk counts, solved level by level with array operations.

For one arc, transfers ``k = 0, 1, ...`` in FIFO order with ready times ``x[k]`` (when their data
are there) and durations ``d[k]`` start at::

    s[0] = max(a, x[0]),    s[k] = max(s[k-1] + d[k-1] + r, x[k])

(``a`` when the arc becomes free, ``r`` the release gap). With ``G[k] = sum_{j<k} (d[j] + r)`` this
is ``s[k] = G[k] + max(a, max_{j<=k} (x[j] - G[j]))``: one ``numpy.maximum.accumulate``. The ready
times of a block's chunks are the element-wise maximum of its dependencies' delivery vectors, so a
group of arc-disjoint trees is solved level by level (deepest level first for a reduce, the roots
first for a broadcast), each level a few 2-D array operations over (blocks x chunks).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from supermesh.budget import CELL_BYTES, check_memory
from supermesh.sim.program import DeadlockError

if TYPE_CHECKING:
    from supermesh.sim.engine.timing import PhaseRun

__all__ = ["fits_levels", "solve_levels"]


def fits_levels(run: PhaseRun, lo: int, hi: int) -> bool:
    """Whether the group of blocks ``lo:hi`` fits the level path.

    It does when its blocks use distinct arcs, all have one chunk count and depend only on each
    other (arc-disjoint trees).

    Parameters
    ----------
    run : PhaseRun
        The phase being solved.
    lo, hi : int
        The group's blocks, ``lo`` to ``hi - 1``.

    Returns
    -------
    bool
    """
    p = run.p
    arcs = p.arc[lo:hi]
    if len(np.unique(arcs)) != hi - lo:
        return False
    if len(np.unique(p.count[lo:hi])) != 1:
        return False
    return all(lo <= d < hi for b in range(lo, hi) for d in p.deps[b])


def solve_levels(run: PhaseRun, lo: int, hi: int) -> None:
    """Solve blocks ``lo:hi`` (a group :func:`fits_levels` takes) level by level.

    Parameters
    ----------
    run : PhaseRun
        The phase being solved: its arc free times are advanced and every block is recorded.
    lo, hi : int
        The group's blocks, ``lo`` to ``hi - 1``.

    Raises
    ------
    DeadlockError
        If the dependencies inside the group form a cycle.
    """
    p = run.p
    m = hi - lo
    count = int(p.count[lo])
    if count == 0:
        return
    level = np.zeros(m, dtype=np.int64)
    children: list[list[int]] = [[] for _ in range(m)]
    indeg = np.zeros(m, dtype=np.int64)
    for i in range(m):
        for d in p.deps[lo + i]:
            children[d - lo].append(i)
            indeg[i] += 1
    queue = deque(i for i in range(m) if indeg[i] == 0)
    seen = 0
    while queue:
        i = queue.popleft()
        seen += 1
        for j in children[i]:
            level[j] = max(level[j], level[i] + 1)
            indeg[j] -= 1
            if indeg[j] == 0:
                queue.append(j)
    if seen != m:
        raise DeadlockError("the dependencies of a tree group form a cycle")
    widest = int(np.bincount(level).max())
    check_memory(  # a level's starts and deliveries, and the deliveries its parents wait for
        3 * CELL_BYTES * widest * count,
        f"the times of {m * count:,} transfers ({m} tree arcs x {count:,} chunks)",
        "ask for a smaller --size, or fewer chunks (a larger chunk_bytes)",
    )
    remaining = [len(children[i]) for i in range(m)]
    fin: dict[int, np.ndarray] = {}
    ks = np.arange(count, dtype=np.float64)
    for lev in range(int(level.max()) + 1):
        idx = np.nonzero(level == lev)[0]
        blocks = idx + lo
        arcs = p.arc[blocks]
        dur = p.duration[blocks]
        a = run.avail[arcs][:, None]
        if np.all(dur == dur[0]):
            G = ks * (dur[0] + run.rel)  # one row, broadcast
        else:
            G = ks[None, :] * (dur + run.rel)[:, None]
        if lev == 0:
            S = G + np.maximum(a, run.t0)
        else:
            S = np.empty((len(idx), count))
            for r, i in enumerate(idx.tolist()):
                ds = p.deps[lo + i]
                np.copyto(S[r], fin[ds[0] - lo])
                for d in ds[1:]:
                    np.maximum(S[r], fin[d - lo], out=S[r])
            S += p.delay[blocks][:, None]
            S -= G
            np.maximum.accumulate(S, axis=1, out=S)
            np.maximum(S, a, out=S)
            S += G
        F = S + dur[:, None]
        run.avail[arcs] = F[:, -1] + run.rel
        for r, i in enumerate(idx.tolist()):
            run.record(int(lo + i), S[r], F[r])
            if remaining[i]:
                fin[int(i)] = F[r]
            for d in p.deps[lo + i]:
                remaining[d - lo] -= 1
                if remaining[d - lo] == 0:
                    del fin[d - lo]
