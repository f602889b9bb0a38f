"""Groups the level path does not take, solved transfer by transfer in dependency order.

Ring steps, one-shot exchanges, MultiTree steps and throughput packings give groups with several
blocks on one link, unequal chunk counts or dependencies on earlier groups.
:func:`solve_periodic` takes those whose blocks depend only on each other: it computes whole
chunks in turn until the times repeat and extends the repetition (a throughput packing's pipeline
fills after a few chunks). :func:`solve_general` takes any group, one transfer at a time. Both
compute exactly what :func:`supermesh.sim.oracle.simulate_events` computes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from supermesh.budget import CELL_BYTES, check_memory, check_steps
from supermesh.sim.program import DeadlockError

if TYPE_CHECKING:
    from supermesh.sim.engine.timing import PhaseRun

__all__ = ["GENERAL_BYTES", "solve_general", "solve_periodic"]

GENERAL_BYTES = 400
"""Bytes of Python lists per transfer :func:`solve_general` holds (measured: about 350)."""


def solve_periodic(run: PhaseRun, lo: int, hi: int, *, probe: int | None = None) -> bool:
    """Solve the group of blocks ``lo:hi`` chunk by chunk until the times repeat, then extend.

    For groups whose blocks share links with chunk counts alike. Chunk ``c``'s times are a
    max-plus function of chunk ``c - 1``'s (each link's first transfer of a chunk waits for its
    last of the previous chunk; nothing else crosses chunks), homogeneous from chunk 1 on (every
    transfer then has a FIFO predecessor, so the phase start no longer binds). Once every block
    ``k`` has a step ``delta[k]`` over ``q`` chunks such that no transfer waits for one whose
    step is larger, and each waits (at the latest ``q`` chunks) for one whose step is its own,
    every later chunk repeats with period ``q`` and those steps exactly: by induction, the
    same predecessor binds ``q`` chunks on, moved by the same step (see :func:`_steady`). One
    step for every block is what a throughput schedule of equal shares reaches after its
    pipeline fills; free shares (unequal chunk sizes on disjoint links) reach one step per
    tree, and would never repeat with one constant. That holds while every block is still
    sending, up to the smallest count; the chunks some blocks have beyond it (a root's block
    split unevenly among its trees) are then computed one by one.

    Parameters
    ----------
    run : PhaseRun
        The phase being solved: its arc free times are advanced and every block is recorded.
    lo, hi : int
        The group's blocks, ``lo`` to ``hi - 1``.
    probe : int, optional
        Give up (return False, nothing done) when the times have not repeated within this many
        chunks (a tree group whose faster links never fall into step with the slowest).

    Returns
    -------
    bool
        False (nothing done) when the group does not fit: a block with fewer than 2 chunks, a
        dependency on another group or on a block with fewer chunks, or a cycle (which
        :func:`solve_general` reports).

    Raises
    ------
    ResourceError
        Every time of a block that another group waits for would not fit in memory.
    """
    p = run.p
    m = hi - lo
    counts = p.count[lo:hi].tolist()
    if m == 0 or min(counts) < 2:
        return False
    deps = [[d - lo for d in p.deps[b]] for b in range(lo, hi)]
    if any(d < 0 or d >= m or counts[d] < counts[k] for k, ds in enumerate(deps) for d in ds):
        return False
    common, longest = min(counts), max(counts)
    arcs = p.arc[lo:hi].tolist()
    prev_same: list[int] = [-1] * m  # FIFO predecessor within the chunk (block order)
    last: dict[int, int] = {}
    for k, arc in enumerate(arcs):
        prev_same[k] = last.get(arc, -1)
        last[arc] = k
    # predecessor in the previous chunk for the first block of each arc: the arc's last block
    prev_chunk = [last[arcs[k]] if prev_same[k] < 0 else -1 for k in range(m)]
    topo = _block_order(deps, prev_same)
    if topo is None:
        return False  # the general path reports the deadlock
    dur = p.duration[lo:hi].tolist()
    delay = p.delay[lo:hi].tolist()
    rel, t0 = run.rel, run.t0
    avail = [float(run.avail[a]) for a in arcs]
    finishes: list[list[float]] = []
    finish_rows: list[np.ndarray] = []  # the same as arrays, each converted once for _steady
    start_rows: list[np.ndarray] = []
    waits = _Waits.of(deps, prev_same, prev_chunk, delay, rel)
    period = 0
    delta = np.zeros(m)
    for c in range(common):
        if probe is not None and c >= probe:
            return False  # no repetition soon: the caller's own path solves the group
        st = [0.0] * m
        fi = [0.0] * m
        before = finishes[-1] if finishes else None
        for k in topo:
            if prev_same[k] >= 0:
                t = fi[prev_same[k]] + rel
            elif before is not None:
                t = before[prev_chunk[k]] + rel
            else:
                t = max(avail[k], t0)
            for d in deps[k]:
                if fi[d] + delay[k] > t:
                    t = fi[d] + delay[k]
            st[k] = t
            fi[k] = t + dur[k]
        finishes.append(fi)
        finish_rows.append(np.asarray(fi))
        start_rows.append(np.asarray(st))
        found = _steady(finish_rows, start_rows, c, waits)
        if found:
            period = found
            delta = finish_rows[c] - finish_rows[c - found]
            break
    S = np.array(start_rows).T  # blocks x computed chunks
    F = np.array(finish_rows).T
    done = S.shape[1]
    q = period

    def repeated(
        M: np.ndarray, c: np.ndarray, rows: np.ndarray | slice = slice(None)
    ) -> np.ndarray:
        """``M[rows]`` at chunks ``c < common``: computed, or a whole number of periods on."""
        laps = np.where(c < done, 0, (c - (done - q)) // max(q, 1))
        return M[rows][:, c - laps * q] + delta[rows, None] * laps[None, :]

    end = np.array([common - 1])
    arc_free = {arc: float(repeated(F, end)[k, 0]) for arc, k in last.items()}  # last finish
    tail_s: list[list[float]] = [[] for _ in range(m)]
    tail_f: list[list[float]] = [[] for _ in range(m)]
    for c in range(common, longest):  # FIFO order (chunk, block) over the blocks still sending
        fi_c: dict[int, float] = {}
        for k in topo:
            if counts[k] <= c:
                continue
            t = arc_free[arcs[k]] + rel
            for d in deps[k]:
                if fi_c[d] + delay[k] > t:
                    t = fi_c[d] + delay[k]
            tail_s[k].append(t)
            tail_f[k].append(t + dur[k])
            fi_c[k] = arc_free[arcs[k]] = t + dur[k]
    for arc, f in arc_free.items():
        run.avail[arc] = f + rel
    if not any(run.needs_vectors(lo + k) for k in range(m)):
        # only samples, first and last times are kept: a group of any length costs its fill
        count_of = np.asarray(counts)
        for n in sorted(set(counts)):
            rows = np.flatnonzero(count_of == n)
            tail = np.array([tail_s[k] for k in rows.tolist()]).reshape(len(rows), n - common)
            run.record_summary(lo + rows, n, _times_of(repeated, S, rows, common, tail))
        return True
    if done < common:
        check_memory(
            2 * CELL_BYTES * m * common,
            f"the times of {m * common:,} transfers",
            "ask for a smaller --size, or fewer chunks (a larger chunk_bytes)",
        )
        S = repeated(S, np.arange(common))
        F = repeated(F, np.arange(common))
    for k in range(m):
        s_k, f_k = S[k], F[k]
        if tail_s[k]:
            s_k = np.concatenate([s_k, tail_s[k]])
            f_k = np.concatenate([f_k, tail_f[k]])
        run.record(lo + k, s_k, f_k)
    return True


def _times_of(
    repeated: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    S: np.ndarray,
    rows: np.ndarray,
    common: int,
    tail: np.ndarray,
) -> Callable[[np.ndarray], np.ndarray]:
    """Start times of blocks ``rows`` (one row each) at given chunks: the repetition below
    ``common``, then their ``tail`` columns."""

    def at(c: np.ndarray) -> np.ndarray:
        head = c < common
        out = np.empty((len(rows), len(c)))
        out[:, head] = repeated(S, c[head], rows)
        out[:, ~head] = tail[:, c[~head] - common]
        return out

    return at


@dataclass(frozen=True)
class _Waits:
    """Every wait of a chunk's transfers: ``succ`` starts no earlier than ``pred``'s finish plus
    ``gap``, in the same chunk (``dependencies``, ``FIFO``) or the one before (``previous``:
    each arc's first block after its last)."""

    pred: np.ndarray
    succ: np.ndarray
    gap: np.ndarray
    previous: np.ndarray  # bool: pred's finish is the previous chunk's

    @staticmethod
    def of(
        deps: list[list[int]],
        prev_same: list[int],
        prev_chunk: list[int],
        delay: list[float],
        rel: float,
    ) -> _Waits:
        rows = [(d, k, delay[k], False) for k, ds in enumerate(deps) for d in ds]
        rows += [(j, k, rel, False) for k, j in enumerate(prev_same) if j >= 0]
        rows += [(j, k, rel, True) for k, j in enumerate(prev_chunk) if j >= 0]
        pred, succ, gap, previous = zip(*rows, strict=True) if rows else ((), (), (), ())
        return _Waits(
            np.asarray(pred, dtype=np.int64),
            np.asarray(succ, dtype=np.int64),
            np.asarray(gap, dtype=np.float64),
            np.asarray(previous, dtype=bool),
        )


def _steady(
    finishes: list[np.ndarray], starts: list[np.ndarray], c: int, waits: _Waits, max_period: int = 4
) -> int:
    """The period ``q`` from which chunk ``c`` on repeats, each block by its own step, else 0.

    With ``delta = finishes[c] - finishes[c - q]``, the times repeat exactly when, over chunks
    ``c - q + 1 .. c``, no wait's predecessor has a larger step than its successor and every
    block's start is bound by (equal to) a wait whose predecessor has the block's own step:
    then ``q`` chunks on each start is the same maximum with every term moved by its
    predecessor's step, at most the block's own, and the binding one by exactly that.
    """
    now = finishes[c]
    tol = 1e-9 * max(1.0, float(np.abs(now).max()))
    for q in range(1, max_period + 1):
        if c - 2 * q < 1:  # chunk 0 is not homogeneous (phase start, arc free times)
            break
        delta = now - finishes[c - q]
        if np.abs(delta - (finishes[c - q] - finishes[c - 2 * q])).max() > tol:
            continue  # not yet stepping alike: the cheap test before the waits
        step_p, step_s = delta[waits.pred], delta[waits.succ]
        if (step_p > step_s + tol).any():
            continue
        same = np.abs(step_p - step_s) <= tol
        if all(_bound_by(finishes, starts, t, waits, same, tol) for t in range(c - q + 1, c + 1)):
            return q
    return 0


def _bound_by(
    finishes: list[np.ndarray],
    starts: list[np.ndarray],
    t: int,
    waits: _Waits,
    allowed: np.ndarray,
    tol: float,
) -> bool:
    """Whether every block's start at chunk ``t`` is bound by one of the ``allowed`` waits."""
    ready = np.where(waits.previous, finishes[t - 1][waits.pred], finishes[t][waits.pred])
    binding = allowed & (ready + waits.gap >= starts[t][waits.succ] - tol)
    n = len(starts[t])
    return bool((np.bincount(waits.succ[binding], minlength=n) > 0).all())


def _block_order(deps: list[list[int]], prev_same: list[int]) -> list[int] | None:
    """Blocks in an order where each comes after its dependencies and its FIFO predecessor."""
    m = len(deps)
    succ: list[list[int]] = [[] for _ in range(m)]
    indeg = [0] * m
    for k in range(m):
        for d in [*deps[k], prev_same[k]]:
            if d >= 0:
                succ[d].append(k)
                indeg[k] += 1
    topo: list[int] = []
    queue = deque(k for k in range(m) if indeg[k] == 0)
    while queue:
        k = queue.popleft()
        topo.append(k)
        for j in succ[k]:
            indeg[j] -= 1
            if indeg[j] == 0:
                queue.append(j)
    return topo if len(topo) == m else None


def solve_general(run: PhaseRun, lo: int, hi: int) -> None:
    """Solve the group of blocks ``lo:hi`` transfer by transfer in topological order.

    Takes any group: blocks sharing links with any chunk counts, and dependencies on blocks of
    earlier groups (read from ``run.finish``). Inside the group the FIFO order is chunk, then
    position in the block list. Refused before it starts above the memory cap (about
    :data:`GENERAL_BYTES` per transfer) or :data:`~supermesh.budget.MAX_STEPS` transfers.

    Parameters
    ----------
    run : PhaseRun
        The phase being solved: its arc free times are advanced and every block is recorded.
    lo, hi : int
        The group's blocks, ``lo`` to ``hi - 1``.

    Raises
    ------
    DeadlockError
        If a block waits for a chunk its dependency never sends, or the FIFO order and the
        dependencies wait on each other.
    ResourceError
        Too many transfers for the caps.
    """
    p = run.p
    counts = p.count[lo:hi].tolist()
    arcs = p.arc[lo:hi].tolist()
    dur = p.duration[lo:hi].tolist()
    delay = p.delay[lo:hi].tolist()
    deps = p.deps[lo:hi]
    offset = [0] * (hi - lo + 1)  # entry id of (b, c) is offset[b - lo] + c
    for k, cnt in enumerate(counts):
        offset[k + 1] = offset[k] + cnt
    n = offset[-1]
    what = f"solving {n:,} transfers one by one"
    hint = "ask for a smaller --size, fewer chunks (a larger chunk_bytes) or a smaller topology"
    check_steps(n, what, hint)
    check_memory(GENERAL_BYTES * n, what, hint)
    # FIFO order inside the group: chunk, then position in the block list
    order = sorted(((c, k) for k in range(hi - lo) for c in range(counts[k])), key=lambda e: e)
    prev = [-1] * n
    last_on_arc: dict[int, int] = {}
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for c, k in order:
        i = offset[k] + c
        arc = arcs[k]
        if arc in last_on_arc:
            prev[i] = last_on_arc[arc]
            succ[prev[i]].append(i)
            indeg[i] += 1
        last_on_arc[arc] = i
        for d in deps[k]:
            if c >= int(p.count[d]):
                raise DeadlockError(
                    f"block {lo + k} waits for chunk {c} that block {d} never sends"
                )
            if lo <= d < hi:
                succ[offset[d - lo] + c].append(i)
                indeg[i] += 1
    block_of = [0] * n
    for k in range(hi - lo):
        for c in range(counts[k]):
            block_of[offset[k] + c] = k
    start = [0.0] * n
    finish = [0.0] * n
    avail = run.avail
    rel, t0 = run.rel, run.t0
    queue = deque(i for i in range(n) if indeg[i] == 0)
    seen = 0
    while queue:
        i = queue.popleft()
        seen += 1
        k = block_of[i]
        c = i - offset[k]
        t = float(avail[arcs[k]]) if prev[i] < 0 else finish[prev[i]] + rel
        if t < t0:
            t = t0
        for d in deps[k]:
            inside = lo <= d < hi
            fd = finish[offset[d - lo] + c] if inside else float(run.finish[d][c])  # type: ignore[index]
            if fd + delay[k] > t:
                t = fd + delay[k]
        start[i] = t
        finish[i] = t + dur[k]
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                queue.append(j)
    if seen != n:
        raise DeadlockError(
            f"{n - seen} transfers never start: the FIFO order and the dependencies wait on "
            "each other",
            hint="order each link's transfers so that no transfer waits behind one it feeds",
        )
    for arc, i in last_on_arc.items():
        avail[arc] = finish[i] + rel
    sizes = np.asarray(counts, dtype=np.int64)
    some = np.flatnonzero(sizes)  # one record of every block: a block at a time cost half the run
    begin = np.asarray(offset[:-1], dtype=np.int64)[some]
    run.record_many(lo + some, begin, sizes[some], np.asarray(start), np.asarray(finish))
