"""Certificates about families of node sets: cut families, and the root-set degree argument.

Cut family (``kind: "cut-family"``)::

    {"kind": "cut-family", "trees": k, "sets": [[X1], [X2], ...], "entering_arcs": [a1, ...],
     "required": k, "distinct": true}

Every tree rooted outside a set ``X`` must enter it on an arc of its own, so ``X`` must hold at
least ``k - in(X)`` of the ``k`` roots. The certificate claims that no root vector (``distinct``:
each node at most one root) does that for every set at once. It is decided here by enumerating
the root vectors over the nodes of the sets (the other roots may sit anywhere), up to
:data:`ENUMERATION_LIMIT` vectors; a larger family is left undecided.

Root-set degree argument (``kind: "root-sets"``)::

    {"kind": "root-sets", "set": [v], "entering_arcs": a, "required": k, "full_sets": f}

``v`` has ``a < k`` arcs in, so every set of ``k`` trees must have a root at ``v``; a partition of
the ``n`` span nodes into sets of ``k`` has ``f = n // k >= 2`` full sets, but ``v`` roots one
tree only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import networkx as nx

from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import span_nodes
from supermesh.verify.trees.certificates import crossing_arcs

__all__ = ["ENUMERATION_LIMIT", "check_cut_family", "check_root_sets_certificate"]

ENUMERATION_LIMIT = 200_000
"""Most root vectors a cut family is decided by enumerating."""


def _invalid(msg: str) -> Finding:
    return Finding("certificate-invalid", f"certificate: {msg}")


def _vectors(n: int, total: int, cap: int) -> Iterator[tuple[int, ...]]:
    """Every vector of ``n`` entries in ``0..cap`` with sum at most ``total``."""
    if n == 0:
        yield ()
        return
    for first in range(min(cap, total) + 1):
        for rest in _vectors(n - 1, total - first, cap):
            yield (first, *rest)


def check_cut_family(
    G: nx.MultiDiGraph,
    certificate: Any,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> tuple[list[Finding], bool]:
    """Decide a cut family: (findings, decided).

    Returns
    -------
    (list of Finding, bool)
        ``certificate-malformed`` / ``certificate-invalid`` errors (a stated count that is not
        the true one, a root vector meeting every cut); ``decided`` is False when the family is
        too large to enumerate (no finding then: the claim stays unproven).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    certificate : object
        A ``cut-family`` certificate.
    direction : {"out", "in"}
    span : iterable of int, optional

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:3x3")  # 3 distinct roots, each corner short of one in-arc
    >>> cert = {"kind": "cut-family", "trees": 3, "sets": [[0], [2], [6], [8]],
    ...         "entering_arcs": [2, 2, 2, 2], "required": 3, "distinct": True}
    >>> check_cut_family(G, cert)
    ([], True)
    """
    if not isinstance(certificate, dict):
        return [Finding("certificate-malformed", "certificate: is not an object")], True
    k, sets, stated = (
        certificate.get("trees"),
        certificate.get("sets"),
        certificate.get("entering_arcs"),
    )
    if not (
        isinstance(k, int)
        and not isinstance(k, bool)
        and k >= 1
        and isinstance(sets, list)
        and sets
        and isinstance(stated, list)
        and len(stated) == len(sets)
    ):
        return [
            Finding(
                "certificate-malformed",
                "certificate: a cut family needs 'trees', 'sets' and one entering count per set",
            )
        ], True
    family = []
    for i, X in enumerate(sets):
        if not (isinstance(X, list) and X and all(isinstance(v, int) and v in G for v in X)):
            return [
                Finding("certificate-malformed", f"certificate: set #{i} is not a list of node ids")
            ], True
        a = crossing_arcs(G, X, direction=direction)
        if stated[i] != a:
            return [
                _invalid(f"states {stated[i]!r} arcs crossing set #{i}, the true count is {a}")
            ], True
        family.append((frozenset(X), max(0, k - a)))
    if certificate.get("required") != k:
        return [_invalid(f"states required {certificate.get('required')!r}, not {k}")], True
    targets = set(span_nodes(G, span))
    if any(not X & targets for X, _ in family):
        return [_invalid("a set holds no node the trees must reach")], True
    distinct = certificate.get("distinct") is True
    cap = 1 if distinct else k
    nodes = sorted(set().union(*(X for X, _ in family)))
    elsewhere = G.number_of_nodes() - len(nodes)
    for count, y in enumerate(_vectors(len(nodes), k, cap)):
        if count >= ENUMERATION_LIMIT:
            return [], False
        if k - sum(y) > elsewhere * cap:
            continue
        at = dict(zip(nodes, y, strict=True))
        if all(sum(at[v] for v in X) >= need for X, need in family):
            roots = [v for v in nodes for _ in range(at[v])]
            return [
                _invalid(
                    f"roots {roots} (and {k - len(roots)} elsewhere) meet every cut of "
                    "the family: it proves nothing"
                )
            ], True
    return [], True


def check_root_sets_certificate(
    G: nx.MultiDiGraph,
    k: int,
    certificate: Any,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> list[Finding]:
    """Check the degree argument that no partition into root sets of ``k`` exists.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    k : int
        Trees per root set ruled out.
    certificate : object
        A ``root-sets`` certificate.
    direction : {"out", "in"}
    span : iterable of int, optional

    Returns
    -------
    list of Finding
        Empty when the certificate proves it.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> cert = {"kind": "root-sets", "set": [0], "entering_arcs": 3, "required": 4,
    ...         "full_sets": 6}
    >>> check_root_sets_certificate(build("smalter:5x5"), 4, cert)
    []
    """
    if not isinstance(certificate, dict):
        return [Finding("certificate-malformed", "certificate: is not an object")]
    X = certificate.get("set")
    if not (isinstance(X, list) and len(X) == 1 and isinstance(X[0], int) and X[0] in G):
        return [Finding("certificate-malformed", "certificate: 'set' must name one node")]
    v = X[0]
    entering = crossing_arcs(G, X, direction=direction)
    targets = span_nodes(G, span)
    full = len(targets) // k
    found = []
    stated = {"entering_arcs": entering, "required": k, "full_sets": full}
    for name, true in stated.items():
        if certificate.get(name) != true:
            found.append(
                _invalid(f"states {name} {certificate.get(name)!r}, the recount gives {true}")
            )
    if v not in targets:
        found.append(_invalid(f"node {v} is not one the trees must reach"))
    elif not found and (entering >= k or full < 2):
        found.append(
            _invalid(
                f"node {v} has {entering} arcs in and there are {full} full sets "
                f"of {k}: nothing forces it into two sets"
            )
        )
    return found
