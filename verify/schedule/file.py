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
from supermesh.trees.schedule.model import Schedule
from supermesh.verify.deadlock.analysis import check_deadlock
from supermesh.verify.deadlock.fifo import PERIODIC_CHUNKS, is_periodic
from supermesh.verify.documents import FileReport, topology_for
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.tables import check_schedule

__all__ = ["MAX_TRANSFERS", "check_schedule_file"]

MAX_TRANSFERS = 2_000_000
"""Largest number of (entry, chunk) transfers the deadlock analysis of a file unrolls."""
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
    """
    try:
        schedule = Schedule.from_json(doc, source=source)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise InputFileError(f"{source}: malformed schedule file ({exc})") from None
    G = topology_for(schedule.topology, base_dir)
    found = check_schedule(G, schedule)
    verdict, extra = _deadlock(G, schedule, found)
    summary = (
        f"schedule {schedule.collective} on {schedule.topology}: {len(schedule.entries)} "
        f"entries, {schedule.chunks} chunk(s) per {'block' if schedule.weighted else 'tree'}, "
        f"{verdict}"
    )
    return FileReport(source, "schedule", summary, tuple(found), extra)
