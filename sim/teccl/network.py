"""The network a TE-CCL model is written over: arcs, capacities per epoch, hop distances, bounds.

An epoch is the time one chunk takes over a link of the slowest bandwidth (TE-CCL's epoch of
one chunk transfer). An arc of ``bandwidth`` ``b`` carries ``floor(b / b_min)`` chunks per epoch
(at least 1), and each parallel arc is its own link with its own capacity. A chunk sent in epoch
``t`` is held by the receiver from epoch ``t + 1`` on (store and forward, one epoch per hop).

The lower bounds on the finish time (in epochs) need no solver, so every solution can state one:

- distance: a chunk from ``s`` reaches ``v`` no earlier than the end of epoch ``dist(s, v) - 1``;
- layered in-capacity: the chunks a chiplet ``v`` needs from sources at distance ``>= d`` can
  only arrive from epoch ``d - 1`` on, at most ``cap_in(v)`` per epoch, so
  ``T >= d - 1 + ceil(N_d / cap_in(v))`` for every ``d`` (and the same for what a source must
  send, over its out-capacity, in AllToAll);
- cuts (AllGather): a node set ``S`` holding a rank must receive every chunk of the sources
  outside it through the arcs entering it (:func:`supermesh.sim.bounds.cut_bound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from supermesh.errors import TopologyError
from supermesh.topologies.model import Arc, compute_nodes

__all__ = ["Network", "network_of"]


@dataclass(frozen=True)
class Network:
    """A topology as TE-CCL models it.

    Attributes
    ----------
    spec : str
        The topology's spec.
    nodes : tuple of int
        Every node (relays too), ascending; ``index`` maps a node to its position.
    ranks : tuple of int
        Compute chiplets, in rank order.
    arcs : tuple of Arc
        Every arc ``(src, dst, key)`` of the modelled direction, sorted.
    cap : numpy.ndarray of int
        Chunks per epoch, per arc.
    dist : numpy.ndarray of int
        Hop distances between node positions (a large number where unreachable).
    reversed : bool
        The arcs are the topology's arcs reversed (ReduceScatter).
    """

    spec: str
    nodes: tuple[int, ...]
    index: dict[int, int]
    ranks: tuple[int, ...]
    arcs: tuple[Arc, ...]
    cap: np.ndarray
    dist: np.ndarray
    reversed: bool = False

    @property
    def size(self) -> int:
        """Number of ranks."""
        return len(self.ranks)

    def hops(self, u: int, v: int) -> int:
        """Hop distance from node ``u`` to node ``v``."""
        return int(self.dist[self.index[u], self.index[v]])

    def in_arcs(self, v: int) -> list[int]:
        """Positions in :attr:`arcs` of the arcs into ``v``."""
        return [i for i, a in enumerate(self.arcs) if a[1] == v]

    def out_arcs(self, u: int) -> list[int]:
        """Positions in :attr:`arcs` of the arcs out of ``u``."""
        return [i for i, a in enumerate(self.arcs) if a[0] == u]

    def gather_bound(self, chunks: int) -> tuple[int, str]:
        """The distance and layered in-capacity bound of an AllGather (module docstring).

        Returns
        -------
        (int, str)
            Epochs, and the argument that gives them.
        """
        best, why = 0, "none"
        for v in self.ranks:
            cap_in = int(self.cap[self.in_arcs(v)].sum())
            far = sorted((self.hops(s, v) for s in self.ranks if s != v), reverse=True)
            for i, d in enumerate(far):
                # the (i + 1) * chunks chunks from sources at distance >= d
                value = d - 1 + math.ceil((i + 1) * chunks / cap_in)
                if value > best:
                    best, why = (
                        value,
                        f"chiplet {v}: {(i + 1) * chunks} chunks from distance >= {d}",
                    )
        return best, why

    def alltoall_bound(self, chunks: int) -> tuple[int, str]:
        """The distance and layered in/out-capacity bound of an AllToAll (module docstring)."""
        best, why = 0, "none"
        for v in self.ranks:
            for side, arcs_of in (("into", self.in_arcs), ("out of", self.out_arcs)):
                cap = int(self.cap[arcs_of(v)].sum())
                others = [s for s in self.ranks if s != v]
                far = sorted(
                    (self.hops(s, v) if side == "into" else self.hops(v, s) for s in others),
                    reverse=True,
                )
                for i, d in enumerate(far):
                    value = d - 1 + math.ceil((i + 1) * chunks / cap)
                    if value > best:
                        best = value
                        why = f"{(i + 1) * chunks} chunks {side} chiplet {v} over distance >= {d}"
        return best, why


def network_of(G: nx.MultiDiGraph, *, reverse: bool = False) -> Network:
    """The :class:`Network` of a topology (its arcs reversed with ``reverse``).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Arc attribute ``bandwidth`` (default 1.0) sets the capacity per epoch.
    reverse : bool
        Model the reversed network (a ReduceScatter is an AllGather there, run backwards).

    Returns
    -------
    Network

    Raises
    ------
    TopologyError
        Fewer than 2 ranks, or a rank that cannot reach another.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = network_of(build("smbi:2x2"))
    >>> len(net.arcs), int(net.cap.sum()), net.hops(0, 3)
    (16, 16, 2)
    """
    ranks = tuple(compute_nodes(G))
    if len(ranks) < 2:
        raise TopologyError("a collective needs at least 2 compute chiplets")
    nodes = tuple(sorted(G.nodes))
    index = {v: i for i, v in enumerate(nodes)}
    raw = sorted((u, v, k) for u, v, k in G.edges(keys=True))
    arcs = tuple((v, u, k) for u, v, k in raw) if reverse else tuple(raw)
    arcs = tuple(sorted(arcs))
    bw = {(u, v, k): float(d.get("bandwidth", 1.0)) for u, v, k, d in G.edges(keys=True, data=True)}
    widths = [bw[(v, u, k)] if reverse else bw[(u, v, k)] for u, v, k in arcs]
    slowest = min(widths)
    cap = np.array([max(1, math.floor(w / slowest + 1e-9)) for w in widths], dtype=np.int64)
    m = len(nodes)
    adj = csr_matrix(
        (np.ones(len(arcs)), ([index[a[0]] for a in arcs], [index[a[1]] for a in arcs])),
        shape=(m, m),
    )
    raw_dist = shortest_path(adj, unweighted=True, directed=True)
    rank_pos = [index[r] for r in ranks]
    if not np.isfinite(raw_dist[np.ix_(rank_pos, rank_pos)]).all():
        raise TopologyError(
            "some compute chiplet cannot reach another", hint="check the topology's links"
        )
    dist = np.where(np.isfinite(raw_dist), raw_dist, 10 * m).astype(np.int64)
    return Network(
        spec=str(G.graph.get("spec", "")),
        nodes=nodes,
        index=index,
        ranks=ranks,
        arcs=arcs,
        cap=cap,
        dist=dist,
        reversed=reverse,
    )
