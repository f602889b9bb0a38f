"""Certificate files of one size: re-checking them, reading one back to resume, writing one.

A certificate file is the JSON document (``format: "supermesh-proof"``) that
:func:`~supermesh.trees.prove.size.prove_size` computes for one size: the tree count with its
Frank subpartition (``upper``) and a packing (``lower``), and per root choice the trees or the
Edmonds cut (every field: :mod:`supermesh.verify.proof.file`, ``docs/schemas/proof.schema.json``).
:func:`recheck_document` re-checks its claims with the independent checker of
:mod:`supermesh.verify` (the one ``supermesh verify`` runs); :func:`reusable_document` reads a
file back when that check passes and the file settles every root choice asked for (resuming a
sweep), and otherwise says why it is recomputed; :func:`write_document` writes one without ever
leaving a partial file.
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
from supermesh.trees.prove.result import FORMAT, SizeTask

__all__ = ["SETTLED", "recheck_document", "reusable_document", "write_document"]

SETTLED = ("optimal", "infeasible", "n/a")
"""Choice statuses that need no new run."""


def recheck_document(doc: Any, G: nx.MultiDiGraph | None = None) -> list[str]:
    """Re-check a certificate file's claims with :mod:`supermesh.verify`; messages of failures.

    Everything the file states is re-derived by
    :func:`supermesh.verify.proof.file.check_proof_document` (the Frank subpartition, the
    exhibited trees, the roots of every choice, heights and bounds, Edmonds cuts, the summary
    fields); a CP-SAT bound is the solver's proof and stays an unproven claim, not a failure.

    Returns
    -------
    list of str
        The errors' messages; empty when everything checks.

    Examples
    --------
    >>> recheck_document({"format": "supermesh-trees"})
    ['not a supermesh-proof document']
    """
    from supermesh.verify import check_proof_document

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return [f"not a {FORMAT} document"]
    try:
        report = check_proof_document(doc, G=G)
    except SupermeshError as exc:
        return [f"malformed document: {exc}"]
    return [f.message for f in report.findings if f.is_error]


def reusable_document(task: SizeTask) -> tuple[dict[str, Any] | None, str | None]:
    """The certificate file at ``task.out_path`` when it can stand for a new run, and why not.

    A file is reused only when it is a ``supermesh-proof`` document for the same topology and
    direction, holds every root choice of ``task``, all settled (optimal, infeasible or n/a),
    and passes :mod:`supermesh.verify`'s check of every claim
    (:func:`recheck_document`). Otherwise the size is computed again and the reason is returned
    (an earlier run hit the time limit or was interrupted; the file was edited or corrupted).

    Parameters
    ----------
    task : SizeTask
        The size to prove; ``out_path`` ``None`` means there is no file to reuse.

    Returns
    -------
    (dict or None, str or None)
        The document, its ``choices`` cut down to the ones ``task`` asks for (in that order),
        or ``None`` with the reason the file there was not reused (``None`` when there is none).

    Raises
    ------
    SupermeshError
        A bad ``task.spec``.

    Examples
    --------
    >>> reusable_document(SizeTask("smbi:4x4", "4x4"))
    (None, None)
    """
    if task.out_path is None or not Path(task.out_path).exists():
        return None, None
    try:
        doc = read_json_file(task.out_path)
    except (InputFileError, OSError) as exc:
        return None, f"unreadable ({exc})"
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return None, f"not a {FORMAT} document"
    G = build(task.spec)
    spec = G.graph.get("spec", task.spec)
    if doc.get("topology") != spec or doc.get("direction") != task.direction:
        return None, f"made for {doc.get('topology')!r} ({doc.get('direction')!r}-trees)"
    choices = doc.get("choices")
    names = [n for n in task.choices if n != "free"]
    missing = [n for n in names if not isinstance(choices, dict) or n not in choices]
    if missing:
        return None, f"it lacks the root choice {missing[0]!r}"
    failures = recheck_document(doc, G)
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        return None, f"verify found: {failures[0]}{more}"
    open_ = [n for n in names if doc["choices"][n].get("status") not in SETTLED]
    if open_:  # an earlier run left gaps (time limit, interrupt): try again
        return None, f"choice {open_[0]!r} was not settled ({doc['choices'][open_[0]]['status']})"
    if doc.get("lower") is None:
        return None, "it exhibits no packing of the maximum tree count"
    doc["choices"] = {n: doc["choices"][n] for n in names}
    return doc, None


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
