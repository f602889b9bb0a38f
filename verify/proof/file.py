"""Check a certificate file of ``supermesh prove`` (``format: "supermesh-proof"``), claim by claim.

One file proves one size of a family. Its fields and what verify re-derives of each:

``topology``, ``size``, ``direction``
    the topology is built from its spec; ``size`` is the size part of that spec.
``max_trees`` with ``upper`` and ``lower``
    no ``max_trees + 1`` arc-disjoint spanning trees exist with any roots: ``upper`` is a Frank
    subpartition (``entering_per_set`` recounted set by set) or a cut family (decided by
    enumeration), recounted; ``max_trees`` trees do exist: ``lower`` exhibits them, either
    ``{"choice": NAME}`` (that choice's trees, over every compute chiplet) or ``{"packing": ...}``
    (a tree file's document), checked as a tree file is. ``lower`` null: not shown (``partial``).
``max_trees_roots``
    roots with which ``max_trees`` trees fit: re-derived when ``lower`` exhibits trees with
    exactly these roots, or by Edmonds' flow condition when every node must be spanned (with
    relays the condition is only necessary: unproven).
``choices``
    per root choice (:mod:`~supermesh.verify.proof.choices`): ``roots``, ``span`` and
    ``relay_only`` are the choice's definition; ``status`` ``optimal`` / ``feasible``: ``packing``
    is a valid tree file with those roots and span, and ``height``, ``lower_bound``, ``method``
    and ``status`` restate it; ``bound`` says which proof the lower bound has: ``eccentricity``
    (re-derived: the largest root eccentricity) or ``cpsat`` (above it: the solver's, unproven);
    ``infeasible``: ``certificate`` is an Edmonds cut for those roots (recounted); ``unknown``:
    nothing was found within the time limit; ``n/a``: the choice does not exist here.
``findings``, ``status``
    the failures the tool's own re-check found (verify's errors must be exactly none when the
    list is empty, and a listed failure verify does not find is an error), and ``proven`` exactly
    when there are none, ``lower`` exhibits the trees and every choice is settled (``optimal``,
    ``infeasible`` or ``n/a``), else ``partial``.

``time_limit`` (the CP-SAT seconds per choice) states nothing about the topology.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError
from supermesh.verify.claims import Claim, re_derived, unproven, unproven_findings
from supermesh.verify.documents import FileReport, is_int, is_num, topology_for, unknown_fields
from supermesh.verify.findings import Finding
from supermesh.verify.proof.packings import check_choice, check_packing_doc
from supermesh.verify.topology.counting import flow_failure
from supermesh.verify.trees.certificates import check_frank_certificate, crossing_arcs
from supermesh.verify.trees.families import check_cut_family

__all__ = ["FORMAT", "check_proof_document"]

FORMAT = "supermesh-proof"
STATUSES = ("proven", "partial")
SETTLED = ("optimal", "infeasible", "n/a")
TOP = (
    "format",
    "version",
    "topology",
    "size",
    "direction",
    "time_limit",
    "max_trees",
    "max_trees_roots",
    "upper",
    "lower",
    "choices",
    "findings",
    "status",
)
UPPER = ("kind", "trees", "sets", "entering_arcs", "entering_per_set", "required", "distinct")


def _bad(msg: str) -> Finding:
    return Finding("proof-mismatch", msg)


def _upper(G: nx.MultiDiGraph, doc: dict[str, Any], k: int) -> tuple[list[Finding], list[Claim]]:
    upper, direction = doc.get("upper"), doc["direction"]
    statement = f"no {k + 1} arc-disjoint spanning trees exist, whatever their roots"
    if not isinstance(upper, dict):
        return [_bad("upper is not a certificate object")], []
    if upper.get("kind") == "cut-family":
        found, decided = check_cut_family(G, upper, direction=direction)
        if upper.get("trees") != k + 1:
            found.append(_bad(f"upper rules out {upper.get('trees')!r} trees, not {k + 1}"))
        if found:
            return [Finding(f.code, f"upper: {f.message}") for f in found], []
        if not decided:
            return [], [unproven("upper", statement, "a cut family too large to enumerate")]
        return [], [re_derived("upper", statement, "cut family: every root vector enumerated")]
    if not is_int(upper.get("trees")):
        return [_bad("upper must state the tree count it rules out ('trees')")], []
    if upper.get("kind") != "subpartition":
        return [_bad(f"upper has kind {upper.get('kind')!r}, not subpartition or cut-family")], []
    found = [
        Finding(f.code, f"upper: {f.message}")
        for f in check_frank_certificate(G, k + 1, upper, direction=direction)
    ]
    per_set = upper.get("entering_per_set")
    sets: list[Any] = upper["sets"] if isinstance(upper.get("sets"), list) else []
    if per_set is not None:
        true = [
            crossing_arcs(G, X, direction=direction)
            for X in sets
            if isinstance(X, list) and all(is_int(v) and v in G for v in X)
        ]
        if per_set != true:
            found.append(_bad(f"upper.entering_per_set is {per_set!r}, the recount gives {true}"))
    if found:
        return found, []
    why = (
        f"Frank: the {len(sets)} disjoint sets are entered by {upper.get('entering_arcs')} "
        f"arcs in all, fewer than {k + 1} x {len(sets) - 1} (recounted)"
    )
    return [], [re_derived("upper", statement, why)]


def _lower(
    G: nx.MultiDiGraph, doc: dict[str, Any], k: int, choices: dict[str, Any]
) -> tuple[list[Finding], list[Claim], list[int] | None]:
    """The trees ``lower`` exhibits: findings, claims, and their roots (None: none shown)."""
    lower, source = doc.get("lower"), "lower"
    statement = f"{k} arc-disjoint spanning trees exist"
    if lower is None:
        return [], [], None
    if not isinstance(lower, dict):
        return [_bad("lower is neither null nor an object")], [], None
    if "choice" in lower:
        chosen = choices.get(lower["choice"]) if isinstance(lower["choice"], str) else None
        if not isinstance(chosen, dict) or chosen.get("status") not in ("optimal", "feasible"):
            return [_bad(f"lower names choice {lower['choice']!r}, which holds no trees")], [], None
        if chosen.get("span") is not None:
            return (
                [_bad(f"lower's choice {lower['choice']!r} spans fewer than every chiplet")],
                [],
                None,
            )
        packing_doc, source = chosen.get("packing"), f"choice {lower['choice']}"
    else:
        packing_doc = lower.get("packing")
    where = "lower.packing" if "choice" not in lower else f"choices.{lower['choice']}.packing"
    found, inner, packing = check_packing_doc(G, packing_doc, doc, where)
    if packing is None:
        return found, [], None
    if len(packing.trees) != k or packing.span is not None:
        found.append(
            _bad(
                f"lower exhibits {len(packing.trees)} trees"
                + (" over a smaller span" if packing.span is not None else "")
                + f", but max_trees is {k}"
            )
        )
    if "choice" in lower:  # the choice's own findings are reported with the choice
        found = [f for f in found if f.code == "proof-mismatch"]
    if any(f.is_error for f in found):
        return found, [], None
    roots = [t.root for t in packing.trees]
    shown = re_derived("lower", statement, f"exhibited ({source}), checked tree by tree")
    return found, [shown, *(inner if "choice" not in lower else [])], roots


def _roots_claim(
    G: nx.MultiDiGraph, doc: dict[str, Any], k: int, shown: list[int] | None
) -> tuple[list[Finding], list[Claim]]:
    roots = doc.get("max_trees_roots")
    if roots is None:
        return [], []
    if not (
        isinstance(roots, list) and len(roots) == k and all(is_int(r) and r in G for r in roots)
    ):
        return [_bad(f"max_trees_roots {roots!r} is not {k} node ids")], []
    statement = f"{k} trees fit with roots {sorted(roots)}"
    if shown is not None and Counter(shown) == Counter(roots):
        return [], [re_derived("max_trees_roots", statement, "lower exhibits trees with them")]
    span = sorted(n for n, kind in G.nodes(data="kind") if kind == "compute")
    why = flow_failure(G, k, list(roots), doc["direction"], span)
    if why is not None:
        return [_bad(f"max_trees_roots {sorted(roots)}: no {k} trees fit: {why}")], []
    if len(span) < G.number_of_nodes():
        return [], [
            unproven(
                "max_trees_roots",
                statement,
                "with relays the flow condition is necessary, not sufficient",
            )
        ]
    return [], [re_derived("max_trees_roots", statement, "Edmonds' condition holds (max-flow)")]


def check_proof_document(
    doc: Any, *, source: str = "certificate file", G: Any = None
) -> FileReport:
    """Check a ``supermesh-proof`` document (see the module docstring).

    Parameters
    ----------
    doc : Any
        The parsed document. One still being assembled (no ``findings`` / ``status`` yet) is
        checked without those two fields.
    source : str
        Name used in messages.
    G : networkx.MultiDiGraph, optional
        The topology, when the caller has built it already.

    Returns
    -------
    FileReport
        Kind ``"proof"``.

    Raises
    ------
    InputFileError
        Not a certificate file, or ``topology``, ``direction`` or ``max_trees`` malformed.

    Examples
    --------
    >>> doc = {"format": "supermesh-proof", "topology": "mesh:2x2", "size": "2x2",
    ...        "direction": "out", "max_trees": 2, "choices": {}, "lower": None,
    ...        "upper": {"kind": "subpartition", "trees": 3, "sets": [[0], [1], [2], [3]],
    ...                  "entering_arcs": 8, "required": 9}}
    >>> report = check_proof_document(doc)
    >>> report.ok, [c.field for c in report.claims]
    (True, ['upper'])
    """
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputFileError(f"{source} is not a {FORMAT} document")
    if isinstance(doc.get("version", 1), bool) or doc.get("version", 1) != 1:
        raise InputFileError(f"{source} has version {doc.get('version')!r}; this tool reads 1")
    topology, direction, k = doc.get("topology"), doc.get("direction"), doc.get("max_trees")
    if not (
        isinstance(topology, str)
        and direction in ("out", "in")
        and isinstance(k, int)
        and not isinstance(k, bool)
        and k >= 0
    ):
        raise InputFileError(
            f"{source}: topology, direction (out or in) and max_trees (a count) are required"
        )
    G = G if G is not None else topology_for(topology, None)
    found: list[Finding] = unknown_fields(doc, TOP, "the file") + unknown_fields(
        doc.get("upper"), UPPER, "upper"
    )
    if isinstance(doc.get("lower"), dict):
        found += unknown_fields(
            doc["lower"], ("choice",) if "choice" in doc["lower"] else ("packing",), "lower"
        )
    claims: list[Claim] = []
    size = topology.split(":", 1)[-1].split(",", 1)[0]
    if doc.get("size") != size:
        found.append(_bad(f"size {doc.get('size')!r} is not the size of {topology!r} ({size})"))
    limit = doc.get("time_limit", 1.0)
    if not (is_num(limit) and limit > 0):
        found.append(_bad(f"time_limit {limit!r} is not a positive number of seconds"))
    choices = doc.get("choices")
    if not isinstance(choices, dict):
        raise InputFileError(f"{source}: choices must be an object")
    more, more_claims = _upper(G, doc, k)
    found += more
    claims += more_claims
    more, more_claims, shown = _lower(G, doc, k, choices)
    found += more
    claims += more_claims
    more, more_claims = _roots_claim(G, doc, k, shown)
    found += more
    claims += more_claims
    for name, choice in sorted(choices.items()):
        more, more_claims = check_choice(G, name, choice, doc)
        found += more
        claims += more_claims
    errors = [f for f in found if f.is_error]
    if "findings" in doc:
        listed = doc["findings"]
        if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
            found.append(_bad("findings must be a list of messages"))
        elif listed and not errors:
            found.append(
                _bad(
                    f"findings lists {len(listed)} failure(s) ({listed[0][:80]!r}), "
                    "but every claim checks"
                )
            )
    if "status" in doc:
        settled = all(isinstance(c, dict) and c.get("status") in SETTLED for c in choices.values())
        proven = not doc.get("findings") and shown is not None and settled and not errors
        want = "proven" if proven else "partial"
        if doc["status"] != want:
            found.append(
                _bad(
                    f"status {doc['status']!r}, but the file is {want}: "
                    + (
                        "every claim checks and every choice is settled"
                        if proven
                        else "trees not exhibited, a choice unsettled or a check failing"
                    )
                )
            )
    found += unproven_findings(claims)
    summary = (
        f"proof for {topology}: {direction}-trees, max {k}, "
        f"{len(choices)} root choice(s), {doc.get('status', 'being written')}"
    )
    return FileReport(source, "proof", summary, tuple(found), claims=tuple(claims))
