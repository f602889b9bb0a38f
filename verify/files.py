"""Verify a file written by the tool (or by hand): dispatch on its ``format`` field.

``supermesh-topology``
    Structure (every arc names existing nodes, no repeated ``(src, dst, key)``, no self-loop,
    known kinds and classes, positive bandwidth and latency), key numbering (parallel arcs keyed
    0, 1, ...: a gap is a warning) and, when the file names a spec, that the spec regenerates
    exactly these nodes and arcs (``spec-mismatch``).
``supermesh-trees``
    The topology it names (a spec, or the path of a topology file, relative to the tree file if
    it is not found as given) is built and the packing checked with
    :func:`~supermesh.verify.trees.packing.check_packing`. A weighted packing (``method="colgen"``,
    several trees per root with shares) is checked in rate
    (:func:`~supermesh.verify.trees.rates.check_weighted_packing`); the report gives the exact rate
    its shares allow (``extra["rate"]``).
``supermesh-schedule``
    The topology is found the same way; the table is checked with
    :func:`~supermesh.verify.schedule.tables.check_schedule` and, unless its dependencies are
    broken, analysed with :func:`~supermesh.verify.deadlock.analysis.check_deadlock` (one buffer
    slot per link): a cycle is a ``deadlock-cycle`` finding, and the verdict with its argument is in
    the report (``extra["deadlock"]``).

A document of the wrong shape (not an object, a field of the wrong type) raises
:class:`~supermesh.errors.InputFileError`; everything that can be said about a well-formed
document is a :class:`~supermesh.verify.findings.Finding`. Nothing else is raised.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.io import from_json, read_json_file
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, arcs
from supermesh.topologies.spec import build, parse_spec
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.model import Schedule
from supermesh.verify.deadlock.analysis import check_deadlock
from supermesh.verify.deadlock.fifo import PERIODIC_CHUNKS, is_periodic
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.tables import check_schedule
from supermesh.verify.trees.packing import check_packing
from supermesh.verify.trees.rates import is_weighted_packing, rate_report

__all__ = ["MAX_CHIPLETS", "MAX_TRANSFERS", "FileReport", "check_document", "check_file"]

MAX_CHIPLETS = 100_000
"""Largest topology a tree file may name (a guard against specs that would never finish)."""
MAX_TRANSFERS = 2_000_000
"""Largest number of (entry, chunk) transfers the deadlock analysis of a file unrolls."""
_BLOCKING = {"entry-id", "bad-field", "dep-missing", "dep-chunks"}
"""Schedule findings that leave the FIFO model undefined (no deadlock analysis then)."""


@dataclass(frozen=True)
class FileReport:
    """What :func:`check_file` found.

    Attributes
    ----------
    source : str
        The file (or a label for an in-memory document).
    kind : {"topology", "trees", "schedule"}
    summary : str
        One line describing what was checked.
    findings : tuple of Finding
    extra : dict
        Further JSON-ready results (``"deadlock"``: the deadlock report of a schedule).
    """

    source: str
    kind: str
    summary: str
    findings: tuple[Finding, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No finding of severity error."""
        return not any(f.is_error for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: source, kind, summary, ok, error and warning counts, findings."""
        n_err = sum(f.is_error for f in self.findings)
        return {
            "file": self.source,
            "kind": self.kind,
            "summary": self.summary,
            "ok": self.ok,
            "errors": n_err,
            "warnings": len(self.findings) - n_err,
            "findings": [f.to_json() for f in self.findings],
            **self.extra,
        }


def _arc(a: tuple[int, int, int]) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _require(cond: bool, source: str, msg: str) -> None:
    if not cond:
        raise InputFileError(f"{source}: {msg}")


def _expected_compute(spec: str) -> int:
    if re.search(r"\d{7,}", spec):
        raise InputFileError(f"topology {spec!r} is far too large; refusing to build it")
    _, size, _, _ = parse_spec(spec)
    return int(sum(size[0])) if len(size) == 1 else int(size[0]) * int(size[1])


def _spec_findings(doc: dict[str, Any], G: Any) -> list[Finding]:
    spec = doc.get("spec")
    if not isinstance(spec, str) or not spec or spec.endswith(".json") or ":" not in spec:
        return []
    if len(spec) > 200:
        return [
            Finding("spec-mismatch", f"spec {spec[:40]!r}... is too long to be a spec", "warning")
        ]
    try:
        expected = _expected_compute(spec)
    except SupermeshError as exc:
        return [Finding("spec-mismatch", f"spec {spec!r} does not parse: {exc}", "warning")]
    compute = sum(1 for _, k in G.nodes(data="kind") if k == "compute")
    if expected != compute:
        return [
            Finding(
                "spec-mismatch",
                f"spec {spec!r} has {expected} compute chiplets, the file has {compute}",
            )
        ]
    try:
        H = build(spec)
    except SupermeshError as exc:
        return [Finding("spec-mismatch", f"spec {spec!r} does not build: {exc}", "warning")]
    mine = {(u, v, k): d.get("cls") for u, v, k, d in G.edges(keys=True, data=True)}
    theirs = {(u, v, k): d.get("cls") for u, v, k, d in H.edges(keys=True, data=True)}
    found = []
    for a in sorted(theirs.keys() - mine.keys())[:5]:
        found.append(
            Finding("spec-mismatch", f"spec {spec!r} has arc {_arc(a)}, the file does not", arc=a)
        )
    for a in sorted(mine.keys() - theirs.keys())[:5]:
        found.append(
            Finding("spec-mismatch", f"the file has arc {_arc(a)}, spec {spec!r} does not", arc=a)
        )
    for a in sorted(mine.keys() & theirs.keys()):
        if mine[a] != theirs[a]:
            found.append(
                Finding(
                    "spec-mismatch",
                    f"arc {_arc(a)} has class {mine[a]!r}, spec {spec!r} gives {theirs[a]!r}",
                    arc=a,
                )
            )
            break
    for n in sorted(set(G) | set(H)):
        k1, k2 = (
            G.nodes[n].get("kind") if n in G else None,
            H.nodes[n].get("kind") if n in H else None,
        )
        if k1 != k2:
            found.append(
                Finding(
                    "spec-mismatch", f"node {n} is {k1!r} in the file, {k2!r} in {spec!r}", node=n
                )
            )
            break
    return found


def _check_topology(doc: dict[str, Any], source: str) -> FileReport:
    nodes, raw_arcs = doc.get("nodes"), doc.get("arcs")
    if not isinstance(nodes, list) or not isinstance(raw_arcs, list):
        raise InputFileError(f"{source}: 'nodes' and 'arcs' must both be lists")
    found: list[Finding] = []
    ids: set[int] = set()
    for i, nd in enumerate(nodes):
        _require(
            isinstance(nd, dict) and _is_int(nd.get("id")), source, f"node #{i} has no integer id"
        )
        n = nd["id"]
        if n in ids:
            found.append(Finding("bad-attribute", f"node id {n} is repeated", node=n))
        ids.add(n)
        if nd.get("kind", "compute") not in NODE_KINDS:
            found.append(Finding("bad-attribute", f"node {n} has kind {nd.get('kind')!r}", node=n))
        pos = nd.get("pos", [0.0, 0.0])
        if not (isinstance(pos, list) and len(pos) == 2 and all(map(_is_num, pos))):
            found.append(Finding("bad-attribute", f"node {n} has pos {pos!r}, not [x, y]", node=n))
    seen: Counter[tuple[int, int, int]] = Counter()
    touched: set[int] = set()
    for i, ad in enumerate(raw_arcs):
        _require(
            isinstance(ad, dict) and all(_is_int(ad.get(f)) for f in ("src", "dst", "key")),
            source,
            f"arc #{i} lacks integer src, dst and key",
        )
        a = (ad["src"], ad["dst"], ad["key"])
        seen[a] += 1
        touched |= {a[0], a[1]}
        for end in a[:2]:
            if end not in ids:
                found.append(
                    Finding(
                        "node-out-of-range",
                        f"arc {_arc(a)} names node {end}, not in 'nodes'",
                        arc=a,
                    )
                )
        if a[0] == a[1]:
            found.append(Finding("self-loop", f"arc {_arc(a)} is a self-loop", arc=a, node=a[0]))
        if ad.get("cls", "mesh") not in ARC_CLASSES:
            found.append(
                Finding("bad-attribute", f"arc {_arc(a)} has cls {ad.get('cls')!r}", arc=a)
            )
        for name in ("bandwidth", "latency"):
            value = ad.get(name, 1.0)
            if not _is_num(value) or not value > 0:
                found.append(Finding("bad-attribute", f"arc {_arc(a)} has {name} {value!r}", arc=a))
    keys: dict[tuple[int, int], list[int]] = defaultdict(list)
    for a, count in sorted(seen.items()):
        keys[(a[0], a[1])].append(a[2])
        if count > 1:
            found.append(Finding("arc-repeated", f"arc {_arc(a)} is listed {count} times", arc=a))
    for (u, v), ks in sorted(keys.items()):
        if sorted(set(ks)) != list(range(len(set(ks)))):
            found.append(
                Finding("key-gap", f"arcs {u}->{v} have keys {ks}, not 0..{len(ks) - 1}", "warning")
            )
    if len(ids) > 1:
        for n in sorted(ids - touched):
            found.append(Finding("isolated-node", f"node {n} has no arc", "warning", node=n))
    summary = f"topology {doc.get('spec') or source}: {len(ids)} nodes, {len(raw_arcs)} arcs"
    if not any(f.is_error for f in found):
        try:
            G = from_json(doc, source=source)
        except (TypeError, ValueError) as exc:
            raise InputFileError(f"{source}: malformed topology ({exc})") from None
        found += _spec_findings(doc, G)
        summary = f"topology {G.graph['spec']}: {G.number_of_nodes()} nodes, {len(arcs(G))} arcs"
    return FileReport(source, "topology", summary, tuple(found))


def _validate_trees_doc(doc: dict[str, Any], source: str) -> None:
    for name in ("topology", "direction", "status"):
        _require(isinstance(doc.get(name), str), source, f"field {name!r} is missing or not text")
    groups: list[Any] = []
    if isinstance(doc.get("sets"), list):
        for i, s in enumerate(doc["sets"]):
            _require(
                isinstance(s, dict) and isinstance(s.get("trees"), list),
                source,
                f"set #{i} has no 'trees' list",
            )
            groups.append(s["trees"])
            lb = s.get("lower_bound")
            _require(lb is None or _is_int(lb), source, f"set #{i} lower_bound is not an integer")
    else:
        _require(isinstance(doc.get("trees"), list), source, "has neither 'sets' nor 'trees'")
        groups.append(doc["trees"])
    for trees in groups:
        for t in trees:
            _require(
                isinstance(t, dict) and _is_int(t.get("root")), source, "a tree has no integer root"
            )
            _require(
                _is_int(t.get("height", -1)),
                source,
                f"tree root {t['root']}: height is not an integer",
            )
            _require(
                _is_num(t.get("share", 1.0)),
                source,
                f"tree root {t['root']}: share is not a number",
            )
            arcs_ = t.get("arcs")
            _require(
                isinstance(arcs_, list)
                and all(
                    isinstance(a, list) and len(a) == 3 and all(map(_is_int, a)) for a in arcs_
                ),
                source,
                f"tree root {t['root']}: arcs must be a list of [src, dst, key] integer triples",
            )
    span = doc.get("span")
    _require(
        span is None or (isinstance(span, list) and all(map(_is_int, span))),
        source,
        "span is not a list of node ids",
    )
    for name in ("lower_bound", "objective"):
        _require(
            doc.get(name) is None or _is_int(doc.get(name)), source, f"{name} is not an integer"
        )
    _require(
        doc.get("stats") is None or isinstance(doc.get("stats"), dict),
        source,
        "stats is not an object",
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system is simply not a file
        return False


def _topology_for(spec: str, base_dir: Path | None) -> Any:
    path = Path(spec)
    if spec.endswith(".json") or _is_file(path):
        if not path.is_absolute() and not _is_file(path) and base_dir is not None:
            path = base_dir / path
        return build(path)
    if len(spec) > 200 or ":" not in spec:
        raise InputFileError(
            f"topology {spec[:60]!r} is neither a spec nor an existing topology file",
            hint="name a spec such as smbi:4x4 or the path of a topology JSON file",
        )
    if _expected_compute(spec) > MAX_CHIPLETS:
        raise InputFileError(
            f"topology {spec!r} has more than {MAX_CHIPLETS} chiplets; refusing to build it"
        )
    return build(spec)


def _check_trees(doc: dict[str, Any], source: str, base_dir: Path | None) -> FileReport:
    _validate_trees_doc(doc, source)
    try:
        packing = TreePacking.from_json(doc, source=source)
    except (TypeError, ValueError) as exc:
        raise InputFileError(f"{source}: malformed tree file ({exc})") from None
    G = _topology_for(packing.topology, base_dir)
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


def _deadlock(G: Any, schedule: Schedule, found: list[Finding]) -> tuple[str, dict[str, Any]]:
    """The deadlock verdict for the summary line, the report's extra part; extends ``found``."""
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


def _check_schedule(doc: dict[str, Any], source: str, base_dir: Path | None) -> FileReport:
    try:
        schedule = Schedule.from_json(doc, source=source)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise InputFileError(f"{source}: malformed schedule file ({exc})") from None
    G = _topology_for(schedule.topology, base_dir)
    found = check_schedule(G, schedule)
    verdict, extra = _deadlock(G, schedule, found)
    summary = (
        f"schedule {schedule.collective} on {schedule.topology}: {len(schedule.entries)} "
        f"entries, {schedule.chunks} chunk(s) per {'block' if schedule.weighted else 'tree'}, "
        f"{verdict}"
    )
    return FileReport(source, "schedule", summary, tuple(found), extra)


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
        return _check_topology(doc, source)
    if fmt == "supermesh-trees":
        return _check_trees(doc, source, base)
    if fmt == "supermesh-schedule":
        return _check_schedule(doc, source, base)
    raise InputFileError(
        f"{source} has format {fmt!r}, which verify does not read",
        hint="verify reads supermesh-topology, supermesh-trees and supermesh-schedule files",
    )


def check_file(path: str | Path) -> FileReport:
    """Read a JSON file and check it (see :func:`check_document`).

    Raises
    ------
    InputFileError
        If the file cannot be read or parsed, or is not a document verify reads.
    """
    return check_document(read_json_file(path), source=str(path), base_dir=Path(path).parent)
