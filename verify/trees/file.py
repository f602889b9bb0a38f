"""Check a tree file: its fields' shapes, then the packing against the topology it names.

The ``supermesh-trees`` part of :func:`~supermesh.verify.files.check_document`. A field of the
wrong shape (a root that is not an integer, an arc that is not a ``[src, dst, key]`` triple) is an
:class:`~supermesh.errors.InputFileError`; the packing is checked with
:func:`~supermesh.verify.trees.packing.check_packing`, and a weighted packing's report carries the
exact rate its shares allow (:func:`~supermesh.verify.trees.rates.rate_report`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError
from supermesh.trees.model import TreePacking
from supermesh.verify.documents import FileReport, is_int, is_num, require, topology_for
from supermesh.verify.trees.packing import check_packing
from supermesh.verify.trees.rates import is_weighted_packing, rate_report

__all__ = ["check_trees_file"]


def _validate_trees_doc(doc: dict[str, Any], source: str) -> None:
    for name in ("topology", "direction", "status"):
        require(isinstance(doc.get(name), str), source, f"field {name!r} is missing or not text")
    groups: list[Any] = []
    if isinstance(doc.get("sets"), list):
        for i, s in enumerate(doc["sets"]):
            require(
                isinstance(s, dict) and isinstance(s.get("trees"), list),
                source,
                f"set #{i} has no 'trees' list",
            )
            groups.append(s["trees"])
            lb = s.get("lower_bound")
            require(lb is None or is_int(lb), source, f"set #{i} lower_bound is not an integer")
    else:
        require(isinstance(doc.get("trees"), list), source, "has neither 'sets' nor 'trees'")
        groups.append(doc["trees"])
    for trees in groups:
        for t in trees:
            require(
                isinstance(t, dict) and is_int(t.get("root")), source, "a tree has no integer root"
            )
            require(
                is_int(t.get("height", -1)),
                source,
                f"tree root {t['root']}: height is not an integer",
            )
            require(
                is_num(t.get("share", 1.0)),
                source,
                f"tree root {t['root']}: share is not a number",
            )
            arcs_ = t.get("arcs")
            require(
                isinstance(arcs_, list)
                and all(isinstance(a, list) and len(a) == 3 and all(map(is_int, a)) for a in arcs_),
                source,
                f"tree root {t['root']}: arcs must be a list of [src, dst, key] integer triples",
            )
    span = doc.get("span")
    require(
        span is None or (isinstance(span, list) and all(map(is_int, span))),
        source,
        "span is not a list of node ids",
    )
    for name in ("lower_bound", "objective"):
        require(doc.get(name) is None or is_int(doc.get(name)), source, f"{name} is not an integer")
    require(
        doc.get("stats") is None or isinstance(doc.get("stats"), dict),
        source,
        "stats is not an object",
    )


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
        Kind ``"trees"``; the findings of
        :func:`~supermesh.verify.trees.packing.check_packing`, and for a weighted packing the
        rate its shares allow (``extra["rate"]``, also in the summary).

    Raises
    ------
    InputFileError
        If a field has the wrong shape.
    """
    _validate_trees_doc(doc, source)
    try:
        packing = TreePacking.from_json(doc, source=source)
    except (TypeError, ValueError) as exc:
        raise InputFileError(f"{source}: malformed tree file ({exc})") from None
    G = topology_for(packing.topology, base_dir)
    found = check_packing(G, packing)
    summary = (
        f"trees on {packing.topology}: {packing.direction}, {packing.status}, "
        f"{len(packing.sets)} set(s), {len(packing.trees)} tree(s)"
    )
    extra: dict[str, Any] = {}
    if is_weighted_packing(G, packing) and packing.trees:
        rates = rate_report(G, packing)
        extra["rate"] = rates.to_json()
        allowed = "-" if rates.rate is None else f"{rates.rate} ({float(rates.rate):.4f})"
        claimed = "none" if rates.claimed is None else str(rates.claimed)
        summary += f", weighted: the shares allow {allowed} links, claimed {claimed}"
    return FileReport(source, "trees", summary, tuple(found), extra)
