"""Verify a file written by the tool (or by hand): dispatch on its ``format`` field.

``supermesh-topology`` (checked here)
    Structure (every arc names existing nodes, no repeated ``(src, dst, key)``, no self-loop,
    known kinds and classes, positive bandwidth and latency), key numbering (parallel arcs keyed
    0, 1, ...: a gap is a warning) and, when the file names a spec, that the spec regenerates
    exactly these nodes and arcs (``spec-mismatch``).
``supermesh-trees`` (:func:`~supermesh.verify.trees.file.check_trees_file`)
    The topology it names (a spec, or the path of a topology file, relative to the tree file if
    it is not found as given) is built and the packing checked with
    :func:`~supermesh.verify.trees.packing.check_packing`. A weighted packing (``method="colgen"``,
    several trees per root with shares) is checked in rate
    (:func:`~supermesh.verify.trees.rates.check_weighted_packing`); the report gives the exact rate
    its shares allow (``extra["rate"]``).
``supermesh-schedule`` (:func:`~supermesh.verify.schedule.file.check_schedule_file`)
    The topology is found the same way; the table is checked with
    :func:`~supermesh.verify.schedule.tables.check_schedule` and, unless its dependencies are
    broken, analysed with :func:`~supermesh.verify.deadlock.analysis.check_deadlock` (one buffer
    slot per link): a cycle is a ``deadlock-cycle`` finding, and the verdict with its argument is in
    the report (``extra["deadlock"]``).

A document of the wrong shape (not an object, a field of the wrong type) raises
:class:`~supermesh.errors.InputFileError`; everything that can be said about a well-formed
document is a :class:`~supermesh.verify.findings.Finding`. Nothing else is raised. Every format
comes back as a :class:`~supermesh.verify.documents.FileReport`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError
from supermesh.topologies.io import read_json_file
from supermesh.verify.documents import FileReport
from supermesh.verify.proof.file import check_proof_document
from supermesh.verify.schedule.file import check_schedule_file
from supermesh.verify.sweep import check_sweep_file
from supermesh.verify.topology.file import check_topology_file
from supermesh.verify.trees.file import check_trees_file

__all__ = ["check_document", "check_file"]


def check_document(
    doc: Any, *, source: str = "document", base_dir: str | Path | None = None
) -> FileReport:
    """Check a parsed JSON document (a topology, tree or schedule file).

    Parameters
    ----------
    doc : Any
        The parsed JSON.
    source : str
        Name used in messages.
    base_dir : str or Path, optional
        Directory against which a tree file's relative topology path is resolved.

    Returns
    -------
    FileReport

    Raises
    ------
    InputFileError
        If the document is not an object, has an unknown ``format`` or a field of the wrong
        shape; :class:`~supermesh.errors.SupermeshError` if the topology it names cannot be built.

    Examples
    --------
    >>> from supermesh.topologies import build, to_json
    >>> check_document(to_json(build("smbi:2x2"))).ok
    True
    """
    if not isinstance(doc, dict):
        raise InputFileError(f"{source} is not a JSON object")
    fmt = doc.get("format")
    base = Path(base_dir) if base_dir is not None else None
    if fmt == "supermesh-topology":
        return check_topology_file(doc, source)
    if fmt == "supermesh-trees":
        return check_trees_file(doc, source, base)
    if fmt == "supermesh-schedule":
        return check_schedule_file(doc, source, base)
    if fmt == "supermesh-proof":
        return check_proof_document(doc, source=source)
    raise InputFileError(
        f"{source} has format {fmt!r}, which verify does not read",
        hint="verify reads supermesh-topology (topologies and designs), supermesh-trees, "
        "supermesh-schedule and supermesh-proof files, and sweep CSV files",
    )


def check_file(path: str | Path) -> FileReport:
    """Read a file and check it: a sweep CSV (``.csv``), else JSON (:func:`check_document`).

    Parameters
    ----------
    path : str or Path
        Any file the tool writes: a topology, design, tree, schedule or ``prove`` certificate
        JSON file, or a sweep CSV. A tree or schedule file naming a topology file by a relative
        path is looked up next to it too.

    Returns
    -------
    FileReport
        The findings (``ok`` when none is an error), the claims with their verdicts, and the
        one-line ``verdict`` (``OK``, ``OK (N claims unproven)`` or ``FAILED``).

    Raises
    ------
    InputFileError
        If the file cannot be read or parsed (not a regular file, not UTF-8, repeated keys,
        ``NaN``), or is not a file verify reads (the CLI exits 2).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from supermesh.topologies import build, write_topology
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mesh.json"
    >>> write_topology(build("mesh:2x2"), path)
    >>> report = check_file(path)
    >>> report.ok, report.kind, report.verdict
    (True, 'topology', 'OK')
    >>> doc = json.loads(path.read_text())
    >>> doc["arcs"][0]["bandwidth"] = 2.0  # the spec says every link is 1.0
    >>> _ = path.write_text(json.dumps(doc))
    >>> [f.code for f in check_file(path).findings]
    ['spec-mismatch']
    """
    if str(path).lower().endswith(".csv"):
        return check_sweep_file(path)
    return check_document(read_json_file(path), source=str(path), base_dir=Path(path).parent)
