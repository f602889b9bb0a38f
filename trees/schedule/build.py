"""Schedule tables: the per-chiplet rows a network interface loads to run a pipelined collective.

A :class:`Schedule` is pure data built from tree packings by :func:`build_schedule`. It has one
:class:`ScheduleEntry` per (phase, tree, arc): the entry covers every chunk that tree carries on
that arc (chunks are pipelined, so the rows do not repeat per chunk). Each chiplet's table is the
list of entry ids where it is the source or the destination.

Entry fields (JSON / CSV names; Python attribute in brackets where it differs)
    ``id``            position in ``entries`` (global order, below)
    ``collective``    ``allreduce``, ``reducescatter``, ``allgather``, ``broadcast`` or ``reduce``
    ``phase``         ``rs`` (reduce-scatter part, in-trees), ``ag`` (all-gather part, out-trees),
                      ``bcast`` (out-trees) or ``reduce`` (in-trees)
    ``set`` [set_index], ``tree`` [tree_index]   the tree set and the tree within it
    ``root``          the tree's root
    ``chunk_first``, ``chunk_last``   global chunk ids the tree carries (inclusive): AllReduce,
                      Broadcast, Reduce number trees set-major ``g = 0..k-1`` and tree ``g``
                      carries ``[g*C, g*C + C - 1]``; ReduceScatter / AllGather give the tree of
                      the root with rank ``r`` (position among the compute chiplets) the block
                      ``[r*C, r*C + C - 1]``. ``C`` is ``Schedule.chunks``. Weighted tables
                      (below) split each root's block among its trees instead.
    ``src``, ``dst``, ``key``   the arc the data use (``key`` tells parallel links apart)
    ``step``          position of this entry in the FIFO of its arc ``(src, dst, key)`` (inside
                      a set, where several of its trees share the arc: the order of
                      :func:`~supermesh.trees.schedule.fifo.fifo_slots`, below)
    ``depth``         depth of the arc's child end in its tree (1 for arcs touching the root)
    ``deps``          ids of the entries whose delivery of the *same chunk* this entry waits for:
                      ``rs``/``reduce``: the entries of the same tree into ``src`` (its children);
                      ``ag``/``bcast``: the entry of the same tree into ``src`` (its parent);
                      AllReduce ``ag`` entries leaving the root: the ``rs`` entries of the same
                      tree into the root (the root's reduction of that chunk)
    ``op``            what ``src`` does: ``send`` (its own data: an in-tree leaf, an out-tree
                      root), ``recv-reduce-send`` (add what its children sent to its own data and
                      send), ``recv-send`` (forward what it received)
    ``on_recv``       what ``dst`` does with a chunk: ``reduce`` (add it into its accumulator) or
                      ``store`` (keep it and forward it)

Order. Entries are sorted by (phase: ``rs`` before ``ag``; set; leaves first for in-tree phases
(depth descending), root first for out-tree phases (depth ascending); tree; src; dst; key) and
``id`` is the position in that order, so every dependency points to a smaller id. The FIFO of a
link holds (entry, chunk) pairs ordered by (phase, set, chunk, step), where chunk is the index
``0, 1, ...`` inside the entry's range: all sets share one FIFO per link in set order, and inside
a set chunk ``c`` of every entry goes before chunk ``c + 1`` (an entry with fewer chunks drops
out once its chunks are done). With arc-disjoint trees a set has at most one entry per link, so
a FIFO is its entries one after the other in id order. Where several trees of one set share a
link, their steps follow :func:`~supermesh.trees.schedule.fifo.fifo_slots` (a list schedule of
``min(chunks of the set's largest tree, 10)`` rounds, ``kind`` ``forward`` for out-tree phases
and ``reduce`` for in-tree phases, trees indexed as in the set and oriented parent -> child):
the order :func:`supermesh.sim.packing.packing_program` simulates. AllReduce has
``barrier = True``: no ``ag`` chunk moves until every root holds every reduced chunk (the
simulator's global barrier); the ``deps`` give only the data dependency. With ``barrier =
False`` (``build_schedule(..., barrier=False)``, the throughput AllReduce) they are all there is:
an ``ag`` chunk leaves its root once the root has reduced it.

Weighted tables (throughput packings). A ReduceScatter, AllGather or AllReduce packing in which
some root roots several trees or trees of one set share a link, and the shares
(:attr:`Tree.share`) of each root's trees add up to 1 within ``1e-9`` (as
:func:`~supermesh.trees.throughput.pack.pack_throughput` makes them), gives a *weighted* table:
``Schedule.shares`` records every tree's share, per set and tree. The roots, in rank order, own
blocks ``b = 0, 1, ...`` (ReduceScatter / AllGather: every rank roots a tree, so ``b`` is the
rank) and block ``b`` is the chunks ``[b*C, b*C + C - 1]`` with ``C = Schedule.chunks``. The
root's trees, in set-major order, carry consecutive ranges of its block whose lengths
:func:`split_block` gives (largest remainder: ``floor(C * share / total)`` each, the chunks left
over one each to the largest fractional parts, ties to the earlier tree, then a tree left with no
chunk takes one from the tree with the most), so every chunk of the block is carried by exactly
one tree, and ``K`` equal shares get equal counts when ``K`` divides ``C``. ``C`` derived from
``nbytes`` is ``ceil(nbytes / (roots * chunk_bytes))`` and at least the most trees of one root:
the simulator's packing program (:func:`supermesh.sim.packing.packing_program`) splits each
block by the same rule, so a table runs as it was simulated. Every other
packing (arc-disjoint sets with equal shares) gives the table described above, unchanged.
Weighted tables assume a receive slot per table row (link and tree) rather than per link
(:mod:`supermesh.verify.deadlock.fifo`): with many trees on a link and one slot per link, a chunk
held at a receiver can wait for a link held by another tree's chunk, and the FIFO order can
deadlock.

The data types and their JSON form are in :mod:`supermesh.trees.schedule.model`; the trees of
each phase are read and checked in :mod:`supermesh.trees.schedule.phases`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.fifo import FIFO_ROUNDS
from supermesh.trees.schedule.model import (
    CHUNK_BYTES,
    COLLECTIVES,
    PHASES,
    Schedule,
    ScheduleEntry,
)
from supermesh.trees.schedule.phases import (
    PHASE_DIRECTIONS,
    check_roots_and_shares,
    phase_sets,
    tree_shape,
)
from supermesh.trees.schedule.weighted import shared_link_order, weighted_ranges

__all__ = ["build_schedule", "chunks_for"]


def chunks_for(collective: str, nbytes: int, ntrees: int, nranks: int, chunk_bytes: int) -> int:
    """Chunks per tree for ``nbytes`` of data (BRIEF section 4).

    AllReduce, Broadcast, Reduce over ``k`` trees: ``ceil(nbytes / (k * chunk_bytes))``;
    ReduceScatter / AllGather, where each of the ``n`` roots owns ``nbytes / n``:
    ``ceil(nbytes / (n * chunk_bytes))``; at least 1.

    Examples
    --------
    >>> chunks_for("allreduce", 4 * 2**20, 4, 16, 12288)
    86
    >>> chunks_for("allgather", 4 * 2**20, 16, 16, 12288)
    22
    """
    share = nranks if collective in ("reducescatter", "allgather") else ntrees
    return max(1, math.ceil(nbytes / (share * chunk_bytes)))


def build_schedule(
    G: nx.MultiDiGraph,
    collective: str,
    packings: TreePacking | Sequence[TreePacking],
    *,
    chunks: int | None = None,
    nbytes: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    fifo: Mapping[tuple[str, int], Mapping[tuple[int, int], int]] | None = None,
    barrier: bool = True,
) -> Schedule:
    """Build the schedule table of a pipelined collective from its trees.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
        AllReduce runs ``rs`` on in-trees into the roots, a global barrier, then ``ag`` on
        out-trees from the same roots (tree ``t`` of both phases carries the same chunks).
        ReduceScatter / AllGather use every set of the packing (one tree per chiplet, sets
        sharing each link's FIFO in set order); Broadcast / Reduce use trees with one root.
    packings : TreePacking or sequence of TreePacking
        At most one packing per direction. A phase whose direction is missing uses the other
        packing's trees with every arc reversed, which needs a symmetric network (every arc
        ``u -> v`` key ``k`` has ``v -> u`` key ``k``); AllReduce with two packings needs the
        same roots in the same order in both (and, weighted, the same shares). A throughput
        packing (several trees per root, or trees of a set sharing links, with the shares of a
        root adding up to 1) gives a weighted table (module docstring).
    chunks : int, optional
        Chunks per tree ``C`` (weighted tables: per root block, at least the most trees of one
        root). Default: derived from ``nbytes`` (see :func:`chunks_for` and the module
        docstring), else 1 (weighted: the most trees of one root).
    nbytes : int, optional
        Data size in bytes (recorded in the schedule).
    chunk_bytes : int
        Bytes per chunk (default 12288).
    fifo : mapping, optional
        Each link's order given instead of computed, for the (phase, set) pairs it lists:
        ``fifo[(phase, set)][(tree index, child end of the arc)]`` is the entry's position in
        its link's FIFO (a synthesised schedule's own order, e.g. TACOS's).
    barrier : bool
        AllReduce: the global barrier between ``rs`` and ``ag`` (``Schedule.barrier``); off,
        an ``ag`` chunk leaves a root once the root has reduced it, and each link still sends
        its ``rs`` entries before its ``ag`` ones (what ``sim -a throughput`` runs).

    Returns
    -------
    Schedule

    Raises
    ------
    SpecError
        On an unknown collective, a chunk count below 1 (or, weighted, below the trees of one
        root), two packings of one direction, or trees of different shares whose shares per
        root do not add up to 1.
    TopologyError
        If a tree uses an arc the topology lacks, is not an arborescence, misses a chiplet it
        must span, the roots do not fit the collective, or a needed reversal is impossible.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreeSet
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> s = build_schedule(G, "allreduce", p, chunks=4)
    >>> [(e.src, e.dst, e.deps) for e in s.entries]  # rs leaves first, then ag root first
    [(3, 1, ()), (1, 0, (0,)), (2, 0, ()), (0, 1, (1, 2)), (0, 2, (1, 2)), (1, 3, (3,))]
    >>> s.tables[3], s.entries[1].op
    ((0, 5), 'recv-reduce-send')

    A throughput packing: two trees per chiplet, each carrying half of its block of 4 chunks.

    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> w = build_schedule(G, "allgather", pack_throughput(G, parts=2), chunks=4)
    >>> w.shares
    ((0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5),)
    >>> sorted({(e.root, e.tree_index, e.chunk_first, e.chunk_last) for e in w.entries})[:4]
    [(0, 0, 0, 1), (0, 1, 2, 3), (1, 2, 4, 5), (1, 3, 6, 7)]
    """
    if collective not in COLLECTIVES:
        raise SpecError(f"unknown collective {collective!r}", hint=f"use one of {COLLECTIVES}")
    packs = [packings] if isinstance(packings, TreePacking) else list(packings)
    if not packs:
        raise SpecError("no tree packing given", hint="compute trees with `supermesh trees`")
    by_phase = phase_sets(G, collective, packs)
    if collective == "allreduce" and len(by_phase) == 2:
        rs_roots = [[t.root for t in s] for s in by_phase["rs"]]
        ag_roots = [[t.root for t in s] for s in by_phase["ag"]]
        if rs_roots != ag_roots:
            raise TopologyError(
                f"AllReduce in-tree roots {rs_roots} differ from out-tree roots {ag_roots}",
                hint="tree t of both packings must have the same root",
            )
    first_sets = next(iter(by_phase.values()))
    span = packs[0].span
    # the ranks are the chiplets taking part: a packing that spans fewer (TTO leaves one corner
    # out of the computation) makes the others pure relays
    ranks = sorted(span) if span is not None else compute_nodes(G)
    weighted = check_roots_and_shares(G, collective, first_sets, ranks)
    if weighted and len(by_phase) == 2:
        rs_shares = [[t.share for t in s] for s in by_phase["rs"]]
        ag_shares = [[t.share for t in s] for s in by_phase["ag"]]
        if rs_shares != ag_shares:
            raise TopologyError(
                "AllReduce in-tree shares differ from out-tree shares",
                hint="tree t of both packings must carry the same share",
            )
    bad = (chunks is not None and chunks < 1) or chunk_bytes < 1
    if bad or (nbytes is not None and nbytes < 1):
        raise SpecError(f"chunks={chunks}, chunk_bytes={chunk_bytes}, nbytes={nbytes}: need >= 1")
    ranges: dict[tuple[int, int], tuple[int, int]] = {}
    if weighted:
        chunks, ranges = weighted_ranges(first_sets, ranks, chunks, nbytes, chunk_bytes)
    elif chunks is None and nbytes is not None:
        ntrees = sum(len(s) for s in first_sets)
        chunks = chunks_for(collective, nbytes, ntrees, len(ranks), chunk_bytes)
    chunks = 1 if chunks is None else chunks
    rank_of = {v: i for i, v in enumerate(ranks)}
    rows: list[ScheduleEntry] = []
    slots: dict[tuple[str, int], dict[tuple[int, int], int]] = {}
    for phase, direction in PHASE_DIRECTIONS[collective]:
        g = 0
        for si, trees in enumerate(by_phase[phase]):
            for ti, tree in enumerate(trees):
                depth, kids = tree_shape(G, tree, direction, ranks, f"{phase} set {si} tree {ti}")
                block = rank_of[tree.root] if collective in ("reducescatter", "allgather") else g
                g += 1
                first, last = ranges.get((si, ti), (block * chunks, block * chunks + chunks - 1))
                for u, v, k in tree.arcs:
                    rows.append(ScheduleEntry(
                        -1, collective, phase, si, ti, tree.root, first, last, u, v, k, -1,
                        depth[v if direction == "out" else u], (),
                        _op(direction, tree.root, u, len(kids.get(u, ())), u in rank_of),
                        "store" if direction == "out" else "reduce",
                    ))  # fmt: skip
            longest = max((b - a + 1 for (i, _), (a, b) in ranges.items() if i == si), default=0)
            if fifo is not None and (phase, si) in fifo:
                slots[(phase, si)] = dict(fifo[(phase, si)])
                continue
            order = shared_link_order(trees, direction, min(longest or chunks, FIFO_ROUNDS))
            if order is not None:
                slots[(phase, si)] = order
    entries = _number(rows, collective, slots)
    tables: dict[int, list[int]] = {int(n): [] for n in G.nodes}
    for e in entries:
        tables[e.src].append(e.id)
        tables[e.dst].append(e.id)
    return Schedule(
        topology=str(G.graph.get("spec", "")),
        collective=collective,
        chunks=chunks,
        chunk_bytes=chunk_bytes,
        nbytes=nbytes,
        barrier=collective == "allreduce" and barrier,
        roots=tuple(tuple(t.root for t in s) for s in first_sets),
        ranks=tuple(ranks),
        entries=tuple(entries),
        tables={n: tuple(ids) for n, ids in sorted(tables.items())},
        shares=tuple(tuple(t.share for t in s) for s in first_sets) if weighted else None,
    )


def _op(direction: str, root: int, src: int, nkids: int, is_rank: bool) -> str:
    """What the sender of an arc does (see the ``op`` field)."""
    if direction == "out":
        return "send" if src == root else "recv-send"
    if nkids == 0:
        return "send"
    return "recv-send" if nkids == 1 and not is_rank else "recv-reduce-send"


def _order(e: ScheduleEntry) -> tuple[int, ...]:
    """Global entry order: phase, set, leaves first (in-trees) / root first (out-trees), ..."""
    depth_key = -e.depth if e.phase in ("rs", "reduce") else e.depth
    return (PHASES.index(e.phase), e.set_index, depth_key, e.tree_index, e.src, e.dst, e.key)


def _number(
    rows: list[ScheduleEntry],
    collective: str,
    slots: dict[tuple[str, int], dict[tuple[int, int], int]],
) -> list[ScheduleEntry]:
    """Sort rows into the global order and fill in ids, FIFO steps and dependencies.

    Steps: per link in id order (sets in order), except that inside a (phase, set) listed in
    ``slots`` the entries of a link follow their ``fifo_slots`` position (key: tree index and the
    child end of the arc).
    """
    rows = sorted(rows, key=_order)
    into: dict[tuple[str, int, int, int], list[int]] = defaultdict(list)
    on_link: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, e in enumerate(rows):
        into[(e.phase, e.set_index, e.tree_index, e.dst)].append(i)
        on_link[e.arc].append(i)
    step: dict[int, int] = {}
    for ids in on_link.values():
        runs: dict[tuple[str, int], list[int]] = defaultdict(list)
        for i in ids:  # id order keeps (phase, set) runs in order
            runs[(rows[i].phase, rows[i].set_index)].append(i)
        n = 0
        for key, run in runs.items():
            pos = slots.get(key)
            if pos is not None:
                run = sorted(run, key=lambda i: (pos[_job(rows[i])], i))
            for i in run:
                step[i] = n
                n += 1
    out = []
    for i, e in enumerate(rows):
        phase = "rs" if collective == "allreduce" and e.src == e.root else e.phase
        deps = tuple(into.get((phase, e.set_index, e.tree_index, e.src), ()))
        out.append(replace(e, id=i, step=step[i], deps=deps))
    return out


def _job(e: ScheduleEntry) -> tuple[int, int]:
    """The ``fifo_slots`` key of an entry: its tree and the child end of its arc."""
    return (e.tree_index, e.src if e.phase in ("rs", "reduce") else e.dst)
