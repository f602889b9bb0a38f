"""The trees a named tree algorithm runs a collective on, and the key they are cached under.

Thin wrappers of the trees engine (:func:`supermesh.trees.schedule.collective.collective_trees`
and :func:`supermesh.trees.schedule.phase_packings`, where the rules are) that check the name
against :data:`~supermesh.sim.defaults.TREE_ALGORITHMS`: out-trees, which the simulator reverses
for the reduce phases, and on a one-way topology (SMUni) in-trees of their own for them.
:func:`trees_key` is the one cache key of those packings, used by
:func:`~supermesh.sim.algorithms.run_algorithm` and by the sweep (:mod:`supermesh.sim.sweep`),
so trees built once per topology and collective kind are found again at every size.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.collectives import check_collective
from supermesh.sim.defaults import TREE_ALGORITHMS
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["phase_trees_for", "tree_sets_for", "trees_key"]


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

    A thin wrapper of :func:`supermesh.trees.schedule.collective.collective_trees` (where the rules
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
        :func:`supermesh.trees.roots.sets.root_sets` (sweeps).

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
    from supermesh.trees.schedule.collective import collective_trees

    collective = check_collective(collective)
    if algorithm not in TREE_ALGORITHMS:
        raise SpecError(f"{algorithm!r} is not a tree algorithm", hint=f"use {TREE_ALGORITHMS}")
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


def phase_trees_for(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str,
    *,
    roots: str | None = None,
    time_limit: float = 60.0,
    fast: bool = False,
) -> list[TreePacking]:
    """The packings a named tree algorithm runs a collective's phases on (what is cached).

    :func:`supermesh.trees.schedule.collective.phase_packings`: one out-tree packing where every
    arc has its reverse, and in-trees of their own for the reduce phases on a one-way topology
    (SMUni). Parameters and errors as :func:`tree_sets_for`.

    Returns
    -------
    list of TreePacking
        One per direction at most, the forward phase's first.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> [p.direction for p in phase_trees_for(build("smuni:4x4"), "pipeline", "reducescatter")]
    ['in']
    """
    from supermesh.trees.schedule import phase_packings

    collective = check_collective(collective)
    if algorithm not in TREE_ALGORITHMS:
        raise SpecError(f"{algorithm!r} is not a tree algorithm", hint=f"use {TREE_ALGORITHMS}")
    return phase_packings(
        G, collective, algorithm=algorithm, roots=roots, time_limit=time_limit, fast=fast
    )


def trees_key(
    G: nx.MultiDiGraph, algorithm: str, collective: str, roots: str | None = None
) -> tuple[Any, ...] | None:
    """The cache key of a tree algorithm's packings for a collective (None: no trees to cache).

    The one key of these trees: :func:`~supermesh.sim.algorithms.run_algorithm` looks it up and
    the sweep (:func:`~supermesh.sim.sweep.build_trees`) fills it. ReduceScatter and AllGather
    share their root sets (``"sets"``) where the arcs reverse; on a one-way topology
    ReduceScatter's in-trees are their own (``"sets-in"``). An algorithm that is not one of
    :data:`~supermesh.sim.defaults.TREE_ALGORITHMS` (a baseline) has no key.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> trees_key(build("smuni:4x4"), "pipeline", "reducescatter")
    ('trees', 'smuni:4x4', 'pipeline', 'sets-in', None)
    >>> trees_key(build("smbi:4x4"), "pipeline", "allgather")
    ('trees', 'smbi:4x4', 'pipeline', 'sets', None)
    >>> trees_key(build("mesh:4x4"), "multitree", "allgather") is None
    True
    """
    from supermesh.trees.schedule import reversible

    if algorithm not in TREE_ALGORITHMS:
        return None
    kind = collective if collective in ("allreduce", "broadcast", "reduce") else "sets"
    if collective == "reducescatter" and not reversible(G):
        kind = "sets-in"
    return ("trees", G.graph.get("spec", id(G)), algorithm, kind, roots)
