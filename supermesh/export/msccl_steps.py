"""Threadblocks and steps of an MSCCL program, built from a schedule.

The rules (threadblocks per link, FIFO step order, step types, buffers, chunk slots per loop,
channel groups) are documented in :mod:`supermesh.export.msccl`; this module implements them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from supermesh.errors import SpecError
from supermesh.trees.schedule_model import PHASES, Schedule, ScheduleEntry

__all__ = ["Loc", "Step", "StepBuilder", "Threadblock", "plan_slots"]


@dataclass
class Step:
    """One ``<step>``; ``depid``/``deps`` name (threadblock, step) on the same GPU or -1."""

    type: str
    srcbuf: str
    srcoff: int
    dstbuf: str
    dstoff: int
    cnt: int = 1
    depid: int = -1
    deps: int = -1
    hasdep: int = 0


@dataclass
class Threadblock:
    """One ``<tb>``."""

    send: int
    recv: int
    chan: int
    steps: list[Step] = field(default_factory=list)
    id: int = -1


Loc = tuple[int, int]  # (threadblock index in the GPU's list, step index)


def plan_slots(schedule: Schedule, slots: int | None, max_steps: int) -> tuple[int, dict[int, int]]:
    """Chunk slots per loop ``S`` and the channel group of every tree set.

    Parameters
    ----------
    schedule : Schedule
    slots : int or None
        ``S`` chosen by the user; default the largest ``S <= schedule.chunks`` with which the
        busiest link's entries times ``S`` fit in ``max_steps``.
    max_steps : int
        Steps per threadblock allowed by the runtime.

    Returns
    -------
    (int, dict)
        ``S`` and set index -> channel group (consecutive sets, each group's entries per link
        times ``S`` at most ``max_steps``).

    Raises
    ------
    SpecError
        If ``S`` is outside ``1..max_steps`` or one set alone overfills a threadblock.
    """
    per: dict[tuple[int, tuple[int, int, int]], int] = defaultdict(int)
    for e in schedule.entries:
        per[(e.set_index, e.arc)] += 1
    nsets = 1 + max((e.set_index for e in schedule.entries), default=0)
    total: dict[tuple[int, int, int], int] = defaultdict(int)
    for (_, arc), n in per.items():
        total[arc] += n
    most = max(total.values(), default=1)

    def grouping(cap: int) -> dict[int, int] | None:
        group: dict[int, int] = {}
        count: dict[tuple[int, int, int], int] = {}
        q = 0
        for s in range(nsets):
            mine = {arc: n for (si, arc), n in per.items() if si == s}
            if any(n > cap for n in mine.values()):
                return None
            if any(count.get(a, 0) + n > cap for a, n in mine.items()):
                q, count = q + 1, {}
            for a, n in mine.items():
                count[a] = count.get(a, 0) + n
            group[s] = q
        return group

    if slots is None:
        slots = max(1, min(schedule.chunks, max_steps // most))
    if not 1 <= slots <= max_steps:
        raise SpecError(f"chunks per loop {slots} is not in 1..{max_steps}")
    groups = grouping(max_steps // slots)
    if groups is None:
        raise SpecError(
            f"one tree set puts more than {max_steps // slots} entries on one link, "
            f"over the MSCCL limit of {max_steps} steps per threadblock",
            hint="use fewer chunks per loop or raise max_steps (MSCCL allows 256, RCCL 64)",
        )
    return slots, groups


class StepBuilder:
    """Collects threadblocks and steps (the rules are in :mod:`supermesh.export.msccl`)."""

    def __init__(self, schedule: Schedule, ngpus: int, slots: int) -> None:
        self.s = schedule
        self.S = slots
        self.coll = schedule.collective
        per_rank = self.coll in ("reducescatter", "allgather")
        trees = {(e.set_index, e.tree_index) for e in schedule.entries}
        self.blocks = ngpus if per_rank else len(trees)
        self.tbs: dict[int, list[Threadblock]] = defaultdict(list)
        self._tb: dict[tuple[int, int, int, int], int] = {}
        self.send_at: dict[tuple[int, int], Loc] = {}
        self.recv_at: dict[tuple[int, int], Loc] = {}
        self.scratch: dict[int, dict[tuple[int, int], int]] = defaultdict(dict)
        self.into: dict[tuple[str, int, int, int], list[ScheduleEntry]] = defaultdict(list)
        for e in schedule.entries:
            self.into[(e.phase, e.set_index, e.tree_index, e.dst)].append(e)

    def _tb_of(self, gpu: int, send: int, recv: int, chan: int) -> int:
        key = (gpu, send, recv, chan)
        if key not in self._tb:
            self._tb[key] = len(self.tbs[gpu])
            self.tbs[gpu].append(Threadblock(send, recv, chan))
        return self._tb[key]

    def reserve(self, chan_of: dict[int, int]) -> None:
        """Give every (entry, slot) its send and recv step, links in FIFO order."""
        links: dict[tuple[int, int, int], list[tuple[tuple[int, ...], int, int]]]
        links = defaultdict(list)
        for e in self.s.entries:
            for c in range(self.S):
                order = (PHASES.index(e.phase), e.set_index, c, e.step)
                links[(e.src, e.dst, chan_of[e.id])].append((order, e.id, c))
        for (src, dst, chan), items in sorted(links.items()):
            st, rt = self._tb_of(src, dst, -1, chan), self._tb_of(dst, -1, src, chan)
            for _, eid, c in sorted(items):
                for gpu, t, where in ((src, st, self.send_at), (dst, rt, self.recv_at)):
                    steps = self.tbs[gpu][t].steps
                    where[(eid, c)] = (t, len(steps))
                    steps.append(Step("nop", "i", -1, "o", -1))

    # --- buffer locations -------------------------------------------------------------------
    def _block(self, e: ScheduleEntry) -> int:
        return e.chunk_first // self.s.chunks

    def _x_in(self, e: ScheduleEntry, c: int) -> tuple[str, int]:
        return ("i", c) if self.coll == "allgather" else ("i", self._block(e) * self.S + c)

    def _x_out(self, e: ScheduleEntry, c: int) -> tuple[str, int]:
        return ("o", c) if self.coll == "reducescatter" else ("o", self._block(e) * self.S + c)

    def _acc(self, gpu: int, e: ScheduleEntry, c: int) -> tuple[str, int]:
        """Where ``gpu`` accumulates the in-tree chunk of ``e``'s tree, slot ``c``."""
        if gpu == e.root or self.coll == "allreduce":
            return self._x_out(e, c)
        slots = self.scratch[gpu]
        return ("s", slots.setdefault((self._block(e), c), len(slots)))

    def _set(self, gpu: int, at: Loc, step: Step, dep: Loc | None = None) -> None:
        if dep is not None:
            step.depid, step.deps = dep
        self.tbs[gpu][at[0]].steps[at[1]] = step

    def fill(self, e: ScheduleEntry, c: int) -> None:
        """Give the send and recv step of (entry, slot) their type, buffers and dependency."""
        u, v, si, ti = e.src, e.dst, e.set_index, e.tree_index
        send, recv = self.send_at[(e.id, c)], self.recv_at[(e.id, c)]
        if e.phase in ("rs", "reduce"):
            kids = self.into[(e.phase, si, ti, u)]
            src = self._acc(u, e, c) if kids else self._x_in(e, c)
            dep = self.recv_at[(kids[-1].id, c)] if kids else None
            siblings = self.into[(e.phase, si, ti, v)]
            j = siblings.index(e)
            acc = self._acc(v, e, c)
            first = acc if j else self._x_in(e, c)
            prev = self.recv_at[(siblings[j - 1].id, c)] if j else None
            self._set(u, send, Step("s", *src, *acc), dep)
            self._set(v, recv, Step("rrc", *first, *acc), prev)
            return
        out = self._x_out(e, c)
        if u != e.root:
            (parent,) = self.into[(e.phase, si, ti, u)]
            src, dep = out, self.recv_at[(parent.id, c)]
        elif self.coll == "allreduce":
            src, dep = out, self.recv_at[(self.into[("rs", si, ti, u)][-1].id, c)]
        else:
            src, dep = self._x_in(e, c), None
        self._set(u, send, Step("s", *src, *out), dep)
        self._set(v, recv, Step("r", *src, *out))

    def local_copies(self) -> None:
        """Out-of-place copies at AllGather and Broadcast roots (one ``cpy`` of S slots)."""
        if self.coll not in ("allgather", "broadcast"):
            return
        roots = {(e.set_index, e.tree_index): e for e in self.s.entries if e.src == e.root}
        for _, e in sorted(roots.items()):
            t = self._tb_of(e.root, -1, -1, 0)
            src, dst = self._x_in(e, 0), self._x_out(e, 0)
            self.tbs[e.root][t].steps.append(Step("cpy", *src, *dst, cnt=self.S))

    def buffers(self, gpu: int) -> dict[str, int]:
        """``i_chunks``, ``o_chunks`` and ``s_chunks`` of one GPU."""
        full = self.blocks * self.S
        i = self.S if self.coll == "allgather" else full
        o = self.S if self.coll == "reducescatter" else full
        return {"i_chunks": i, "o_chunks": o, "s_chunks": len(self.scratch[gpu])}

    def numbered(self, gpu: int) -> list[Threadblock]:
        """The GPU's threadblocks with ids (creation order) and ``hasdep`` flags set."""
        tbs = self.tbs[gpu]
        for t, tb in enumerate(tbs):
            tb.id = t
        for tb in tbs:
            for st in tb.steps:
                if st.depid >= 0:
                    tbs[st.depid].steps[st.deps].hasdep = 1
        return tbs
