"""Re-check infeasibility certificates by counting, not by trusting.

Certificate formats (JSON-ready dicts, as :class:`~supermesh.errors.InfeasibleError` carries)

Edmonds (fixed roots)::

    {"set": [nodes of X], "entering_arcs": a, "required": r, "roots": [r1, ..., rk]}

Edmonds' branching theorem: ``k`` arc-disjoint spanning out-arborescences rooted at
``r1..rk`` exist iff every nonempty node set ``X`` is entered by at least
``|{i : ri not in X}|`` arcs. ``X`` violates it when ``a < r``; then no packing exists, because
every tree rooted outside ``X`` must enter ``X`` on an arc of its own. For in-trees (``direction
"in"``) the same holds on the reversed graph: count the arcs *leaving* ``X``. When trees need only
reach a span (relays allowed), the argument still holds provided ``X`` holds a span node, so a
certificate must contain one. ``roots`` is needed only when the roots are not passed separately.

Frank (free roots)::

    {"sets": [[X1], [X2], ...], "entering_arcs": a, "required": r, "trees": k}

Frank (1978): ``k`` arc-disjoint spanning arborescences with free roots exist iff every
subpartition ``X1..Xt`` (pairwise disjoint nonempty sets) is entered by at least ``k (t - 1)``
arcs in total: each tree has its root in at most one ``Xi`` and must enter all the others.
``a < k (t - 1)`` proves that ``k`` trees are impossible.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory,
   Colloquia Mathematica Societatis János Bolyai 25, 1978.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.model import TreePacking
from supermesh.verify.findings import Finding
from supermesh.verify.trees.heights import check_eccentricity_certificate

__all__ = [
    "CERTIFICATE_FIELDS",
    "KINDS",
    "check_certificate",
    "check_edmonds_certificate",
    "check_frank_certificate",
    "crossing_arcs",
]


KINDS = (None, "subpartition", "cut-family", "eccentricity", "solver", "root-sets")
CERTIFICATE_FIELDS = (
    "kind",
    "set",
    "sets",
    "roots",
    "entering_arcs",
    "required",
    "trees",
    "distinct",
    "entering_per_set",
    "full_sets",
    "root",
    "node",
    "distance",
    "max_height",
    "solver",
    "reason",
)
"""The certificate kinds a tree file may carry (``None``: an Edmonds cut or a Frank
subpartition, told apart by ``set`` / ``sets``)."""


def _span(G: nx.MultiDiGraph, span: Iterable[int] | None) -> set[int]:
    if span is not None:
        return {n for n in span if n in G}
    return {n for n, kind in G.nodes(data="kind") if kind == "compute"}


def crossing_arcs(G: nx.MultiDiGraph, X: Iterable[int], *, direction: str = "out") -> int:
    """Number of arcs entering ``X`` (``direction="out"``) or leaving it (``"in"``).

    Parallel arcs count one each.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    X : iterable of int
        A node set.
    direction : {"out", "in"}

    Returns
    -------
    int

    Raises
    ------
    SupermeshError
        On another direction.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> crossing_arcs(build("mesh:4x4"), {15}), crossing_arcs(build("smbi:4x4"), {15})
    (2, 4)
    """
    inside = set(X)
    if direction == "out":
        return sum(1 for u, v in G.edges() if v in inside and u not in inside)
    if direction == "in":
        return sum(1 for u, v in G.edges() if u in inside and v not in inside)
    raise SupermeshError(f"direction {direction!r} is not 'out' or 'in'")


def _node_set(G: nx.MultiDiGraph, value: Any, what: str) -> tuple[set[int] | None, str | None]:
    if not isinstance(value, list) or not value:
        return None, f"{what} is not a nonempty list of node ids"
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        return None, f"{what} holds something that is not an integer node id"
    missing = [n for n in value if n not in G]
    if missing:
        return None, f"{what} names node {missing[0]}, which does not exist"
    if len(set(value)) != len(value):
        return None, f"{what} lists a node twice"
    return set(value), None


def _stated(cert: dict[str, Any], *names: str) -> int | None:
    for name in names:
        value = cert.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _malformed(msg: str) -> list[Finding]:
    return [Finding("certificate-malformed", f"certificate: {msg}")]


def _invalid(msg: str) -> Finding:
    return Finding("certificate-invalid", f"certificate: {msg}")


def check_edmonds_certificate(
    G: nx.MultiDiGraph,
    roots: Sequence[int],
    certificate: Any,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> list[Finding]:
    """Check that a node set really violates Edmonds' condition for the given roots.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    roots : sequence of int
        The requested roots, one per tree (repeats allowed).
    certificate : dict
        ``{"set": [...], "entering_arcs": a, "required": r}`` (see the module docstring).
    direction : {"out", "in"}
        For ``"in"`` the arcs leaving the set are counted (Edmonds on the reversed graph).
    span : iterable of int, optional
        Nodes the trees must reach (default the compute chiplets); the set must hold one.

    Returns
    -------
    list of Finding
        Empty iff the certificate is valid: the stated counts are the true counts and the
        crossing arcs are fewer than the roots outside the set.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:4x4")   # three corner roots; the fourth corner has only 2 links in
    >>> cert = {"set": [15], "entering_arcs": 2, "required": 3}
    >>> check_edmonds_certificate(G, [0, 3, 12], cert)
    []
    >>> [f.code for f in check_edmonds_certificate(build("smbi:4x4"), [0, 3, 12], cert)]
    ['certificate-invalid', 'certificate-invalid']
    """
    if not isinstance(certificate, dict):
        return _malformed("is not an object")
    X, err = _node_set(G, certificate.get("set"), "'set'")
    if X is None:
        return _malformed(err or "bad set")
    if not all(isinstance(r, int) and not isinstance(r, bool) and r in G for r in roots):
        return _malformed(f"the roots {list(roots)[:8]} are not all node ids of the topology")
    entering = crossing_arcs(G, X, direction=direction)
    required = sum(1 for r in roots if r not in X)
    stated_a = _stated(certificate, "entering_arcs", "entering")
    stated_r = _stated(certificate, "required")
    if stated_a is None or stated_r is None:
        return _malformed("lacks the integer fields 'entering_arcs' and 'required'")
    found: list[Finding] = []
    what = "entering" if direction == "out" else "leaving"
    shown = sorted(X)[:12]
    xs = "{" + ", ".join(map(str, shown)) + (", ..." if len(X) > 12 else "") + "}"
    if stated_a != entering:
        found.append(_invalid(f"states {stated_a} arcs {what} {xs}, the true count is {entering}"))
    if stated_r != required:
        found.append(
            _invalid(
                f"states {stated_r} roots outside {xs}, the roots {list(roots)} put {required}"
            )
        )
    if not X & _span(G, span):
        found.append(_invalid(f"{xs} holds no node the trees must reach, so it proves nothing"))
    elif entering >= required:
        found.append(
            _invalid(
                f"{entering} arcs {what} {xs} and {required} roots outside it: Edmonds' condition "
                "holds for this set, so it proves nothing"
            )
        )
    return found


def check_frank_certificate(
    G: nx.MultiDiGraph,
    k: int,
    certificate: Any,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> list[Finding]:
    """Check that a subpartition proves ``k`` free-root trees impossible (Frank 1978).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    k : int
        The number of trees claimed impossible (the claimed maximum plus one).
    certificate : dict
        ``{"sets": [[...], ...], "entering_arcs": a, "required": r}``, where ``a`` is the total
        or a list with one count per set (the form ``supermesh bound`` writes); ``trees``, if
        present, must equal ``k``.
    direction : {"out", "in"}
    span : iterable of int, optional
        Nodes the trees must reach (default the compute chiplets); every set must hold one.

    Returns
    -------
    list of Finding
        Empty iff the sets are pairwise disjoint and nonempty, each holds a span node, the stated
        counts are true and the crossing arcs add up to less than ``k * (t - 1)``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:3x3")   # the 4 corners have 2 links each: 8 < 3 * (4 - 1)
    >>> cert = {"sets": [[0], [2], [6], [8]], "entering_arcs": 8, "required": 9}
    >>> check_frank_certificate(G, 3, cert)
    []
    >>> [f.code for f in check_frank_certificate(G, 2, cert)]
    ['certificate-invalid', 'certificate-invalid']
    """
    if not isinstance(certificate, dict):
        return _malformed("is not an object")
    raw = certificate.get("sets")
    if not isinstance(raw, list) or not raw:
        return _malformed("'sets' is not a nonempty list of node lists")
    sets: list[set[int]] = []
    for i, value in enumerate(raw):
        X, err = _node_set(G, value, f"set #{i}")
        if X is None:
            return _malformed(err or "bad set")
        sets.append(X)
    per_set = certificate.get("entering_arcs")
    if isinstance(per_set, list):
        # one count per set (the form `supermesh bound` writes): check each, then their sum
        if len(per_set) != len(sets) or not all(isinstance(a, int) for a in per_set):
            return _malformed("'entering_arcs' is a list but not one integer per set")
        stated_a: int | None = sum(per_set)
    else:
        stated_a = _stated(certificate, "entering_arcs", "entering")
    stated_r = _stated(certificate, "required")
    if stated_a is None or stated_r is None:
        return _malformed("lacks the integer fields 'entering_arcs' and 'required'")
    found: list[Finding] = []
    if isinstance(per_set, list):
        for i, (X, a) in enumerate(zip(sets, per_set, strict=True)):
            true_a = crossing_arcs(G, X, direction=direction)
            if a != true_a:
                found.append(
                    _invalid(f"states {a} arcs crossing set #{i}, the true count is {true_a}")
                )
    stated_k = _stated(certificate, "trees", "k")
    if "trees" in certificate and stated_k is None:
        return _malformed(f"'trees' is {certificate['trees']!r}, not a tree count")
    if stated_k is not None and stated_k != k:
        found.append(_invalid(f"is for {stated_k} trees, but {k} trees are claimed impossible"))
    seen: dict[int, int] = {}
    for i, X in enumerate(sets):
        for n in X:
            if n in seen:
                found.append(_invalid(f"node {n} is in sets #{seen[n]} and #{i}: not disjoint"))
            seen.setdefault(n, i)
    targets = _span(G, span)
    for i, X in enumerate(sets):
        if not X & targets:
            found.append(_invalid(f"set #{i} holds no node the trees must reach"))
    entering = sum(crossing_arcs(G, X, direction=direction) for X in sets)
    required = k * (len(sets) - 1)
    if stated_a != entering:
        found.append(_invalid(f"states {stated_a} crossing arcs, the true total is {entering}"))
    if stated_r != required:
        found.append(_invalid(f"states required {stated_r}, but k (t - 1) = {required}"))
    if entering >= required:
        found.append(
            _invalid(
                f"{len(sets)} sets are crossed by {entering} arcs >= {k} x {len(sets) - 1}: "
                "Frank's condition holds, so they prove nothing"
            )
        )
    return found


def check_certificate(G: nx.MultiDiGraph, packing: TreePacking) -> list[Finding]:
    """Check the certificate a packing carries: Edmonds (``set``) or Frank (``sets``).

    An Edmonds certificate must list its ``roots``; a Frank certificate its ``trees`` (k), or
    ``k`` is taken as one more than the trees of the packing's first set.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking
        An infeasible answer with its ``certificate``.

    Returns
    -------
    list of Finding
        Empty when the certificate proves what it says.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> cert = {"set": [15], "entering_arcs": 2, "required": 3, "roots": [0, 3, 12]}
    >>> check_certificate(build("mesh:4x4"), TreePacking("mesh:4x4", "out", "infeasible",
    ...                                                  certificate=cert))
    []
    """
    cert = packing.certificate
    if cert is None:
        return [Finding("certificate-missing", "there is no certificate")]
    if not isinstance(cert, dict):
        return _malformed("is not an object")
    kind = cert.get("kind")
    if kind not in KINDS:
        return _malformed(f"kind {kind!r} is not one of {', '.join(map(str, KINDS[1:]))}")
    if kind == "eccentricity":
        return check_eccentricity_certificate(
            G, cert, direction=packing.direction, span=packing.span
        )
    if kind == "solver":
        # a solver's proof cannot be recounted: the claim is reported unproven, not accepted
        return []
    from supermesh.verify.trees.families import check_cut_family, check_root_sets_certificate

    if kind == "cut-family":
        return check_cut_family(G, cert, direction=packing.direction, span=packing.span)[0]
    if kind == "root-sets":
        k = cert.get("required")
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            return _malformed("a root-set certificate must state 'required' (the set size)")
        return check_root_sets_certificate(
            G, k, cert, direction=packing.direction, span=packing.span
        )
    if "sets" in cert:
        k = _stated(cert, "trees", "k")
        if k is None and packing.sets:
            k = len(packing.sets[0].trees) + 1
        if k is None:
            return _malformed("a Frank certificate must state 'trees' (the impossible count)")
        return check_frank_certificate(G, k, cert, direction=packing.direction, span=packing.span)
    roots = cert.get("roots")
    if not isinstance(roots, list) or not all(isinstance(r, int) for r in roots):
        return _malformed("an Edmonds certificate must list its 'roots'")
    return check_edmonds_certificate(G, roots, cert, direction=packing.direction, span=packing.span)
