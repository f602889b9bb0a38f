"""Tree counts with free roots: Frank's theorem, from the in-degree bound to the exact maximum.

Frank's theorem [1]_: ``k`` arc-disjoint spanning out-arborescences with freely chosen roots (a
node may root several) exist iff every subpartition ``X1, ..., Xt`` of the nodes is entered by at
least ``k (t - 1)`` arcs in total. :func:`in_degree_upper_bound` reads a first bound off the
in-degrees (singletons form a subpartition); :func:`max_trees_free` lowers it to the exact maximum
with :func:`supermesh.trees.bounds.frank.maximise_free`. Directions, spans and what is exact are
as in :mod:`~supermesh.trees.bounds.counts`, whose :class:`CountBound` is the answer.

References
----------
.. [1] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
.. [2] M.-C. Cai, "Arc-disjoint arborescences of digraphs", J. Graph Theory 7, 1983.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies.connectivity import ArcNet
from supermesh.trees.bounds.counts import CountBound, count_net, span_indices

__all__ = ["in_degree_upper_bound", "max_trees_free"]


def in_degree_upper_bound(
    G: nx.MultiDiGraph, *, direction: str = "out", span: Iterable[int] | None = None
) -> tuple[int, dict[str, Any]]:
    """A cheap upper bound on the number of trees (any roots) from in-degrees alone.

    Singletons ``{v1}, ..., {vt}`` of span nodes form a subpartition, so by Frank's condition
    ``k`` trees need ``d(v1) + ... + d(vt) >= k (t - 1)``. With the in-degrees sorted, the bound is
    ``min over t >= 2 of floor(sum of the t smallest / (t - 1))``: ``t = 2`` is "at most the
    in-degree of a node other than the root", ``t = n`` is "``k (n - 1)`` arcs are needed".

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
    span : iterable of int, optional
        Nodes the trees must reach (default: compute chiplets). Needs at least two.

    Returns
    -------
    bound : int
    certificate : dict
        ``{"kind": "subpartition", "trees", "sets", "entering_arcs", "required"}`` ruling out
        ``bound + 1`` trees: singletons whose in-degrees sum to less than ``required``.

    Raises
    ------
    TopologyError
        If the span has fewer than two nodes.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> k, cert = in_degree_upper_bound(build("mesh:4x4"))
    >>> k, cert["sets"], cert["entering_arcs"], cert["required"]
    (2, [[0], [3], [12], [15]], [2, 2, 2, 2], 9)
    """
    net = count_net(G, direction)
    targets, _ = span_indices(G, net, span)
    return _degree_bound(net, targets)


def _degree_bound(net: ArcNet, targets: list[int]) -> tuple[int, dict[str, Any]]:
    if len(targets) < 2:
        raise TopologyError(
            "a span of one node is reached by any number of trees",
            hint="count trees on a span of at least two nodes",
        )
    order = sorted(targets, key=lambda v: (net.in_degree(v), net.nodes[v]))
    degrees = [net.in_degree(v) for v in order]
    prefix = [sum(degrees[: t + 1]) for t in range(len(degrees))]
    bound = min(prefix[t - 1] // (t - 1) for t in range(2, len(order) + 1))
    t = next(t for t in range(2, len(order) + 1) if prefix[t - 1] < (bound + 1) * (t - 1))
    cert = {
        "kind": "subpartition",
        "trees": bound + 1,
        "sets": [[net.nodes[v]] for v in order[:t]],
        "entering_arcs": degrees[:t],
        "required": (bound + 1) * (t - 1),
    }
    return bound, cert


def max_trees_free(
    G: nx.MultiDiGraph,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
    distinct: bool = False,
) -> CountBound:
    """Maximum number of arc-disjoint spanning arborescences with freely chosen roots.

    Frank's theorem (1978): ``k`` such arborescences exist (a node may root several) iff every
    subpartition ``X1, ..., Xt`` of the nodes has ``sum of in(Xi) >= k (t - 1)``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
    span : iterable of int, optional
        Nodes to reach (default: compute chiplets). Roots may be any node.
    distinct : bool
        Require distinct roots (each node roots at most one tree).

    Returns
    -------
    CountBound
        ``certificate`` rules out ``trees = max_trees + 1``. Free roots: ``{"kind":
        "subpartition", "trees", "sets", "entering_arcs", "required"}`` with one entering count
        per set and ``sum(entering_arcs) < required``. Distinct roots, when their maximum is
        below the free one: ``{"kind": "cut-family", "trees": k, "sets", "entering_arcs",
        "required": k, "distinct": true}``, meaning every set ``X`` must hold at
        least ``k - entering`` of ``k`` roots (the trees rooted outside it must enter it) and no
        ``k`` distinct nodes do that for all the sets at once (small enough to check by
        enumeration or an integer program). On a Steiner span without a subpartition proof the
        same ``cut-family`` form is used with ``"distinct": false``.

    Raises
    ------
    TopologyError
        A span with fewer than two nodes.

    Notes
    -----
    Method: the in-degree bound of :func:`in_degree_upper_bound` gives a starting ``k`` and its
    certificate. For each ``k`` downwards, a quick try puts the roots on the ``k`` nodes of
    smallest in-degree; failing that, :func:`supermesh.trees.bounds.frank.decide_free` decides
    exactly (a greedy minimal root vector over the contra-polymatroid of Frank's condition, whose
    tight sets give the subpartition), or a CP-SAT cutting-plane loop for distinct roots and Steiner
    spans. Cost: about ``n`` small max-flows per ``k`` tried.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = max_trees_free(build("smbi:3x3"))
    >>> b.max_trees, sum(b.certificate["entering_arcs"]), b.certificate["required"]
    (5, 16, 18)
    """
    from supermesh.trees.bounds.frank import maximise_free

    net = count_net(G, direction)
    targets, exact = span_indices(G, net, span)
    bound, cert = _degree_bound(net, targets)
    k, y, cert = maximise_free(net, targets, bound, cert, all_nodes=exact, distinct=distinct)
    roots = tuple(sorted(net.nodes[v] for v in range(net.n) for _ in range(y[v])))
    return CountBound(k, roots, cert, direction, exact)
