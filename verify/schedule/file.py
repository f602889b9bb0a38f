"""Check a schedule file: the table against the topology it names, then deadlock freedom.

The ``supermesh-schedule`` part of :func:`~supermesh.verify.files.check_document`. The table is
checked with :func:`~supermesh.verify.schedule.tables.check_schedule` and, unless its entries or
dependencies are malformed (then the FIFO model is undefined) or it would unroll more than
:data:`MAX_TRANSFERS` transfers, analysed with
:func:`~supermesh.verify.deadlock.analysis.check_deadlock`: a cycle is a ``deadlock-cycle``
finding, and the verdict with its argument is in the report (``extra["deadlock"]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError, SupermeshError
from supermesh.trees.schedule.model import FIELDS, Schedule
from supermesh.verify.deadlock.analysis import check_deadlock
from supermesh.verify.deadlock.fifo import PERIODIC_CHUNKS, is_periodic
from supermesh.verify.documents import FileReport, topology_for, unknown_fields
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.tables import check_schedule

__all__ = ["MAX_TRANSFERS", "check_schedule_file"]

MAX_TRANSFERS = 2_000_000
"""Largest number of (entry, chunk) transfers the deadlock analysis of a file unrolls."""
TOP = (
    "format",
    "version",
    "topology",
    "collective",
    "nbytes",
    "chunk_bytes",
    "chunks",
    "barrier",
    "roots",
    "ranks",
    "entries",
    "tables",
    "shares",
    "dests",
)
_BLOCKING = {"entry-id", "bad-field", "dep-missing", "dep-chunks"}
"""Schedule findings that leave the FIFO model undefined (no deadlock analysis then)."""


def _deadlock(G: Any, schedule: Schedule, found: list[Finding]) -> tuple[str, dict[str, Any]]:
    """The deadlock verdict for the summary line, the report's extra part; extends ``found``."""
    if schedule.routes:  # AllToAll: check_alltoall already looked for a wait cycle
        cycle = any(f.code == "deadlock-cycle" for f in found)
        return ("DEADLOCK" if cycle else "deadlock-free (routes)"), {"deadlock": None}
    if any(f.code in _BLOCKING for f in found):
        found.append(
            Finding(
                "deadlock-unchecked",
                "deadlock not analysed: the entries or their "
                "dependencies are malformed (see the errors above)",
                "warning",
            )
        )
        return "deadlock not analysed", {"deadlock": None}
    periodic = is_periodic(schedule)
    lengths = [max(0, e.chunk_last - e.chunk_first + 1) for e in schedule.entries]
    size = sum(min(n, PERIODIC_CHUNKS) if periodic else n for n in lengths)
    if size > MAX_TRANSFERS:
        found.append(
            Finding(
                "deadlock-unchecked",
                f"deadlock not analysed: {size} transfers to unroll (more than {MAX_TRANSFERS})",
                "warning",
            )
        )
        return "deadlock not analysed", {"deadlock": None}
    try:
        report = check_deadlock(G, schedule)
    except SupermeshError as exc:
        found.append(Finding("deadlock-unchecked", f"deadlock not analysed: {exc}", "warning"))
        return "deadlock not analysed", {"deadlock": None}
    found += report.findings()
    verdict = "deadlock-free" if report.deadlock_free else "DEADLOCK"
    return verdict, {"deadlock": report.to_json()}


def check_schedule_file(doc: dict[str, Any], source: str, base_dir: Path | None) -> FileReport:
    """Check a ``supermesh-schedule`` document: the table, then its deadlock freedom.

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
        Kind ``"schedule"``; the findings of
        :func:`~supermesh.verify.schedule.tables.check_schedule` and of the deadlock analysis,
        whose report is ``extra["deadlock"]`` (``None`` when the table could not be analysed: a
        ``deadlock-unchecked`` warning says why).

    Raises
    ------
    InputFileError
        If the document does not parse as a schedule.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> doc = build_schedule(build("mesh:2x2"), "allreduce", p, chunks=2).to_json()
    >>> check_schedule_file(doc, "ar.json", None).verdict
    'OK'
    >>> doc["entries"][0]["depth"] = 7
    >>> check_schedule_file(doc, "ar.json", None).verdict
    'FAILED'
    """
    unknown = unknown_fields(doc, TOP, "the file")
    for i, e in enumerate(doc.get("entries") or [] if isinstance(doc.get("entries"), list) else []):
        unknown += unknown_fields(e, FIELDS, f"entry #{i}")
    try:
        schedule = Schedule.from_json(doc, source=source)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise InputFileError(f"{source}: malformed schedule file ({exc})") from None
    G = topology_for(schedule.topology, base_dir)
    found = unknown + check_schedule(G, schedule)
    verdict, extra = _deadlock(G, schedule, found)
    summary = (
        f"schedule {schedule.collective} on {schedule.topology}: {len(schedule.entries)} "
        f"entries, {schedule.chunks} chunk(s) per {'block' if schedule.weighted else 'tree'}, "
        f"{verdict}"
    )
    return FileReport(source, "schedule", summary, tuple(found), extra)
