"""How fast any AllReduce can run: transfers between the parts of a partition.

Every rank must end with the sum of every rank's vector, element by element. Count, for one
element, the transfers of values (a partial sum is one value) between the parts of a partition
of the nodes into ``k`` parts that each hold a rank: contract each part into one node, and the
transfers between parts are a one-way gossip among ``k`` parties, every one of which must
learn every other's value. That takes at least ``2 (k - 1)`` calls (Harary and Schwenk, [1]_:
``2k - 2`` one-way calls are needed and suffice). A vector of ``M`` bytes therefore moves at
least ``2 (k - 1) M`` bytes over the arcs that cross the partition, of total bandwidth
``B(P)`` (both directions), so ``T >= 2 (k - 1) M / B(P)`` and the algorithm bandwidth is at
most::

    B(P) / (2 (k - 1))

for every such partition. Every node its own part gives the *volume bound* ``B / (2 (n - 1))``
(all arcs, ``n`` ranks; routers join any part, which only lowers the crossing bandwidth counted
here, so the bound holds with routers too); two parts give the cut between two rank sets, which
:func:`~supermesh.sim.bounds.rank_connectivity` sharpens by direction. On symmetric links the
best partition is met by a packing of undirected spanning trees
(:mod:`~supermesh.trees.throughput.undirected`).

This bound holds for every AllReduce, with or without a barrier between a reduce and a
broadcast; a run that waits between them (ReduceScatter then AllGather, ``1 / rho_RS + 1 /
rho_AG`` of :mod:`~supermesh.trees.bounds.throughput`) is slower than it by up to half.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297(6), 1974.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.throughput import exact_fraction

__all__ = ["partition_bound", "volume_bound"]


def partition_bound(
    G: nx.MultiDiGraph, parts: Sequence[Iterable[int]], ranks: Iterable[int] | None = None
) -> Fraction:
    """The algorithm bandwidth no AllReduce exceeds, from one partition of the nodes.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Arcs carry ``bandwidth`` (default 1).
    parts : sequence of iterables of int
        A partition of the nodes of ``G`` into at least two parts, each holding a rank.
    ranks : iterable of int, optional
        Default: the compute chiplets.

    Returns
    -------
    fractions.Fraction
        ``B(P) / (2 (k - 1))`` in links (see the module docstring).

    Raises
    ------
    SpecError
        ``parts`` is not a partition of the nodes into at least two parts that each hold a rank.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")  # a 4-cycle: 8 arcs, 3 transfers in and 3 out of 4 parties
    >>> partition_bound(G, [[0], [1], [2], [3]])
    Fraction(4, 3)
    >>> partition_bound(G, [[0, 1], [2, 3]])  # 4 arcs cross: the cut, 2 links each way
    Fraction(2, 1)
    """
    rank_set = {int(r) for r in (ranks if ranks is not None else compute_nodes(G))}
    where: dict[int, int] = {}
    for i, part in enumerate(parts):
        for v in part:
            if int(v) in where:
                raise SpecError(f"node {v} lies in two parts")
            where[int(v)] = i
    if set(where) != {int(v) for v in G.nodes} or len(parts) < 2:
        raise SpecError("the parts must cover every node, in at least two parts")
    if any(not rank_set.intersection(int(v) for v in part) for part in parts):
        raise SpecError("every part must hold a rank")
    crossing = sum(
        (
            exact_fraction(b)
            for u, v, b in G.edges(data="bandwidth", default=1.0)
            if where[u] != where[v]
        ),
        Fraction(0),
    )
    return crossing / (2 * (len(parts) - 1))


def volume_bound(G: nx.MultiDiGraph, ranks: Iterable[int] | None = None) -> Fraction:
    """The volume bound: every arc's bandwidth over ``2 (n - 1)`` transfers an element.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ranks : iterable of int, optional
        Default: the compute chiplets.

    Returns
    -------
    fractions.Fraction
        Links of algorithm bandwidth no AllReduce exceeds.

    Raises
    ------
    SpecError
        Fewer than two ranks.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> volume_bound(build("mesh:4x4"))  # 48 arcs, 2 x 15 transfers an element
    Fraction(8, 5)
    """
    n = len(set(ranks if ranks is not None else compute_nodes(G)))
    if n < 2:
        raise SpecError("an AllReduce needs at least two ranks")
    total = sum(
        (exact_fraction(b) for _, _, b in G.edges(data="bandwidth", default=1.0)), Fraction(0)
    )
    return total / (2 * (n - 1))
