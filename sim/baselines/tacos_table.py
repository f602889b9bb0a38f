"""TACOS as schedule tables: the synthesised trees and each link's order, as every table is.

A TACOS AllGather is one spanning out-tree per chunk plus each link's order of transfers. That is
a weighted packing (each rank's ``k`` trees carry ``1 / k`` of its block each) with an explicit
FIFO order, so :func:`tacos_table` writes it with
:func:`~supermesh.trees.schedule.build.build_schedule`: the ``step`` of every entry is its
position in the synthesised order (ReduceScatter: the reversed order on the reversed arcs), the
chunks of each block are split among the rank's trees as the simulator splits them
(:mod:`supermesh.sim.baselines.tacos_program`), and the tables export to CSV, JSON and MSCCL
XML and pass ``supermesh verify`` like every other schedule.
"""

from __future__ import annotations

import networkx as nx

from supermesh.sim.baselines.tacos_program import (
    chunks_per_rank_for,
    reversed_positions,
    tacos_packing,
    tacos_schedules,
)
from supermesh.sim.presets import SimParams, get_preset
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.model import Schedule

__all__ = ["tacos_table"]


def tacos_table(
    G: nx.MultiDiGraph,
    collective: str,
    *,
    nbytes: int | None = None,
    chunks: int | None = None,
    params: SimParams | None = None,
    seed: int = 0,
) -> Schedule:
    """The schedule table of a TACOS AllGather, ReduceScatter or AllReduce.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int, optional
        Data size: sets the chunks per rank's block (12 KiB chunks) and how many of them TACOS
        synthesises (:func:`~supermesh.sim.baselines.tacos_program.chunks_per_rank_for`).
    chunks : int, optional
        Chunks per rank's block instead of ``nbytes`` (default 1).
    params : SimParams, optional
        The link times the synthesis uses (default the ``booksim`` preset).
    seed : int

    Returns
    -------
    Schedule
        A weighted table (``shares`` of ``1 / k``), one set of ``n k`` trees.

    Raises
    ------
    SpecError
        Another collective, or both ``nbytes`` and ``chunks``.
    TopologyError
        As :func:`~supermesh.sim.baselines.tacos_program.tacos_program`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = tacos_table(build("mesh:2x2"), "allgather", chunks=2)
    >>> len(s.entries), s.chunks, s.shares[0][:2]  # 8 trees of 3 arcs, 2 chunks per rank
    (24, 2, (0.5, 0.5))
    """
    from supermesh.errors import SpecError

    if nbytes is not None and chunks is not None:
        raise SpecError("give the size or the chunk count, not both")
    params = params or get_preset()
    n = len(compute_nodes(G))
    block = chunks if chunks is not None else None
    k = chunks_per_rank_for(
        nbytes if nbytes is not None else (block or 1) * n * params.chunk_bytes,
        n,
        params.chunk_bytes,
    )
    schedule = tacos_schedules(G, collective, params, k, seed=seed)
    packing = tacos_packing(schedule, collective)
    if collective == "reducescatter":
        # the out-trees of the reversed network are in-trees of G, arcs as the data travel
        trees = tuple(
            Tree(t.root, tuple((v, u, key) for u, v, key in t.arcs), t.height, share=t.share)
            for t in packing.trees
        )
        packing = TreePacking(
            topology=packing.topology,
            direction="in",
            status=packing.status,
            sets=(TreeSet(trees),),
            method=packing.method,
            stats=packing.stats,
        )
        fifo = {("rs", 0): reversed_positions(schedule)}
    else:
        fifo = {("ag", 0): schedule.fifo_positions(), ("rs", 0): reversed_positions(schedule)}
    return build_schedule(
        G,
        collective,
        packing,
        chunks=None if nbytes is not None else (block or k),
        nbytes=nbytes,
        chunk_bytes=params.chunk_bytes,
        fifo=fifo,
    )
