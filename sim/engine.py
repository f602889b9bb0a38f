"""The fast engine: exact start times of every transfer by a max-plus recurrence in numpy.

For one arc, transfers ``k = 0, 1, ...`` in FIFO order with ready times ``x[k]`` (when their data
are there) and durations ``d[k]`` start at::

    s[0] = max(a, x[0]),    s[k] = max(s[k-1] + d[k-1] + r, x[k])

(``a`` when the arc becomes free, ``r`` the release gap). With ``G[k] = sum_{j<k} (d[j] + r)`` this
is ``s[k] = G[k] + max(a, max_{j<=k} (x[j] - G[j]))``: one ``numpy.maximum.accumulate``. The ready
times of a block's chunks are the element-wise maximum of its dependencies' delivery vectors, so a
group of arc-disjoint trees is solved level by level (deepest level first for a reduce, the roots
first for a broadcast), each level a few 2-D array operations over (blocks x chunks). Groups are
solved in FIFO order, each starting from the arc free times the previous group left.

Groups that are not arc-disjoint trees of equal chunk counts (ring steps, one-shot exchanges,
MultiTree steps) fall back to a transfer-by-transfer evaluation in topological order. Both paths
compute exactly what :func:`supermesh.sim.oracle.simulate_events` computes.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from supermesh.sim.program import DeadlockError, Phase, Program

__all__ = ["PhaseTiming", "Timing", "run_program"]

_SAMPLES = 64  # start times kept per block for time series


@dataclass
class PhaseTiming:
    """What the engine reports for one phase.

    Attributes
    ----------
    start, done, last_finish : float
        Phase start, phase done (after its final delay), last delivery.
    first_start, last_finish_block : numpy.ndarray
        Per block: first start and last delivery.
    samples : list of (numpy.ndarray, float)
        Per block: sampled start times and the busy time each sample stands for.
    starts : list of numpy.ndarray or None
        Per block: every start time (only when asked for).
    """

    start: float
    done: float
    last_finish: float
    first_start: np.ndarray
    last_finish_block: np.ndarray
    samples: list[tuple[np.ndarray, float]] = field(default_factory=list)
    starts: list[np.ndarray] | None = None


@dataclass
class Timing:
    """Engine output for a whole program: phase timings and the end of the run."""

    end: float
    phases: list[PhaseTiming]


class _PhaseRun:
    def __init__(self, phase: Phase, n_arcs: int, t0: float, release: float, keep: bool):
        self.p = phase
        self.t0 = t0
        self.rel = release
        self.avail = np.full(n_arcs, t0, dtype=np.float64)
        nb = phase.size
        self.finish: list[np.ndarray | None] = [None] * nb
        self.first = np.full(nb, np.nan)
        self.last = np.full(nb, np.nan)
        self.samples: list[tuple[np.ndarray, float]] = [(np.empty(0), 0.0)] * nb
        self.keep = keep
        self.starts: list[np.ndarray] = [np.empty(0)] * nb
        # blocks some block of another group waits for: their delivery vectors are kept
        self.needed = {
            d for b in range(nb) for d in phase.deps[b] if phase.group[d] != phase.group[b]
        }

    # ---------------------------------------------------------------- bookkeeping
    def _record(self, b: int, s: np.ndarray, f: np.ndarray) -> None:
        if b in self.needed:
            self.finish[b] = f
        self.first[b] = s[0]
        self.last[b] = f[-1]
        stride = max(1, len(s) // _SAMPLES)
        self.samples[b] = (s[::stride].copy(), float(self.p.duration[b]) * stride)
        if self.keep:
            self.starts[b] = s.copy()

    # ---------------------------------------------------------------- fast path
    def _fast_ok(self, lo: int, hi: int) -> bool:
        p = self.p
        arcs = p.arc[lo:hi]
        if len(np.unique(arcs)) != hi - lo:
            return False
        if len(np.unique(p.count[lo:hi])) != 1:
            return False
        return all(lo <= d < hi for b in range(lo, hi) for d in p.deps[b])

    def _fast_group(self, lo: int, hi: int) -> None:
        p = self.p
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
        remaining = [len(children[i]) for i in range(m)]
        fin: dict[int, np.ndarray] = {}
        ks = np.arange(count, dtype=np.float64)
        for lev in range(int(level.max()) + 1):
            idx = np.nonzero(level == lev)[0]
            blocks = idx + lo
            arcs = p.arc[blocks]
            dur = p.duration[blocks]
            a = self.avail[arcs][:, None]
            if np.all(dur == dur[0]):
                G = ks * (dur[0] + self.rel)  # one row, broadcast
            else:
                G = ks[None, :] * (dur + self.rel)[:, None]
            if lev == 0:
                S = G + np.maximum(a, self.t0)
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
            self.avail[arcs] = F[:, -1] + self.rel
            for r, i in enumerate(idx.tolist()):
                self._record(int(lo + i), S[r], F[r])
                if remaining[i]:
                    fin[int(i)] = F[r]
                for d in p.deps[lo + i]:
                    remaining[d - lo] -= 1
                    if remaining[d - lo] == 0:
                        del fin[d - lo]

    # ---------------------------------------------------------------- periodic path
    def _periodic_group(self, lo: int, hi: int) -> bool:
        """Links shared, chunk counts alike: chunk by chunk until the times repeat, then extend.

        Chunk ``c``'s times are a max-plus function of chunk ``c - 1``'s (each link's first
        transfer of a chunk waits for its last of the previous chunk; nothing else crosses
        chunks), homogeneous from chunk 1 on (every transfer then has a FIFO predecessor, so
        the phase start no longer binds). Hence once chunk ``c`` equals chunk ``c - q`` plus one
        constant ``delta`` for every transfer, every later chunk repeats with period ``q``
        and step ``delta`` exactly (what a throughput schedule reaches after its pipeline
        fills). That holds while every block is still sending, up to the smallest count; the
        chunks some blocks have beyond it (a root's block split unevenly among its trees) are
        then computed one by one. Returns False (nothing done) when the group does not fit: a
        dependency on another group or on a block with fewer chunks.
        """
        p = self.p
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
        topo = self._block_order(deps, prev_same)
        if topo is None:
            return False  # the general path reports the deadlock
        dur = p.duration[lo:hi].tolist()
        delay = p.delay[lo:hi].tolist()
        rel, t0 = self.rel, self.t0
        avail = [float(self.avail[a]) for a in arcs]
        starts: list[list[float]] = []
        finishes: list[list[float]] = []
        period = delta = 0.0
        for c in range(common):
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
            starts.append(st)
            finishes.append(fi)
            found = self._repeat(finishes, c)
            if found:
                period = found
                delta = finishes[c][0] - finishes[c - found][0]
                break
        S = np.asarray(starts).T  # blocks x computed chunks
        F = np.asarray(finishes).T
        done = S.shape[1]
        if done < common:
            q = int(period)
            extra = np.arange(done, common)
            laps = (extra - (done - q)) // q  # whole periods past the last computed copy
            src = extra - laps * q
            S = np.concatenate([S, S[:, src] + laps * delta], axis=1)
            F = np.concatenate([F, F[:, src] + laps * delta], axis=1)
        arc_free = {arc: float(F[k, -1]) for arc, k in last.items()}  # last finish per arc
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
            self.avail[arc] = f + rel
        for k in range(m):
            s_k, f_k = S[k], F[k]
            if tail_s[k]:
                s_k = np.concatenate([s_k, tail_s[k]])
                f_k = np.concatenate([f_k, tail_f[k]])
            self._record(lo + k, s_k, f_k)
        return True

    @staticmethod
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

    @staticmethod
    def _repeat(finishes: list[list[float]], c: int, max_period: int = 4) -> int:
        """The period ``q`` if chunk ``c`` is chunk ``c - q`` shifted by one constant, else 0."""
        now = np.asarray(finishes[c])
        for q in range(1, max_period + 1):
            if c - q < 1:  # chunk 0 is not homogeneous (phase start, arc free times)
                break
            diff = now - np.asarray(finishes[c - q])
            if diff.max() - diff.min() <= 1e-9 * max(1.0, float(abs(now).max())):
                return q
        return 0

    # ---------------------------------------------------------------- general path
    def _general_group(self, lo: int, hi: int) -> None:
        p = self.p
        counts = p.count[lo:hi].tolist()
        arcs = p.arc[lo:hi].tolist()
        dur = p.duration[lo:hi].tolist()
        delay = p.delay[lo:hi].tolist()
        deps = p.deps[lo:hi]
        offset = [0] * (hi - lo + 1)  # entry id of (b, c) is offset[b - lo] + c
        for k, cnt in enumerate(counts):
            offset[k + 1] = offset[k] + cnt
        n = offset[-1]
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
        avail = self.avail
        rel, t0 = self.rel, self.t0
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
                fd = finish[offset[d - lo] + c] if inside else float(self.finish[d][c])  # type: ignore[index]
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
        start_arr = np.asarray(start)
        finish_arr = np.asarray(finish)
        for k in range(hi - lo):
            if counts[k]:
                a, b = offset[k], offset[k + 1]
                self._record(lo + k, start_arr[a:b], finish_arr[a:b])

    def run(self) -> None:
        p = self.p
        if p.size == 0:
            return
        bounds = np.flatnonzero(np.diff(p.group)) + 1
        edges = [0, *bounds.tolist(), p.size]
        for lo, hi in itertools.pairwise(edges):
            if self._fast_ok(lo, hi):
                self._fast_group(lo, hi)
            elif not self._periodic_group(lo, hi):
                self._general_group(lo, hi)


def run_program(program: Program, *, keep_starts: bool = False) -> Timing:
    """Exact start and delivery times of every transfer of ``program``.

    Parameters
    ----------
    program : Program
    keep_starts : bool
        Keep every start time (memory: one float per transfer); otherwise only 64 samples per
        block are kept for time series.

    Returns
    -------
    Timing

    Raises
    ------
    DeadlockError
        If some transfer can never start.

    Examples
    --------
    >>> from supermesh.sim.program import PhaseBuilder, Program
    >>> idx = {}
    >>> pb = PhaseBuilder(idx)
    >>> a = pb.add((0, 1, 0), count=3, duration=10.0, payload=1)
    >>> b = pb.add((1, 2, 0), count=3, duration=10.0, payload=1, deps=[a], delay=1.0)
    >>> run_program(Program(list(idx), [pb.build(start=0.0)], release=1.0)).end
    43.0
    """
    n_arcs = len(program.arcs)
    phases: list[PhaseTiming] = []
    t = 0.0
    last = 0.0
    for i, phase in enumerate(program.phases):
        t0 = float(phase.start) if phase.start is not None else t + program.barrier if i else 0.0
        run = _PhaseRun(phase, n_arcs, t0, program.release, keep_starts)
        run.run()
        if phase.size and phase.transfers:
            last = float(np.nanmax(run.last))
            done = last + phase.final_delay
        else:
            last, done = t0, t0
        phases.append(
            PhaseTiming(
                start=t0,
                done=done,
                last_finish=last,
                first_start=run.first,
                last_finish_block=run.last,
                samples=run.samples,
                starts=run.starts if keep_starts else None,
            )
        )
        t = done
    end = max(last + program.drain, t) if program.phases else 0.0
    return Timing(end=end, phases=phases)
