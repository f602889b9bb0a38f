"""The exact optimal ReduceScatter / AllGather throughput of a topology, with its bottleneck cut.

AllGather: each of the ``n`` ranks holds ``M / n`` bytes that every rank must receive. A node set
``S`` that holds a rank (relays allowed anywhere) must receive the data of the ranks outside it,
``|R \\ S| M / n`` bytes, through the links entering it, of total bandwidth ``B_in(S)``. Hence
the time is at least ``|R \\ S| M / (n B_in(S))`` and the algorithm bandwidth ``M / T`` is at
most::

    rho* = min over S (S holds a rank, misses a rank) of  n B_in(S) / |R \\ S|

Zhao et al. (ForestColl, 2024, Theorem 1) state this in the complementary form
``T* = (M / n) max_S |S ∩ R| / B_out(S)`` over the sets that miss a rank, and prove that
fractional packings of spanning out-trees reach it. ReduceScatter is the same problem on the
reversed network (``B_out`` instead of ``B_in``). AllReduce run as ReduceScatter then AllGather
takes the two times in turn: ``1 / rho = 1 / rho_RS + 1 / rho_AG``.

The minimum is computed exactly, in rational arithmetic, by Dinkelbach's iteration on max-flows:
with a super source ``s`` and an arc ``s -> i`` of capacity ``y`` to every rank, every set
``S`` satisfies ``B_in(S) >= y |R \\ S|`` iff the max-flow from ``s`` to every rank ``t`` is at
least ``n y``; a rank that falls short has a minimum cut whose sink side is a set of smaller
ratio. The iteration starts from the best single rank and works with integer capacities, so the
value returned is a :class:`fractions.Fraction` and its cut is the certificate.

Cost: a round runs one max-flow per rank, but only one per orbit of the topology's grid
automorphisms (:mod:`supermesh.topologies.symmetry`), since an automorphism that keeps the ranks
maps the network with its super source onto itself: 8x fewer on a square SMBi or mesh, so
``smbi:64x64`` takes a few seconds (``python3 bench/bench_limit.py``).

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
.. [2] W. Dinkelbach, "On nonlinear fractional programming", Management Science 13(7), 1967.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.flow import flow_network
from supermesh.topologies.model import compute_nodes
from supermesh.topologies.symmetry import grid_automorphisms

__all__ = ["COLLECTIVES", "RateBound", "exact_fraction", "throughput_bound"]

COLLECTIVES = ("allgather", "reducescatter", "allreduce")


def exact_fraction(value: float | int | Fraction) -> Fraction:
    """A bandwidth as an exact fraction, read as written (``0.1`` is 1/10, not its binary float).

    Examples
    --------
    >>> exact_fraction(1.0), exact_fraction(0.1), exact_fraction(Fraction(2, 3))
    (Fraction(1, 1), Fraction(1, 10), Fraction(2, 3))
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if not math.isfinite(float(value)) or float(value) < 0:
        raise TopologyError(f"arc bandwidth {value!r} is not a finite non-negative number")
    return Fraction(repr(float(value)))


@dataclass(frozen=True)
class RateBound:
    """The best possible algorithm bandwidth of a collective, with the cut that proves it.

    Attributes
    ----------
    collective : {"allgather", "reducescatter", "allreduce"}
    value : Fraction
        ``M / T`` at best, counting a link of ``bandwidth`` 1.0 as 1 ("links").
    certificate : dict
        ``set`` (the bottleneck node set ``S``), ``direction`` (``"entering"`` for AllGather,
        ``"leaving"`` for ReduceScatter), ``bandwidth`` (``B(S)``, exact, as a string),
        ``arcs`` (how many arcs cross), ``ranks`` (``n``), ``ranks_outside`` (``|R \\ S|``):
        ``value = n B(S) / |R \\ S|``. For AllReduce: ``phases``, the two certificates.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = throughput_bound(build("mesh:4x4"))
    >>> b.value, b.certificate["set"], b.certificate["arcs"]
    (Fraction(32, 15), [0], 2)
    """

    collective: str
    value: Fraction
    certificate: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``collective``, ``algbw_links`` (``fraction`` and ``float``) and ``certificate``."""
        return {
            "collective": self.collective,
            "algbw_links": {"fraction": str(self.value), "float": float(self.value)},
            "certificate": self.certificate,
        }


EXACT_FLOAT_SCALE = 2**50
"""Largest common scale of the capacities for which the cut checks run igraph's float max-flow
(every scaled capacity an integer a double holds exactly); above, they run in fractions."""


class _CutGraph:
    """Integer-capacity flow network with a super source, for exact cut checks."""

    def __init__(self, G: nx.MultiDiGraph, ranks: list[int], reverse: bool) -> None:
        net = flow_network(G, reverse=reverse)
        self.representatives = _orbit_representatives(G, ranks)
        self.nodes = net.nodes
        self.index = net.index
        self.pairs = net.pairs
        exact: dict[tuple[float, ...], Fraction] = {}  # a few distinct bandwidth tuples
        for bws in net.bandwidths:
            if bws not in exact:
                exact[bws] = sum((exact_fraction(b) for b in bws), Fraction(0))
        self.cap = [exact[bws] for bws in net.bandwidths]
        self.count = net.capacity
        self.ranks = [self.index[r] for r in ranks]
        self.source = len(self.nodes)
        self.graph = net.with_source()
        self.graph.add_edges([(self.source, r) for r in self.ranks])

    def crossing(self, side: Iterable[int]) -> tuple[Fraction, int]:
        """Bandwidth and number of arcs entering ``side`` (working orientation)."""
        inside = set(side)
        bw, arcs = Fraction(0), 0
        for (a, b), c, k in zip(self.pairs, self.cap, self.count, strict=True):
            if b in inside and a not in inside:
                bw += c
                arcs += k
        return bw, arcs

    def ratio(self, side: Iterable[int]) -> Fraction | None:
        """``n B_in(S) / |R \\ S|``, or None when every rank is inside."""
        inside = set(side)
        outside = sum(1 for r in self.ranks if r not in inside)
        if outside == 0:
            return None
        return len(self.ranks) * self.crossing(inside)[0] / outside

    def violated(self, rho: Fraction) -> list[int] | None:
        """A set with ratio below ``rho`` (sink side of a min cut), or None if there is none."""
        n = len(self.ranks)
        y = rho / n  # per-rank rate
        scale = math.lcm(y.denominator, *{c.denominator for c in self.cap})
        if scale > EXACT_FLOAT_SCALE:
            return self._violated_exact(y)
        scaled = {c: float(c * scale) for c in set(self.cap)}
        caps = [scaled[c] for c in self.cap] + [float(y * scale)] * n
        need = float(y * n * scale)
        # capacities set once; the value alone is enough until a rank falls short (the cut is
        # computed only then), which keeps the per-rank cost to igraph's push-relabel
        self.graph.es["capacity"] = caps
        for t in self.representatives:
            target = self.index[t]
            if self.graph.maxflow_value(self.source, target, capacity="capacity") < need - 0.5:
                flow = self.graph.maxflow(self.source, target, capacity="capacity")
                return [v for v in flow.partition[1] if v != self.source]
        return None

    def _violated_exact(self, y: Fraction) -> list[int] | None:
        """:meth:`violated` in exact arithmetic, for capacities whose common scale a float
        cannot hold (irrational link costs such as ``1 / sqrt(2)``, as fractions)."""
        D = nx.DiGraph()
        for (a, b), c in zip(self.pairs, self.cap, strict=True):
            if a != b:
                old = D.get_edge_data(a, b, {"capacity": Fraction(0)})["capacity"]
                D.add_edge(a, b, capacity=old + c)
        for r in self.ranks:
            D.add_edge(self.source, r, capacity=y)
        need = y * len(self.ranks)
        for t in self.representatives:
            value, (_, sink_side) = nx.minimum_cut(D, self.source, self.index[t])
            if value < need:
                return [v for v in sink_side if v != self.source]
        return None


def _orbit_representatives(G: nx.MultiDiGraph, ranks: list[int]) -> list[int]:
    """One rank per orbit of the grid automorphisms that keep the rank set.

    The flow network with its super source is mapped onto itself by such an automorphism (the
    source is joined to every rank alike), so every rank of an orbit has the same max-flow from
    the source: one max-flow per orbit decides the whole orbit (up to 8x fewer on a square grid).
    """
    rank_set = set(ranks)
    maps = [g for g in grid_automorphisms(G) if all(g[r] in rank_set for r in ranks)]
    seen: set[int] = set()
    representatives = []
    for r in ranks:
        if r not in seen:
            representatives.append(r)
            seen.update(g[r] for g in maps)
    return representatives


def _exact_cut(G: nx.MultiDiGraph, ranks: list[int], reverse: bool) -> tuple[Fraction, dict]:
    if len(ranks) < 2:
        raise TopologyError(
            "a ReduceScatter / AllGather bound needs at least two ranks",
            hint="the topology has fewer than two compute chiplets",
        )
    net = _CutGraph(G, ranks, reverse)
    # start from the best single rank (a set holding one rank); each round below then jumps to
    # the sink side of a violated min cut, so a handful of rounds suffice
    into: dict[int, Fraction] = {}
    for (a, b), c in zip(net.pairs, net.cap, strict=True):
        if a != b:
            into[b] = into.get(b, Fraction(0)) + c
    first = min(net.ranks, key=lambda r: (into.get(r, Fraction(0)), r))
    side = [first]
    rho = len(net.ranks) * into.get(first, Fraction(0)) / (len(net.ranks) - 1)
    while True:  # each round strictly lowers rho over finitely many sets
        smaller = net.violated(rho)
        if smaller is None:
            break
        value = net.ratio(smaller)
        if value is None or value >= rho:  # impossible with exact capacities
            raise TopologyError("the exact cut iteration did not improve (internal error)")
        side, rho = smaller, value
    if rho == 0:
        raise TopologyError(
            f"ranks {sorted(net.nodes[i] for i in side if i in set(net.ranks))} cannot be "
            "reached from the other ranks",
            hint="check that the topology is strongly connected",
        )
    bw, arcs = net.crossing(side)
    inside = set(side)
    cert = {
        "set": sorted(net.nodes[i] for i in side),
        "direction": "leaving" if reverse else "entering",
        "bandwidth": str(bw),
        "arcs": arcs,
        "ranks": len(net.ranks),
        "ranks_outside": sum(1 for r in net.ranks if r not in inside),
    }
    return rho, cert


def throughput_bound(
    G: nx.MultiDiGraph,
    collective: str = "allgather",
    *,
    ranks: Iterable[int] | None = None,
) -> RateBound:
    """Exact optimal algorithm bandwidth of AllGather, ReduceScatter or AllReduce (RS + AG).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Topology; arc attribute ``bandwidth`` (default 1.0) is the capacity.
    collective : {"allgather", "reducescatter", "allreduce"}
        AllReduce means ReduceScatter followed by AllGather (``1/rho = 1/rho_RS + 1/rho_AG``).
    ranks : iterable of int, optional
        Nodes that hold and receive data (default: the compute chiplets); others may relay.

    Returns
    -------
    RateBound
        The value as a Fraction and the bottleneck cut (see :class:`RateBound`).

    Raises
    ------
    SpecError
        Unknown collective.
    TopologyError
        Fewer than two ranks, or ranks that cannot reach each other.

    References
    ----------
    .. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on
       Heterogeneous Network Fabrics", arXiv:2402.06787, 2024.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> throughput_bound(build("smbi:4x4")).value
    Fraction(64, 15)
    >>> throughput_bound(build("smbi:4x4"), "allreduce").value
    Fraction(32, 15)
    """
    key = str(collective).strip().lower().replace("-", "").replace("_", "")
    if key not in COLLECTIVES:
        raise SpecError(
            f"unknown collective {collective!r} for a throughput bound",
            hint=f"use one of: {', '.join(COLLECTIVES)}",
        )
    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    if key == "allgather":
        value, cert = _exact_cut(G, rank_list, reverse=False)
        return RateBound(key, value, cert)
    if key == "reducescatter":
        value, cert = _exact_cut(G, rank_list, reverse=True)
        return RateBound(key, value, cert)
    rs, rs_cert = _exact_cut(G, rank_list, reverse=True)
    ag, ag_cert = _exact_cut(G, rank_list, reverse=False)
    value = 1 / (1 / rs + 1 / ag)
    cert = {
        "phases": [
            {"collective": "reducescatter", "algbw_links": str(rs), **rs_cert},
            {"collective": "allgather", "algbw_links": str(ag), **ag_cert},
        ],
        "combination": "1/rho = 1/rho_reducescatter + 1/rho_allgather",
        "note": "optimal for AllReduce run as ReduceScatter then AllGather over all ranks; "
        "AllReduce reducing into a few roots (pipelined trees, TTO) is not bound by it",
    }
    return RateBound(key, value, cert)
