"""Certificates in words: the sentence a person can check by counting arcs.

Every bound of this room comes with a certificate (a node set entered by too few arcs, a
subpartition, a cut of too little bandwidth, a node too far from its root). These functions say
what the certificate proves, in the words ``supermesh bound`` and ``supermesh trees`` print, so
that a notebook or a report can show the same proof.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from supermesh.trees.bounds.counts import CountBound, RootsBound
from supermesh.trees.model import TreePacking
from supermesh.units import plural

__all__ = [
    "allreduce_proof",
    "count_proof",
    "cut_proof",
    "node_set",
    "packing_proof",
    "roots_proof",
]

SHOWN = 12
"""Node ids (and sets) listed before the rest is summarised."""


def node_set(ids: Sequence[int], shown: int = SHOWN) -> str:
    """``{0, 3, 5}``, or the first ``shown`` ids and how many there are.

    Examples
    --------
    >>> node_set([0, 3]), node_set(range(20), shown=2)
    ('{0, 3}', '{0, 1, ... (20 nodes)}')
    """
    ids = list(ids)
    listed = ", ".join(map(str, ids[:shown]))
    return "{" + (listed if len(ids) <= shown else f"{listed}, ... ({len(ids)} nodes)") + "}"


def _steiner_note(exact: bool) -> str:
    if exact:
        return ""
    return (
        " Memory/I-O chiplets may relay, so this is a Steiner problem: a feasible answer means no "
        "cut rules it out (a necessary condition); `supermesh trees` exhibits the trees."
    )


def roots_proof(bound: RootsBound, label: str = "") -> str:
    """Why trees with ``bound.roots`` do or do not fit (Edmonds' branching theorem).

    Parameters
    ----------
    bound : RootsBound
        The answer of :func:`~supermesh.trees.bounds.counts.check_roots`.
    label : str, optional
        Shown after the roots, e.g. ``" (corners)"``.

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds import check_roots
    >>> print(roots_proof(check_roots(build("mesh:3x3"), [0, 2, 8])))  # doctest: +ELLIPSIS
    Roots 0, 2, 8: 3 trees do NOT fit. Proof (Edmonds): the set {6} is entered by 2 arcs, ...
    """
    k = len(bound.roots)
    head = f"Roots {', '.join(map(str, bound.roots))}{label}: "
    if bound.feasible:
        return (
            head + f"{plural(k, 'tree')} fit{'' if bound.exact else ' (not ruled out)'}. Proof: "
            "every node "
            f"that must be reached has {k} arc-disjoint paths from the roots (Edmonds' branching "
            "theorem, checked by max-flow)." + _steiner_note(bound.exact)
        )
    c = bound.certificate or {}
    verb = "left" if bound.direction == "in" else "entered"
    return (
        head + f"{plural(k, 'tree')} do NOT fit. Proof (Edmonds): the set {node_set(c['set'])} "
        f"is {verb} by {plural(c['entering_arcs'], 'arc')}, but {c['required']} of the trees "
        "have their root outside "
        f"it and each needs an arc of its own to {'leave' if bound.direction == 'in' else 'enter'}"
        " it."
    )


def count_proof(bound: CountBound, distinct: bool = False) -> str:
    """Why at most ``bound.max_trees`` trees fit with free roots (Frank's theorem).

    Parameters
    ----------
    bound : CountBound
        The answer of :func:`~supermesh.trees.bounds.free.max_trees_free`.
    distinct : bool
        Whether each node could root at most one tree.

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds import max_trees_free
    >>> print(count_proof(max_trees_free(build("mesh:3x3"))))  # doctest: +ELLIPSIS
    At most 2 trees with free roots; 2 fit with roots ... Proof that 3 do not (Frank): ...
    """
    k, c = bound.max_trees, bound.certificate
    which = "distinct " if distinct else "free "
    roots = ", ".join(map(str, bound.roots))
    head = (
        f"At most {plural(k, 'tree')} with {which}roots; {k} fit with "
        f"{'root' if len(bound.roots) == 1 else 'roots'} {roots}"
        + ("" if bound.exact else " (not ruled out)")
        + ". "
    )
    verb = "left" if bound.direction == "in" else "entered"
    sets = ", ".join(node_set(s) for s in c["sets"][:SHOWN])
    if len(c["sets"]) > SHOWN:
        sets += f", ... ({len(c['sets'])} sets)"
    if c.get("kind") == "subpartition":
        t = len(c["sets"])
        proof = (
            f"Proof that {k + 1} do not (Frank): the {t} disjoint sets {sets} are {verb} by "
            f"{plural(sum(c['entering_arcs']), 'arc')} in total, fewer than {k + 1} x ({t} - 1) = "
            f"{c['required']}; each tree needs an arc into every set but the one holding its root."
        )
    else:
        proof = (
            f"Proof that {c['required']} do not: the sets {sets} are {verb} by "
            f"{', '.join(map(str, c['entering_arcs'][:SHOWN]))} arcs, so each must hold "
            f"{c['required']} minus that many roots, and no choice of {c['required']} "
            f"{'distinct ' if c.get('distinct') else ''}roots does so for all of them."
        )
    return head + proof + _steiner_note(bound.exact)


def cut_proof(certificate: dict[str, Any], collective: str) -> str:
    """Why a collective cannot beat the cut bound: the bottleneck set and its bandwidth.

    Parameters
    ----------
    certificate : dict
        One phase of :attr:`~supermesh.trees.bounds.throughput.RateBound.certificate`.
    collective : str
        ``allgather`` or ``reducescatter`` (named in the sentence).

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds import throughput_bound
    >>> b = throughput_bound(build("mesh:2x2"), "allgather")
    >>> print(cut_proof(b.certificate, "allgather"))  # doctest: +ELLIPSIS
    allgather: the set {...} is entered by 2 arcs of total bandwidth 2 and the 3 of 4 shards ...
    """
    leaving = certificate["direction"] == "leaving"
    n, outside = certificate["ranks"], certificate["ranks_outside"]
    need = (
        f"its contributions to the {outside} of {n} shards owned outside it must leave it"
        if leaving
        else f"the {outside} of {n} shards owned outside it must enter it"
    )
    return (
        f"{collective}: the set {node_set(certificate['set'])} is "
        f"{'left' if leaving else 'entered'} by {plural(certificate['arcs'], 'arc')} of total "
        "bandwidth "
        f"{certificate['bandwidth']} and {need}, so "
        f"T >= ({outside}/{n}) M / {certificate['bandwidth']}."
    )


def allreduce_proof(certificate: dict[str, Any]) -> str:
    """Why no AllReduce beats its bound: a partition's transfers or a cut, in one sentence.

    Parameters
    ----------
    certificate : dict
        The certificate of :func:`supermesh.sim.bounds.allreduce_bound`: ``kind`` ``partition``
        (``parts``, ``transfers``, ``crossing_bandwidth``, ``sets`` unless every part is one
        node) or ``cut`` (``set``, ``entering_bandwidth``).

    Returns
    -------
    str

    Examples
    --------
    >>> print(allreduce_proof({"kind": "partition", "parts": 4, "transfers": 6,
    ...                        "crossing_bandwidth": 8.0}))  # doctest: +NORMALIZE_WHITESPACE
    every node its own part: each element needs 6 transfers between the 4 parts (one-way
    gossip, 2 (k - 1)) over arcs of total bandwidth 8, so T >= 6 M / 8.
    >>> print(allreduce_proof({"kind": "cut", "set": [0], "entering_bandwidth": 2.0}))
    ... # doctest: +NORMALIZE_WHITESPACE
    the set {0} holds a rank and misses one: it must receive M bytes (a value of every
    element) through arcs of total bandwidth 2, so T >= M / 2.
    """
    if certificate["kind"] == "cut":
        b = f"{certificate['entering_bandwidth']:g}"
        return (
            f"the set {node_set(certificate['set'])} holds a rank and misses one: it must "
            f"receive M bytes (a value of every element) through arcs of total bandwidth {b}, "
            f"so T >= M / {b}."
        )
    sets = certificate.get("sets")
    parts = (
        "every node its own part"
        if sets is None
        else "the parts "
        + ", ".join(node_set(x) for x in sets[:SHOWN])
        + (", ..." if len(sets) > SHOWN else "")
    )
    t, b = certificate["transfers"], f"{certificate['crossing_bandwidth']:g}"
    return (
        f"{parts}: each element needs {t} transfers between the {certificate['parts']} parts "
        f"(one-way gossip, 2 (k - 1)) over arcs of total bandwidth {b}, so T >= {t} M / {b}."
    )


def packing_proof(packing: TreePacking) -> str:
    """Why an ``infeasible`` packing has no trees: its certificate in one sentence.

    Parameters
    ----------
    packing : TreePacking
        A packing with status ``infeasible`` (an Edmonds set, a node beyond the height limit,
        or a solver's proof).

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.packing import pack_trees
    >>> p = pack_trees(build("mesh:3x3"), [0, 2, 8])
    >>> print(packing_proof(p))  # doctest: +ELLIPSIS
    Proof (Edmonds): the node set {6} is entered by 2 arcs, but 3 trees have their root ...
    """
    c: dict[str, Any] = packing.certificate or {}
    if "set" in c:
        verb = "left" if packing.direction == "in" else "entered"
        nodes = c["set"]
        listed = ", ".join(map(str, nodes[:SHOWN])) + (", ..." if len(nodes) > SHOWN else "")
        return (
            f"Proof (Edmonds): the node set {{{listed}}} is {verb} by "
            f"{plural(c['entering_arcs'], 'arc')}, but {plural(c['required'], 'tree')} "
            f"{'has its' if c['required'] == 1 else 'have their'} root outside it."
        )
    if "distance" in c:
        return (
            f"Proof: node {c['node']} is {c['distance']} hops from root {c['root']}, "
            f"more than the height limit {c['max_height']}."
        )
    return f"Proof: {c.get('reason', 'see the certificate')} ({c.get('solver', 'solver')})."
