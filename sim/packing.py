"""Simulator programs for weighted packings, with each link's FIFO order from a list schedule.

All the trees of a throughput packing run at once, so many trees share each link. In the
reference discipline (BRIEF section 4, :mod:`supermesh.sim.collectives`) a link serves its FIFO
strictly in order, chunk by chunk, and within a chunk by depth (root first for AllGather,
leaves first for ReduceScatter): a transfer whose data has not arrived holds up every transfer
behind it. With one tree per link that order is harmless; with dozens of trees per link the
depth order makes links wait on each other (an 8x8 SuperMesh packing at the optimal rate then
runs about 20% below it).

Trees with unequal shares carry unequal chunk counts, and a FIFO served chunk by chunk then
runs them at equal chunk rates instead of their shares' (the exact-share packing of a 4x4 mesh
8% above the bound). Each tree therefore runs as streams of one common chunk count
(:func:`~supermesh.trees.schedule.fifo.stream_counts`): a tree of twice the share is two
streams over the same arcs, each carrying half its chunks, side by side in every FIFO.

The FIFO order inside a chunk comes from :func:`supermesh.trees.schedule.fifo.fifo_slots`, the same
order the schedule tables use. :func:`packing_program` builds the
:class:`~supermesh.sim.program.Program` (same chunking, timing and dependencies as
:func:`supermesh.sim.collectives.tree_program`; only the order inside a chunk differs, and
``order="depth"`` reproduces that function's order exactly) and :func:`simulate_packing` runs it.

An AllReduce without its barrier may instead take ``order="justified"``: rounds of one chunk a
tree repeat one order, so every link waits as long at the start and the end as the order's
slowest tree (mesh 8x8, free-share trees, 16 chunks a tree: 145 transfer times, where no order
takes fewer than 105); one list schedule of every chunk's transfers, run backwards and forwards
(:func:`~supermesh.trees.schedule.justify.justified_schedule`), reaches 105. Its chunks are
ranked by their fair places (:func:`fair_places`), and an AllReduce's vector is dealt to its
trees in whole chunks that load the busiest arc least
(:func:`~supermesh.trees.schedule.weighted.least_loaded_counts`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from supermesh.budget import check_memory
from supermesh.errors import SpecError, TopologyError
from supermesh.sim.bounds import ThroughputBound
from supermesh.sim.collectives import check_collective, chunk_count, tree_phases
from supermesh.sim.link_costs import arc_costs, link_duration
from supermesh.sim.presets import SimParams, get_preset
from supermesh.sim.program import Dependencies, Phase, Program
from supermesh.sim.ramp import ramped_sizes
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.trees.model import Tree, TreePacking
from supermesh.trees.schedule.fifo import FIFO_ROUNDS, Job, fifo_orders, stream_counts
from supermesh.trees.schedule.forest import Forest, forest
from supermesh.trees.schedule.justify import justified_schedule, slot_floor
from supermesh.trees.schedule.list_schedule import way_to_go
from supermesh.trees.schedule.timed import timed_floor, timed_justified_schedule
from supermesh.trees.schedule.weighted import least_loaded_counts, split_block

__all__ = [
    "check_packing_memory",
    "fair_places",
    "packing_program",
    "simulate_packing",
    "tree_bytes",
]

PACKING_BLOCK_BYTES = 300
"""Peak bytes per transfer of a packing's run: ``sim smbi:32x32 -c allgather --size 512MiB``
(4,190,208 transfers, one chunk per tree) peaked at 1,268 MB."""


def check_packing_memory(collective: str, trees: int, blocks: int) -> None:
    """Refuse a packing's run whose program would not fit in memory.

    Parameters
    ----------
    collective : str
    trees : int
        Trees of the packing (for the message).
    blocks : int
        Transfers a phase: tree arcs times streams, or a lower bound on them (``n (n - 1)``
        for one tree per rank, which the caller can check before building the packing).

    Raises
    ------
    ResourceError
        Above :func:`supermesh.budget.memory_cap`.

    Examples
    --------
    >>> check_packing_memory("allgather", 16, 16 * 15)  # a 4x4 grid, one tree per rank
    """
    check_memory(  # the program, its dependency arrays and the engine's times, per block
        PACKING_BLOCK_BYTES * blocks * (2 if collective == "allreduce" else 1),
        f"the {collective} of {trees:,} weighted trees ({blocks:,} transfers a phase)",
        hint="simulate a smaller grid; the time this run would approach is the cut bound's "
        "(supermesh bound SPEC --collective allgather, in seconds at any size)",
    )


def _stored(packing: TreePacking | Sequence[Tree], direction: str) -> tuple[list[Tree], str]:
    """The trees of ``packing`` and the direction they are stored in."""
    if isinstance(packing, TreePacking):
        return list(packing.trees), packing.direction
    return list(packing), direction


def _root_totals(trees: Sequence[Tree]) -> dict[int, float]:
    """Each root's shares added up, in tree order."""
    total: dict[int, float] = {}
    for t in trees:
        total[t.root] = total.get(t.root, 0.0) + t.share
    return total


def _root_bytes(total: Mapping[int, float], nbytes: int, collective: str) -> dict[int, float]:
    """The bytes each root sends (AllGather), receives (ReduceScatter) or both (AllReduce),
    from its shares' ``total`` (:func:`_root_totals`).

    ReduceScatter and AllGather: every rank its ``M / n``. AllReduce may split the vector
    freely: each root reduces and broadcasts the part its trees' shares add up to, which is
    ``M / n`` again when every root's shares add up alike (equal parts, or a throughput
    packing), and a root's free share in a free-root packing
    (:func:`supermesh.trees.throughput.free_roots.free_root_packing`).
    """
    alike = max(total.values()) - min(total.values()) <= 1e-12 * max(total.values())
    if collective != "allreduce" or alike:
        return dict.fromkeys(total, nbytes / len(total))
    whole = sum(total.values())
    return {r: nbytes * x / whole for r, x in total.items()}


def tree_bytes(trees: Sequence[Tree], nbytes: int, collective: str) -> list[float]:
    """The bytes each tree carries in a weighted run: its share of its root's part.

    Examples
    --------
    >>> a, b = Tree(0, ((0, 1, 0),), 1, share=0.75), Tree(1, ((1, 0, 0),), 1, share=0.25)
    >>> tree_bytes([a, b], 1000, "allgather"), tree_bytes([a, b], 1000, "allreduce")
    ([500.0, 500.0], [750.0, 250.0])
    """
    total = _root_totals(trees)
    part = _root_bytes(total, nbytes, collective)
    return [part[t.root] * t.share / total[t.root] for t in trees]


def _least_loaded(
    G: nx.MultiDiGraph, trees: Sequence[Tree], nbytes: int, params: SimParams
) -> list[int]:
    """An AllReduce's chunks per tree when it may split its vector at will: the vector's chunks,
    each tree's share rounded so the busiest arc carries least
    (:func:`~supermesh.trees.schedule.weighted.least_loaded_counts`; both ways of each tree arc).
    """
    index: dict[tuple[int, int, int], int] = {}
    uses = [
        [index.setdefault(a, len(index)) for u, v, k in t.arcs for a in ((u, v, k), (v, u, k))]
        for t in trees
    ]
    bandwidth, latency = arc_costs(G, list(index))
    unit = params.serialisation(params.chunk_bytes) + params.hop_latency
    each = link_duration(
        unit, params.hop_latency, bandwidth, latency, pipelined=params.link_pipelined
    )
    quota = [b / params.chunk_bytes for b in tree_bytes(trees, nbytes, "allreduce")]
    total = math.ceil(nbytes / params.chunk_bytes)
    return least_loaded_counts(quota, uses, total, capacity=unit / np.asarray(each))


def _tree_chunks(
    trees: Sequence[Tree], nbytes: int, collective: str, chunk_bytes: int, split: bool
) -> list[int]:
    """Chunks each tree carries: its root's block split by shares, or each share rounded up.

    ``split``: every root's ``ceil(part / chunk_bytes)`` chunks (its part of the vector:
    :func:`_root_bytes`; at least one per tree) are divided among its trees by
    :func:`~supermesh.trees.schedule.weighted.split_block` (largest remainder), the rule of the
    schedule tables, so a table runs as simulated; a tree may then
    carry one chunk more than another. Otherwise every tree rounds its own share up (whole
    chunks each, more chunks in all).
    """
    total = _root_totals(trees)
    per_root = _root_bytes(total, nbytes, collective)
    if not split:
        return [chunk_count(per_root[t.root] * t.share / total[t.root], chunk_bytes) for t in trees]
    mine: dict[int, list[int]] = {}
    for i, t in enumerate(trees):
        mine.setdefault(t.root, []).append(i)
    counts = [0] * len(trees)
    for idx in mine.values():
        # every tree carries at least one chunk (the tables' rule: a smaller block is padded)
        block = max(chunk_count(per_root[trees[idx[0]].root], chunk_bytes), len(idx))
        parts = split_block(block, [trees[i].share for i in idx])
        for i, c in zip(idx, parts, strict=True):
            counts[i] = c
    return counts


def packing_program(
    G: nx.MultiDiGraph,
    packing: TreePacking | Sequence[Tree],
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    direction: str = "out",
    order: str | Mapping[str, Mapping[Job, int]] = "schedule",
    split: bool = True,
    equalise: bool = True,
    one_round: bool = False,
    barrier: bool = True,
    ramp: float | None = None,
) -> Program:
    """The FIFO program of a weighted packing: all trees at once, in one group.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking or sequence of Tree
        Every tree of every set runs at once; shares split each root's data (for AllReduce,
        roots whose shares add up differently take parts of the vector in that proportion).
    collective : {"allgather", "reducescatter", "allreduce"}
        AllReduce is ReduceScatter then AllGather on the same trees (``barrier``).
    nbytes : int
        Collective size (the whole vector).
    params : SimParams
    direction : {"out", "in"}
        Orientation when ``packing`` is a plain sequence of trees.
    order : {"schedule", "depth", "justified"} or mapping
        FIFO order inside a chunk: :func:`fifo_slots`, or depth as in
        :func:`supermesh.sim.collectives.tree_program`, or given: ``{"forward": slots,
        "reduce": slots}`` with ``slots[(tree index, node)]`` the position of the transfer on
        the node's parent arc in that arc's FIFO (a synthesised schedule's own order).
        ``"justified"``: not rounds of one chunk a tree but one list schedule of every
        chunk's transfers (an AllReduce's, without the barrier: of both kinds), improved by
        justification
        (:func:`~supermesh.trees.schedule.justify.justified_schedule`); ``meta["slots"]`` is
        its length in transfer times and ``meta["slot_floor"]`` the
        :func:`~supermesh.trees.schedule.justify.slot_floor` no order of these trees and chunks
        beats. Chunks are ranked by :func:`fair_places`; an AllReduce's (without a ramp) are
        the vector's, dealt to the trees by
        :func:`~supermesh.trees.schedule.weighted.least_loaded_counts` (``split`` unused).
    split : bool
        Divide each root's block of chunks among its trees (the tables' rule), else round each
        tree's share up.
    equalise : bool
        Run every tree as streams of one common chunk count
        (:func:`~supermesh.trees.schedule.fifo.stream_counts`), so that unequal shares stream
        at their rates; the streams of a tree sit next to each other in every FIFO. Off, or an
        order given (the synthesised schedule's table records it as it is): one block per tree
        edge, the reference's discipline.
    one_round : bool
        Every chunk of every tree its own stream, all in one list-scheduled round
        (:func:`~supermesh.trees.schedule.list_schedule.repaired_schedule`), instead of rounds
        of one chunk of every tree: the link orders of a whole collective of ``k`` chunks a
        tree, not of one round repeated. Where one chunk a tree already streams, a round
        whose schedule is a slot longer than its busiest link costs a slot in ``k`` links'
        worth, not in one (SMBi 8x8, AllGather 512 MiB, paper preset: 64 slots for 63 with
        one chunk a tree, 1.016 of the bound; 504 for 504 with 8, 1.0010).
    barrier : bool
        AllReduce only: ReduceScatter, the global barrier, then AllGather (the reference's
        discipline); off, one phase without it (:func:`_without_barrier`: a root forwards a
        chunk once it has reduced it, each link after its own reduce transfers), which is what
        a throughput run simulates.
    ramp : float, optional
        With ``order="justified"``: each tree's chunks ramp up from one packet to
        ``params.chunk_bytes`` by this ratio a step and down again at the end
        (:func:`~supermesh.sim.ramp.ramped_sizes`), so the pipeline fills and drains in packets;
        the order is the justified unit schedule's, improved by a timed one
        (:func:`~supermesh.trees.schedule.timed.timed_justified_schedule`). ``meta["ramp"]`` is
        the ratio, ``meta["ramp_floor"]`` the
        :func:`~supermesh.trees.schedule.timed.timed_floor` no order of these chunks beats (from
        the phase's start, in the preset's time unit). Store-and-forward presets only.

    Returns
    -------
    Program

    Raises
    ------
    SpecError
        Unknown collective or order, ``"justified"`` for an AllReduce with the barrier, or a
        ramp without the justified order, outside ``(0, 1)`` or with cut-through packets.
    TopologyError
        A tree arc (or its reverse, for a reduce) missing from ``G``.
    """
    collective = check_collective(collective)
    if collective not in ("allgather", "reducescatter", "allreduce"):
        raise SpecError(f"{collective} is not a ReduceScatter / AllGather / AllReduce")
    given = order if isinstance(order, Mapping) else None
    if given is None and order not in ("schedule", "depth", "justified"):
        raise SpecError(f"order {order!r} is not 'schedule', 'depth' or 'justified'")
    justified = order == "justified"
    if justified and collective == "allreduce" and barrier:
        raise SpecError("order 'justified' is of an AllReduce without its barrier")
    if given is not None and one_round:
        raise SpecError("a given order is of rounds of one chunk a tree, not one round")
    if ramp is not None and (not justified or params.cut_through):
        raise SpecError(
            "chunks ramp in the justified order of store-and-forward chunks only",
            hint="order='justified', and a preset without cut_through",
        )
    trees, direction = _stored(packing, direction)
    if not trees:
        raise SpecError("no trees to simulate")
    roots = sorted({t.root for t in trees})
    unit = params.packet_bytes if params.cut_through else params.chunk_bytes
    per_chunk = math.ceil(params.chunk_bytes / params.packet_bytes) if params.cut_through else 1
    if justified and collective == "allreduce" and ramp is None and given is None:
        counts = _least_loaded(G, trees, nbytes, params)
    else:
        counts = _tree_chunks(trees, nbytes, collective, params.chunk_bytes, split)
    sizes = None
    if ramp is not None:
        shares = tree_bytes(trees, nbytes, collective)
        sizes = [ramped_sizes(b, params.chunk_bytes, ramp, params.packet_bytes) for b in shares]
        counts = [len(x) for x in sizes]
    arc_index: dict[tuple[int, int, int], int] = {}

    equal = equalise and given is None
    if one_round or justified:
        streams = [[1] * c for c in counts]
    else:
        streams = stream_counts(counts) if equal else [[c] for c in counts]
    blocks = sum(len(t.arcs) * len(x) for t, x in zip(trees, streams, strict=True))
    check_packing_memory(collective, len(trees), blocks)
    # one copy of a tree per stream: a tree of m streams takes m places in each round of its links
    copy_tree = np.repeat(np.arange(len(trees)), [len(x) for x in streams])
    copy_stream = np.concatenate([np.arange(len(x)) for x in streams])
    copy_count = np.array([c * per_chunk for x in streams for c in x], dtype=np.int64)
    # each copy's bytes and transfer time (a ramp's chunks differ, the others are all one unit)
    copy_bytes = np.full(len(copy_count), unit, dtype=np.int64)
    if sizes is not None:
        copy_bytes = np.array([b for x in sizes for b in x], dtype=np.int64)
    seconds = {b: params.serialisation(b) + params.hop_latency for b in set(copy_bytes.tolist())}
    copy_time = np.array([seconds[b] for b in copy_bytes.tolist()])
    f = forest([trees[ti] for ti in copy_tree.tolist()], direction)
    ti_of, si_of = copy_tree[f.tree], copy_stream[f.tree]
    down, arc_of = f.arc_ids()

    rounds = min(max((max(x) for x in streams if x), default=1), FIFO_ROUNDS)
    orders: dict[str, np.ndarray] = {}
    if given is None and order == "schedule":
        # an AllReduce's two phases choose among the same schedules: computed once
        kinds = {"allgather": ("forward",), "reducescatter": ("reduce",)}
        orders = fifo_orders(f, kinds.get(collective, ("reduce", "forward")), rounds=rounds)

    blocks_of: dict[str, np.ndarray] = {}  # per phase kind: the block of each job

    def phase(kind: str) -> Phase:
        if given is not None:
            mine = given[kind]
            keys = zip(ti_of.tolist(), f.node.tolist(), si_of.tolist(), strict=True)
            slot = np.array([mine.get((ti, v), 0) if si == 0 else 0 for ti, v, si in keys])
        elif order == "schedule":
            slot = orders[kind]
        else:
            slot = np.zeros(f.jobs, dtype=np.int64)
        depth = f.depth if kind == "forward" else -f.depth
        # blocks in the order (slot, depth, tree, stream, arc, node): each link's FIFO by slot
        job_of = np.lexsort((f.node, f.key, f.node, f.up, si_of, ti_of, depth, slot))
        block = np.empty(f.jobs, dtype=np.int64)
        block[job_of] = np.arange(f.jobs)
        blocks_of[kind] = block
        # the data go down the arcs for a forward, up them (reversed) for a reduce
        physical = down if kind == "forward" else down[:, [1, 0, 2]]
        arc = _intern(G, arc_index, physical, arc_of[job_of])
        if kind == "forward":
            up = f.parent[job_of]
            waits = up >= 0
            flat = block[up[waits]]
        else:
            waits = np.diff(f.child_start)[job_of]
            flat = block[f.children_of(job_of)]
        start = np.zeros(f.jobs + 1, dtype=np.int64)
        np.cumsum(waits, out=start[1:])
        m = f.jobs
        return Phase(
            arc=arc,
            count=copy_count[f.tree[job_of]],
            group=np.zeros(m, dtype=np.int64),
            duration=copy_time[f.tree[job_of]],
            delay=np.full(
                m, float(params.forward_delay if kind == "forward" else params.reduce_delay)
            ),
            payload=copy_bytes[f.tree[job_of]],
            deps=Dependencies(start, flat),
        )

    meta = {
        "collective": collective,
        "bytes": int(nbytes),
        "sets": 1,
        "trees": len(trees),
        "roots": roots,
        "chunks": [max(counts) * per_chunk],
        "streams": sum(len(x) for x in streams),
        "heights": [max(t.height for t in trees)],
        "order": order if given is None else "given",
        "one_round": bool(one_round),
    }
    if collective == "allreduce" and not barrier:
        red, fwd = phase("reduce"), phase("forward")
        program = _without_barrier(f, blocks_of, red, fwd, params, arc_index, meta)
    else:
        program = tree_phases(collective, params, arc_index, phase, meta)
    if not justified:
        return program
    # the first list schedule's rank: twice the chunk's place less the transfers still to go
    # in its tree (an AllReduce's reduce: its depth, then the tree's height down again); mesh
    # 4x4, 5x5 and 8x8 free-share trees: 2 a chunk beat 1, 3, 4 and chunk-major
    m = f.jobs
    place = fair_places(si_of, np.array([len(x) for x in streams])[ti_of])
    rank = np.empty(program.phases[0].size, dtype=np.int64)
    if collective == "allreduce":
        height = np.zeros(int(f.tree.max()) + 1, dtype=np.int64)
        np.maximum.at(height, f.tree, f.depth)
        rank[blocks_of["reduce"]] = 2 * place - (way_to_go(f, "reduce") + height[f.tree])
        rank[m + blocks_of["forward"]] = 2 * place - way_to_go(f, "forward")
    else:
        (kind,) = blocks_of
        rank[blocks_of[kind]] = 2 * place - way_to_go(f, kind)
    return _justified(program, rank, ramp)


def fair_places(chunk: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Each chunk's place in a list schedule of trees of unequal chunk counts: its tree's
    chunks spread evenly over the longest tree's, each at the middle of its share of them.

    Ranked by their own index, the chunks of a tree with many would queue behind those of the
    trees with few, and the long tree would run alone at the end (the virtual finish times of
    fair queueing serve each flow at its share instead: Demers, Keshav and Shenker, "Analysis
    and simulation of a fair queueing algorithm", SIGCOMM 1989). The undirected trees' AllReduce,
    64 MiB, paper preset, 32 KiB chunks: mesh 8x8 1.0963 of the bound ranked by index, 1.0382
    by place (1,178 slots against a floor of 1,167); SMBi 8x8 1.1358 and 1.0554.

    Parameters
    ----------
    chunk : numpy.ndarray of int
        Per job: its chunk's index in its tree, from 0.
    count : numpy.ndarray of int
        Per job: its tree's chunk count (> ``chunk``).

    Returns
    -------
    numpy.ndarray of int
        ``floor((chunk + 1/2) * longest / count)``: trees of equal counts keep their indices.

    Examples
    --------
    A tree of two chunks beside one of four: its chunks go with the other's second and fourth.

    >>> fair_places(np.array([0, 1, 0, 1, 2, 3]), np.array([2, 2, 4, 4, 4, 4])).tolist()
    [1, 3, 0, 1, 2, 3]
    """
    chunk = np.asarray(chunk, dtype=np.int64)
    count = np.asarray(count, dtype=np.int64)
    if len(count) == 0:
        return chunk
    longest = int(count.max())
    return ((2 * chunk + 1) * longest) // (2 * count)


def _pairs(deps: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """(block, dependency) of every dependency of a phase, by block."""
    assert isinstance(deps, Dependencies)  # what packing_program's phases hold
    count = np.diff(deps.start)
    return np.repeat(np.arange(len(count)), count), np.asarray(deps.flat, dtype=np.int64)


def _without_barrier(
    f: Forest,
    blocks_of: Mapping[str, np.ndarray],
    red: Phase,
    fwd: Phase,
    params: SimParams,
    arc_index: dict[tuple[int, int, int], int],
    meta: dict[str, Any],
) -> Program:
    """An AllReduce in one phase: a root forwards chunk ``c`` of a tree as soon as it has
    reduced it, and each link sends all its reduce transfers, then its forward ones (its FIFO
    groups), instead of every link waiting for the last reduction anywhere (the barrier).

    Mesh 4x4, 64 MiB, paper preset, the free-share trees: 1.0221 of the bound with the
    barrier, 1.0155 without (65,536-byte chunks); 512 MiB 1.0074 and 1.0058.
    """
    m = f.jobs
    block_r, block_f = blocks_of["reduce"], blocks_of["forward"]
    # the jobs at a root (parent -1): its forwards wait for all its reductions, tree by tree
    roots = np.flatnonzero(f.parent < 0)
    roots = roots[np.argsort(f.tree[roots], kind="stable")]
    tree = f.tree[roots]
    first = np.searchsorted(tree, tree, side="left")
    size = np.searchsorted(tree, tree, side="right") - first
    who = np.repeat(np.arange(len(roots)), size)
    within = np.arange(len(who)) - np.repeat(np.cumsum(size) - size, size)
    rb, rd = _pairs(red.deps)
    fb, fd = _pairs(fwd.deps)
    blocks = np.concatenate([rb, fb + m, block_f[roots[who]] + m])
    deps = np.concatenate([rd, fd + m, block_r[roots[first[who] + within]]])
    delay = fwd.delay.copy()
    delay[block_f[roots]] += params.reduce_delay  # the root's own aggregation, then the copy
    phase = Phase(
        arc=np.concatenate([red.arc, fwd.arc]),
        count=np.concatenate([red.count, fwd.count]),
        group=np.concatenate([red.group, fwd.group + 1]),
        duration=np.concatenate([red.duration, fwd.duration]),
        delay=np.concatenate([red.delay, delay]),
        payload=np.concatenate([red.payload, fwd.payload]),
        deps=Dependencies.from_pairs(blocks, deps, 2 * m),
        start=params.reduce_start,
        label="mixed",
        stage=np.repeat(np.array([0, 1], dtype=np.int64), m),
    )
    return Program(
        arcs=list(arc_index),
        phases=[phase],
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={**meta, "barrier": False},
    )


def _justified(program: Program, rank: np.ndarray, ramp: float | None) -> Program:
    """``program`` (one phase, one chunk a block) with each link's FIFO in the order of one
    justified list schedule of all its transfers
    (:func:`~supermesh.trees.schedule.justify.justified_schedule`, first ranked by ``rank``);
    chunks of unequal sizes (``ramp``) then in that of a timed one ranked by its slots
    (:func:`~supermesh.trees.schedule.timed.timed_justified_schedule`)."""
    (phase,) = program.phases
    assert isinstance(phase.deps, Dependencies)
    n = phase.size
    start, flat = phase.deps.start, phase.deps.flat
    floor = slot_floor(phase.arc, start, flat)
    s = justified_schedule(phase.arc, start, flat, rank, floor=floor)
    when = s.slot.astype(np.float64)
    meta = {**program.meta, "order": "justified", "slots": s.length, "slot_floor": floor}
    if ramp is not None:
        # the unit schedule ignores sizes: only its order seeds the timed one
        args = (phase.arc, phase.duration, start, flat, phase.delay)
        least = timed_floor(*args, release=program.release)
        timed = timed_justified_schedule(*args, when, release=program.release, floor=least)
        when = timed.start
        meta = {**program.meta, "order": "justified", "ramp": ramp, "ramp_floor": least}
    order = np.lexsort((np.arange(n), when))
    new_id = np.empty(n, dtype=np.int64)
    new_id[order] = np.arange(n)
    block, dep = _pairs(phase.deps)
    ordered = dataclasses.replace(
        phase,
        arc=phase.arc[order],
        count=phase.count[order],
        group=np.zeros(n, dtype=np.int64),
        duration=phase.duration[order],
        delay=phase.delay[order],
        payload=phase.payload[order],
        deps=Dependencies.from_pairs(new_id[block], new_id[dep], n),
        stage=None if phase.stage is None else phase.stage[order],
    )
    return dataclasses.replace(program, phases=[ordered], meta=meta)


def _intern(
    G: nx.MultiDiGraph,
    arc_index: dict[tuple[int, int, int], int],
    arcs: np.ndarray,
    which: np.ndarray,
) -> np.ndarray:
    """Each block's arc index (``arcs[which[b]]``), new arcs numbered in order of first use."""
    first = np.full(len(arcs), len(which), dtype=np.int64)
    np.minimum.at(first, which, np.arange(len(which)))
    index = np.full(len(arcs), -1, dtype=np.int64)
    for row in np.argsort(first, kind="stable").tolist():
        if first[row] == len(which):
            continue  # no block uses it
        u, v, k = (int(x) for x in arcs[row])
        if not G.has_edge(u, v, key=k):
            raise TopologyError(
                f"the packing uses arc {u}->{v} key {k}, which the topology does not have"
            )
        index[row] = arc_index.setdefault((u, v, k), len(arc_index))
    return index[which]


def simulate_packing(
    G: nx.MultiDiGraph,
    packing: TreePacking | Sequence[Tree],
    collective: str = "allgather",
    nbytes: int = 1 << 20,
    *,
    params: SimParams | None = None,
    direction: str = "out",
    order: str = "schedule",
    split: bool = True,
    equalise: bool = True,
    algorithm: str = "throughput",
    bound: bool | ThroughputBound | None = True,
) -> SimResult:
    """Simulate a weighted packing with :func:`packing_program` on the package's engine.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("smbi:4x4")
    >>> p = pack_throughput(G, parts=4)
    >>> r = simulate_packing(G, p, "allgather", 16 * 4 * 40 * 12288)  # 40 chunks per tree
    >>> r.time  # 40 x 15 chunks back to back on the busiest links (619,200) + a 4-chunk fill
    623345.0
    """
    params = params or get_preset("booksim")
    program = packing_program(
        G,
        packing,
        collective,
        nbytes,
        params,
        direction=direction,
        order=order,
        split=split,
        equalise=equalise,
    )
    return evaluate(
        G,
        program,
        params,
        collective=program.meta["collective"],
        algorithm=algorithm,
        nbytes=nbytes,
        bound=bound,
    )
