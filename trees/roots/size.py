"""How many roots a set can have, and a lower bound on every partition into sets of that size.

Helpers of :func:`supermesh.trees.roots.sets.root_sets` (re-exported there).

Set size ``k`` (:func:`root_set_size`)
    The largest ``k`` such that the chiplets split into sets of ``k`` (the last one smaller) that
    each admit ``k`` arc-disjoint spanning trees. No set of ``k + 1`` trees exists at all above the
    free-root maximum (Frank), and by Edmonds' condition for ``X = {v}`` a chiplet with only
    ``k - 1`` in-arcs must root a tree in *every* set of ``k``: with two or more such sets, ``k`` is
    impossible. That rules out 4 on odd SMAlter (corners with 3 links, as the BRIEF says: 4 trees
    only with the 4 corners as roots) and on partial SuperMesh (the I/O side), leaving 3.
    :func:`size_certificate` gives that proof for a ``k`` asked for.

Lower bound (:func:`partition_lower_bound`)
    A tree is at least as tall as its root's eccentricity. Sort the eccentricities
    ``e_1 >= e_2 >= ...``: at most ``(j - 1) k`` chiplets lie in the ``j - 1`` tallest sets, so the
    ``j``-th tallest set is at least ``e_((j - 1) k + 1)`` and the total is at least
    ``e_1 + e_(k+1) + e_(2k+1) + ...``.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.bounds.heights import check_direction, resolve_span, working_network

__all__ = ["SetSize", "partition_lower_bound", "root_set_size", "size_certificate"]

Roots = tuple[int, ...]


@dataclass(frozen=True)
class SetSize:
    """How many roots a set can have, and why not one more.

    Attributes
    ----------
    k : int
        The largest set size for which no argument rules a partition out.
    certificate : dict or None
        Proof that ``k + 1`` is impossible: Frank's subpartition from
        :func:`~supermesh.trees.bounds.free.max_trees_free` (no ``k + 1`` trees with any roots),
        or ``{"kind": "root-sets", "set": [v], "entering_arcs": d, "required": k + 1, "roots":
        [...], "full_sets": m}``: chiplet ``v`` has ``d`` in-arcs, so every set of ``k + 1`` roots
        must contain it (``roots`` is one set without it, which Edmonds' condition for ``{v}``
        rejects), and ``m >= 2`` disjoint sets cannot all contain it. ``None`` when ``k`` is the
        number of chiplets.
    """

    k: int
    certificate: dict[str, Any] | None


def _in_degrees(G: nx.MultiDiGraph, direction: str, span: Sequence[int]) -> dict[int, int]:
    net = working_network(G, direction)
    return {v: sum(net.capacity[(u, v)] for u in net.pred[v]) for v in span}


def _degree_certificate(indeg: dict[int, int], k: int) -> dict[str, Any] | None:
    """The in-degree argument against sets of ``k`` (see :class:`SetSize`), or ``None``."""
    full = len(indeg) // k
    short = sorted((d, v) for v, d in indeg.items() if d < k)
    if not short or (full < 2 and len(short) <= k and short[0][0] >= k - 1):
        return None
    d, v = short[0]
    others = sorted((w for w in indeg if w != v), key=lambda w: (-indeg[w], w))[:k]
    return {
        "kind": "root-sets",
        "set": [v],
        "entering_arcs": d,
        "required": k,
        "roots": others,
        "full_sets": full,
        "reason": f"chiplet {v} has {d} in-arcs, so it must root a tree in every set of {k} "
        f"roots, but there are {full} disjoint sets of {k}",
    }


def root_set_size(G: nx.MultiDiGraph, *, direction: str = "out") -> SetSize:
    """The largest number of roots per set for a root-set partition of the compute chiplets.

    See the module docstring. A partition is still to be found
    (:func:`~supermesh.trees.roots.sets.root_sets` lowers ``k`` if its search finds none, and says
    so).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}

    Returns
    -------
    SetSize

    Raises
    ------
    TopologyError
        No spanning tree exists at all (the topology is not strongly connected).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> [root_set_size(build(s)).k for s in ("mesh:4x4", "smbi:4x4", "smalter:6x6", "smalter:5x5")]
    [2, 4, 4, 3]
    >>> root_set_size(build("smalter:5x5")).certificate["set"]  # a corner: 3 in-arcs
    [0]
    """
    check_direction(direction)
    span = resolve_span(G, None)
    if len(span) == 1:
        return SetSize(1, None)
    free = max_trees_free(G, direction=direction, distinct=True)
    if free.max_trees < 1:
        raise TopologyError(
            f"{G.graph.get('spec', 'this topology')} has no spanning tree: "
            "some chiplet cannot reach another",
            hint="check the topology's links",
        )
    k = min(free.max_trees, len(span))
    cert: dict[str, Any] | None = free.certificate if k < len(span) else None
    indeg = _in_degrees(G, direction, span)
    while k > 1:
        against = _degree_certificate(indeg, k)
        if against is None:
            break
        cert, k = against, k - 1
    return SetSize(k, cert)


def partition_lower_bound(
    ecc: dict[int, int], k: int, set_bound: Callable[[Roots], int] | None = None
) -> int:
    """Lower bound on the sum of set heights over every partition into sets of ``k``.

    At most ``c(t)`` sets can have height ``<= t``: as many sets as fit among the chiplets of
    eccentricity ``<= t`` (the smaller last set first). So the ``j``-th lowest set is at least the
    smallest ``t`` with ``c(t) >= j``; summed, this is ``e_1 + e_(k+1) + e_(2k+1) + ...`` for the
    eccentricities sorted in decreasing order. ``set_bound`` (a proven lower bound on one set's
    height, e.g. from a packing proven optimal) sharpens it where those chiplets form exactly one
    set: if that set cannot reach ``t``, ``c(t) = 0``.

    Parameters
    ----------
    ecc : dict
        Chiplet -> eccentricity (the lower bound on its tree's height).
    k : int
        Roots per set (the last set has ``len(ecc) % k`` when that is not 0).
    set_bound : callable, optional
        Sorted root tuple -> proven lower bound on that set's height.

    Returns
    -------
    int

    Examples
    --------
    >>> partition_lower_bound(dict(enumerate([6, 5, 5, 5, 5, 4, 4, 4, 4, 6])), 4)  # 6 + 5 + 4
    15
    >>> ecc = dict(enumerate([5, 5, 5, 5, 4, 4, 4, 4]))
    >>> partition_lower_bound(ecc, 4), partition_lower_bound(ecc, 4, lambda s: 5)
    (9, 10)
    """
    full, rest = divmod(len(ecc), k)
    count = full + (rest > 0)
    levels = sorted(set(ecc.values()))
    caps = {}
    for t in levels:
        pool = tuple(sorted(v for v in ecc if ecc[v] <= t))
        fits = (1 + (len(pool) - rest) // k) if rest and len(pool) >= rest else len(pool) // k
        exact = len(pool) == (rest or k)
        if fits == 1 and exact and set_bound is not None and set_bound(pool) > t:
            fits = 0
        caps[t] = min(fits, count)
    return sum(min(t for t in levels if caps[t] >= j) for j in range(1, count + 1))


def size_certificate(G: nx.MultiDiGraph, direction: str, k: int) -> dict[str, Any] | None:
    """A certificate that no partition of the compute chiplets into sets of ``k`` exists.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
    k : int
        Roots per set.

    Returns
    -------
    dict or None
        Frank's subpartition if ``k`` is above the free-root maximum, else the in-degree argument
        of :class:`SetSize`; ``None`` if neither rules ``k`` out.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("smalter:5x5")  # corners with 3 in-arcs: no 2 sets of 4 can all hold one
    >>> size_certificate(G, "out", 4)["set"], size_certificate(G, "out", 3)
    ([0], None)
    """
    free = max_trees_free(G, direction=direction, distinct=True)
    if k > free.max_trees:
        return free.certificate
    return _degree_certificate(_in_degrees(G, direction, resolve_span(G, None)), k)
