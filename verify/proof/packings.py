"""The trees inside a certificate file: each choice's packing, and the packing ``lower`` shows.

A packing inside a certificate file is a tree file's document: it is read and checked as one
(:func:`~supermesh.verify.trees.packing.check_packing`), on the file's topology and direction. A
choice (see :mod:`~supermesh.verify.proof.file` for its fields) restates its packing's roots,
span, height, bound, method and status; each restatement is held against the packing and the
choice's definition (:func:`~supermesh.verify.proof.choices.choice_definition`).
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from supermesh.errors import InputFileError
from supermesh.trees.model import TreePacking
from supermesh.verify.claims import Claim, re_derived
from supermesh.verify.documents import unknown_fields
from supermesh.verify.findings import Finding
from supermesh.verify.proof.choices import NAMES, choice_definition
from supermesh.verify.trees.certificates import check_edmonds_certificate
from supermesh.verify.trees.claims import root_eccentricities
from supermesh.verify.trees.file import check_tree_document

__all__ = ["CHOICE_STATUSES", "check_choice", "check_packing_doc"]

CHOICE_STATUSES = ("optimal", "feasible", "infeasible", "unknown", "n/a")
CHOICE = (
    "status",
    "roots",
    "span",
    "relay_only",
    "packing",
    "certificate",
    "height",
    "lower_bound",
    "bound",
    "method",
)


def _bad(msg: str) -> Finding:
    return Finding("proof-mismatch", msg)


def check_packing_doc(
    G: nx.MultiDiGraph, packing_doc: Any, doc: dict[str, Any], where: str
) -> tuple[list[Finding], list[Claim], TreePacking | None]:
    """Check a packing inside a certificate file as a tree file: (findings, claims, packing).

    The claims' fields are prefixed with ``where`` (``choices.sides.packing.stats.balance``).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing_doc : object
        The embedded tree-file document.
    doc : dict
        The certificate document it sits in.
    where : str
        Its path in the file, prefixed to findings and claims.

    Returns
    -------
    (list of Finding, list of Claim, TreePacking or None)
        Findings, claims, and the packing read (``None`` when it does not read).

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> from supermesh.topologies import build
    >>> doc = {"topology": "smbi:4x4", "direction": "out"}
    >>> found, _, p = check_packing_doc(build("smbi:4x4"), smbi_corner_trees(4).to_json(), doc, "x")
    >>> found, len(p.trees)
    ([], 4)
    """
    try:
        packing, found, claims, _, _ = check_tree_document(G, packing_doc, where)
    except InputFileError as exc:
        return [_bad(f"{where}: {exc}")], [], None
    if packing.topology != doc["topology"] or packing.direction != doc["direction"]:
        found.append(
            _bad(
                f"{where}: trees for {packing.topology} ({packing.direction}), the file "
                f"is for {doc['topology']} ({doc['direction']})"
            )
        )
        return found, [], None
    found = [
        Finding(f.code, f"{where}: {f.message}", f.severity, f.set, f.tree, f.arc, f.node, f.entry)
        for f in found
    ]
    claims = [Claim(f"{where}.{c.field}", c.statement, c.verdict, c.argument) for c in claims]
    return found, claims, packing


def _restated(name: str, c: dict[str, Any], packing: TreePacking, ecc: int | None) -> list[Finding]:
    where = f"choices.{name}"
    found = []
    pairs = (
        ("height", packing.objective),
        ("lower_bound", packing.lower_bound),
        ("status", packing.status),
        ("method", packing.method),
    )
    for field, value in pairs:
        if c.get(field) != value:
            found.append(_bad(f"{where}.{field} is {c.get(field)!r}, its packing says {value!r}"))
    want = "eccentricity" if ecc is not None and packing.lower_bound == ecc else "cpsat"
    if c.get("bound") != want:
        found.append(
            _bad(
                f"{where}.bound is {c.get('bound')!r}: the lower bound "
                f"{packing.lower_bound} is {'the' if want == 'eccentricity' else 'not the'}"
                f" eccentricity bound {ecc}, so it is {want!r}"
            )
        )
    return found


def check_choice(
    G: nx.MultiDiGraph, name: str, c: Any, doc: dict[str, Any]
) -> tuple[list[Finding], list[Claim]]:
    """Check one root choice of a certificate file (module docstring): findings and claims.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    name : str
        The choice's name (its key in ``choices``).
    c : object
        The choice's object in the file.
    doc : dict
        The whole certificate document (topology, direction).

    Returns
    -------
    (list of Finding, list of Claim)
        Errors found; the claims re-derived or unproven (none when there are errors).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> doc = {"topology": "mesh:4x4", "direction": "out"}
    >>> c = {"status": "infeasible", "roots": [0, 3, 15, 12], "span": None, "relay_only": [],
    ...      "packing": None, "certificate": {"set": [0], "entering_arcs": 2, "required": 3}}
    >>> found, claims = check_choice(build("mesh:4x4"), "corners", c, doc)
    >>> found, [cl.verdict for cl in claims]
    ([], ['re-derived'])
    """
    where = f"choices.{name}"
    if name not in NAMES:
        return [_bad(f"{where}: {name!r} is not a root choice ({', '.join(NAMES)})")], []
    if not isinstance(c, dict) or c.get("status") not in CHOICE_STATUSES:
        return [_bad(f"{where} has no status among {', '.join(CHOICE_STATUSES)}")], []
    direction, status = doc["direction"], c["status"]
    unknown = unknown_fields(c, CHOICE, where)
    if unknown:
        return unknown, []
    defined = choice_definition(G, name, direction=direction)
    if defined is None:
        if status != "n/a":
            return [_bad(f"{where}: this choice does not exist on {doc['topology']} (n/a)")], []
        return [], []
    if status == "n/a":
        return [_bad(f"{where} says n/a, but the choice exists on {doc['topology']}")], []
    roots, span = defined
    compute = sorted(n for n, k in G.nodes(data="kind") if k == "compute")
    relays = [] if span is None else sorted(set(compute) - set(span))
    found = []
    for field, want in (("roots", roots), ("span", span), ("relay_only", relays)):
        if c.get(field) != want:
            found.append(
                _bad(f"{where}.{field} is {c.get(field)!r}; the choice's definition gives {want!r}")
            )
    if found:
        return found, []
    if status in ("infeasible", "unknown"):
        for field in ("packing", "height") + (("certificate",) if status == "unknown" else ()):
            if c.get(field) is not None:
                found.append(_bad(f"{where} is {status} but has a {field}"))
        if status == "unknown" or found:
            return found, []
        extra = unknown_fields(
            c.get("certificate"),
            ("set", "entering_arcs", "required", "roots"),
            f"{where}.certificate",
        )
        if extra:
            return extra, []
        errs = check_edmonds_certificate(
            G, roots, c.get("certificate"), direction=direction, span=span
        )
        if errs:
            return [Finding(f.code, f"{where}: {f.message}") for f in errs], []
        cert = c["certificate"]
        why = (
            f"the set {cert['set'][:8]} is entered by {cert['entering_arcs']} arcs, fewer than "
            f"the {cert['required']} trees rooted outside it (Edmonds, recounted)"
        )
        return [], [re_derived(where, f"no arc-disjoint trees with roots {roots}", why)]
    if c.get("certificate") is not None:
        found.append(_bad(f"{where} is {status} but has a certificate"))
    found_p, claims, packing = check_packing_doc(G, c.get("packing"), doc, f"{where}.packing")
    found += found_p
    if packing is None:
        return found, []
    if [t.root for t in packing.trees] != roots or packing.span != (
        None if span is None else tuple(span)
    ):
        found.append(_bad(f"{where}: the packing's roots or span are not the choice's"))
        return found, []
    ecc = root_eccentricities(G, packing)
    known = [e for e in ecc.values() if e is not None]
    e = max(known) if len(known) == len(ecc) and known else None
    found += _restated(name, c, packing, e)
    return found, claims if not found else []
