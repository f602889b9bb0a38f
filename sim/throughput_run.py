"""A throughput run: the program of ``run_algorithm(..., "throughput", ...)`` and its bound.

:func:`throughput_program` chooses what a throughput run simulates, in this order:

1. the rings of the topology (:func:`~supermesh.trees.throughput.rings.ring_packing`: one tree
   per Hamiltonian cycle and rank) at one chunk a tree, where they exist; when that run is
   within :data:`~supermesh.sim.packing_choice.STREAMING` of the bound and loses no more than
   the hop latency of each transfer (:data:`RING_EXCESS`: every link is busy from the first
   slot to the last) nothing else is tried;
2. otherwise, for an AllReduce on up to 64 chiplets, first the undirected trees at its bound
   (:func:`undirected_choice`) in one justified order, whose time every later packing's
   justified tries are held to; then the trees of the smallest heights: the fewest equal
   parts at the bound
   (:func:`~supermesh.trees.schedule.collective.throughput_packing`), their chunk size searched
   (:func:`~supermesh.sim.chunk_choice.tuned_program`), other packings where those do not
   stream (:func:`~supermesh.sim.packing_choice.other_packings`), and for AllReduce free root
   shares (:func:`~supermesh.sim.packing_choice.free_share_choice`); the rings' run, where there
   is one, competes with them;
3. where the fastest of those is still above :data:`~supermesh.sim.packing_choice.STREAMING`
   of the bound (small sizes, odd grids), on small grids, schedules built over a time-expanded
   network: epoch schedules of TE-CCL's model sent a whole chunk at a time, and TE-CCL's and
   TACOS's own programs (:func:`~supermesh.sim.time_expanded.synthesised_choice`).

:func:`throughput_bound_for` is the bound such a run is held to.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import MutableMapping
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import ResourceError, SpecError, TopologyError
from supermesh.sim.bounds import ThroughputBound
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.trees.model import TreePacking, TreeSet

__all__ = [
    "RING_EXCESS",
    "check_throughput_collective",
    "throughput_bound_for",
    "throughput_program",
    "undirected_choice",
]

RING_EXCESS = 1e-4
"""A rings' run ends the search when it is within :data:`~supermesh.sim.packing_choice.STREAMING`
of the bound and within this fraction of the bound of its floor: the bound plus each of a link's
``n - 1`` transfers' hop latency and release (per phase), which every one-chunk-a-tree run of as
many transfers a link pays too. An AllGather's rings run at that floor to the cycle (they never
wait); a reduce's wait for each step's aggregation, which trees can hide: mesh 4x4 ReduceScatter
4 MiB, booksim, rings 163,441 cycles against a floor of 163,380, the trees 163,402, so the trees
are searched there; SMBi 8x8 at 512 MiB the rings are 205 cycles above their floor (0.002%),
the trees 5,136 cycles slower, and the 20 s search is skipped."""


def throughput_bound_for(
    G: nx.MultiDiGraph, collective: str, memo: MutableMapping[Any, Any] | None = None
) -> ThroughputBound:
    """The bound a throughput run is held to, as the simulator's :class:`ThroughputBound`.

    ReduceScatter / AllGather: the exact cut bound (the same value as
    :func:`~supermesh.sim.bounds.collective_bound`, exact in the certificate). AllReduce:
    :func:`~supermesh.sim.bounds.allreduce_bound`, which holds for every AllReduce (its reduce
    and broadcast may overlap, as a throughput run's do), sharpened by the partition of the
    undirected tree packing (:func:`undirected_choice`) where there is one; ``status`` says
    whether that packing meets it (``optimal``). ``reducescatter_allgather`` keeps the bound of
    the two run in turn, ``1 / (1 / rho_RS + 1 / rho_AG)``, which a run with a barrier between
    them is held to.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    memo : mutable mapping, optional
        The free-share memo of ``G`` (shared with the run's packings).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = throughput_bound_for(build("mesh:9x9"), "allreduce")  # 81 ranks: no packing tried
    >>> b.certificate["algbw_links"], b.certificate["status"]
    ('9/5', 'bound')
    >>> b = throughput_bound_for(build("mesh:4x4"), "allreduce")
    >>> b.certificate["algbw_links"], b.certificate["status"]  # 24 edges over 15 parts
    ('8/5', 'optimal')
    """
    from supermesh.sim.bounds import allreduce_bound
    from supermesh.trees.bounds.throughput import throughput_bound

    rb = throughput_bound(G, collective)
    if collective != "allreduce":
        return ThroughputBound(
            float(rb.value),
            {"algbw_links": str(rb.value), "collective": rb.collective, **rb.certificate},
        )
    packed = undirected_choice(G, memo)
    found = allreduce_bound(G, parts=None if packed is None else packed.parts)
    value = found.value
    exact = found.certificate.get("algbw_exact")
    shown = Fraction(value).limit_denominator(1000)
    text = exact or (str(shown) if abs(shown - Fraction(value)) <= 1e-9 * value else f"{value:.9g}")
    met = packed is not None and packed.rate >= value * (1 - 1e-7)
    return ThroughputBound(
        value,
        {
            **found.certificate,
            "algbw_links": text,
            "collective": "allreduce",
            "status": "optimal" if met else "bound",
            "reducescatter_allgather": {"algbw_links": str(rb.value), **rb.certificate},
        },
    )


def undirected_choice(
    G: nx.MultiDiGraph, memo: MutableMapping[Any, Any] | None = None, time_limit: float = 60.0
) -> Any:
    """The undirected tree packing of ``G``
    (:func:`~supermesh.trees.throughput.undirected.undirected_packing`) where a throughput
    AllReduce tries it: every node a rank, every arc with its reverse, up to
    :data:`~supermesh.trees.schedule.FREE_SHARE_RANKS` ranks; else None. Kept in ``memo``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> undirected_choice(build("smbi:4x4")).bound
    Fraction(12, 5)
    """
    from supermesh.topologies.model import compute_nodes
    from supermesh.trees.schedule import FREE_SHARE_RANKS
    from supermesh.trees.schedule.collective import reversible
    from supermesh.trees.throughput.undirected import undirected_packing

    memo = {} if memo is None else memo
    if "undirected" not in memo:
        ranks = len(compute_nodes(G))
        fits = ranks == G.number_of_nodes() and ranks <= FREE_SHARE_RANKS and reversible(G)
        memo["undirected"] = undirected_packing(G, time_limit=time_limit) if fits else None
    return memo["undirected"]


def check_throughput_collective(collective: str) -> None:
    """Refuse a collective other than ReduceScatter, AllGather and AllReduce.

    Raises
    ------
    SpecError
        Any other collective, with the algorithm that runs it as the hint.

    Examples
    --------
    >>> check_throughput_collective("allgather")
    >>> check_throughput_collective("broadcast")
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: the throughput packing is for ReduceScatter / AllGather / \
AllReduce, not broadcast
    """
    if collective not in ("reducescatter", "allgather", "allreduce"):
        raise SpecError(
            f"the throughput packing is for ReduceScatter / AllGather / AllReduce, "
            f"not {collective}",
            hint="use --algorithm pipeline",
        )


def throughput_program(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    trees: TreePacking | list[TreeSet] | None = None,
    cache: MutableMapping[Any, Any] | None = None,
    time_limit: float = 60.0,
    rings: bool = True,
    synthesised: bool = True,
) -> tuple[Program, SimParams]:
    """The program of a throughput run and the parameters it was built for.

    The given packing as it is, or the fastest of those built (and cached) for the topology, in
    the order of the module docstring; ``meta["tried"]`` lists every candidate simulated, its
    rule, chunk size and time, and ``meta["chunk_bytes"]`` the chunk kept.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"reducescatter", "allgather", "allreduce"}
    nbytes : int
    params : SimParams
    trees : TreePacking or list of TreeSet, optional
        Run these (all at once) instead of building any, at the preset's chunk size (rings,
        ``method="rings"``: one chunk a tree).
    cache : mutable mapping, optional
        Packings and free-share rates by topology (see
        :func:`~supermesh.sim.algorithms.run_algorithm`).
    time_limit : float
        CP-SAT seconds per part split, height proof and ring search.
    rings : bool
        Try the topology's rings first.
    synthesised : bool
        Where the trees do not stream, also try TE-CCL's and TACOS's schedules
        (:func:`~supermesh.sim.time_expanded.synthesised_choice`). With ``rings`` off too,
        only the trees of the smallest heights run.

    Returns
    -------
    Program, SimParams

    Raises
    ------
    SpecError
        A collective other than the three.
    ResourceError
        A grid whose one-tree-per-rank program would not fit in memory.
    TopologyError
        An AllReduce on a network with a one-way arc.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> G, paper = build("smalter:8x8"), get_preset("paper")
    >>> prog, q = throughput_program(G, "allgather", 512 << 20, paper)
    >>> prog.meta["tried"][0]["rule"]
    'rings: 4 arc-disjoint Hamiltonian cycles, one tree per cycle and rank'
    >>> prog, q = throughput_program(build("smbi:5x5"), "allgather", 512 << 20, paper)
    >>> prog.meta["tried"][0]["rule"]  # 13 + 12 chiplets: no Hamiltonian cycle
    'throughput, parts auto'
    """
    from supermesh.sim.chunk_choice import tuned_program
    from supermesh.sim.link_costs import serial_capacity_network
    from supermesh.sim.packing import check_packing_memory, packing_program
    from supermesh.sim.packing_choice import (
        faster,
        fastest_try,
        free_share_choice,
        held_rate_packings,
        other_packings,
    )
    from supermesh.sim.time_expanded import SYNTHESISED_UP_TO, synthesised_choice
    from supermesh.topologies.model import compute_nodes
    from supermesh.trees.schedule.collective import (
        natural_direction,
        one_way_arc,
        throughput_packing,
    )

    check_throughput_collective(collective)
    arc = one_way_arc(G) if collective == "allreduce" else None
    if arc is not None:
        raise TopologyError(
            f"a throughput AllReduce runs its ReduceScatter on its AllGather trees reversed, "
            f"but arc {arc[0]}->{arc[1]} (key {arc[2]}) has no reverse",
            hint="use --algorithm pipeline (its reduce phases run on in-trees of their own), "
            "or run reducescatter and allgather separately",
        )
    if isinstance(trees, TreePacking):
        if trees.method == "rings":  # one chunk a tree, as the rings' own run
            from supermesh.sim.chunk_choice import ring_program

            return ring_program(G, trees, collective, nbytes, params)
        return packing_program(G, trees, collective, nbytes, params, barrier=False), params
    if trees is not None:
        flat = [t for s in trees for t in s.trees]
        program = packing_program(G, flat, collective, nbytes, params, barrier=False)
        return program, params
    cache = {} if cache is None else cache
    # at least one tree per rank, each reaching every other: refuse before building them
    # (a 64x64 packing takes seconds to construct, its run hundreds of GiB)
    ranks = len(compute_nodes(G))
    check_packing_memory(collective, ranks, ranks * (ranks - 1))
    direction = natural_direction(collective)
    spec = G.graph.get("spec", id(G))
    # held long wires carry b / l (booksim): the bound is on those rates, and so are the trees
    net = serial_capacity_network(G, params)
    memos = {d: cache.setdefault(("throughput", spec, d), {}) for d in ("out", "in")}
    free_memo = cache.setdefault(("free-share", spec), {})
    ring = None
    if rings:
        ring_memo = cache.setdefault(("rings", spec), {})
        ring = _ring_run(G, collective, nbytes, params, ring_memo, free_memo, time_limit)
        if ring is not None and ring[1]:
            return ring[0]  # at the bound but for the hop latency of each transfer: no search
    # what a packing must beat for an AllReduce's justified tries to be worth their seconds
    rings_time = fastest_try(ring[0][0]) if ring is not None else math.inf
    first = None
    if collective == "allreduce":
        # the undirected trees first: they meet the AllReduce bound, and their time lets the
        # others skip what cannot beat it (SMBi 8x8, 64 MiB: the ramps of two packings that
        # lose, 40 s)
        held_memo = free_memo if net is G else cache.setdefault(("free-share", spec, "held"), {})
        packed = undirected_choice(net, held_memo, time_limit)
        if packed is not None:
            first = tuned_program(G, [packed.packing], collective, nbytes, params, beat=rings_time)
    # the fewest equal parts that reach the bound; the chunk size is searched
    packing = throughput_packing(G, direction, time_limit=time_limit, memo=memos[direction])
    outside = rings_time if first is None else min(rings_time, fastest_try(first[0]))
    best = tuned_program(G, [packing], collective, nbytes, params, beat=outside)
    if net is not G:  # and those of the held rates (mostly faster, Kite-medium 1 MiB not)
        memo = cache.setdefault(("throughput", spec, "held"), {})
        held = held_rate_packings(G, net, direction, memo, time_limit)
        beat = min(outside, fastest_try(best[0]))
        best = faster(best, tuned_program(G, held, collective, nbytes, params, beat=beat))
    others = other_packings(G, packing, best[0], collective, params, memos, time_limit)
    if others:
        with contextlib.suppress(ResourceError):  # more trees than memory: not a try
            beat = min(outside, fastest_try(best[0]))
            best = faster(best, tuned_program(G, others, collective, nbytes, params, beat=beat))
    if collective == "allreduce":
        best = free_share_choice(G, nbytes, params, best, free_memo, time_limit, beat=outside)
        if first is not None:
            best = faster(best, first)
    if ring is not None:
        best = faster(best, ring[0])
    if synthesised and ranks <= SYNTHESISED_UP_TO:  # the bound costs max-flows on large grids
        # they run an AllReduce's two phases in turn: once the run beats that, none can win
        bound = _bound_time(G, collective, nbytes, params, free_memo, turns=True)
        best = synthesised_choice(
            G, collective, nbytes, params, best, bound, cache=cache, time_limit=time_limit
        )
    return best


def _bound_time(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    free_memo: MutableMapping[Any, Any],
    *,
    turns: bool = False,
) -> float:
    """The run's bound in the preset's time unit; ``turns``: for an AllReduce, the bound of
    ReduceScatter then AllGather, which the synthesisers' programs (the two in turn) are held
    to."""
    found = throughput_bound_for(G, collective, free_memo)
    rate = found.value
    if turns and collective == "allreduce":
        rate = float(Fraction(found.certificate["reducescatter_allgather"]["algbw_links"]))
    return nbytes / (rate * params.link_bandwidth())


def _ring_run(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    memo: MutableMapping[Any, Any],
    free_memo: MutableMapping[Any, Any],
    time_limit: float,
) -> tuple[tuple[Program, SimParams], bool] | None:
    """The ring packing's run (:func:`~supermesh.trees.throughput.rings.ring_packing`) where
    the topology has one, and whether it ends the search (:data:`RING_EXCESS`)."""
    from supermesh.sim.chunk_choice import ring_program
    from supermesh.sim.packing_choice import STREAMING, fastest_try
    from supermesh.trees.schedule.collective import natural_direction
    from supermesh.trees.throughput.rings import ring_packing

    rings = ring_packing(G, natural_direction(collective), time_limit=time_limit, memo=memo)
    if rings is None:
        return None
    run = ring_program(G, rings, collective, nbytes, params)
    bound = _bound_time(G, collective, nbytes, params, free_memo)
    phases = 2 if collective == "allreduce" else 1
    per_link = len(rings.trees[0].arcs)  # n - 1: every link sends one share of each tree but one
    floor = bound + phases * per_link * (params.hop_latency + params.link_release)
    took = fastest_try(run[0])
    return run, took <= STREAMING * bound and took - floor <= RING_EXCESS * bound
