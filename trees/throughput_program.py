"""Simulator programs for weighted packings, with each link's FIFO order from a list schedule.

All the trees of a throughput packing run at once, so many trees share each link. In the
reference discipline (BRIEF section 4, :mod:`supermesh.sim.collectives`) a link serves its FIFO
strictly in order, chunk by chunk, and within a chunk by depth (root first for AllGather,
leaves first for ReduceScatter): a transfer whose data has not arrived holds up every transfer
behind it. With one tree per link that order is harmless; with dozens of trees per link the
depth order makes links wait on each other (an 8x8 SuperMesh packing at the optimal rate then
runs about 20% below it).

A schedule is free to choose the FIFO order of its links (the ``step`` of a schedule table).
:func:`fifo_slots` chooses it by list scheduling one round (one chunk of every tree): every link
sends one chunk per slot, a transfer is ready once its data is there (AllGather: the parent
sent it; ReduceScatter: every child did), and among ready transfers a link takes the one with
the longest way still to go (the height below it for AllGather, its depth for ReduceScatter).
Each link then serves every chunk in the order of those slots. :func:`packing_program` builds the
:class:`~supermesh.sim.program.Program` (same chunking, timing and dependencies as
:func:`supermesh.sim.collectives.tree_program`; only the order inside a chunk differs, and
``order="depth"`` reproduces that function's order exactly) and :func:`simulate_packing` runs it.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.sim.bounds import ThroughputBound
from supermesh.sim.collectives import OrientedTree, check_collective, chunk_count, orient
from supermesh.sim.presets import SimParams, get_preset
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.trees.model import Tree, TreePacking

__all__ = ["fifo_slots", "packing_program", "simulate_packing"]

Job = tuple[int, int]  # (tree index, node whose parent arc carries the transfer)
_ROUNDS = 10  # rounds list-scheduled to find a steady-state FIFO order


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
        Rounds to schedule (use the number of chunks per tree, at most about 10).
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
    >>> from supermesh.sim.collectives import OrientedTree
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


def _trees(packing: TreePacking | Sequence[Tree], direction: str) -> list[OrientedTree]:
    if isinstance(packing, TreePacking):
        return [orient(t, packing.direction) for t in packing.trees]
    return [orient(t, direction) for t in packing]


def packing_program(
    G: nx.MultiDiGraph,
    packing: TreePacking | Sequence[Tree],
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    direction: str = "out",
    order: str = "schedule",
) -> Program:
    """The FIFO program of a weighted packing: all trees at once, in one group.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking or sequence of Tree
        Every tree of every set runs at once; shares split each root's data.
    collective : {"allgather", "reducescatter", "allreduce"}
        AllReduce is ReduceScatter, the barrier, then AllGather on the same trees.
    nbytes : int
        Collective size (the whole vector).
    params : SimParams
    direction : {"out", "in"}
        Orientation when ``packing`` is a plain sequence of trees.
    order : {"schedule", "depth"}
        FIFO order inside a chunk: :func:`fifo_slots`, or depth as in
        :func:`supermesh.sim.collectives.tree_program`.

    Returns
    -------
    Program

    Raises
    ------
    SpecError
        Unknown collective or order.
    TopologyError
        A tree arc (or its reverse, for a reduce) missing from ``G``.
    """
    collective = check_collective(collective)
    if collective not in ("allgather", "reducescatter", "allreduce"):
        raise SpecError(f"{collective} is not a ReduceScatter / AllGather / AllReduce")
    if order not in ("schedule", "depth"):
        raise SpecError(f"order {order!r} is not 'schedule' or 'depth'")
    trees = _trees(packing, direction)
    if not trees:
        raise SpecError("no trees to simulate")
    nroots = len({t.root for t in trees})
    unit = params.packet_bytes if params.cut_through else params.chunk_bytes
    per_chunk = math.ceil(params.chunk_bytes / params.packet_bytes) if params.cut_through else 1
    unit_time = params.serialisation(unit) + params.hop_latency
    share_total = {r: sum(t.share for t in trees if t.root == r) for r in {t.root for t in trees}}
    counts = [
        chunk_count(nbytes * t.share / share_total[t.root] / nroots, params.chunk_bytes) * per_chunk
        for t in trees
    ]
    arc_index: dict[tuple[int, int, int], int] = {}

    def phase(kind: str) -> PhaseBuilder:
        rounds = min(max(counts), _ROUNDS)
        slots = fifo_slots(trees, kind, rounds=rounds) if order == "schedule" else {}
        jobs = []
        for ti, t in enumerate(trees):
            for v in t.parent:
                depth = t.depth[v] if kind == "forward" else -t.depth[v]
                jobs.append((slots.get((ti, v), 0), depth, ti, t.parent[v], v))
        jobs.sort()
        pb = PhaseBuilder(arc_index)
        block: dict[Job, int] = {}
        for _, _, ti, (u, v, k), _ in jobs:
            arc = (u, v, k) if kind == "forward" else (v, u, k)
            if not G.has_edge(*arc[:2], key=arc[2]):
                raise TopologyError(
                    f"the packing uses arc {arc[0]}->{arc[1]} key {arc[2]}, "
                    "which the topology does not have"
                )
            block[(ti, v)] = pb.add(
                arc,
                count=counts[ti],
                duration=unit_time,
                payload=unit,
                delay=params.forward_delay if kind == "forward" else params.reduce_delay,
            )
        for _, _, ti, (u, v, _), _ in jobs:
            t = trees[ti]
            if kind == "forward":
                deps = [block[(ti, u)]] if u != t.root else []
            else:
                deps = [block[(ti, c)] for c in t.children.get(v, ())]
            pb.set_deps(block[(ti, v)], deps)
        return pb

    phases = []
    if collective in ("reducescatter", "allreduce"):
        phases.append(
            phase("reduce").build(
                start=params.reduce_start, final_delay=params.reduce_delay, label="reduce"
            )
        )
    if collective in ("allgather", "allreduce"):
        start = None if collective == "allreduce" else params.forward_start
        phases.append(phase("forward").build(start=start, label="forward"))
    return Program(
        arcs=list(arc_index),
        phases=phases,
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={
            "collective": collective,
            "bytes": int(nbytes),
            "sets": 1,
            "trees": len(trees),
            "roots": sorted(share_total),
            "chunks": [max(counts)],
            "heights": [max(t.height for t in trees)],
            "order": order,
        },
    )


def simulate_packing(
    G: nx.MultiDiGraph,
    packing: TreePacking | Sequence[Tree],
    collective: str = "allgather",
    nbytes: int = 1 << 20,
    *,
    params: SimParams | None = None,
    direction: str = "out",
    order: str = "schedule",
    algorithm: str = "throughput",
    bound: bool | ThroughputBound | None = True,
) -> SimResult:
    """Simulate a weighted packing with :func:`packing_program` on the package's engine.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput import pack_throughput
    >>> G = build("smbi:4x4")
    >>> p = pack_throughput(G, parts=4)
    >>> r = simulate_packing(G, p, "allgather", 16 * 4 * 40 * 12288)  # 40 chunks per tree
    >>> r.time  # 40 x 15 chunks back to back on the busiest links (619,200) + a 4-chunk fill
    623345.0
    """
    params = params or get_preset("booksim")
    program = packing_program(
        G, packing, collective, nbytes, params, direction=direction, order=order
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
