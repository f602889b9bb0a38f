"""TACOS collectives as simulator programs: chunk counts by size, the period repeated, reversal.

:func:`tacos_schedules` synthesises (:func:`~supermesh.sim.baselines.tacos.synthesize_allgather`)
with the simulator's own link times: one chunk of ``chunk_bytes`` over an arc takes its
:func:`~supermesh.sim.link_costs.link_duration` (the arc's bandwidth and latency), the link is free
``link_release`` after an arrival and the chunk can be forwarded ``forward_delay`` after it.

- AllGather: as synthesised.
- ReduceScatter: the time reversal of an AllGather synthesised on the reversed network (every
  arc turned round, with its costs; on a symmetric network the same network): every tree runs
  backwards into its root, each link serving its transfers in the reverse order. A node sends
  up once every child has, which is the AllGather's causality read backwards.
- AllReduce: that ReduceScatter on the AllGather's own trees, the barrier, then the AllGather
  (the network must have every link both ways).

Chunk count, by size. A rank's block of ``C = ceil(nbytes / (n * chunk_bytes))`` chunks of
12 KiB is what the public TACOS would synthesise, one chunk per 12 KiB: ``n * C`` spanning trees,
``n (n - 1) C`` transfers, synthesis time growing with ``C`` (the public code about 8x per
doubling), out of reach at 512 MiB. Here the synthesis uses ``k = min(C, K)`` chunks per rank,
``K`` the largest with ``n (n - 1) K <=`` :data:`TRANSFER_BUDGET` (8x8: 16, 4x4: 273, 16x16: 1):
for ``C <= K`` (every small size) that is exactly TACOS at 12 KiB. Above, the synthesised
schedule is one *period*: each of its ``n k`` trees carries ``C / k`` chunks of 12 KiB
(:func:`~supermesh.trees.schedule.weighted.split_block`, as the schedule tables split a block),
and every link serves chunk round after chunk round, each round in the synthesised order. The
greedy already meets the chunk-level cut bound within one period (8x8 mesh, k = 16: 504 transfer
times at a corner, the bound 1008 / 2), and the rounds pipeline through the FIFOs, so the
periodic schedule keeps that rate; 8x8 at 512 MiB synthesises in about 2 s instead of running
into hours.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping
from typing import Any

import networkx as nx
import numpy as np

from supermesh.budget import check_seconds
from supermesh.errors import SpecError, TopologyError
from supermesh.sim.baselines.tacos import TacosSchedule, synthesize_allgather
from supermesh.sim.link_costs import arc_costs, link_duration
from supermesh.sim.packing import packing_program
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.topologies.model import Arc, compute_nodes
from supermesh.trees.model import TreePacking, TreeSet

__all__ = [
    "TACOS_COLLECTIVES",
    "TRANSFER_BUDGET",
    "TRANSFER_SECONDS",
    "chunks_per_rank_for",
    "reversed_positions",
    "synthesis_seconds",
    "tacos_packing",
    "tacos_program",
    "tacos_schedules",
]

TACOS_COLLECTIVES = ("allgather", "reducescatter", "allreduce")
TRANSFER_BUDGET = 1 << 16
"""Most transfers one synthesis makes (``n (n - 1) k``): about 2 s of Python on 8x8."""


TRANSFER_SECONDS = 30e-6
"""Seconds one synthesised transfer takes on 8x8 (65,536 in about 2 s); each costs more on a
bigger network, as the square root of the ranks (1,047,552 transfers on 32x32: 210 s with the
simulation, machine loaded): :func:`synthesis_seconds`."""


def synthesis_seconds(n_ranks: int, chunks_per_rank: int) -> float:
    """Estimated seconds of one TACOS synthesis: ``n (n - 1) k`` transfers.

    Examples
    --------
    >>> round(synthesis_seconds(64, 16)), round(synthesis_seconds(1024, 1))
    (2, 126)
    """
    transfers = n_ranks * (n_ranks - 1) * chunks_per_rank
    return transfers * TRANSFER_SECONDS * math.sqrt(max(n_ranks, 64) / 64)


def chunks_per_rank_for(nbytes: int, n_ranks: int, chunk_bytes: int) -> int:
    """``k = min(C, K)``: the chunks per rank TACOS synthesises for ``nbytes`` (module docstring).

    Examples
    --------
    >>> chunks_per_rank_for(1 << 20, 16, 12288), chunks_per_rank_for(512 << 20, 64, 12288)
    (6, 16)
    """
    block = max(1, math.ceil(nbytes / (n_ranks * chunk_bytes)))
    cap = max(1, TRANSFER_BUDGET // max(1, n_ranks * (n_ranks - 1)))
    return min(block, cap)


def _reverse(G: nx.MultiDiGraph) -> nx.MultiDiGraph:
    R = nx.MultiDiGraph(**G.graph)
    R.add_nodes_from(G.nodes(data=True))
    for u, v, k, data in G.edges(keys=True, data=True):
        R.add_edge(v, u, key=k, **data)
    return R


def _link_times(G: nx.MultiDiGraph, params: SimParams) -> dict[Arc, float]:
    arcs: list[Arc] = sorted(G.edges(keys=True))
    bw, lat = arc_costs(G, arcs)
    unit = params.serialisation(params.chunk_bytes) + params.hop_latency
    times = np.asarray(
        link_duration(unit, params.hop_latency, bw, lat, pipelined=params.link_pipelined)
    )
    return {a: float(t) for a, t in zip(arcs, times.tolist(), strict=True)}


def tacos_schedules(
    G: nx.MultiDiGraph,
    collective: str,
    params: SimParams,
    chunks_per_rank: int,
    *,
    seed: int = 0,
) -> TacosSchedule:
    """The synthesised AllGather a TACOS collective runs on (see the module docstring).

    ReduceScatter: synthesised on the reversed network (its transfers are the arcs turned
    round); AllGather and AllReduce: on ``G``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    params : SimParams
    chunks_per_rank : int
    seed : int

    Returns
    -------
    TacosSchedule

    Raises
    ------
    SpecError
        Another collective.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> s = tacos_schedules(build("mesh:2x2"), "allgather", get_preset(), 1)
    >>> s.makespan  # two transfers of 1031 cycles, 1 cycle release and 0.5 forward between
    2063.0
    """
    if collective not in TACOS_COLLECTIVES:
        raise SpecError(
            f"TACOS synthesises AllGather, ReduceScatter and AllReduce, not {collective}",
            hint="use -c allgather, reducescatter or allreduce",
        )
    ranks = compute_nodes(G)
    check_seconds(
        synthesis_seconds(len(ranks), chunks_per_rank),
        f"TACOS's synthesis on {G.graph.get('spec', 'this topology')} ({len(ranks):,} ranks: "
        f"{len(ranks) * (len(ranks) - 1) * chunks_per_rank:,} transfers placed one by one)",
        hint="compare with TACOS on a smaller grid; the other algorithms (-a throughput, "
        "pipeline) run at this size",
    )
    on = _reverse(G) if collective == "reducescatter" else G
    delay = params.reduce_delay if collective == "reducescatter" else params.forward_delay
    return synthesize_allgather(
        on,
        chunks_per_rank,
        link_time=_link_times(on, params),
        release=params.link_release,
        ready_delay=delay,
        seed=seed,
        ranks=ranks,
    )


def reversed_positions(schedule: TacosSchedule) -> dict[tuple[int, int], int]:
    """Each link's FIFO positions read backwards (the time reversal's order).

    ``(chunk, node) -> position`` on the arc turned round: the transfer that came last on an
    arc goes first on its reverse.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = synthesize_allgather(build("mesh:2x2"))
    >>> sorted(reversed_positions(s).values()) == sorted(s.fifo_positions().values())
    True
    """
    fwd = schedule.fifo_positions()
    length: dict[Arc, int] = {}
    for t in schedule.transfers:
        length[t.arc] = length.get(t.arc, 0) + 1
    return {(t.chunk, t.dst): length[t.arc] - 1 - fwd[(t.chunk, t.dst)] for t in schedule.transfers}


def tacos_packing(schedule: TacosSchedule, collective: str) -> TreePacking:
    """The synthesised trees as a weighted packing (one out-tree per chunk, one set).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = tacos_packing(synthesize_allgather(build("mesh:2x2")), "allgather")
    >>> len(p.trees), p.method, p.status
    (4, 'tacos', 'feasible')
    """
    trees = schedule.trees()
    return TreePacking(
        topology=schedule.topology,
        direction="out",
        status="feasible",
        sets=(TreeSet(tuple(trees)),),
        method="tacos",
        stats={
            "chunks_per_rank": schedule.chunks_per_rank,
            "seed": schedule.seed,
            "makespan": schedule.makespan,
            "collective": collective,
        },
    )


def _check_symmetric(G: nx.MultiDiGraph) -> None:
    from supermesh.trees.schedule.collective import one_way_arc  # its imports load CP-SAT

    arc = one_way_arc(G)
    if arc is not None:
        raise TopologyError(
            f"TACOS AllReduce runs its ReduceScatter backwards on the AllGather's trees, "
            f"but arc {arc[0]}->{arc[1]} key {arc[2]} has no reverse",
            hint="run reducescatter and allgather separately on a one-way network",
        )


def tacos_program(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    chunks_per_rank: int | None = None,
    seed: int = 0,
    cache: MutableMapping[Any, Any] | None = None,
) -> Program:
    """The FIFO program of a TACOS collective (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
        Collective size (the whole vector; each rank owns ``nbytes / n``).
    params : SimParams
    chunks_per_rank : int, optional
        Default :func:`chunks_per_rank_for`.
    seed : int
    cache : dict, optional
        Keeps syntheses across sizes (keyed by topology, collective, chunk count, link times).

    Returns
    -------
    Program
        ``meta["tacos"]``: chunks per rank, the period's makespan and the seed.

    Raises
    ------
    SpecError
        Another collective.
    TopologyError
        An unreachable rank, or an AllReduce on a network with one-way arcs.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = tacos_program(build("mesh:2x2"), "allgather", 4 * 12288, get_preset())
    >>> prog.transfers, prog.meta["tacos"]["chunks_per_rank"]
    (12, 1)
    """
    ranks = compute_nodes(G)
    k = chunks_per_rank or chunks_per_rank_for(nbytes, len(ranks), params.chunk_bytes)
    if collective == "allreduce":
        _check_symmetric(G)
    key = (
        "tacos",
        G.graph.get("spec", id(G)),
        "reducescatter" if collective == "reducescatter" else "allgather",
        k,
        seed,
        params.chunk_time(),
        params.link_release,
        params.forward_delay if collective != "reducescatter" else params.reduce_delay,
        params.link_pipelined,
    )
    if cache is not None and key in cache:
        schedule = cache[key]
    else:
        schedule = tacos_schedules(G, collective, params, k, seed=seed)
        if cache is not None:
            cache[key] = schedule
    packing = tacos_packing(schedule, collective)
    order = {"forward": schedule.fifo_positions(), "reduce": reversed_positions(schedule)}
    if collective == "reducescatter":
        # synthesised forwards on the reversed network: its reversal is the order here
        order = {"forward": {}, "reduce": reversed_positions(schedule)}
    program = packing_program(G, packing, collective, nbytes, params, order=order)
    program.meta["tacos"] = {
        "chunks_per_rank": k,
        "makespan": schedule.makespan,
        "seed": seed,
        "transfers_per_period": len(schedule.transfers),
    }
    return program
