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

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.io import from_json, read_json_file
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, arcs
from supermesh.topologies.spec import build
from supermesh.verify.documents import FileReport, expected_compute, is_int, is_num, require
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.file import check_schedule_file
from supermesh.verify.trees.file import check_trees_file

__all__ = ["check_document", "check_file"]


def _arc(a: tuple[int, int, int]) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _spec_findings(doc: dict[str, Any], G: Any) -> list[Finding]:
    spec = doc.get("spec")
    if not isinstance(spec, str) or not spec or spec.endswith(".json") or ":" not in spec:
        return []
    if len(spec) > 200:
        return [
            Finding("spec-mismatch", f"spec {spec[:40]!r}... is too long to be a spec", "warning")
        ]
    try:
        expected = expected_compute(spec)
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
        require(
            isinstance(nd, dict) and is_int(nd.get("id")), source, f"node #{i} has no integer id"
        )
        n = nd["id"]
        if n in ids:
            found.append(Finding("bad-attribute", f"node id {n} is repeated", node=n))
        ids.add(n)
        if nd.get("kind", "compute") not in NODE_KINDS:
            found.append(Finding("bad-attribute", f"node {n} has kind {nd.get('kind')!r}", node=n))
        pos = nd.get("pos", [0.0, 0.0])
        if not (isinstance(pos, list) and len(pos) == 2 and all(map(is_num, pos))):
            found.append(Finding("bad-attribute", f"node {n} has pos {pos!r}, not [x, y]", node=n))
    seen: Counter[tuple[int, int, int]] = Counter()
    touched: set[int] = set()
    for i, ad in enumerate(raw_arcs):
        require(
            isinstance(ad, dict) and all(is_int(ad.get(f)) for f in ("src", "dst", "key")),
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
            if not is_num(value) or not value > 0:
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
        return check_trees_file(doc, source, base)
    if fmt == "supermesh-schedule":
        return check_schedule_file(doc, source, base)
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
