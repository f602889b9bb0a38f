"""Named algorithms -> schedules: which trees (or which baseline) each name means.

========== ==================================================================================
name       schedule
========== ==================================================================================
pipeline   height-optimal arc-disjoint trees (:func:`supermesh.trees.packing.pack_trees`):
           AllReduce on the 4 corners (on a mesh, where 4 are impossible, TTO's 3); ReduceScatter
           and AllGather on every chiplet, in the root sets of
           :func:`supermesh.trees.roots.root_sets` (partition and running order optimised);
           Broadcast and Reduce from the first corner with as many trees as Edmonds' theorem
           allows (:func:`supermesh.trees.bounds.max_trees_from_root`)
tto        Three Tree AllReduce on the mesh (Laskar et al., HPCA 2024): 3 corner trees, the fourth
           corner relays only (:func:`supermesh.trees.baselines.tto`)
paper      the SuperMesh paper's Algorithm 1 trees (:func:`supermesh.trees.baselines.algorithm1`)
           on the paper's root sets (one root per side, outside in:
           :func:`supermesh.trees.roots_paper.paper_root_sets`) in sets of 4, or fewer where 4
           do not fit; a set on which the procedure gets stuck is packed optimally instead
ring, bidir-ring, direct, multitree   see :mod:`supermesh.sim.baselines`
========== ==================================================================================

The rules live in the trees engine (:func:`supermesh.trees.collective_trees.collective_trees`);
trees are built once per topology and collective kind and reused across sizes (pass a ``cache``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.baselines import BASELINES, baseline_program
from supermesh.sim.bounds import ThroughputBound, collective_bound
from supermesh.sim.collectives import check_collective, tree_program
from supermesh.sim.presets import SimParams
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["ALGORITHMS", "TREE_ALGORITHMS", "run_algorithm", "tree_sets_for"]

TREE_ALGORITHMS = ("pipeline", "tto", "paper")
ALGORITHMS = TREE_ALGORITHMS + BASELINES


# ---------------------------------------------------------------------------- trees engine
def tree_sets_for(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str,
    *,
    roots: str | None = None,
    time_limit: float = 60.0,
    fast: bool = False,
) -> list[TreeSet]:
    """The tree sets a named tree algorithm uses for a collective (out-trees).

    A thin wrapper of :func:`supermesh.trees.collective_trees.collective_trees` (where the rules
    are), asking for out-trees: the simulator reverses them for the reduce phases.

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
    fast : bool
        ReduceScatter / AllGather root sets in the fast mode of
        :func:`supermesh.trees.roots.root_sets` (sweeps).

    Returns
    -------
    list of TreeSet

    Raises
    ------
    SpecError
        Unknown algorithm, TTO asked for something but an AllReduce, or roots for ReduceScatter
        or AllGather.
    SupermeshError
        The trees engine could not build the trees.
    """
    from supermesh.trees.collective_trees import collective_trees

    collective = check_collective(collective)
    if algorithm not in TREE_ALGORITHMS:
        raise SpecError(f"{algorithm!r} is not a tree algorithm", hint=f"use {TREE_ALGORITHMS}")
    if roots is not None and collective in ("reducescatter", "allgather"):
        raise SpecError(
            f"{collective} roots every chiplet; --roots is for allreduce, broadcast and reduce"
        )
    packing = collective_trees(
        G,
        collective,
        algorithm=algorithm,
        roots=roots,
        time_limit=time_limit,
        direction="out",
        fast=fast,
    )
    return list(packing.sets)


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
