"""Named algorithms -> schedules: which trees (or which baseline) each name means.

========== ==================================================================================
name       schedule
========== ==================================================================================
pipeline   height-optimal arc-disjoint trees (:func:`supermesh.trees.packing.pack_trees`):
           AllReduce on the 4 corners (on a mesh, where 4 are impossible, TTO's 3); ReduceScatter
           and AllGather on every chiplet, in the root sets of
           :func:`supermesh.trees.roots.root_sets` (partition and running order optimised);
           Broadcast and Reduce from the first corner with as many trees as its cut allows
tto        Three Tree AllReduce on the mesh (Laskar et al., HPCA 2024): 3 corner trees, the fourth
           corner relays only (:func:`supermesh.trees.baselines.tto`)
paper      the SuperMesh paper's Algorithm 1 trees (:func:`supermesh.trees.baselines.algorithm1`)
           on the paper's root sets (one root per side, outside in:
           :func:`supermesh.trees.roots_paper.paper_root_sets`) in sets of 4, or fewer where 4
           do not fit; a set on which the procedure gets stuck is packed optimally instead
ring, bidir-ring, direct, multitree   see :mod:`supermesh.sim.baselines`
========== ==================================================================================

Trees are built once per topology and phase direction and reused across sizes (pass a ``cache``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import networkx as nx

from supermesh.errors import (
    InfeasibleError,
    SolverError,
    SpecError,
    SupermeshError,
    TopologyError,
)
from supermesh.sim.baselines import BASELINES, baseline_program
from supermesh.sim.bounds import ThroughputBound, collective_bound
from supermesh.sim.collectives import check_collective, tree_program
from supermesh.sim.presets import SimParams
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.topologies.model import compute_nodes
from supermesh.trees.baselines import tto
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["ALGORITHMS", "TREE_ALGORITHMS", "run_algorithm", "tree_sets_for"]

TREE_ALGORITHMS = ("pipeline", "tto", "paper")
ALGORITHMS = TREE_ALGORITHMS + BASELINES


# ---------------------------------------------------------------------------- trees engine
def _pack(G: nx.MultiDiGraph, roots: list[int], time_limit: float) -> TreePacking:
    """One set of height-optimal trees (the trees engine's packing)."""
    from supermesh.trees.packing import pack_trees

    return pack_trees(G, roots, direction="out", time_limit=time_limit)


def _algorithm1(G: nx.MultiDiGraph, roots: list[int]) -> TreePacking:
    from supermesh.trees.baselines import algorithm1

    try:
        return algorithm1(G, roots)
    except SolverError as exc:  # the procedure got stuck: no trees on these roots
        return TreePacking(
            str(G.graph.get("spec", "")), "out", "infeasible", stats={"why": str(exc)}
        )


def _usable(p: TreePacking) -> bool:
    return p.status in ("optimal", "feasible") and bool(p.sets)


def _roots(G: nx.MultiDiGraph, text: str | None) -> list[int]:
    from supermesh.trees.rootspec import resolve_roots

    return resolve_roots(G, text or "corners")


def _paper_order(G: nx.MultiDiGraph) -> list[int]:
    """Every rank once, in the paper's root order (one per side, outside in) on grids."""
    from supermesh.trees.roots_paper import paper_root_sets

    try:
        return [r for group in paper_root_sets(G) for r in group]
    except TopologyError:  # not a full grid: rank order
        return compute_nodes(G)


def tree_sets_for(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str,
    *,
    roots: str | None = None,
    time_limit: float = 60.0,
) -> list[TreeSet]:
    """The tree sets a named tree algorithm uses for a collective (out-trees).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    algorithm : {"pipeline", "tto", "paper"}
    collective : str
    roots : str, optional
        Roots of the one set of an AllReduce, Broadcast or Reduce, as
        :func:`supermesh.trees.rootspec.resolve_roots` reads them (``corners``, ``sides``,
        ``0,3,12``); default ``corners`` (the first corner for Broadcast and Reduce).
    time_limit : float
        CP-SAT seconds per set.

    Returns
    -------
    list of TreeSet

    Raises
    ------
    SpecError
        Unknown algorithm, or TTO asked for something but an AllReduce.
    SupermeshError
        The trees engine could not build the trees.
    """
    collective = check_collective(collective)
    if algorithm == "tto":
        if collective != "allreduce":
            raise SpecError("TTO is an AllReduce algorithm", hint="use --algorithm pipeline")
        return list(tto(G).sets)
    if algorithm not in ("pipeline", "paper"):
        raise SpecError(f"{algorithm!r} is not a tree algorithm", hint=f"use {TREE_ALGORITHMS}")

    def build(group: list[int]) -> TreePacking:
        if algorithm == "pipeline":
            return _pack(G, group, time_limit)
        packing = _algorithm1(G, group)
        if _usable(packing) or collective == "allreduce":
            return packing
        # Algorithm 1 got stuck on this root set: keep the paper's grouping, pack it optimally
        return _pack(G, group, time_limit)

    if collective == "allreduce":
        packing = build(_roots(G, roots))
        if not _usable(packing):
            if algorithm == "pipeline" and roots is None:
                return list(tto(G).sets)  # a mesh: 4 corner trees cannot exist
            raise InfeasibleError(
                f"no {algorithm} trees on the roots {roots or 'corners'}: {packing.status}",
                certificate=packing.certificate or {},
                hint="pick fewer roots, or roots with more links (see `supermesh bound`)",
            )
        return list(packing.sets)
    if roots is not None and collective in ("reducescatter", "allgather"):
        raise SpecError(
            f"{collective} roots every chiplet; --roots is for allreduce, broadcast and reduce"
        )
    if collective in ("broadcast", "reduce"):
        root = _roots(G, roots)[0]
        k = round(collective_bound(G, "broadcast", roots=[root]).value)
        for count in range(max(k, 1), 0, -1):
            packing = build([root] * count)
            if _usable(packing):
                return list(packing.sets)
        raise SupermeshError(f"no {algorithm} trees from chiplet {root}")
    if algorithm == "pipeline":
        from supermesh.trees.roots import root_sets

        packing = root_sets(G, time_limit=time_limit, set_time_limit=time_limit, compare=False)
        if not _usable(packing):
            raise InfeasibleError(
                f"no root sets for {collective} on {G.graph.get('spec')}: {packing.status}",
                certificate=packing.certificate or {},
            )
        return list(packing.sets)
    sets: list[TreeSet] = []
    queue = _paper_order(G)
    while queue:
        for size in range(min(4, len(queue)), 0, -1):
            packing = build(queue[:size])
            if _usable(packing):
                sets += list(packing.sets)
                queue = queue[size:]
                break
        else:
            raise SupermeshError(f"no tree rooted at chiplet {queue[0]}: {packing.status}")
    return sets


def run_algorithm(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    trees: TreePacking | list[TreeSet] | None = None,
    reduce_trees: TreePacking | list[TreeSet] | None = None,
    roots: str | None = None,
    cache: MutableMapping[Any, Any] | None = None,
    bound: bool | ThroughputBound | None = True,
    time_limit: float = 60.0,
    bins: int = 100,
) -> SimResult:
    """Simulate a named algorithm (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    algorithm : str
        One of :data:`ALGORITHMS`.
    collective : str
    nbytes : int
    params : SimParams
    trees : TreePacking or list of TreeSet, optional
        Use these trees instead of building them (tree algorithms only).
    reduce_trees : TreePacking or list of TreeSet, optional
        Separate trees for the reduce phases (default: ``trees`` reversed).
    roots : str, optional
        Root spec for the tree algorithms (see :func:`tree_sets_for`).
    cache : dict, optional
        Reused across calls for trees and bounds (keyed by topology spec).
    bound : bool or ThroughputBound or None
        See :func:`supermesh.sim.run.evaluate`.
    time_limit : float
        CP-SAT seconds per tree set.
    bins : int
        Time-series bins.

    Returns
    -------
    SimResult
    """
    collective = check_collective(collective)
    if algorithm not in ALGORITHMS:
        raise SpecError(
            f"unknown algorithm {algorithm!r}", hint=f"use one of: {', '.join(ALGORITHMS)}"
        )
    spec = G.graph.get("spec", id(G))
    if bound is True and cache is not None:
        bound_key = ("bound", spec, collective)
        if bound_key not in cache:
            cache[bound_key] = collective_bound(G, collective)
        bound = cache[bound_key]
    if algorithm in BASELINES:
        program = baseline_program(G, algorithm, collective, nbytes, params)
    else:
        if trees is None:
            kind = collective if collective in ("allreduce", "broadcast", "reduce") else "sets"
            key = ("trees", spec, algorithm, kind, roots)
            if cache is not None and key in cache:
                trees = cache[key]
            else:
                trees = tree_sets_for(G, algorithm, collective, roots=roots, time_limit=time_limit)
                if cache is not None:
                    cache[key] = trees
        program = tree_program(G, trees, collective, nbytes, params, reduce_trees=reduce_trees)
    return evaluate(
        G,
        program,
        params,
        collective=collective,
        algorithm=algorithm,
        nbytes=nbytes,
        bound=bound,
        bins=bins,
    )
