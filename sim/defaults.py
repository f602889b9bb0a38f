"""The algorithm names, and the one a simulation runs when none is named.

What each name runs is :mod:`supermesh.sim.algorithms`. Without ``--algorithm``
(:func:`default_algorithm`): ``throughput`` for a weighted packing (:func:`is_weighted`) and for
ReduceScatter / AllGather on mesh, SMBi and SMAlter; ``direct`` for AllToAll; ``tacos`` where
the tree engine's trees are measured slower (:func:`prefers_tacos`: router nodes or links of
unequal cost, and one-way ReduceScatter / AllGather); ``pipeline`` otherwise.
"""

from __future__ import annotations

import networkx as nx

from supermesh.sim.baselines.dispatch import BASELINES
from supermesh.sim.collectives import check_collective
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
    "prefers_tacos",
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
      their own, :func:`~supermesh.sim.tree_sets.phase_trees_for`).

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
