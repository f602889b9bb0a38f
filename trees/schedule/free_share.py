"""AllReduce with free root shares: equal-part packings at the free-root rate.

ReduceScatter then AllGather gives every chiplet an equal part of the vector; an AllReduce need
not. :func:`~supermesh.trees.throughput.free_roots.free_root_packing` finds the best free split,
rate ``R = k / K`` links per phase (``8/3`` on any mesh, where equal parts reach at most
``2n / (n - 1)``; ``4`` on odd SMAlter, whose corner trees use every arc). Its LP trees carry
shares of every size and simulate badly (1.1-1.3x the bound: a tree of a tiny share holds up the
FIFOs it crosses), so :func:`free_share_packing` turns the rate into equal parts instead:
``m k`` trees of one share each, arc-disjoint on the network with every arc copied ``m K``
times. Frank's theorem (free roots, integral) says they exist; the root vector is Frank's minimal
one (:func:`~supermesh.trees.bounds.frank.decide_free`) and the trees come from
:func:`~supermesh.trees.packing.search.pack_trees` (the tallest tree minimised), each copy then
mapped back to its link. Every arc carries at most ``m K`` trees of ``M / (m k)`` bytes, so each
phase takes ``M / R``.

Which multiple ``m`` streams best depends on the link FIFOs (measured, booksim, 512 MiB, per
phase against ``M / R``: mesh 5x5 1.256 at ``m = 1``, 1.006 at ``m = 4``; SMAlter 5x5 1.006 at
``m = 1``, 2.3 at ``m = 4``), so the simulator tries ``m = 1, 2, 4`` in turn, until one runs
within 0.2% of the bound or slower than the one before
(:func:`supermesh.sim.algorithms.run_algorithm`, ``-a throughput``), next to ReduceScatter +
AllGather, and keeps the fastest.

References
----------
.. [1] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.topologies.connectivity import arc_net
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds import decide_free, throughput_bound
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing import pack_trees
from supermesh.trees.schedule.collective import reversible
from supermesh.trees.throughput import FreeRoots, free_root_packing

__all__ = [
    "FREE_SHARE_MULTIPLES",
    "FREE_SHARE_RANKS",
    "FREE_SHARE_TREES",
    "free_share_packing",
    "free_share_rate",
    "whole_tree_packing",
]

FREE_SHARE_RANKS = 64
"""Largest grid (ranks) on which a throughput AllReduce also tries free shares (LP, CP-SAT and
one simulation per multiple: 3-10 s on 5x5; on mesh 8x8 the LP takes 0.7 s over the grid's
symmetry, the packings 1 s, and the simulations 15-40 s, for a run 1.29x faster at 512 MiB)."""

FREE_SHARE_TREES = 32
"""Most trees of one free-share packing (``m k``): SMBi 4x4's 32 pack in 4 s."""

FREE_SHARE_MULTIPLES = (1, 2, 4)
"""The multiples ``m`` a throughput AllReduce tries, in order."""


def free_share_rate(
    G: nx.MultiDiGraph, memo: MutableMapping[Any, Any] | None = None, *, time_limit: float = 60.0
) -> FreeRoots | None:
    """The free-root packing of ``G`` if a free split can beat equal parts, else None.

    None when ``G`` has router nodes, more than :data:`FREE_SHARE_RANKS` ranks, an arc without
    its reverse (the reduce runs the same trees backwards), or when the free rate does not
    exceed the equal-part rate ``rho`` (SMAlter 4x4: both ``64/15``).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    memo : mutable mapping, optional
        Filled with the answer (``"rate"``) and, where ``G`` is eligible, ``rho`` (``"rho"``,
        exact), which :func:`whole_tree_packing` reads.
    time_limit : float
        Seconds of the free-root LP.

    Returns
    -------
    FreeRoots or None

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> round(free_share_rate(build("mesh:4x4")).upper * 3, 6)
    8.0
    >>> free_share_rate(build("smalter:4x4")) is None  # equal parts are already the best split
    True
    """
    memo = {} if memo is None else memo
    if "rate" in memo:
        return memo["rate"]
    ranks = compute_nodes(G)
    answer = None
    if len(ranks) == G.number_of_nodes() and len(ranks) <= FREE_SHARE_RANKS and reversible(G):
        found = free_root_packing(G, time_limit=time_limit)
        memo["rho"] = throughput_bound(G, "allgather").value  # the equal-part rate, eligible
        if found.rate > float(memo["rho"]) * (1 + 1e-6):
            answer = found
    memo["rate"] = answer
    return answer


def free_share_packing(
    G: nx.MultiDiGraph,
    multiple: int = 1,
    memo: MutableMapping[Any, Any] | None = None,
    *,
    time_limit: float = 10.0,
) -> TreePacking | None:
    """The equal-part free-root packing of ``multiple`` ``m`` at the free rate (module doc).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    multiple : int
        ``m``: ``m k`` trees on ``G`` with every arc copied ``m K`` times.
    memo : mutable mapping, optional
        Filled with the rate and each packing (one topology per memo).
    time_limit : float
        Seconds for the LP and for CP-SAT.

    Returns
    -------
    TreePacking or None
        Method ``free-roots``, out-trees, ``Tree.share`` the fraction of the whole vector;
        ``stats``: ``algbw_links`` (``R``, exact) and ``rule`` (``free-roots xm``). None when
        :func:`free_share_rate` is None, when ``m k`` exceeds :data:`FREE_SHARE_TREES`, or when
        CP-SAT finds no packing in time.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = free_share_packing(build("mesh:4x4"))
    >>> sorted(t.root for t in p.trees), {t.share for t in p.trees}, p.objective
    ([0, 0, 3, 3, 12, 12, 15, 15], {0.125}, 6)
    """
    memo = {} if memo is None else memo
    key = ("packing", multiple)
    if key not in memo:
        found = free_share_rate(G, memo, time_limit=time_limit)
        memo[key] = None
        if found is not None:
            rate = Fraction(found.rate).limit_denominator(1000)
            if multiple * rate.numerator <= FREE_SHARE_TREES:
                memo[key] = _equal_parts(G, rate, multiple, time_limit)
    return memo[key]


def whole_tree_packing(
    G: nx.MultiDiGraph, memo: MutableMapping[Any, Any] | None = None, *, time_limit: float = 10.0
) -> TreePacking | None:
    """``floor(rho)`` arc-disjoint spanning trees with free roots, each a ``1 / k`` share.

    Where a free split gains no rate (:func:`free_share_rate` is None: equal parts are already
    the best split, as on even SMAlter), a few whole trees at a rate just below it can still run
    faster than the ``rho`` packing's many: fewer trees on each link to interleave. Measured,
    SMAlter 8x8 AllReduce, 4 trees at rate 4 against ``rho = 256/63``: 512 MiB paper preset
    11,080,856 -> 10,893,299 ns, booksim 64 MiB 2,908,580 -> 2,848,378 cycles. The roots are
    Frank's minimal root vector (:func:`~supermesh.trees.bounds.frank.decide_free`), the trees
    from :func:`~supermesh.trees.packing.search.pack_trees`.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    memo : mutable mapping, optional
        The free-share memo of ``G`` (:func:`free_share_rate` is read from it).
    time_limit : float
        Seconds for CP-SAT.

    Returns
    -------
    TreePacking or None
        Method ``free-roots``, out-trees, rule ``whole trees``; None where a free split gains
        rate, where ``G`` is not eligible (router nodes, more than :data:`FREE_SHARE_RANKS`
        ranks, an arc without its reverse), or where CP-SAT finds no packing in time.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = whole_tree_packing(build("smalter:4x4"))  # rho = 64/15: 4 whole trees
    >>> len(p.trees), {t.share for t in p.trees}
    (4, {0.25})
    >>> whole_tree_packing(build("mesh:4x4")) is None  # free shares gain rate there
    True
    """
    memo = {} if memo is None else memo
    if "whole" not in memo:
        memo["whole"] = None
        # free_share_rate leaves the equal-part rate only where G is eligible
        if free_share_rate(G, memo) is None and "rho" in memo:
            k = int(memo["rho"])
            if k >= 1:
                p = _equal_parts(G, Fraction(k), 1, time_limit)
                if p is not None:
                    p.stats["rule"] = "whole trees"
                memo["whole"] = p
    return memo["whole"]


def _equal_parts(G: nx.MultiDiGraph, rate: Fraction, m: int, limit: float) -> TreePacking | None:
    """``m k`` trees on ``G`` with every arc copied ``m K`` times, mapped back; None if Frank's
    condition fails (the rate was rounded above the LP's)."""
    copies, k = m * rate.denominator, m * rate.numerator
    H = nx.MultiDiGraph()
    H.graph.update(G.graph)
    H.add_nodes_from(G.nodes(data=True))
    for u, v, key, data in G.edges(keys=True, data=True):
        for j in range(copies):
            H.add_edge(u, v, key=key * copies + j, **data)
    net = arc_net(H)
    vector, _ = decide_free(net, k)
    if vector is None:
        return None
    roots = [net.nodes[i] for i, c in enumerate(vector) for _ in range(c)]
    try:
        packed = pack_trees(H, roots, time_limit=limit, balance=False)
    except SupermeshError:  # no packing within the time: the multiple is skipped
        return None
    if not packed.trees:
        return None
    trees = tuple(
        Tree(t.root, tuple((u, v, key // copies) for u, v, key in t.arcs), t.height, 1 / k)
        for t in packed.trees
    )
    return TreePacking(
        topology=str(G.graph.get("spec", "G")),
        direction="out",
        status=packed.status,
        sets=(TreeSet(trees),),
        lower_bound=packed.lower_bound,
        objective=packed.objective,
        method="free-roots",
        stats={"algbw_links": str(rate), "rule": f"free-roots x{m}", "parts": k},
    )
