"""Check a tree file: its fields, the packing against the topology it names, and its claims.

The ``supermesh-trees`` part of :func:`~supermesh.verify.files.check_document`. The document is
read by :meth:`~supermesh.trees.model.TreePacking.from_json`, which refuses what a tree file may
not contain (a field of the wrong type, a negative id, a share that is not a finite number in
``(0, 1]``, an empty span) with an :class:`~supermesh.errors.InputFileError`. A top-level
``trees`` (older files repeat the first set there) that differs from ``sets`` is reported as a
``duplicate-contradiction`` error instead, so that the rest of the file is still checked. Then:
the packing (:func:`~supermesh.verify.trees.packing.check_packing`), a weighted packing's rate
(:func:`~supermesh.verify.trees.loads.rate_report`), ``stats``
(:func:`~supermesh.verify.trees.stats.check_stats`) and every claim
(:func:`~supermesh.verify.trees.claims.tree_file_claims`): re-derived or unproven.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError
from supermesh.trees.model import TreePacking
from supermesh.verify.claims import Claim, unproven_findings
from supermesh.verify.documents import FileReport, topology_for, unknown_fields
from supermesh.verify.findings import Finding
from supermesh.verify.trees.certificates import CERTIFICATE_FIELDS
from supermesh.verify.trees.claims import tree_file_claims
from supermesh.verify.trees.loads import rate_report
from supermesh.verify.trees.packing import check_packing
from supermesh.verify.trees.rates import is_weighted_packing, rate_claims
from supermesh.verify.trees.stats import check_stats

__all__ = ["METHODS", "check_tree_document", "check_trees_file", "read_tree_document"]

METHODS = (
    "",
    "cpsat",
    "cpsat-orbit",
    "construct",
    "geodesic",
    "closed-form:corners",
    "closed-form:three-corners",
    "closed-form:sides",
    "tto",
    "algorithm1",
    "colgen",
    "rings",
    "root-sets:optimise",
    "root-sets:paper",
    "hand",
)
"""The documented values of ``method`` (how the trees were made; ``""``: not said)."""
TOP = (
    "format",
    "version",
    "topology",
    "direction",
    "status",
    "lower_bound",
    "objective",
    "method",
    "span",
    "sets",
    "trees",
    "certificate",
    "stats",
)
SET = ("trees", "lower_bound")
TREE = ("root", "height", "share", "arcs")


def read_tree_document(doc: Any, source: str) -> tuple[TreePacking, list[Finding]]:
    """Read a tree document for checking: the packing, and a contradicting duplicate if any.

    Parameters
    ----------
    doc : Any
        The parsed document.
    source : str
        Name used in messages.

    Returns
    -------
    (TreePacking, list of Finding)
        The ``duplicate-contradiction`` error when a top-level ``trees`` differs from ``sets``.

    Raises
    ------
    InputFileError
        What a tree file may not contain (see the module docstring).

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> doc = smbi_corner_trees(2).to_json()
    >>> doc["trees"] = []
    >>> [f.code for f in read_tree_document(doc, "f.json")[1]]
    ['duplicate-contradiction']
    """
    found: list[Finding] = unknown_fields(doc, TOP, "the file")
    sets = doc.get("sets") if isinstance(doc, dict) else None
    for i, s in enumerate(sets if isinstance(sets, list) else []):
        found += unknown_fields(s, SET, f"set #{i}")
        trees = s.get("trees") if isinstance(s, dict) else None
        for j, t in enumerate(trees if isinstance(trees, list) else []):
            found += unknown_fields(t, TREE, f"set #{i} tree #{j}")
    if isinstance(doc, dict):
        found += unknown_fields(doc.get("certificate"), CERTIFICATE_FIELDS, "certificate")
    if isinstance(doc, dict) and isinstance(doc.get("sets"), list) and "trees" in doc:
        sets = doc["sets"]
        first = sets[0].get("trees") if len(sets) == 1 and isinstance(sets[0], dict) else None
        if doc["trees"] != first:
            found.append(
                Finding(
                    "duplicate-contradiction",
                    "the top-level 'trees' (the first set, repeated by older files) differs from "
                    "'sets'"
                    + ("" if len(sets) == 1 else f", which holds {len(sets)} sets")
                    + "; the trees are read from 'sets'",
                )
            )
        doc = {k: v for k, v in doc.items() if k != "trees"}
    try:
        packing = TreePacking.from_json(doc, source=source)
    except (TypeError, ValueError) as exc:
        raise InputFileError(f"{source}: malformed tree file ({exc})") from None
    if packing.method not in METHODS:
        found.append(
            Finding(
                "bad-field",
                f"method {packing.method!r} is not one of the documented methods "
                f"({', '.join(m for m in METHODS if m)})",
            )
        )
    return packing, found


def check_tree_document(
    G: Any, doc: Any, source: str
) -> tuple[TreePacking, list[Finding], list[Claim], dict[str, Any], str]:
    """Check a tree document against topology ``G``: everything but the summary's wording.

    Returns
    -------
    (TreePacking, list of Finding, list of Claim, dict, str)
        The packing, the findings (without the ``claim-unproven`` warnings), the claims, the
        report's extra part (a weighted packing's rate) and the summary's rate clause.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology the document names.
    doc : object
        The parsed tree file.
    source : str
        A label for messages.

    Raises
    ------
    InputFileError
        What a tree file may not contain.

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> from supermesh.topologies import build
    >>> packing, found, claims, _, _ = check_tree_document(
    ...     build("smbi:4x4"), smbi_corner_trees(4).to_json(), "t.json")
    >>> len(packing.trees), found
    (4, [])
    """
    packing, found = read_tree_document(doc, source)
    found += check_packing(G, packing)
    if packing.method != "colgen" and "algbw_links" not in packing.stats:
        for t in packing.trees:
            if t.share != 1.0:
                found.append(
                    Finding(
                        "bad-share",
                        f"tree rooted at {t.root} has share {t.share}, but only a "
                        "weighted packing (method colgen) splits a root's data",
                    )
                )
                break
    more, claims = tree_file_claims(G, packing, found)
    found += more
    more, stat_claims = check_stats(G, packing)
    found += more
    claims += stat_claims
    extra: dict[str, Any] = {}
    clause = ""
    if is_weighted_packing(G, packing) and packing.trees:
        rates = rate_report(G, packing)
        claims += rate_claims(G, packing, rates)
        extra["rate"] = rates.to_json()
        allowed = "-" if rates.rate is None else f"{rates.rate} ({float(rates.rate):.4f})"
        claimed = "none" if rates.claimed is None else str(rates.claimed)
        clause = f", weighted: the shares allow {allowed} links, claimed {claimed}"
    return packing, found, claims, extra, clause


def check_trees_file(doc: dict[str, Any], source: str, base_dir: Path | None) -> FileReport:
    """Check a ``supermesh-trees`` document against the topology it names.

    Parameters
    ----------
    doc : dict
        The parsed document.
    source : str
        Name used in messages.
    base_dir : Path, optional
        Directory against which a relative topology path is resolved.

    Returns
    -------
    FileReport
        Kind ``"trees"``; the findings and claims (see the module docstring), and for a weighted
        packing the rate its shares allow (``extra["rate"]``, also in the summary).

    Raises
    ------
    InputFileError
        If a field has the wrong shape.

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> doc = smbi_corner_trees(4).to_json()
    >>> r = check_trees_file(doc, "t.json", None)
    >>> r.ok, r.kind
    (True, 'trees')
    >>> doc["sets"][0]["trees"][0]["height"] = 5
    >>> check_trees_file(doc, "t.json", None).ok
    False
    """
    packing, _ = read_tree_document(doc, source)
    G = topology_for(packing.topology, base_dir)
    packing, found, claims, extra, clause = check_tree_document(G, doc, source)
    summary = (
        f"trees on {packing.topology}: {packing.direction}, {packing.status}, "
        f"{len(packing.sets)} set(s), {len(packing.trees)} tree(s){clause}"
    )
    found += unproven_findings(claims)
    return FileReport(source, "trees", summary, tuple(found), extra, tuple(claims))
