"""Threadblocks and steps of an MSCCL program, built from a schedule.

The rules (threadblocks per link, FIFO step order, step types, buffers, chunk slots per loop,
channel groups) are documented in :mod:`supermesh.export.msccl`; this module implements them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from supermesh.errors import SpecError
from supermesh.trees.schedule.model import PHASES, Schedule, ScheduleEntry

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


def _count(e: ScheduleEntry) -> int:
    return e.chunk_last - e.chunk_first + 1


def plan_slots(schedule: Schedule, slots: int | None, max_steps: int) -> tuple[int, dict[int, int]]:
    """Chunk slots per block and loop ``S`` and the channel group of every tree set.

    A tree carrying ``n`` of its block's ``C = schedule.chunks`` chunks gets ``n * S / C`` slots
    per loop, so ``S`` must be a multiple of ``C / g`` (``g`` the gcd of ``C`` and every tree's
    count; 1 for tables whose trees all carry ``C``). When the trees sharing a link (in one set)
    carry different counts, the loop cannot repeat the table's FIFO order (chunk index, step), so
    ``S = C``: one loop iteration is the whole table.

    Parameters
    ----------
    schedule : Schedule
    slots : int or None
        ``S`` chosen by the user; default the largest allowed ``S <= schedule.chunks`` with which
        the busiest link's steps fit in ``max_steps``.
    max_steps : int
        Steps per threadblock allowed by the runtime.

    Returns
    -------
    (int, dict)
        ``S`` and set index -> channel group (consecutive sets, each group's steps per link at
        most ``max_steps``).

    Raises
    ------
    SpecError
        If ``S`` is outside ``1..max_steps`` or not allowed by the tree counts, or one set alone
        overfills a threadblock.
    """
    C = schedule.chunks
    g = C
    for e in schedule.entries:
        g = math.gcd(g, _count(e))
    unit = C // g  # slots per block in the smallest loop that keeps every tree's proportion
    per: dict[tuple[int, tuple[int, int, int]], int] = defaultdict(int)
    counts: dict[tuple[str, int, tuple[int, int, int]], set[int]] = defaultdict(set)
    for e in schedule.entries:
        per[(e.set_index, e.arc)] += _count(e) // g
        counts[(e.phase, e.set_index, e.arc)].add(_count(e))
    uneven = next((k for k, v in counts.items() if len(v) > 1), None)
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
        slots = C if uneven else unit * max(1, min(g, max_steps // (most * unit)))
    if not 1 <= slots <= max_steps:
        raise SpecError(f"chunks per loop {slots} is not in 1..{max_steps}")
    if uneven is not None and slots != C:
        phase, si, (u, v, k) = uneven
        raise SpecError(
            f"trees of different chunk counts {sorted(counts[uneven])} share link {u}->{v} key "
            f"{k} ({phase} set {si}); an MSCCL loop cannot repeat the table's FIFO order, so a "
            f"loop must hold the whole table: {C} chunk slots per block, not {slots}",
            hint="use equal shares (pack_throughput(parts=K) with K dividing the chunks), "
            "or fewer chunks, or raise max_steps (MSCCL allows 256, RCCL 64)",
        )
    if slots % unit:
        raise SpecError(
            f"chunks per loop {slots} is not a multiple of {unit}: the trees' chunk counts "
            f"(shares of a block of {C}) need {unit} slots per block and loop",
            hint=f"use a multiple of {unit}",
        )
    groups = grouping(max_steps * unit // slots)
    if groups is None and uneven is not None:
        phase, si, (u, v, k) = uneven
        raise SpecError(
            f"trees of different chunk counts {sorted(counts[uneven])} share link {u}->{v} key "
            f"{k} ({phase} set {si}), so an MSCCL loop cannot repeat the table's FIFO order and "
            f"must hold the whole table ({C} chunk slots per block): that puts more than "
            f"{max_steps} steps on one link, over the limit of {max_steps} per threadblock",
            hint="use equal shares (pack_throughput(parts=K)), whose trees loop in steps of K "
            "slots, or fewer chunks, or raise max_steps (MSCCL allows 256, RCCL 64)",
        )
    if groups is None:
        raise SpecError(
            f"one tree set puts more than {max_steps} steps on one link with {slots} chunk "
            f"slots per loop, over the MSCCL limit of {max_steps} steps per threadblock",
            hint="use fewer chunks per loop or raise max_steps (MSCCL allows 256, RCCL 64)",
        )
    return slots, groups


class StepBuilder:
    """Collects threadblocks and steps (the rules are in :mod:`supermesh.export.msccl`)."""

    def __init__(self, schedule: Schedule, ngpus: int, slots: int) -> None:
        self.s = schedule
        self.S = slots
        self.coll = schedule.collective
        per_rank = self.coll in ("reducescatter", "allgather", "alltoall")
        last = max((e.chunk_last for e in schedule.entries), default=-1)
        self.blocks = ngpus if per_rank else (last + 1) // schedule.chunks
        self.tbs: dict[int, list[Threadblock]] = defaultdict(list)
        self._tb: dict[tuple[int, int, int, int], int] = {}
        self.send_at: dict[tuple[int, int], Loc] = {}
        self.recv_at: dict[tuple[int, int], Loc] = {}
        self.scratch: dict[int, dict[tuple[int, int], int]] = defaultdict(dict)
        self.into: dict[tuple[str, int, int, int], list[ScheduleEntry]] = defaultdict(list)
        for e in schedule.entries:
            self.into[(e.phase, e.set_index, e.tree_index, e.dst)].append(e)
        self.when: dict[tuple[int, int], int] | None = None

    def _kids(self, phase: str, si: int, ti: int, node: int, c: int) -> list[ScheduleEntry]:
        """The entries into ``node`` of a tree in the order slot ``c`` reduces them."""
        got = self.into[(phase, si, ti, node)]
        if self.when is None:
            return got
        when = self.when
        return sorted(got, key=lambda d: when[(d.id, c)])

    def follow_execution(self) -> None:
        """Chain the reductions of each slot in the order a run of the table delivers them.

        Where several trees of a set share a link (each link's steps in the table's FIFO order),
        reducing a node's children in entry order can wait across links in a cycle (child ``a``
        first for one tree, ``b`` first for another, the links serving the trees the other way
        round). A run of the table, every link serving its FIFO head once its ``deps`` are
        delivered, gives one order of all transfers; chaining each node's reductions in that
        order makes every MSCCL dependency point to an earlier transfer of that run, so the
        program cannot deadlock (with any connection capacity: each transfer of the run is sent
        and received before the next one on its link).
        """
        queues: dict[tuple[int, int, int], list[tuple[tuple[int, ...], int, int]]]
        queues = defaultdict(list)
        by_id = {e.id: e for e in self.s.entries}
        for e in self.s.entries:
            for c in range(self.slots(e)):
                queues[e.arc].append(((PHASES.index(e.phase), e.set_index, c, e.step), e.id, c))
        heads = {arc: sorted(q, reverse=True) for arc, q in queues.items()}
        when: dict[tuple[int, int], int] = {}
        moved = True
        while moved:
            moved = False
            for q in heads.values():
                while q and all((d, q[-1][2]) in when for d in by_id[q[-1][1]].deps):
                    _, eid, c = q.pop()
                    when[(eid, c)] = len(when)
                    moved = True
        stuck = [q[-1] for q in heads.values() if q]
        if stuck:
            raise SpecError(
                f"the table's FIFO order never delivers entry {stuck[0][1]} (slot {stuck[0][2]})",
                hint="verify the schedule (supermesh verify) before exporting it",
            )
        self.when = when

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
            for c in range(self.slots(e)):
                order = (PHASES.index(e.phase), e.set_index, c, e.step)
                links[(e.src, e.dst, chan_of[e.id])].append((order, e.id, c))
        for (src, dst, chan), items in sorted(links.items()):
            st, rt = self._tb_of(src, dst, -1, chan), self._tb_of(dst, -1, src, chan)
            for _, eid, c in sorted(items):
                for gpu, t, where in ((src, st, self.send_at), (dst, rt, self.recv_at)):
                    steps = self.tbs[gpu][t].steps
                    where[(eid, c)] = (t, len(steps))
                    steps.append(Step("nop", "i", -1, "o", -1))

    def slots(self, e: ScheduleEntry) -> int:
        """Chunk slots per loop of ``e``'s tree: its share of the block's ``S``."""
        return _count(e) * self.S // self.s.chunks

    # --- buffer locations -------------------------------------------------------------------
    def _block(self, e: ScheduleEntry) -> int:
        return e.chunk_first // self.s.chunks

    def _in_block(self, e: ScheduleEntry, c: int) -> int:
        """Slot ``c`` of ``e``'s tree inside its block (trees of one root side by side)."""
        return (e.chunk_first - self._block(e) * self.s.chunks) * self.S // self.s.chunks + c

    def _x_in(self, e: ScheduleEntry, c: int) -> tuple[str, int]:
        at = self._in_block(e, c)
        if self.coll == "alltoall":  # block b = i * n + j: slot of destination j at source i
            return ("i", self._block(e) % self.blocks * self.S + at)
        return ("i", at) if self.coll == "allgather" else ("i", self._block(e) * self.S + at)

    def _x_out(self, e: ScheduleEntry, c: int) -> tuple[str, int]:
        at = self._in_block(e, c)
        if self.coll == "alltoall":  # slot of source i at destination j
            return ("o", self._block(e) // self.blocks * self.S + at)
        return ("o", at) if self.coll == "reducescatter" else ("o", self._block(e) * self.S + at)

    def _held(self, gpu: int, e: ScheduleEntry, c: int) -> tuple[str, int]:
        """Where ``gpu`` keeps the chunk of ``e``'s tree, slot ``c`` (AllToAll relays: scratch)."""
        if self.coll != "alltoall" or gpu == self.s.dests[0][e.tree_index]:  # type: ignore[index]
            return self._x_out(e, c)
        slots = self.scratch[gpu]
        return ("s", slots.setdefault((self._block(e), self._in_block(e, c)), len(slots)))

    def _acc(self, gpu: int, e: ScheduleEntry, c: int) -> tuple[str, int]:
        """Where ``gpu`` accumulates the in-tree chunk of ``e``'s tree, slot ``c``."""
        if gpu == e.root or self.coll == "allreduce":
            return self._x_out(e, c)
        slots = self.scratch[gpu]
        return ("s", slots.setdefault((self._block(e), self._in_block(e, c)), len(slots)))

    def _set(self, gpu: int, at: Loc, step: Step, dep: Loc | None = None) -> None:
        if dep is not None:
            step.depid, step.deps = dep
        self.tbs[gpu][at[0]].steps[at[1]] = step

    def fill(self, e: ScheduleEntry, c: int) -> None:
        """Give the send and recv step of (entry, slot) their type, buffers and dependency."""
        u, v, si, ti = e.src, e.dst, e.set_index, e.tree_index
        send, recv = self.send_at[(e.id, c)], self.recv_at[(e.id, c)]
        if e.phase in ("rs", "reduce"):
            kids = self._kids(e.phase, si, ti, u, c)
            src = self._acc(u, e, c) if kids else self._x_in(e, c)
            dep = self.recv_at[(kids[-1].id, c)] if kids else None
            siblings = self._kids(e.phase, si, ti, v, c)
            j = siblings.index(e)
            acc = self._acc(v, e, c)
            first = acc if j else self._x_in(e, c)
            prev = self.recv_at[(siblings[j - 1].id, c)] if j else None
            self._set(u, send, Step("s", *src, *acc), dep)
            self._set(v, recv, Step("rrc", *first, *acc), prev)
            return
        out = self._held(v, e, c)
        if u != e.root:
            (parent,) = self.into[(e.phase, si, ti, u)]
            src, dep = self._held(u, e, c), self.recv_at[(parent.id, c)]
        elif self.coll == "allreduce":
            src, dep = out, self.recv_at[(self._kids("rs", si, ti, u, c)[-1].id, c)]
        else:
            src, dep = self._x_in(e, c), None
        self._set(u, send, Step("s", *src, *out), dep)
        self._set(v, recv, Step("r", *src, *out))

    def local_copies(self) -> None:
        """Out-of-place copies at AllGather and Broadcast roots (one ``cpy`` of S slots); AllToAll:
        every rank's block to itself."""
        if self.coll == "alltoall":
            for i, gpu in enumerate(self.s.ranks):
                t = self._tb_of(gpu, -1, -1, 0)
                at = i * self.S
                self.tbs[gpu][t].steps.append(Step("cpy", "i", at, "o", at, cnt=self.S))
            return
        if self.coll not in ("allgather", "broadcast"):
            return
        roots = {(e.set_index, e.tree_index): e for e in self.s.entries if e.src == e.root}
        for _, e in sorted(roots.items()):
            t = self._tb_of(e.root, -1, -1, 0)
            src, dst = self._x_in(e, 0), self._x_out(e, 0)
            self.tbs[e.root][t].steps.append(Step("cpy", *src, *dst, cnt=self.slots(e)))

    def buffers(self, gpu: int) -> dict[str, int]:
        """``i_chunks``, ``o_chunks`` and ``s_chunks`` of one GPU."""
        full = self.blocks * self.S
        i = self.S if self.coll == "allgather" else full  # AllToAll: n blocks in and out
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
