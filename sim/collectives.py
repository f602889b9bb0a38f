"""Tree sets + a collective + a size -> a :class:`~supermesh.sim.program.Program`.

The pipelined tree collectives of the SuperMesh paper (and of TTO before it):

- ``allreduce``: the data are split evenly over all trees; a reduce-scatter phase (chunks flow up
  each tree, leaves first, every node aggregating its children before sending on), a global
  barrier (the all-gather starts once every root has every chunk), then an all-gather phase (chunks
  flow down each tree, root first).
- ``reducescatter`` / ``allgather``: each root owns ``bytes / (number of roots)``; all root sets
  share the per-link FIFOs, set after set, with no barrier between sets.
- ``reduce`` / ``broadcast``: one phase over the given trees, the data split evenly over them.

A tree edge carries ``ceil(tree_bytes / chunk_bytes)`` chunks (the last one padded, as in the
reference). In each link's FIFO the transfers are ordered by set, then chunk, then (within a chunk)
deepest edges first for a reduce and shallowest first for a broadcast.

Trees come in either orientation (:class:`~supermesh.trees.model.TreePacking` says which); the
reduce phases use child -> parent arcs and the broadcast phases parent -> child arcs, so a packing
of out-trees runs its reduce-scatter on the reversed arcs (same key: the same physical link).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Phase, PhaseBuilder, Program
from supermesh.topologies.model import Arc
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.oriented import OrientedTree, orient

__all__ = ["COLLECTIVES", "SIM_COLLECTIVES", "chunk_count", "tree_phases", "tree_program"]

COLLECTIVES = ("allreduce", "reducescatter", "allgather", "broadcast", "reduce")
SIM_COLLECTIVES = (*COLLECTIVES, "alltoall")
"""What the simulator runs: the tree collectives and AllToAll (point to point, no trees)."""
_ALIASES = {
    "ar": "allreduce",
    "all-reduce": "allreduce",
    "rs": "reducescatter",
    "reduce-scatter": "reducescatter",
    "ag": "allgather",
    "all-gather": "allgather",
    "bcast": "broadcast",
    "a2a": "alltoall",
    "all-to-all": "alltoall",
}


def check_collective(name: str) -> str:
    """Canonical collective name; raises :class:`SpecError` on an unknown one.

    Examples
    --------
    >>> check_collective("RS"), check_collective("all-gather"), check_collective("a2a")
    ('reducescatter', 'allgather', 'alltoall')
    """
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in SIM_COLLECTIVES:
        raise SpecError(
            f"unknown collective {name!r}", hint=f"use one of: {', '.join(SIM_COLLECTIVES)}"
        )
    return key


def _tree_sets(
    trees: TreePacking | Sequence[TreeSet] | Sequence[Sequence[Tree]], direction: str
) -> list[list[OrientedTree]]:
    if isinstance(trees, TreePacking):
        direction = trees.direction
        groups: Sequence = trees.sets
    else:
        groups = trees
    out = []
    for s in groups:
        members = s.trees if isinstance(s, TreeSet) else s
        out.append([orient(t, direction) for t in members])
    return [s for s in out if s]


def chunk_count(nbytes: float, chunk_bytes: int) -> int:
    """Chunks needed for ``nbytes`` (ceiling, at least 1 for any data).

    Examples
    --------
    >>> chunk_count(4 * 2**20 / 4, 12288)  # 4 MiB over 4 trees, as in the reference: 86
    86
    """
    if nbytes <= 0:
        return 0
    return max(1, math.ceil(nbytes / chunk_bytes - 1e-9))


def _arc(G: nx.MultiDiGraph, arc: Arc) -> Arc:
    u, v, k = arc
    if not G.has_edge(u, v, key=k):
        raise TopologyError(
            f"the schedule uses arc {u}->{v} (key {k}), which the topology does not have",
            hint="trees for a reduce phase need the reverse of every tree arc; pass in-trees",
        )
    return arc


def tree_program(
    G: nx.MultiDiGraph,
    trees: TreePacking | Sequence[TreeSet] | Sequence[Sequence[Tree]],
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    direction: str = "out",
    reduce_trees: TreePacking | Sequence[TreeSet] | Sequence[Sequence[Tree]] | None = None,
) -> Program:
    """Build the FIFO program of a pipelined tree collective.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (arcs are checked against it).
    trees : TreePacking, or a sequence of TreeSet / of lists of Tree
        One or more sets of trees; sets run one after another in the shared FIFOs.
    collective : str
        One of :data:`COLLECTIVES`.
    nbytes : int
        Collective size in bytes (the whole vector, as in the paper).
    params : SimParams
        Chunking and timing.
    direction : {"out", "in"}
        Orientation of the stored trees when ``trees`` (or ``reduce_trees``) is not a
        TreePacking.
    reduce_trees : optional
        Separate trees for the reduce phases (by default the reduce phases run on ``trees``).

    Returns
    -------
    Program

    Raises
    ------
    SpecError, TopologyError
        Unknown collective, no trees, or a tree arc missing from the topology.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> prog = tree_program(G, [[t]], "allgather", 3 * 12288, get_preset())
    >>> prog.phases[0].count.tolist(), prog.meta["chunks"]
    ([3, 3], [3])
    """
    collective = check_collective(collective)
    if collective == "alltoall":
        raise SpecError("an AllToAll is not a tree collective", hint="use -a direct or -a teccl")
    sets = _tree_sets(trees, direction)
    rsets = _tree_sets(reduce_trees, direction) if reduce_trees is not None else sets
    if not sets or not rsets:
        raise SpecError("no trees to simulate", hint="pass at least one tree set")
    per_root = collective in ("reducescatter", "allgather")
    unit = params.packet_bytes if params.cut_through else params.chunk_bytes
    per_chunk = math.ceil(params.chunk_bytes / params.packet_bytes) if params.cut_through else 1
    unit_time = params.serialisation(unit) + params.hop_latency
    arc_index: dict[Arc, int] = {}

    def counts_of(groups: list[list[OrientedTree]]) -> list[list[int]]:
        members = [t for s in groups for t in s]
        total_share = sum(t.share for t in members)
        nroots = len({t.root for t in members})
        out = []
        for s in groups:
            row = []
            for t in s:
                part = t.share / nroots if per_root else t.share / total_share
                row.append(chunk_count(nbytes * part, params.chunk_bytes) * per_chunk)
            out.append(row)
        return out

    def phase(kind: str, groups: list[list[OrientedTree]]) -> PhaseBuilder:
        counts = counts_of(groups)
        pb = PhaseBuilder(arc_index)
        for g, s in enumerate(groups):
            depth_order = []
            for ti, t in enumerate(s):
                for v, arc in t.parent.items():
                    depth_order.append((t.depth[v], ti, arc))
            if kind == "reduce":
                depth_order.sort(key=lambda e: (-e[0], e[1], e[2]))
            else:
                depth_order.sort(key=lambda e: (e[0], e[1], e[2]))
            block_of: dict[tuple[int, int], int] = {}
            for _, ti, (u, v, k) in depth_order:
                t = s[ti]
                if kind == "reduce":
                    arc = _arc(G, (v, u, k))
                    deps = [block_of[(ti, c)] for c in t.children.get(v, [])]
                    delay = params.reduce_delay
                else:
                    arc = _arc(G, (u, v, k))
                    deps = [block_of[(ti, u)]] if u != t.root else []
                    delay = params.forward_delay
                block_of[(ti, v)] = pb.add(
                    arc,
                    count=counts[g][ti],
                    duration=unit_time,
                    payload=unit,
                    group=g,
                    deps=deps,
                    delay=delay,
                )
        return pb

    return tree_phases(
        collective,
        params,
        arc_index,
        lambda kind: phase(kind, rsets if kind == "reduce" else sets),
        {
            "collective": collective,
            "bytes": int(nbytes),
            "sets": len(sets),
            "trees": sum(len(s) for s in sets),
            "roots": sorted({t.root for s in sets for t in s}),
            "chunks": [max(r) if r else 0 for r in counts_of(sets)],
            "heights": [max(t.height for t in s) for s in sets],
        },
    )


def tree_phases(
    collective: str,
    params: SimParams,
    arc_index: dict[Arc, int],
    phase: Callable[[str], PhaseBuilder | Phase],
    meta: dict[str, Any],
) -> Program:
    """The program of a tree collective from its phase builders.

    A reduce phase (``phase("reduce")``) for AllReduce, ReduceScatter and Reduce, then a forward
    phase (``phase("forward")``) for AllReduce, AllGather and Broadcast; AllReduce's forward
    phase starts after the barrier, the others at the preset's phase starts.

    Parameters
    ----------
    collective : str
    params : SimParams
    arc_index : dict
        Arc -> index, filled by the phase builders.
    phase : callable
        ``"reduce"`` or ``"forward"`` -> the :class:`PhaseBuilder` holding that phase's blocks,
        or the :class:`Phase` already built (its start, final delay and label are set here).
    meta : dict
        :attr:`Program.meta`.

    Returns
    -------
    Program
    """

    def built(kind: str, **how: Any) -> Phase:
        blocks = phase(kind)
        return (
            dataclasses.replace(blocks, **how) if isinstance(blocks, Phase) else blocks.build(**how)
        )

    phases = []
    if collective in ("allreduce", "reducescatter", "reduce"):
        phases.append(
            built(
                "reduce", start=params.reduce_start, final_delay=params.reduce_delay, label="reduce"
            )
        )
    if collective in ("allreduce", "allgather", "broadcast"):
        start = None if collective == "allreduce" else params.forward_start
        phases.append(built("forward", start=start, label="forward"))
    return Program(
        arcs=list(arc_index),
        phases=phases,
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta=meta,
    )
