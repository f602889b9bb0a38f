"""The cut bound on a collective's throughput (BRIEF section 5), with the cut that proves it.

Let source ``i`` hold ``d_i`` bytes that every rank must receive (AllGather: every rank holds
``M/n``; broadcast: the root holds ``M``). A node set ``S`` that contains a rank needs every byte of
the sources outside ``S`` to cross into it, through links of total bandwidth ``B_in(S)``, so::

    T >= max_S  sum_{i not in S} d_i / B_in(S)
    M / T <= min_S  M B_in(S) / sum_{i not in S} d_i

For AllGather this is ``min_S n B_in(S) / |R \\ S|`` (Zhao et al., ForestColl, 2024, who show
fractional tree packings reach it): 32/15 links on a 4x4 mesh (a corner: 2 links in, 15 shards to
get), 64/15 with the perimeter doubled, 256/63 on an 8x8 SuperMeshBi. The minimum over all sets
is found exactly with max-flows: add a source ``s`` with an arc ``s -> i`` of capacity ``y d_i``;
every set ``S`` satisfies the inequality at rate ``y`` iff the max-flow from ``s`` to every rank is
at least ``y M``. Starting from the best single-node cut, each violated rank's minimum cut gives
a set with a smaller ratio (Dinkelbach's iteration); when no rank is violated the current ratio
is the minimum and its set is the certificate.

ReduceScatter and reduce are the same problem on the reversed network. AllReduce is different: a
set ``S`` that holds a rank but misses another must learn the sum of the inputs outside it, ``M``
bytes whatever the algorithm (partial sums can be combined, but not below ``M``), so
``T >= M / min_S B_in(S)``: the minimum cut between two ranks. A partition into ``k`` parts needs
``2 (k - 1)`` transfers an element between its parts (:mod:`~supermesh.trees.bounds.allreduce`):
every node its own part, ``T >= 2 (n - 1) M / B`` over all arcs, which on a mesh is the sharper
one (4x4: 8/5 links against the corner's 2). :func:`allreduce_bound` takes the smaller. (Adding
the ReduceScatter and AllGather bounds would not be a valid AllReduce bound: TTO reduces into 3
roots only and beats it, and a reduce and a broadcast that overlap beat it too.)

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
.. [2] W. Dinkelbach, "On nonlinear fractional programming", Management Science 13(7), 1967.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from supermesh.errors import TopologyError
from supermesh.topologies.connectivity import min_rank_cut
from supermesh.topologies.flow import flow_network
from supermesh.topologies.model import compute_nodes

__all__ = [
    "ThroughputBound",
    "allreduce_bound",
    "collective_bound",
    "cut_bound",
    "rank_connectivity",
]

_EPS = 1e-9


@dataclass(frozen=True)
class ThroughputBound:
    """Best possible algorithm bandwidth, in units of one link's bandwidth.

    Attributes
    ----------
    value : float
        ``M / T`` at best, counting a link of ``bandwidth`` 1.0 as 1 (multiply by the bytes per
        time unit of a link to get bytes per time unit).
    certificate : dict
        The node set whose cut attains the bound: ``{"set": [...], "entering_bandwidth": b,
        "bytes_outside": fraction}`` (for AllReduce, one certificate per phase).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = cut_bound(build("mesh:4x4"))
    >>> round(b.value * 15, 9), b.certificate["set"]
    (32.0, [0])
    """

    value: float
    certificate: dict = field(default_factory=dict)


def cut_bound(
    G: nx.MultiDiGraph,
    sources: Mapping[int, float] | None = None,
    *,
    ranks: Iterable[int] | None = None,
    reverse: bool = False,
) -> ThroughputBound:
    """Exact cut bound on the throughput of delivering the sources' data to every rank.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Topology; arc attribute ``bandwidth`` (default 1.0) is its capacity.
    sources : mapping node -> weight, optional
        Share of the data each source holds (normalised to sum to 1). Default: every rank holds an
        equal share (AllGather).
    ranks : iterable of int, optional
        Nodes that must receive everything (default: the compute chiplets).
    reverse : bool
        Use the reversed network (ReduceScatter, reduce).

    Returns
    -------
    ThroughputBound

    Raises
    ------
    TopologyError
        If some rank cannot be reached at all, or there is nothing to deliver.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> round(cut_bound(build("smbi:4x4")).value, 6)  # 64/15
    4.266667
    >>> cut_bound(build("smbi:4x4"), {0: 1.0}).value  # broadcast from a corner: 4 links out
    4.0
    """
    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    if sources is None:
        sources = dict.fromkeys(rank_list, 1.0)
    total = float(sum(sources.values()))
    if total <= 0 or len(rank_list) == 0:
        raise TopologyError("a cut bound needs data at some source and at least one rank")
    share = {int(k): float(v) / total for k, v in sources.items() if v > 0}
    net = flow_network(G, reverse=reverse)
    graph, cap, nodes, index = net.with_source(), net.bandwidth(), net.nodes, net.index
    s = len(nodes)
    src_ids = sorted(share)
    graph.add_edges([(s, index[i]) for i in src_ids])
    ends = np.array(graph.get_edgelist()[: len(cap)], dtype=np.int64).reshape(-1, 2)
    cap_arr = np.asarray(cap, dtype=np.float64)
    src_idx = np.array([index[i] for i in src_ids], dtype=np.int64)
    src_share = np.array([share[i] for i in src_ids], dtype=np.float64)

    def ratio(side: Iterable[int]) -> tuple[float, float, float]:
        inside = np.zeros(len(nodes) + 1, dtype=bool)
        inside[list(side)] = True
        entering = float(cap_arr[inside[ends[:, 1]] & ~inside[ends[:, 0]]].sum())
        outside = float(src_share[~inside[src_idx]].sum())
        return (entering / outside if outside > _EPS else float("inf")), entering, outside

    # start from the best single-rank cut
    best_set: list[int] = []
    best = float("inf")
    for r in rank_list:
        value, _, _ = ratio([index[r]])
        if value < best:
            best, best_set = value, [index[r]]
    if best == float("inf"):
        # every rank is a source of everything: nothing needs to move
        return ThroughputBound(float("inf"), {"set": [], "entering_bandwidth": 0.0})
    for _ in range(len(nodes) + 2):
        y = best
        capacity = cap + [y * share[i] for i in src_ids]
        improved = False
        for r in rank_list:
            t = index[r]
            if share.get(r, 0.0) >= 1 - _EPS:
                continue
            flow = graph.maxflow(s, t, capacity=capacity)
            if flow.value < y - _EPS * max(1.0, y):
                side = [v for v in flow.partition[1] if v != s]
                value, _, _ = ratio(side)
                if value < best - _EPS * max(1.0, best):
                    best, best_set = value, side
                    improved = True
                    break
        if not improved:
            break
    if best == 0:
        raise TopologyError(
            f"rank set {[nodes[i] for i in best_set]} cannot be reached from the data",
            hint="check that the topology is strongly connected",
        )
    _, entering, outside = ratio(best_set)
    return ThroughputBound(
        best,
        {
            "set": sorted(nodes[i] for i in best_set),
            "entering_bandwidth": entering,
            "bytes_outside": outside,
        },
    )


def collective_bound(
    G: nx.MultiDiGraph,
    collective: str,
    *,
    roots: Iterable[int] | None = None,
    ranks: Iterable[int] | None = None,
) -> ThroughputBound:
    """The cut bound of a collective (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall"}
        AllToAll: the concurrent-flow bound of
        :func:`~supermesh.sim.multicommodity.alltoall_bound`.
    roots : iterable of int, optional
        Sources of a broadcast / sinks of a reduce, with equal shares (default: the lowest rank).
    ranks : iterable of int, optional
        Default: the compute chiplets.

    Returns
    -------
    ThroughputBound
        For AllReduce :func:`allreduce_bound`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> collective_bound(build("mesh:4x4"), "allreduce").value  # 48 arcs, 2 x 15 transfers
    1.6
    """
    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    if collective in ("broadcast", "reduce"):
        root_list = sorted({int(r) for r in roots}) if roots is not None else rank_list[:1]
        return cut_bound(
            G, dict.fromkeys(root_list, 1.0), ranks=rank_list, reverse=collective == "reduce"
        )
    if collective == "allgather":
        return cut_bound(G, ranks=rank_list)
    if collective == "reducescatter":
        return cut_bound(G, ranks=rank_list, reverse=True)
    if collective == "alltoall":
        from supermesh.sim.multicommodity import alltoall_bound

        return alltoall_bound(G, rank_list)
    return allreduce_bound(G, rank_list)


def allreduce_bound(
    G: nx.MultiDiGraph,
    ranks: Iterable[int] | None = None,
    parts: Sequence[Sequence[int]] | None = None,
) -> ThroughputBound:
    """The AllReduce bound: the smaller of :func:`rank_connectivity` and the partition bounds
    (:func:`~supermesh.trees.bounds.allreduce.partition_bound`) of every node its own part and
    of ``parts``.

    It holds for any AllReduce, with or without a barrier between its reduce and broadcast.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ranks : iterable of int, optional
        Default: the compute chiplets.
    parts : sequence of sequences of int, optional
        Another partition of the nodes, each part holding a rank (an undirected tree packing's,
        :func:`~supermesh.trees.throughput.undirected.undirected_packing`).

    Returns
    -------
    ThroughputBound
        ``certificate["kind"]`` is ``"cut"`` (with the rank connectivity's ``set``) or
        ``"partition"`` (``parts``: how many, ``crossing_bandwidth``, ``transfers``: ``2 (k - 1)``
        an element, and ``sets`` when the parts are not all single nodes).

    Raises
    ------
    SpecError
        ``parts`` is not such a partition.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = allreduce_bound(build("smbi:4x4"))  # 72 arcs: 72 / 30 below the cut's 4
    >>> b.value, b.certificate["kind"], b.certificate["transfers"]
    (2.4, 'partition', 30)
    """
    from fractions import Fraction

    from supermesh.trees.bounds.allreduce import partition_bound, volume_bound

    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    cut = rank_connectivity(G, rank_list)
    if len(rank_list) < 2:
        return cut
    best: tuple[Fraction, list[list[int]] | None] = (volume_bound(G, rank_list), None)
    if parts is not None:
        mine = partition_bound(G, parts, rank_list)
        if mine < best[0]:
            best = (mine, [sorted(int(v) for v in p) for p in parts])
    value, sets = best
    if cut.value <= float(value) * (1 + _EPS):
        return ThroughputBound(cut.value, {"kind": "cut", **cut.certificate})
    k = len(sets) if sets is not None else len(rank_list)
    certificate: dict = {
        "kind": "partition",
        "parts": k,
        "crossing_bandwidth": float(value * 2 * (k - 1)),
        "transfers": 2 * (k - 1),
        "algbw_exact": str(value),
    }
    if sets is not None and any(len(p) > 1 for p in sets):
        certificate["sets"] = sets
    return ThroughputBound(float(value), certificate)


def rank_connectivity(G: nx.MultiDiGraph, ranks: Iterable[int] | None = None) -> ThroughputBound:
    """Minimum total bandwidth of a cut separating two ranks (the AllReduce bound).

    Every cut separating two ranks separates the lowest rank ``r`` from some rank ``v`` in one
    direction or the other, so ``min_v min(maxflow(r, v), maxflow(v, r))`` is the minimum.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ranks : iterable of int, optional
        Default: the compute chiplets.

    Returns
    -------
    ThroughputBound
        ``value`` in link units; ``certificate["set"]`` is the side that the cut enters.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> rank_connectivity(build("smbi:4x4")).value
    4.0
    """
    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    if len(rank_list) < 2:
        return ThroughputBound(float("inf"), {"set": [], "entering_bandwidth": 0.0})
    bandwidths = {float(b) for _, _, b in G.edges(data="bandwidth", default=1.0)}
    if len(bandwidths) == 1:
        return _uniform_rank_connectivity(G, rank_list, bandwidths.pop())
    net = flow_network(G)
    graph, cap, nodes, index = net.graph, net.bandwidth(), net.nodes, net.index
    r = index[rank_list[0]]
    best = float("inf")
    best_set: list[int] = []
    for v in rank_list[1:]:
        t = index[v]
        for a, b in ((r, t), (t, r)):
            flow = graph.maxflow(a, b, capacity=cap)
            if flow.value < best:
                best = flow.value
                best_set = [x for x in flow.partition[1] if x < len(nodes)]
    return ThroughputBound(
        best, {"set": sorted(nodes[i] for i in best_set), "entering_bandwidth": best}
    )


def _uniform_rank_connectivity(
    G: nx.MultiDiGraph, ranks: list[int], bandwidth: float
) -> ThroughputBound:
    """:func:`rank_connectivity` when every arc has the same bandwidth: arcs counted by path search.

    The minimum cut is then ``bandwidth`` times the arc connectivity over the ranks
    (:func:`~supermesh.topologies.connectivity.min_rank_cut`), without a max-flow per rank.
    """
    count, side = min_rank_cut(G, ranks)
    total = count * bandwidth
    return ThroughputBound(total, {"set": side, "entering_bandwidth": total})
