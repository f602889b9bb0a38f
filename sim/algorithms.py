"""Named algorithms -> schedules: which trees (or which baseline) each name means.

========== ==================================================================================
name       schedule
========== ==================================================================================
pipeline   height-optimal arc-disjoint trees (:func:`supermesh.trees.packing.search.pack_trees`):
           AllReduce on the 4 corners (on a mesh, where 4 are impossible, TTO's 3); ReduceScatter
           and AllGather on every chiplet, in the root sets of
           :func:`supermesh.trees.roots.sets.root_sets` (partition and running order optimised;
           the paper's scheme of root sets run one after another, kept to reproduce it);
           Broadcast and Reduce from the first corner with as many trees as Edmonds' theorem
           allows (:func:`supermesh.trees.bounds.counts.max_trees_from_root`)
tto        Three Tree AllReduce on the mesh (Laskar et al., HPCA 2024): 3 corner trees, the fourth
           corner relays only (:func:`supermesh.trees.packing.baselines.tto`)
paper      the SuperMesh paper's Algorithm 1 trees
(:func:`supermesh.trees.packing.baselines.algorithm1`)
           on the paper's root sets (one root per side, outside in:
           :func:`supermesh.trees.roots.paper.paper_root_sets`) in sets of 4, or fewer where 4
           do not fit; a set on which the procedure gets stuck is packed optimally instead
throughput ReduceScatter / AllGather / AllReduce (= ReduceScatter, barrier, AllGather on the same
           trees): every chiplet roots several trees with equal shares of its data, all running
           at once at the exact cut-bound rate
           (:func:`supermesh.trees.schedule.collective.throughput_packing`, the fewest equal
           parts reaching the bound; on a small grid where those run short of it, also twice
           the parts and the other direction's packing reversed, and where a tree's share is a
           few chunks the part count whose shares fill whole packets,
           :func:`supermesh.sim.packing_choice.other_packings`), simulated by
           :func:`supermesh.sim.packing.packing_program` (each link's FIFO order from a list
           schedule) at the fastest of the chunk sizes
           :func:`supermesh.sim.chunk_choice.tuned_program` tries (one chunk per tree, two, the
           one balancing fill and hop costs, the preset's; ``meta["chunk_bytes"]``). The
           default for ReduceScatter and AllGather on mesh, SMBi and SMAlter. AllReduce on up
           to 64 chiplets also tries free root shares (reduce into, and broadcast from, the
           roots of a free-root packing in equal parts,
           :func:`supermesh.trees.schedule.free_share_packing`: 8/3 links a phase on the
           mesh where equal shares reach 32/15; where they gain no rate, ``floor(rho)``
           whole trees, :func:`supermesh.trees.schedule.whole_tree_packing`) and keeps the
           faster. The topology's rings run first where it has them
           (:func:`supermesh.trees.throughput.rings.ring_packing`). On up to 36 chiplets, where
           none of these streams, epoch schedules of TE-CCL's model (each chunk sent whole)
           and, where a rank's share is at most 64 chunks, the programs of ``teccl`` and
           ``tacos`` run beside them and the fastest is kept
           (:mod:`supermesh.sim.time_expanded`). Its ``lower_bound`` is
           the bound of the collective run that way (:func:`throughput_bound_for`: the exact
           cut bound; for AllReduce the free-share rate, or ``1 / (1 / rho_RS + 1 /
           rho_AG)`` above 64 chiplets; not the rank connectivity the other algorithms are
           held to)
tacos      TACOS (Won et al., MICRO 2024): greedy link-chunk matching over a time-expanded
           network, AllGather as synthesised, ReduceScatter as its time reversal, AllReduce both
           in turn (:mod:`supermesh.sim.baselines.tacos`, chunk counts by size and the period
           repeated: :mod:`supermesh.sim.baselines.tacos_program`)
ring, bidir-ring, direct, multitree   see :mod:`supermesh.sim.baselines.dispatch`
teccl      TE-CCL (Liu et al., SIGCOMM 2024) for AllGather, ReduceScatter, AllReduce and AllToAll:
           a multi-commodity flow over a time-expanded network, solved by CP-SAT or its LP
           relaxation with rounding (:mod:`supermesh.sim.teccl`), replayed loop by loop
========== ==================================================================================

The names are :data:`~supermesh.sim.defaults.ALGORITHMS`. Without ``--algorithm``
(:func:`~supermesh.sim.defaults.default_algorithm`): ``throughput`` for a weighted packing;
``tacos`` where the tree engine's trees are measured slower
(:func:`~supermesh.sim.defaults.prefers_tacos`: router nodes or links of unequal cost, and
one-way ReduceScatter / AllGather); ``pipeline`` otherwise. On a one-way topology (SMUni) the
pipeline's reduce phases run on in-trees of their own
(:func:`~supermesh.sim.tree_sets.phase_trees_for`).

AllToAll (``alltoall``) runs ``direct`` and ``teccl`` only; its bound is the concurrent-flow
bound of :func:`supermesh.sim.multicommodity.alltoall_bound`.

The rules live in the trees engine (:func:`supermesh.trees.schedule.collective.collective_trees`);
trees are built once per topology and collective kind and reused across sizes (pass a ``cache``:
the trees under :func:`~supermesh.sim.tree_sets.trees_key`; throughput packings once per
topology, direction and part count).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.baselines.dispatch import BASELINES, baseline_program
from supermesh.sim.bounds import ThroughputBound, collective_bound
from supermesh.sim.collectives import check_collective, tree_program
from supermesh.sim.cost import check_baseline
from supermesh.sim.defaults import (
    ALGORITHMS,
    ALLTOALL_ALGORITHMS,
    TACOS,
    TECCL,
    THROUGHPUT,
    default_algorithm,
    is_weighted,
)
from supermesh.sim.link_costs import serial_capacity_network
from supermesh.sim.presets import SimParams
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.sim.throughput_run import (
    check_throughput_collective,
    throughput_bound_for,
    throughput_program,
)
from supermesh.sim.tree_sets import phase_trees_for, trees_key
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["run_algorithm", "throughput_bound_for"]


def run_algorithm(
    G: nx.MultiDiGraph,
    algorithm: str | None,
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
    algorithm : str or None
        One of :data:`~supermesh.sim.defaults.ALGORITHMS`; None:
        :func:`~supermesh.sim.defaults.default_algorithm`.
    collective : str
    nbytes : int
    params : SimParams
    trees : TreePacking or list of TreeSet, optional
        Use these trees instead of building them (tree algorithms only).
    reduce_trees : TreePacking or list of TreeSet, optional
        Separate trees for the reduce phases (default: ``trees`` reversed).
    roots : str, optional
        Root spec for the tree algorithms (see :func:`~supermesh.sim.tree_sets.tree_sets_for`).
    cache : dict, optional
        Reused across calls for trees and bounds (keyed by topology spec); without it, one
        for this call only.
    bound : bool or ThroughputBound or None
        See :func:`supermesh.sim.run.evaluate`.
    time_limit : float
        CP-SAT seconds per tree set (``throughput``: per part split and height proof).
    bins : int
        Time-series bins.

    Returns
    -------
    SimResult

    Raises
    ------
    SpecError
        Unknown algorithm or collective; a weighted packing given to another algorithm than
        ``throughput``; ``throughput`` for Broadcast / Reduce, with ``roots`` or with
        ``reduce_trees``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> r = run_algorithm(build("mesh:4x4"), "throughput", "allgather", 16 << 20,
    ...                   get_preset("booksim"))
    >>> r.bound.certificate["algbw_links"], r.time >= r.lower_bound
    ('32/15', True)
    """
    collective = check_collective(collective)
    # without the caller's cache, one for this call: the bound then reuses what the program
    # built (an AllReduce's free-root LP)
    cache = {} if cache is None else cache
    if algorithm is None:
        # roots the user chose are for tree sets: the pipeline runs them
        algorithm = "pipeline" if roots else default_algorithm(G, trees, reduce_trees, collective)
    if algorithm not in ALGORITHMS:
        raise SpecError(
            f"unknown algorithm {algorithm!r}", hint=f"use one of: {', '.join(ALGORITHMS)}"
        )
    if collective == "alltoall" and algorithm not in ALLTOALL_ALGORITHMS:
        raise SpecError(
            f"{algorithm!r} has no AllToAll", hint=f"use one of: {', '.join(ALLTOALL_ALGORITHMS)}"
        )
    spec = G.graph.get("spec", id(G))
    weighted = algorithm == THROUGHPUT or is_weighted(G, trees)
    if weighted and algorithm != THROUGHPUT:
        raise SpecError(
            f"these trees are a weighted packing (all trees at once), not {algorithm!r} trees",
            hint="simulate them with --algorithm throughput",
        )
    given = params
    if weighted:
        check_throughput_collective(collective)
        if roots is not None:
            raise SpecError(
                "the throughput packing roots trees at every chiplet", hint="drop --roots"
            )
        if reduce_trees is not None:
            raise SpecError(
                "a throughput packing runs both phases on the same trees",
                hint="give one tree file",
            )
        program, params = throughput_program(
            G, collective, nbytes, params, trees=trees, cache=cache, time_limit=time_limit
        )
    elif algorithm == TACOS:
        from supermesh.sim.baselines.tacos_program import tacos_program

        program = tacos_program(G, collective, nbytes, params, cache=cache)
    elif algorithm == TECCL:
        from supermesh.sim.teccl.collective import teccl_program

        program = teccl_program(G, collective, nbytes, params, time_limit=time_limit, cache=cache)
    elif algorithm in BASELINES:
        check_baseline(G, algorithm, collective)
        program = baseline_program(G, algorithm, collective, nbytes, params)
    else:
        if trees is None:
            key = trees_key(G, algorithm, collective, roots)
            if key in cache:
                packings = cache[key]
            else:
                packings = phase_trees_for(
                    G, algorithm, collective, roots=roots, time_limit=time_limit
                )
                cache[key] = packings
            trees, *more = packings
            reduce_trees = more[0] if more else reduce_trees
        program = tree_program(G, trees, collective, nbytes, params, reduce_trees=reduce_trees)
    # the bound after the program: a run refused for its size must not first spend a minute on
    # the cut bound (thousands of max-flows at 64x64)
    if bound is True:
        kind = "rate-bound" if weighted else "bound"
        bound_key = (kind, spec, collective, given.link_pipelined)
        if bound_key not in cache:
            net = serial_capacity_network(G, given)
            if not weighted:
                cache[bound_key] = collective_bound(net, collective)
            else:
                memo = cache.setdefault(("free-share", spec), {}) if net is G else None
                cache[bound_key] = throughput_bound_for(net, collective, memo)
        bound = cache[bound_key]
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
