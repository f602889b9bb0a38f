"""Certificate files of one size: re-checking them, reading one back to resume, writing one.

A certificate file is the JSON document (``format: "supermesh-proof"``) that
:func:`~supermesh.trees.prove.size.prove_size` computes for one size: the tree count with its
Frank subpartition (``upper``) and a packing (``lower``), and per root choice the trees or the
Edmonds cut. :func:`recheck_document` re-checks its claims with the independent checkers of
:mod:`supermesh.verify`; :func:`reusable_document` reads a file back when it re-checks and settles
every root choice asked for (resuming a sweep; a corrupted or partial file is recomputed);
:func:`write_document` writes one without ever leaving a partial file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies import build
from supermesh.topologies.io import read_json_file
from supermesh.topologies.output import write_text_atomic
from supermesh.trees.model import TreePacking
from supermesh.trees.prove.result import FORMAT, SizeTask

__all__ = ["recheck_document", "reusable_document", "write_document"]


def _packing_findings(G: nx.MultiDiGraph, doc: Any, where: str) -> tuple[list[str], Any]:
    from supermesh.verify import check_packing, errors

    try:
        packing = TreePacking.from_json(doc, source=where)
    except SupermeshError as exc:
        return [f"{where}: {exc}"], None
    return [f"{where}: {f.message}" for f in errors(check_packing(G, packing))], packing


def _choice_findings(G: nx.MultiDiGraph, name: str, c: dict[str, Any], direction: str) -> list[str]:
    from supermesh.verify import check_edmonds_certificate, eccentricity, errors

    where = f"choice {name}"
    status = c.get("status")
    if status in ("n/a", "unknown"):
        return []
    roots, span = c.get("roots") or [], c.get("span")
    if status == "infeasible":
        found = check_edmonds_certificate(
            G, roots, c.get("certificate"), direction=direction, span=span
        )
        return [f"{where}: {f.message}" for f in errors(found)]
    out, packing = _packing_findings(G, c.get("packing"), where)
    if packing is None:
        return out
    if [t.root for t in packing.trees] != roots:
        out.append(f"{where}: tree roots {[t.root for t in packing.trees]} are not {roots}")
    if packing.objective != c.get("height") or packing.status != status:
        out.append(f"{where}: summary does not match its trees")
    if status == "optimal" and c.get("bound") == "eccentricity":
        ecc = [eccentricity(G, r, direction=direction, span=span) for r in roots]
        if None in ecc or max(e for e in ecc if e is not None) != c.get("height"):
            out.append(f"{where}: height {c.get('height')} is not the root eccentricity {ecc}")
    return out


def recheck_document(doc: Any, G: nx.MultiDiGraph | None = None) -> list[str]:
    """Re-check a certificate file's claims with :mod:`supermesh.verify`; messages of failures.

    Checks: the Frank subpartition rules out ``max_trees + 1`` trees; the ``lower`` packing has
    ``max_trees`` valid arc-disjoint trees; every choice's trees are valid with the stated roots
    and height, an ``optimal`` claim by ``eccentricity`` equals the recomputed eccentricity, and
    an ``infeasible`` claim's Edmonds set really is entered by too few arcs. A CP-SAT bound is
    the solver's proof and is reported as such (``bound: "cpsat"``), not re-derived.

    Returns
    -------
    list of str
        Empty when everything checks.
    """
    from supermesh.verify import check_frank_certificate, errors

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return [f"not a {FORMAT} document"]
    try:
        G = G if G is not None else build(str(doc["topology"]))
        direction, k = str(doc["direction"]), int(doc["max_trees"])
        choices = dict(doc["choices"])
    except (KeyError, TypeError, ValueError, SupermeshError) as exc:
        return [f"malformed document: {exc}"]
    out: list[str] = []
    upper = doc.get("upper")
    if isinstance(upper, dict) and upper.get("kind") == "subpartition":
        found = check_frank_certificate(G, k + 1, upper, direction=direction)
        out += [f"upper: {f.message}" for f in errors(found)]
    else:
        out.append(
            f"upper: a {upper.get('kind') if isinstance(upper, dict) else upper!r} "
            "certificate cannot be re-checked by verify"
        )
    lower = doc.get("lower")
    found_lower: list[str] = []
    if isinstance(lower, dict) and isinstance(lower.get("choice"), str):
        chosen = choices.get(lower["choice"], {})
        trees = (chosen.get("packing") or {}).get("trees") or []
        if chosen.get("span") is not None or len(trees) != k:
            out.append(f"lower: choice {lower['choice']} does not exhibit {k} spanning trees")
    elif isinstance(lower, dict):
        found_lower, packing = _packing_findings(G, lower.get("packing"), "lower")
        out += found_lower
        if packing is not None and (len(packing.trees) != k or packing.span is not None):
            out.append(f"lower: {len(packing.trees)} trees exhibited, {k} claimed")
    for name, c in sorted(choices.items()):
        out += _choice_findings(G, name, c if isinstance(c, dict) else {}, direction)
    return out


def reusable_document(task: SizeTask) -> dict[str, Any] | None:
    """The certificate file at ``task.out_path`` when it can stand for a new run, else ``None``.

    A file is reused when it is a ``supermesh-proof`` document for the same topology and
    direction, holds every root choice of ``task`` (all settled: optimal, infeasible or n/a) and
    passes :func:`recheck_document`. A missing, unreadable, corrupted or partial file (an earlier
    run hit the time limit or was interrupted) gives ``None``: the size is computed again.

    Parameters
    ----------
    task : SizeTask
        The size to prove; ``out_path`` ``None`` means there is no file to reuse.

    Returns
    -------
    dict or None
        The document, its ``choices`` cut down to the ones ``task`` asks for (in that order).

    Raises
    ------
    SupermeshError
        A bad ``task.spec``.

    Examples
    --------
    >>> reusable_document(SizeTask("smbi:4x4", "4x4")) is None
    True
    """
    if task.out_path is None or not Path(task.out_path).is_file():
        return None
    try:
        doc = read_json_file(task.out_path)
    except (InputFileError, SupermeshError, OSError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return None
    names = [n for n in task.choices if n != "free"]
    if doc.get("direction") != task.direction or not all(
        n in (doc.get("choices") or {}) for n in names
    ):
        return None
    G = build(task.spec)
    if doc.get("topology") != G.graph.get("spec", task.spec) or recheck_document(doc, G):
        return None
    settled = all(doc["choices"][n]["status"] in ("optimal", "infeasible", "n/a") for n in names)
    if not settled:
        return None  # an earlier run left gaps (time limit, interrupt): try again
    doc["choices"] = {n: doc["choices"][n] for n in names}
    return doc


def write_document(path: str, doc: dict[str, Any]) -> None:
    """Write a certificate file: compact JSON, atomically (never a partial file).

    Parameters
    ----------
    path : str
        Where to write; an existing file there is replaced only once the new one is complete.
    doc : dict
        The ``supermesh-proof`` document.

    Raises
    ------
    SupermeshError
        The path cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_document(f"{d}/p.json", {"format": "supermesh-proof"})
    ...     print(Path(d, "p.json").read_text(), end="")
    {"format":"supermesh-proof"}
    """
    write_text_atomic(path, json.dumps(doc, separators=(",", ":")) + "\n")
