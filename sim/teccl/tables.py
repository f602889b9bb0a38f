"""TE-CCL schedules as schedule tables (CSV, JSON, MSCCL XML), in the order they were simulated.

- AllGather, ReduceScatter, AllReduce: every TE-CCL chunk's sends form a tree (an out-tree from
  its origin; ReduceScatter: an in-tree into it), so the loop body is a weighted packing of
  ``K`` trees per rank, each with share ``1 / K``: the table is
  :func:`~supermesh.trees.schedule.build.build_schedule`'s weighted table of that packing
  (AllReduce: the in-trees of the ReduceScatter solution and the out-trees of the AllGather
  one), with each link's ``step`` order replaced by the order of the solution's epochs (the
  order :mod:`~supermesh.sim.teccl.replay` simulates: loop by loop, and epoch by epoch inside).
- AllToAll: every chunk's path is a route
  (:func:`~supermesh.trees.schedule.routes.route_schedule`), its epochs the link order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import networkx as nx

from supermesh.sim.teccl.model import TecclSolution
from supermesh.sim.teccl.replay import phase_sends
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule import (
    CHUNK_BYTES,
    PHASES,
    Route,
    Schedule,
    build_schedule,
    route_schedule,
)

__all__ = ["teccl_schedule"]


def _packing(G: nx.MultiDiGraph, solution: TecclSolution, phase: str) -> TreePacking:
    arcs: dict[int, list[tuple[int, int, int]]] = {c: [] for c in solution.chunk_ids()}
    depth: dict[tuple[int, int], int] = {}
    for _, s, _ in phase_sends(solution, phase):
        arcs[s.chunk].append(s.arc)
    for s in solution.sends:
        depth[(s.chunk, s.arc[1])] = depth.get((s.chunk, s.arc[0]), 0) + 1
    trees = []
    for c, tree_arcs in arcs.items():
        height = max((d for (cc, _), d in depth.items() if cc == c), default=0)
        trees.append(
            Tree(solution.origin(c), tuple(sorted(tree_arcs)), height, share=1.0 / solution.chunks)
        )
    direction = "in" if phase == "rs" else "out"
    return TreePacking(
        str(G.graph.get("spec", "")),
        direction,
        solution.status,
        sets=(TreeSet(tuple(trees)),),
        method="teccl",
    )


def teccl_schedule(
    G: nx.MultiDiGraph,
    collective: str,
    solutions: Mapping[str, TecclSolution],
    *,
    nbytes: int | None = None,
    chunks: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Schedule:
    """The schedule table of a TE-CCL collective (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce", "alltoall"}
    solutions : mapping
        Phase -> solution, as :func:`~supermesh.sim.teccl.collective.teccl_solutions` gives.
    nbytes : int, optional
        Size (AllToAll: each chiplet's buffer); sets the chunks per block.
    chunks : int, optional
        Chunks per rank's block (AllToAll: per source-destination block).
    chunk_bytes : int

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.collective import teccl_solutions
    >>> G = build("mesh:2x2")
    >>> t = teccl_schedule(G, "allreduce", teccl_solutions(G, "allreduce", 2**16, 12288))
    >>> t.collective, t.chunks, len(t.entries), t.weighted  # 2 phases x 8 trees x 3 arcs
    ('allreduce', 2, 48, True)
    """
    if collective == "alltoall":
        sol = solutions["a2a"]
        paths: dict[int, list] = {c: [] for c in sol.chunk_ids()}
        for s in sol.sends:
            paths[s.chunk].append(s)
        routes = [
            Route(
                source=sol.origin(c),
                dest=int(sol.destination(c)),  # type: ignore[arg-type]
                arcs=tuple(s.arc for s in path),
                ranks=tuple(s.epoch for s in path),
                share=1.0 / sol.chunks,
            )
            for c, path in paths.items()
        ]
        return route_schedule(G, routes, chunks=chunks, nbytes=nbytes, chunk_bytes=chunk_bytes)
    packs = [_packing(G, solutions[p], p) for p in ("rs", "ag") if p in solutions]
    table = build_schedule(
        G, collective, packs, chunks=chunks, nbytes=nbytes, chunk_bytes=chunk_bytes
    )
    epoch = {}
    for p, sol in solutions.items():
        for t, s, _ in phase_sends(sol, p):
            epoch[(p, s.chunk, s.arc)] = t
    order = sorted(
        table.entries,
        key=lambda e: (
            PHASES.index(e.phase),
            epoch[(e.phase, e.tree_index, e.arc)],
            e.tree_index,
        ),
    )
    step: dict[int, int] = {}
    seen: dict[tuple[int, int, int], int] = {}
    for e in order:
        step[e.id] = seen.get(e.arc, 0)
        seen[e.arc] = step[e.id] + 1
    return replace(table, entries=tuple(replace(e, step=step[e.id]) for e in table.entries))
