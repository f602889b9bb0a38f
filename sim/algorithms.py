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
           parts reaching the bound), simulated by :func:`supermesh.sim.packing.packing_program`
           (each link's FIFO order from a list schedule) at the fastest of the chunk sizes
           :func:`supermesh.sim.packing.tuned_program` tries (one chunk per tree, two, the
           preset's; ``meta["chunk_bytes"]``). The default for ReduceScatter and AllGather on
           mesh, SMBi and SMAlter. Its ``lower_bound`` is the exact cut bound of the
           collective run that way (:func:`supermesh.trees.bounds.throughput.throughput_bound`:
           for AllReduce ``1 / (1 / rho_RS + 1 / rho_AG)``, not the rank connectivity the other
           algorithms are held to)
tacos      TACOS (Won et al., MICRO 2024): greedy link-chunk matching over a time-expanded
           network, AllGather as synthesised, ReduceScatter as its time reversal, AllReduce both
           in turn (:mod:`supermesh.sim.baselines.tacos`, chunk counts by size and the period
           repeated: :mod:`supermesh.sim.baselines.tacos_program`)
ring, bidir-ring, direct, multitree   see :mod:`supermesh.sim.baselines.dispatch`
teccl      TE-CCL (Liu et al., SIGCOMM 2024) for AllGather, ReduceScatter, AllReduce and AllToAll:
           a multi-commodity flow over a time-expanded network, solved by CP-SAT or its LP
           relaxation with rounding (:mod:`supermesh.sim.teccl`), replayed loop by loop
========== ==================================================================================

Without ``--algorithm`` (:func:`default_algorithm`): ``throughput`` for a weighted packing;
``tacos`` where the tree engine's trees are measured slower (:func:`prefers_tacos`: router
nodes or links of unequal cost, and one-way ReduceScatter / AllGather); ``pipeline``
otherwise. On a one-way topology (SMUni) the pipeline's reduce phases run on in-trees of their
own (:func:`phase_trees_for`).

AllToAll (``alltoall``) runs ``direct`` and ``teccl`` only; its bound is the concurrent-flow
bound of :func:`supermesh.sim.multicommodity.alltoall_bound`.

The rules live in the trees engine (:func:`supermesh.trees.schedule.collective.collective_trees`);
trees are built once per topology and collective kind and reused across sizes (pass a ``cache``;
throughput packings once per topology, direction and part count).
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
from supermesh.sim.link_costs import serial_capacity_network
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import TreePacking, TreeSet

__all__ = [
    "ALGORITHMS",
    "ALLTOALL_ALGORITHMS",
    "TACOS",
    "TECCL",
    "THROUGHPUT",
    "TREE_ALGORITHMS",
    "default_algorithm",
    "is_weighted",
    "phase_trees_for",
    "prefers_tacos",
    "run_algorithm",
    "throughput_bound_for",
    "tree_sets_for",
    "trees_key",
]

TREE_ALGORITHMS = ("pipeline", "tto", "paper")
THROUGHPUT = "throughput"
TACOS = "tacos"
TECCL = "teccl"
ALLTOALL_ALGORITHMS = ("direct", TECCL)
ALGORITHMS = (*TREE_ALGORITHMS, THROUGHPUT, TACOS, *BASELINES, TECCL)


def is_weighted(G: nx.MultiDiGraph, trees: TreePacking | list[TreeSet] | None) -> bool:
    """Whether ``trees`` is a weighted packing (all trees at once, shares of each root's data).

    True for a column-generation packing (``method="colgen"``) or one that claims a rate
    (``stats["algbw_links"]``), and for a set in which every compute chiplet roots a tree and
    some root has several trees with shares below 1.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree
    >>> G = build("mesh:2x2")
    >>> half = [Tree(r, (), 0, share=0.5) for r in range(4)]
    >>> is_weighted(G, [TreeSet(tuple(half + half))]), is_weighted(G, [TreeSet(tuple(half))])
    (True, False)
    """
    if trees is None:
        return False
    if isinstance(trees, TreePacking) and (
        trees.method == "colgen" or "algbw_links" in trees.stats
    ):
        return True
    sets = trees.sets if isinstance(trees, TreePacking) else trees
    ranks = set(compute_nodes(G))
    for s in sets:
        roots = [t.root for t in s.trees]
        repeated = len(set(roots)) < len(roots)
        if repeated and any(t.share < 1.0 for t in s.trees) and ranks <= set(roots):
            return True
    return False


def throughput_bound_for(G: nx.MultiDiGraph, collective: str) -> ThroughputBound:
    """The exact cut bound of a throughput run, as the simulator's :class:`ThroughputBound`.

    ReduceScatter / AllGather: the cut bound (the same value as
    :func:`~supermesh.sim.bounds.collective_bound`, exact in the certificate); AllReduce run as
    ReduceScatter then AllGather: ``1 / (1 / rho_RS + 1 / rho_AG)``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = throughput_bound_for(build("smbi:4x4"), "allreduce")
    >>> b.certificate["algbw_links"], round(b.value, 4)
    ('32/15', 2.1333)
    """
    from supermesh.trees.bounds.throughput import throughput_bound

    rb = throughput_bound(G, collective)
    return ThroughputBound(
        float(rb.value),
        {"algbw_links": str(rb.value), "collective": rb.collective, **rb.certificate},
    )


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
) -> tuple[Any, ...]:
    """The cache key of a tree algorithm's packings for a collective (see :func:`run_algorithm`).

    ReduceScatter and AllGather share their root sets (``"sets"``) where the arcs reverse; on a
    one-way topology ReduceScatter's in-trees are their own (``"sets-in"``).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> trees_key(build("smuni:4x4"), "pipeline", "reducescatter")
    ('trees', 'smuni:4x4', 'pipeline', 'sets-in', None)
    """
    from supermesh.trees.schedule import reversible

    kind = collective if collective in ("allreduce", "broadcast", "reduce") else "sets"
    if collective == "reducescatter" and not reversible(G):
        kind = "sets-in"
    return ("trees", G.graph.get("spec", id(G)), algorithm, kind, roots)


def default_algorithm(
    G: nx.MultiDiGraph,
    trees: TreePacking | list[TreeSet] | None = None,
    reduce_trees: TreePacking | list[TreeSet] | None = None,
    collective: str | None = None,
) -> str:
    """The algorithm a simulation runs when none is named.

    ``throughput`` for weighted trees (all trees at once, shares of each root's data);
    ``direct`` for AllToAll (point to point); without trees, ``tacos`` where the trees
    engine's trees are measured behind it (:func:`prefers_tacos`); ``pipeline`` otherwise.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("smbi:4x4")
    >>> default_algorithm(G), default_algorithm(G, collective="allgather")
    ('pipeline', 'throughput')
    >>> default_algorithm(build("cmesh:4x4"), collective="ag")
    'tacos'
    """
    if is_weighted(G, trees) or is_weighted(G, reduce_trees):
        return THROUGHPUT
    if collective and check_collective(collective) == "alltoall":
        return "direct"  # point to point: no trees
    if trees is None and reduce_trees is None and collective:
        one_way = check_collective(collective) in ("reducescatter", "allgather")
        if one_way and G.graph.get("family") in ("mesh", "smbi", "smalter"):
            return THROUGHPUT  # measured fastest there: bench/bench_limit.py
        if prefers_tacos(G, collective):
            return TACOS
    return "pipeline"


def prefers_tacos(G: nx.MultiDiGraph, collective: str) -> bool:
    """Whether TACOS is the default for a collective on ``G`` rather than pipeline trees.

    The trees engine minimises hops and packs arc-disjoint trees; it does not see link costs,
    and a chiplet with one link (to its router) roots the only tree that can reach it. TACOS
    (cost-aware, any connected topology) is the default for ReduceScatter, AllGather and
    AllReduce where that shows:

    - router nodes, or arcs of unequal cost (the interposer families with their wire
      latencies): ReduceScatter / AllGather 1.6-2.9x faster than the pipeline trees (booksim,
      4 and 64 MiB, 4x4 to 16x16: ``cmesh``, ``kite-small``, ``kite-medium``,
      ``folded-torus``, ``double-butterfly``, ``butterdonut``, ``conc=4``); AllReduce 2.1-3.6x
      where fewer than 4 trees with distinct roots fit (routers: 1; butterflies: 2 or 3,
      Frank's count, :func:`~supermesh.trees.bounds.free.max_trees_free`), while where 4 fit
      (Kite, folded torus) the pipeline's 4 trees are 3-16% faster and stay the default;
    - a one-way topology (SMUni), ReduceScatter / AllGather: 1.3x (TACOS's AllReduce runs its
      ReduceScatter backwards, which one-way arcs forbid: pipeline trees with in-trees of
      their own, :func:`phase_trees_for`).

    Mesh, SuperMesh, torus and HexaMesh (unit links, every arc reversible) keep the trees.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> [prefers_tacos(build(s), "allreduce") for s in ("cmesh:4x4", "kite-small:4x4")]
    [True, False]
    >>> prefers_tacos(build("smuni:4x4"), "rs"), prefers_tacos(build("smuni:4x4"), "allreduce")
    (True, False)
    """
    from supermesh.trees.bounds.free import max_trees_free
    from supermesh.trees.schedule import reversible

    collective = check_collective(collective)
    if collective not in ("reducescatter", "allgather", "allreduce"):
        return False
    costs = {(d.get("bandwidth", 1.0), d.get("latency", 1.0)) for *_, d in G.edges(data=True)}
    routed = any(G.nodes[v].get("kind") == "router" for v in G)
    if len(costs) > 1 or routed:
        if collective != "allreduce":
            return True
        return max_trees_free(G, distinct=True).max_trees < 4
    return not reversible(G) and collective != "allreduce"


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
        One of :data:`ALGORITHMS`; None: :func:`default_algorithm`.
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
    if bound is True and cache is not None:
        kind = "rate-bound" if weighted else "bound"
        bound_key = (kind, spec, collective, params.link_pipelined)
        if bound_key not in cache:
            make = throughput_bound_for if weighted else collective_bound
            cache[bound_key] = make(serial_capacity_network(G, params), collective)
        bound = cache[bound_key]
    if weighted:
        program, params = _throughput_program(
            G, collective, nbytes, params, trees, reduce_trees, roots, cache, time_limit
        )
        if bound is True:
            bound = throughput_bound_for(serial_capacity_network(G, params), collective)
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
            if cache is not None and key in cache:
                packings = cache[key]
            else:
                packings = phase_trees_for(
                    G, algorithm, collective, roots=roots, time_limit=time_limit
                )
                if cache is not None:
                    cache[key] = packings
            trees, *more = packings
            reduce_trees = more[0] if more else reduce_trees
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


def _throughput_program(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    trees: TreePacking | list[TreeSet] | None,
    reduce_trees: TreePacking | list[TreeSet] | None,
    roots: str | None,
    cache: MutableMapping[Any, Any] | None,
    time_limit: float,
) -> tuple[Program, SimParams]:
    """The program of a throughput run and its parameters: the given packing, or the fastest
    of the packings built (and cached) for it at the chunk sizes
    :func:`~supermesh.sim.packing.tuned_program` tries."""
    from supermesh.sim.packing import packing_program, tuned_program
    from supermesh.trees.schedule.collective import natural_direction, throughput_packing

    if collective not in ("reducescatter", "allgather", "allreduce"):
        raise SpecError(
            f"the throughput packing is for ReduceScatter / AllGather / AllReduce, "
            f"not {collective}",
            hint="use --algorithm pipeline",
        )
    if roots is not None:
        raise SpecError("the throughput packing roots trees at every chiplet", hint="drop --roots")
    if reduce_trees is not None:
        raise SpecError(
            "a throughput packing runs both phases on the same trees",
            hint="give one tree file",
        )
    if trees is None:
        direction = natural_direction(collective)
        memo: dict[int, TreePacking] = {}
        if cache is not None:
            memo = cache.setdefault(("throughput", G.graph.get("spec", id(G)), direction), {})
        # the fewest equal parts that reach the bound; the chunk size is searched
        packing = throughput_packing(G, direction, time_limit=time_limit, memo=memo)
        return tuned_program(G, [packing], collective, nbytes, params)
    if isinstance(trees, TreePacking):
        return packing_program(G, trees, collective, nbytes, params), params
    flat = [t for s in trees for t in s.trees]
    return packing_program(G, flat, collective, nbytes, params, direction="out"), params
