"""Free roots: how many trees fit when each node may root any number of them (Frank, Cai).

Write ``y[v]`` for the number of trees rooted at ``v``. By Edmonds' theorem ``k`` trees with root
vector ``y`` (``sum(y) == k``) exist iff ``y(X) >= k - in(X)`` for every nonempty set ``X``.
Since ``in`` is submodular, ``p(X) = k - in(X)`` is intersecting supermodular and the vectors
``y >= 0`` meeting every constraint form a contra-polymatroid: every *minimal* such vector has the
same sum, ``max over subpartitions of sum p(Xi)`` (Frank 1978). So:

- start from ``y = k`` everywhere and lower each coordinate as far as it goes; lowering ``y[v]``
  can only break sets holding ``v``, so one max-flow into ``v`` gives its least value;
- ``k`` trees fit iff the minimal vector sums to at most ``k``;
- if it sums to more, the maximal *tight* sets (``y(X) = p(X)``) around the support of ``y``
  are pairwise disjoint (two intersecting tight sets have a tight union) and give the
  subpartition certificate: ``sum in(Xi) = k t - sum(y) < k (t - 1)``.

That argument needs every nonempty set to be constrained, i.e. the span to be every node. For a
Steiner span, and for distinct roots (``y <= 1``), :func:`decide_cutting_plane` decides the flow
condition exactly with CP-SAT over ``y`` and cuts added from max-flow.

References
----------
.. [1] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
.. [2] M.-C. Cai, "Arc-disjoint arborescences of digraphs", J. Graph Theory 7, 1983.
.. [3] A. Frank, "Connections in Combinatorial Optimization", Oxford, 2011, ch. 10.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from supermesh.errors import SolverError
from supermesh.topologies.connectivity import ArcNet, flow_to, rooted_failures, source_side

__all__ = [
    "decide_cutting_plane",
    "decide_free",
    "maximise_free",
    "minimal_root_vector",
    "subpartition_certificate",
]

_CPSAT_SECONDS = 120.0


def minimal_root_vector(net: ArcNet, k: int) -> list[int]:
    """A minimal root vector for ``k`` trees spanning every node (greedy lowering).

    Nodes are lowered in order of decreasing in-degree, so roots stay where arcs are few.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.topologies.connectivity import arc_net
    >>> y = minimal_root_vector(arc_net(build("mesh:3x3")), 3)
    >>> sum(y) > 3  # 3 trees need more than 3 roots: impossible on the mesh
    True
    """
    y = [k] * net.n
    for v in sorted(range(net.n), key=lambda v: (-net.in_degree(v), v)):
        y[v] = 0
        value, _, _, _ = flow_to(net, y, v, k)
        y[v] = k - value
    return y


def subpartition_certificate(
    net: ArcNet, sets: Sequence[frozenset[int]], k: int, targets: Sequence[int]
) -> dict[str, Any] | None:
    """Frank certificate ruling out ``k`` trees, or ``None`` if ``sets`` is not one.

    Valid when the sets are nonempty, pairwise disjoint, each holds a span node and
    ``sum in(Xi) < k (t - 1)``: each tree has its root in at most one set and must enter the
    others.

    Parameters
    ----------
    net : ArcNet
    sets : sequence of frozenset of int
        Candidate sets (indices); duplicates are merged.
    k : int
        Number of trees to rule out.
    targets : sequence of int
        Span indices.

    Returns
    -------
    dict or None
        ``{"kind": "subpartition", "trees": k, "sets", "entering_arcs", "required"}`` in
        node ids.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.topologies.connectivity import arc_net
    >>> net = arc_net(build("mesh:3x3"))
    >>> corners = [frozenset([c]) for c in (0, 2, 6, 8)]
    >>> subpartition_certificate(net, corners, 3, range(9))["required"]  # 8 arcs < 9
    9
    >>> subpartition_certificate(net, corners, 2, range(9)) is None  # 8 arcs >= 6
    True
    """
    span = set(targets)
    unique = sorted(set(sets), key=lambda s: sorted(net.nodes[i] for i in s))
    seen: set[int] = set()
    for s in unique:
        if not s or seen & s or not span & s:
            return None
        seen |= s
    entering = [net.entering(s) for s in unique]
    t = len(unique)
    if t < 2 or sum(entering) >= k * (t - 1):
        return None
    return {
        "kind": "subpartition",
        "trees": k,
        "sets": [sorted(net.nodes[i] for i in s) for s in unique],
        "entering_arcs": entering,
        "required": k * (t - 1),
    }


def _tight_families(net: ArcNet, y: list[int], k: int) -> list[list[frozenset[int]]]:
    """Smallest and largest tight sets around each root of a minimal vector."""
    smallest, largest = [], []
    for v in (v for v in range(net.n) if y[v] > 0):
        y[v] -= 1
        value, side, flow, used = flow_to(net, y, v, k)
        if value < k:
            smallest.append(side)
            reach = source_side(net, y, flow, used)
            largest.append(frozenset(set(range(net.n)) - reach))
        y[v] += 1
    return [smallest, largest]


def decide_free(net: ArcNet, k: int) -> tuple[list[int] | None, dict[str, Any] | None]:
    """Decide whether ``k`` trees with free roots span every node (exact; Frank).

    Parameters
    ----------
    net : ArcNet
    k : int

    Returns
    -------
    y : list of int or None
        A root vector with ``sum(y) == k`` when they fit.
    certificate : dict or None
        The subpartition ruling ``k`` out when they do not.

    Raises
    ------
    SolverError
        Never in theory (the largest tight sets always certify); reported rather than hidden.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.topologies.connectivity import arc_net
    >>> y, cert = decide_free(arc_net(build("smbi:3x3")), 6)
    >>> y, sum(cert["entering_arcs"]) < cert["required"]
    (None, True)
    """
    y = minimal_root_vector(net, k)
    total = sum(y)
    if total <= k:
        first = next(v for v in range(net.n) if y[v] > 0)
        y[first] += k - total
        return y, None
    every = list(range(net.n))
    certs = [subpartition_certificate(net, fam, k, every) for fam in _tight_families(net, y, k)]
    valid = [c for c in certs if c is not None]
    if not valid:  # the theory says the largest tight sets always work
        raise SolverError(f"internal error: no subpartition certificate for k={k}")
    return None, min(valid, key=lambda c: sum(map(len, c["sets"])))


def _solve_roots(
    net: ArcNet, k: int, upper: int, family: list[tuple[frozenset[int], int]]
) -> list[int] | None:
    from ortools.sat.python import cp_model

    from supermesh.trees.cpsat import new_solver

    model = cp_model.CpModel()
    y = [model.new_int_var(0, upper, f"y{v}") for v in range(net.n)]
    model.add(sum(y) == k)
    for members, entering in family:
        model.add(sum(y[v] for v in members) >= k - entering)
    solver = new_solver(time_limit=_CPSAT_SECONDS)
    status = solver.solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [int(solver.value(v)) for v in y]
    if status == cp_model.INFEASIBLE:
        return None
    raise SolverError(
        f"CP-SAT could not decide {k} roots within {_CPSAT_SECONDS:.0f} s",
        hint="count with repeated roots allowed (distinct=False) or a smaller topology",
    )


def _packing_certificate(
    net: ArcNet, family: list[tuple[frozenset[int], int]], k: int, targets: Sequence[int]
) -> dict[str, Any] | None:
    """The best subpartition inside a family of cut sets, if it proves ``k`` impossible."""
    from ortools.sat.python import cp_model

    from supermesh.trees.cpsat import new_solver

    model = cp_model.CpModel()
    z = [model.new_bool_var(f"z{i}") for i in range(len(family))]
    for v in range(net.n):
        holding = [z[i] for i, (s, _) in enumerate(family) if v in s]
        if len(holding) > 1:
            model.add_at_most_one(holding)
    model.maximize(sum((k - e) * z[i] for i, (_, e) in enumerate(family)))
    solver = new_solver(time_limit=_CPSAT_SECONDS)
    if solver.solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    chosen = [family[i][0] for i in range(len(family)) if solver.value(z[i])]
    return subpartition_certificate(net, chosen, k, targets)


def decide_cutting_plane(
    net: ArcNet, k: int, targets: Sequence[int], *, distinct: bool
) -> tuple[list[int] | None, dict[str, Any] | None]:
    """Decide the flow condition for ``k`` free (or distinct) roots by CP-SAT with lazy cuts.

    CP-SAT proposes a root vector meeting the cuts found so far; max-flow from the proposed
    roots to every span node either accepts it or returns violated sets, which become cuts
    ``y(X) >= k - in(X)``. The loop ends with a vector that passes, or with CP-SAT proving that
    none meets the cuts (the certificate: the family, or a subpartition inside it).

    Parameters
    ----------
    net : ArcNet
    k : int
    targets : sequence of int
        Span indices.
    distinct : bool
        Each node roots at most one tree.

    Returns
    -------
    y : list of int or None
        A root vector passing the flow check (exact when the span is every node).
    certificate : dict or None
        A ``subpartition`` or ``cut-family`` certificate when no vector exists.

    Raises
    ------
    SolverError
        If CP-SAT hits its time limit without deciding.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.topologies.connectivity import arc_net
    >>> y, cert = decide_cutting_plane(arc_net(build("smbi:3x3")), 5, range(9), distinct=True)
    >>> sum(y), max(y), cert
    (5, 1, None)
    """
    upper = 1 if distinct else k
    family: dict[frozenset[int], int] = {
        frozenset([v]): net.in_degree(v) for v in targets if net.in_degree(v) < k
    }
    while True:
        items = sorted(family.items(), key=lambda item: sorted(item[0]))
        y = _solve_roots(net, k, upper, items)
        if y is None:
            cert = _packing_certificate(net, items, k, targets)
            if cert is None:
                cert = {
                    "kind": "cut-family",
                    "trees": k,
                    "sets": [sorted(net.nodes[i] for i in s) for s, _ in items],
                    "entering_arcs": [e for _, e in items],
                    "required": k,
                    "distinct": distinct,
                }
            return None, cert
        cuts = rooted_failures(net, y, targets, k)
        if not cuts:
            return y, None
        for c in cuts:
            family[c.sink_side] = net.entering(c.sink_side)


def _quick_try(net: ArcNet, k: int, targets: Sequence[int]) -> list[int] | None:
    """Roots on the ``k`` span nodes of smallest in-degree (cycling if ``k`` is larger).

    Ties go to nodes with fewer distinct in-neighbours (grid corners before interior nodes).
    """
    order = sorted(targets, key=lambda v: (net.in_degree(v), len(net.ins[v]), v))
    y = [0] * net.n
    for i in range(k):
        y[order[i % len(order)]] += 1
    return None if rooted_failures(net, y, targets, k, stop_after=1) else y


def maximise_free(
    net: ArcNet,
    targets: Sequence[int],
    bound: int,
    bound_certificate: dict[str, Any],
    *,
    all_nodes: bool,
    distinct: bool,
) -> tuple[int, list[int], dict[str, Any]]:
    """Largest ``k <= bound`` that fits, its root vector, and the certificate for ``k + 1``.

    Parameters
    ----------
    net : ArcNet
    targets : sequence of int
        Span indices.
    bound, bound_certificate
        An upper bound and the certificate ruling out ``bound + 1``.
    all_nodes : bool
        Whether the span is every node (then the greedy Frank method is exact).
    distinct : bool
        Whether roots must be distinct.

    Returns
    -------
    k : int
    y : list of int
        Trees rooted at each index, ``sum(y) == k``.
    certificate : dict
        Rules out ``k + 1``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.free import in_degree_upper_bound
    >>> from supermesh.topologies.connectivity import arc_net
    >>> G = build("mesh:3x3")
    >>> bound, cert = in_degree_upper_bound(G)
    >>> k, y, _ = maximise_free(arc_net(G), range(9), bound, cert, all_nodes=True, distinct=False)
    >>> k, sum(y)
    (2, 2)
    """
    if distinct:
        bound, _, bound_certificate = maximise_free(
            net, targets, bound, bound_certificate, all_nodes=all_nodes, distinct=False
        )
        if bound > net.n:
            bound = net.n
            bound_certificate = {
                "kind": "cut-family",
                "trees": net.n + 1,
                "sets": [list(net.nodes)],
                "entering_arcs": [0],
                "required": net.n + 1,
                "distinct": True,
            }
    cert = bound_certificate
    for k in range(bound, 0, -1):
        y = _quick_try(net, k, targets)
        if y is not None and distinct and max(y) > 1:
            y = None
        found: dict[str, Any] | None = None
        if y is None and all_nodes and not distinct:
            y, found = decide_free(net, k)
        elif y is None:
            y, found = decide_cutting_plane(net, k, targets, distinct=distinct)
        if y is not None:
            return k, y, cert
        if found is None:
            raise SolverError(f"internal error: no certificate ruling out {k} trees")
        cert = found
    return 0, [0] * net.n, cert
