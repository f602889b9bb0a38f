"""The mutation campaign: break every file kind one field at a time; verify must notice.

:func:`run_campaign` takes valid files the tool wrote (:mod:`supermesh.testing.corpus`), makes
single-field mutants of each (:func:`~supermesh.testing.mutations.documents.document_mutants`),
writes every mutant to a file, runs :func:`supermesh.verify.check_file` on it, and asks an
*oracle* (a judge written from the documented file semantics, independent of verify and of the
code that wrote the file) whether the mutant is still valid. Each mutant gets one outcome:

``refused``
    verify refused to read it (the file is not one the tool may write).
``caught``
    verify reported an error.
``flagged``
    verify reported no error but does not vouch for the mutated field: a claim covering it is
    unproven (a new unproven claim, or one whose field holds the mutated path).
``still-valid``
    verify accepted it and the oracle proves it valid.
``accepted-but-wrong``
    verify accepted it, the oracle does not: a defect of verify (or of the oracle). Must be 0.
``crash``
    verify raised something other than a :class:`~supermesh.errors.SupermeshError`. Must be 0.

A refused or caught mutant the oracle judges valid is also counted as a ``false-alarm``.
"""

from __future__ import annotations

import csv
import io
import json
import traceback
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supermesh.errors import SupermeshError
from supermesh.testing.mutations.documents import Mutant, document_mutants

__all__ = ["OUTCOMES", "Oracle", "Outcome", "path_text", "run_campaign", "tally"]

OUTCOMES = ("refused", "caught", "flagged", "still-valid", "accepted-but-wrong", "crash")
Oracle = Callable[[str, Any, Any], tuple[bool, str]]
"""``oracle(kind, original, mutant) -> (valid, why)``: whether the mutant is provably valid."""


@dataclass(frozen=True)
class Outcome:
    """What verify and the oracle said about one mutant.

    Attributes
    ----------
    name : str
        The corpus file it came from.
    mutant : Mutant
    outcome : str
        One of :data:`OUTCOMES`.
    valid : bool
        The oracle's verdict.
    why : str
        The oracle's reason, and for a crash the traceback's last line.
    """

    name: str
    mutant: Mutant
    outcome: str
    valid: bool
    why: str

    @property
    def false_alarm(self) -> bool:
        """verify refused or failed a mutant the oracle proves valid."""
        return self.valid and self.outcome in ("refused", "caught")


def path_text(kind: str, path: tuple[Any, ...]) -> str:
    """The mutated field as verify's claims name fields: ``sets[0].lower_bound``.

    Examples
    --------
    >>> path_text("trees", ("sets", 0, "lower_bound")), path_text("sweep", (3, 5))
    ('sets[0].lower_bound', 'rows[3][5]')
    """
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return f"rows{text}" if kind == "sweep" else text


def _covers(field: str, path: str) -> bool:
    return path == field or path.startswith((field + ".", field + "["))


def _write(target: Path, kind: str, doc: Any) -> None:
    if kind == "sweep":
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(doc)
        target.write_text(buf.getvalue())
    else:
        target.write_text(json.dumps(doc))  # NaN and Infinity come out as the bare literals


def _read(path: Path, kind: str) -> Any:
    if kind == "sweep":
        return list(csv.reader(io.StringIO(path.read_text(), newline="")))
    return json.loads(path.read_text())


def run_campaign(
    files: Mapping[str, Path],
    kinds: Mapping[str, str],
    oracle: Oracle,
    *,
    workdir: str | Path,
    seed: int = 0,
    per_file: int = 20,
) -> list[Outcome]:
    """Mutate every file, verify every mutant, judge it with ``oracle`` (module docstring).

    Parameters
    ----------
    files : mapping
        Name -> a valid file the tool wrote.
    kinds : mapping
        Name -> its kind (``topology``, ``design``, ``trees``, ``schedule``, ``proof``,
        ``sweep``).
    oracle : callable
        ``oracle(kind, original, mutant)`` -> ``(valid, why)``.
    workdir : str or Path
        Where the mutant files are written.
    seed : int
        Seeds the mutants (file ``i`` of the mapping uses ``seed + i``).
    per_file : int
        Mutants per file.

    Returns
    -------
    list of Outcome
    """
    from supermesh.topologies.spec import build
    from supermesh.verify import check_file

    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for i, (name, path) in enumerate(sorted(files.items())):
        kind = kinds[name]
        original = _read(Path(path), kind)
        before = check_file(path)
        known = {(c.field, c.statement) for c in before.unproven}
        nodes = 0
        if kind in ("trees", "schedule", "proof"):
            nodes = build(original["topology"]).number_of_nodes()
        for j, m in enumerate(
            document_mutants(original, kind, seed=seed + i, count=per_file, nodes=nodes)
        ):
            target = work / f"{name}-{j}{Path(path).suffix}"
            _write(target, kind, m.doc)
            valid, why = oracle(kind, original, m.doc)
            try:
                report = check_file(target)
            except SupermeshError as exc:
                outcomes.append(Outcome(name, m, "refused", valid, f"{why} | verify: {exc}"))
                continue
            except Exception:  # a crash is what the campaign looks for, whatever it is
                last = traceback.format_exc().strip().splitlines()[-1]
                outcomes.append(Outcome(name, m, "crash", valid, last))
                continue
            where = path_text(kind, m.path)
            new = {(c.field, c.statement) for c in report.unproven} - known
            covered = any(_covers(c.field, where) for c in report.unproven)
            if not report.ok:
                outcome = "caught"
            elif new or covered:
                outcome = "flagged"
            else:
                outcome = "still-valid" if valid else "accepted-but-wrong"
            detail = why if outcome != "caught" else f"{why} | verify: {report.findings[0].message}"
            outcomes.append(Outcome(name, m, outcome, valid, detail))
    return outcomes


def tally(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    """Kind -> outcome counts (and ``total``, ``false-alarm``); ``all`` sums the kinds.

    Examples
    --------
    >>> tally([])["all"]["total"]
    0
    """
    out: dict[str, Counter[str]] = {"all": Counter(total=0)}
    for o in outcomes:
        for key in (o.mutant.kind, "all"):
            c = out.setdefault(key, Counter(total=0))
            c["total"] += 1
            c[o.outcome] += 1
            c["false-alarm"] += o.false_alarm
    return out
