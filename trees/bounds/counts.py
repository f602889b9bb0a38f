"""Exact tree counts with proof for given roots (Edmonds), and the answer types of every count.

Edmonds' branching theorem: ``k`` arc-disjoint spanning out-arborescences rooted at
``r_1 .. r_k`` (repeats allowed) exist iff every nonempty node set ``X`` is entered by at least
``#{i : r_i not in X}`` arcs. Equivalently, with a super source ``s`` and one arc ``s -> r_i`` per
tree, every node ``v`` is joined to ``s`` by ``k`` arc-disjoint paths. A node set that breaks the
condition is the *certificate*: anyone can count its entering arcs and see that the trees whose
root lies outside it cannot all get in.

Direction ``"in"`` (reduce, ReduceScatter) asks for in-arborescences, which are the
out-arborescences of the reversed topology. Everything is computed on the reversed topology, so for
``"in"`` a certificate's ``entering_arcs`` counts the arcs that *leave* the set in the topology
(they enter it in the reversed one) and ``required`` is the number of roots outside the set.

Freely chosen roots (Frank's theorem) are counted in :mod:`~supermesh.trees.bounds.free`, with
the same :class:`CountBound` answer and the same direction and span handling.

What is exact and what is a bound
    ``span`` is the set of nodes every tree must reach (default: the compute chiplets; memory and
    I/O chiplets may relay). When ``span`` is every node, every answer is exact (Edmonds; Frank
    for free roots). When ``span`` is a proper subset (a Steiner problem, NP-hard in general) the
    flow condition is necessary but not sufficient: an *infeasible* answer still comes with a
    certificate and is a proof, but a *feasible* answer only says that no cut rules the request
    out, until a packing is exhibited (:mod:`supermesh.trees.packing.search` does that). The
    ``exact`` field of every answer says which case applies.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
.. [3] M.-C. Cai, "Arc-disjoint arborescences of digraphs", J. Graph Theory 7, 1983.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.connectivity import ArcNet, arc_net, rooted_failures
from supermesh.topologies.model import check_nodes, compute_nodes

__all__ = [
    "CountBound",
    "RootsBound",
    "check_roots",
    "edmonds_deficit",
    "max_trees_from_root",
]

DIRECTIONS = ("out", "in")


@dataclass(frozen=True)
class RootsBound:
    """Whether arc-disjoint spanning arborescences with given roots exist.

    Attributes
    ----------
    roots : tuple of int
        One root per tree (repeats allowed).
    direction : {"out", "in"}
    feasible : bool
        ``False``: impossible, and ``certificate`` proves it (always exact). ``True``: possible
        when ``exact``; on a Steiner span (``exact`` false) only "not ruled out by any cut".
    certificate : dict or None
        When infeasible: ``{"set": [ids], "entering_arcs": a, "required": r}`` with ``a < r``:
        the set is entered by ``a`` arcs but ``r`` trees have their root outside it.
    exact : bool
        Whether ``feasible`` is a proven answer (see the module docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds import check_roots
    >>> answer = check_roots(build("mesh:4x4"), [0, 3, 15, 12])
    >>> answer.feasible, answer.certificate
    (False, {'set': [0], 'entering_arcs': 2, 'required': 3})
    """

    roots: tuple[int, ...]
    direction: str
    feasible: bool
    certificate: dict[str, Any] | None
    exact: bool = True

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``roots``, ``direction``, ``feasible``, ``exact``, ``certificate``."""
        return {
            "roots": list(self.roots),
            "direction": self.direction,
            "feasible": self.feasible,
            "exact": self.exact,
            "certificate": self.certificate,
        }


@dataclass(frozen=True)
class CountBound:
    """A maximum number of trees with the certificate that one more is impossible.

    Attributes
    ----------
    max_trees : int
        No ``max_trees + 1`` trees fit (proved by ``certificate``). ``max_trees`` trees with
        ``roots`` fit when ``exact``; on a Steiner span it is an upper bound.
    roots : tuple of int
        An optimal choice of roots, sorted (repeats where a node roots several trees).
    certificate : dict
        For one root: ``{"set", "entering_arcs", "required"}`` (one set entered by fewer than
        ``max_trees + 1`` arcs). For free roots: ``{"kind": "subpartition", "trees", "sets",
        "entering_arcs", "required"}``, disjoint sets (``entering_arcs`` one count per set) with
        ``sum(entering_arcs) < required = trees * (len(sets) - 1)`` and ``trees = max_trees + 1``
        (Frank). See :func:`max_trees_free` for the ``"cut-family"`` kind (distinct roots).
    direction : {"out", "in"}
    exact : bool

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds import max_trees_free
    >>> count = max_trees_free(build("smbi:3x3"))
    >>> count.max_trees, count.roots, count.certificate["required"]
    (5, (0, 2, 4, 6, 8), 18)
    """

    max_trees: int
    roots: tuple[int, ...]
    certificate: dict[str, Any]
    direction: str
    exact: bool = True

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``max_trees``, ``roots``, ``direction``, ``exact``, ``certificate``."""
        return {
            "max_trees": self.max_trees,
            "roots": list(self.roots),
            "direction": self.direction,
            "exact": self.exact,
            "certificate": self.certificate,
        }


def count_net(G: nx.MultiDiGraph, direction: str) -> ArcNet:
    """The :class:`~supermesh.topologies.connectivity.ArcNet` of the counts (reversed for ``"in"``).

    Raises
    ------
    SpecError
        An unknown direction.
    """
    if direction not in DIRECTIONS:
        raise SpecError(f"direction {direction!r} is not 'out' or 'in'", hint="use out or in")
    return arc_net(G, reverse=direction == "in")


def span_indices(
    G: nx.MultiDiGraph, net: ArcNet, span: Iterable[int] | None
) -> tuple[list[int], bool]:
    """Span as sorted indices, and whether it is every node (the exact case).

    Raises
    ------
    TopologyError
        A span node that is not in ``G``, or an empty span.
    """
    nodes = compute_nodes(G) if span is None else check_nodes(G, span, what="span node")
    if not nodes:
        raise TopologyError(
            "the span is empty: there is no node the trees must reach",
            hint="pass span=[...] with at least one node (default: the compute chiplets)",
        )
    idx = sorted({net.index[v] for v in nodes})
    return idx, len(idx) == net.n


def _supply(net: ArcNet, roots: Sequence[int]) -> list[int]:
    supply = [0] * net.n
    for r in roots:
        supply[net.index[r]] += 1
    return supply


def _set_certificate(net: ArcNet, side: Iterable[int], k: int, supply: Sequence[int]) -> dict:
    """``{"set", "entering_arcs", "required"}`` for a node set (indices) and ``k`` trees."""
    members = sorted(side)
    return {
        "set": sorted(net.nodes[i] for i in members),
        "entering_arcs": net.entering(members),
        "required": k - sum(supply[i] for i in members),
    }


def edmonds_deficit(
    G: nx.MultiDiGraph, node_set: Iterable[int], roots: Sequence[int], *, direction: str = "out"
) -> tuple[int, int]:
    """Arcs entering a node set, and how many Edmonds' condition requires.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    node_set : iterable of int
        A nonempty set ``X`` of node ids.
    roots : sequence of int
        One root per tree (repeats allowed).
    direction : {"out", "in"}
        For ``"in"`` the arcs are counted in the reversed topology (arcs leaving ``X`` in ``G``).

    Returns
    -------
    entering_arcs : int
        Arcs (parallel arcs counted) from outside ``X`` into ``X``.
    required : int
        ``#{i : roots[i] not in X}``. The roots are impossible if ``entering_arcs < required``.

    Raises
    ------
    TopologyError
        An empty set or a node id that is not in ``G``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> edmonds_deficit(build("mesh:3x3"), [8], [0, 2, 6])  # corner 8: 2 arcs, 3 roots outside
    (2, 3)
    """
    members = set(check_nodes(G, node_set, what="set node"))
    if not members:
        raise TopologyError(
            "the node set is empty", hint="Edmonds' condition is about nonempty sets"
        )
    root_ids = check_nodes(G, roots, what="root")
    net = count_net(G, direction)
    return net.entering(net.index[v] for v in members), sum(r not in members for r in root_ids)


def check_roots(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> RootsBound:
    """Decide whether arc-disjoint spanning arborescences with exactly these roots exist.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    roots : sequence of int
        One root per tree; a node listed twice roots two trees.
    direction : {"out", "in"}
        Out-arborescences (broadcast, AllGather) or in-arborescences (reduce, ReduceScatter).
    span : iterable of int, optional
        Nodes every tree must reach (default: the compute chiplets); other nodes may relay.

    Returns
    -------
    RootsBound
        ``feasible`` and, when false, the certificate set. A feasible answer is exact when the
        span is every node; on a proper span it is a necessary condition only (``exact`` false).

    Raises
    ------
    TopologyError
        A root or span node that is not in ``G``, or an empty span.
    SpecError
        An unknown direction.

    Notes
    -----
    A span node whose in-degree plus its own root count is below ``k`` is reported directly
    (a one-node certificate); otherwise a max-flow from the super source to each span node, in
    breadth-first order, with nodes that pass merged into the source
    (:mod:`supermesh.topologies.connectivity`). The smallest minimum cut of the first failing node
    is the certificate.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> check_roots(build("smbi:4x4"), [0, 3, 15, 12]).feasible
    True
    >>> bad = check_roots(build("mesh:4x4"), [0, 3, 15])
    >>> bad.feasible, bad.certificate
    (False, {'set': [12], 'entering_arcs': 2, 'required': 3})
    """
    net = count_net(G, direction)
    root_ids = tuple(check_nodes(G, roots, what="root"))
    targets, exact = span_indices(G, net, span)
    k = len(root_ids)
    supply = _supply(net, root_ids)
    short = [v for v in targets if net.in_degree(v) + supply[v] < k]
    if short:
        v = min(short, key=lambda v: (net.in_degree(v) + supply[v] - k, net.nodes[v]))
        cert = _set_certificate(net, [v], k, supply)
    else:
        cuts = rooted_failures(net, supply, targets, k, stop_after=1) if k else []
        if not cuts:
            return RootsBound(root_ids, direction, True, None, exact)
        cert = _set_certificate(net, cuts[0].sink_side, k, supply)
    return RootsBound(root_ids, direction, False, cert, True)


def max_trees_from_root(
    G: nx.MultiDiGraph,
    root: int,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> CountBound:
    """Maximum number of arc-disjoint spanning arborescences that all have the same root.

    By Edmonds' theorem this is the smallest ``root``-``v`` arc connectivity over the span nodes
    ``v`` other than the root.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    root : int
    direction : {"out", "in"}
    span : iterable of int, optional
        Nodes to reach (default: compute chiplets).

    Returns
    -------
    CountBound
        ``roots`` is ``(root,) * max_trees``; ``certificate`` is a set entered by
        ``max_trees`` arcs that does not hold the root, so ``max_trees + 1`` trees cannot all
        enter it.

    Raises
    ------
    TopologyError
        A node not in ``G``, or a span with no node besides the root.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> b = max_trees_from_root(build("smalter:5x5"), 0)
    >>> b.max_trees, b.certificate
    (3, {'set': [4], 'entering_arcs': 3, 'required': 4})
    """
    net = count_net(G, direction)
    (r,) = check_nodes(G, [root], what="root")
    targets, exact = span_indices(G, net, span)
    ri = net.index[r]
    targets = [v for v in targets if v != ri]
    if not targets:
        raise TopologyError(
            f"the span holds no node other than the root {r}",
            hint="any number of trees reach the root alone; use a larger span",
        )
    v = min(targets, key=lambda v: (net.in_degree(v), net.nodes[v]))
    k = net.in_degree(v)
    supply = [0] * net.n
    supply[ri] = k
    cuts = rooted_failures(net, supply, targets, k, descend=True) if k else []
    if cuts:
        k, side = cuts[-1].value, cuts[-1].sink_side
    else:
        side = frozenset([v])
    supply[ri] = k + 1
    cert = _set_certificate(net, side, k + 1, supply)
    return CountBound(k, (r,) * k, cert, direction, exact)
