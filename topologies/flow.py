"""One place where a topology becomes a capacitated simple digraph for max-flow.

networkx max-flow rejects multigraphs and is slow at scale; igraph's push-relabel is fast. Parallel
arcs collapse into one arc whose capacity is their number (the multiplicity): that is what
arc-disjointness counts, whatever the arcs' bandwidths. The arcs' bandwidths are kept beside it
for the throughput cuts (:mod:`supermesh.trees.bounds.throughput`, :mod:`supermesh.sim.bounds`).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:  # igraph loads its plotting stack: import it only when a flow runs
    import igraph as ig

__all__ = ["FlowNetwork", "flow_network"]


@dataclass(frozen=True)
class FlowNetwork:
    """A topology as a simple digraph with integer capacities (igraph built on first use).

    Attributes
    ----------
    capacity : list of int
        Multiplicity of each igraph edge, in edge-id order.
    nodes : list of int
        Topology node id of each igraph vertex.
    index : dict
        Topology node id -> igraph vertex.
    bandwidths : list of tuple of float
        The ``bandwidth`` of each collapsed arc (default 1.0), per igraph edge.
    pairs : list of tuple of int
        The igraph edges as (source vertex, target vertex), in edge-id order.
    """

    capacity: list[int]
    nodes: list[int]
    index: dict[int, int]
    bandwidths: list[tuple[float, ...]]
    pairs: list[tuple[int, int]]

    @cached_property
    def graph(self) -> ig.Graph:
        """igraph digraph: directed, simple; vertex ``i`` is topology node ``nodes[i]``.

        Built on first use, so that the path searches of :mod:`supermesh.topologies.connectivity`
        never import igraph.
        """
        return _igraph().Graph(n=len(self.nodes), edges=self.pairs, directed=True)

    def bandwidth(self) -> list[float]:
        """Total bandwidth of each igraph edge (its parallel arcs together)."""
        return [float(sum(b)) for b in self.bandwidths]

    def with_source(self) -> ig.Graph:
        """A copy of :attr:`graph` with one more vertex (index ``len(nodes)``), no arcs yet."""
        graph = self.graph.copy()
        graph.add_vertices(1)
        return graph

    def max_flow(self, s: int, t: int) -> ig.Flow:
        """Max-flow between two topology nodes (``ig.Flow`` with ``value`` and ``cut``)."""
        return self.graph.maxflow(self.index[s], self.index[t], capacity=self.capacity)

    def max_flow_value(self, s: int, t: int) -> int:
        """Max-flow value (number of arc-disjoint paths) from node ``s`` to node ``t``."""
        return round(self.graph.maxflow_value(self.index[s], self.index[t], capacity=self.capacity))


def _igraph() -> Any:
    """The igraph module, imported without its matplotlib plotting layer.

    ``import igraph`` imports ``matplotlib.pyplot`` when matplotlib is installed (1-2 s, most
    of a command's run time), only for plotting, which supermesh never asks igraph for. Hiding
    matplotlib while igraph is first imported makes igraph take its documented fallback (no
    plotting); matplotlib itself is untouched and imports normally afterwards.
    """
    if "igraph" in sys.modules:
        return sys.modules["igraph"]
    hide = "matplotlib" not in sys.modules
    if hide:
        sys.modules["matplotlib"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import igraph
    finally:
        if hide:
            del sys.modules["matplotlib"]
    return igraph


def flow_network(G: nx.MultiDiGraph, *, reverse: bool = False) -> FlowNetwork:
    """Collapse a topology's parallel arcs into capacities and build an igraph digraph.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    reverse : bool
        Reverse every arc (in-arborescences become out-arborescences of the reversed graph).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = flow_network(build("smbi:3x3"))
    >>> net.max_flow_value(0, 8)  # a corner of SMBi has 4 out-arcs
    4
    """
    nodes = sorted(int(n) for n in G.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    counts: Counter[tuple[int, int]] = Counter()
    bws: dict[tuple[int, int], list[float]] = {}
    for u, v, bw in G.edges(data="bandwidth", default=1.0):
        pair = (index[v], index[u]) if reverse else (index[u], index[v])
        counts[pair] += 1
        bws.setdefault(pair, []).append(float(bw))
    pairs = sorted(counts)
    return FlowNetwork(
        [counts[p] for p in pairs], nodes, index, [tuple(bws[p]) for p in pairs], pairs
    )
