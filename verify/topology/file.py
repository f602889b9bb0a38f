"""Check a topology file: its structure, the spec it names, its metrics, and a design's claims.

The ``supermesh-topology`` part of :func:`~supermesh.verify.files.check_document`.

Structure
    every node has a distinct non-negative integer id, a known ``kind``, a ``pos`` of two
    finite numbers, ``row`` / ``col`` integers or null; every arc names existing nodes, is no
    self-loop, has a known ``cls`` and finite positive ``bandwidth`` and ``latency``; no
    ``(src, dst, key)`` is repeated; parallel arcs are keyed 0, 1, ... (a gap is a warning).
The spec
    when the file names a spec (``mesh:4x4``), the spec rebuilt gives exactly these nodes (kind,
    pos, row, col), arcs (cls, bandwidth, latency) and graph fields (family, rows, cols, params):
    anything else is a ``spec-mismatch`` error. A design (``spec`` ending in ``+design``) is
    checked against its base instead (:mod:`~supermesh.verify.topology.design`).
Metrics
    ``metrics`` (written by ``topo -o`` for people) states facts about the topology; each is
    recounted (:mod:`~supermesh.verify.topology.metrics`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.io import from_json
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, arcs
from supermesh.topologies.spec import build
from supermesh.verify.claims import Claim, unproven_findings
from supermesh.verify.documents import (
    FileReport,
    expected_compute,
    is_int,
    is_num,
    require,
    unknown_fields,
)
from supermesh.verify.findings import Finding
from supermesh.verify.topology.design import DESIGN_SUFFIX, check_design
from supermesh.verify.topology.metrics import check_metrics

__all__ = ["check_topology_file", "spec_differences"]

_SHOWN = 5
TOP = (
    "format",
    "version",
    "name",
    "spec",
    "family",
    "rows",
    "cols",
    "params",
    "nodes",
    "arcs",
    "metrics",
)
NODE = ("id", "kind", "pos", "row", "col")
ARC = ("src", "dst", "key", "cls", "bandwidth", "latency")


def _arc(a: tuple[int, int, int]) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _finite(x: Any) -> bool:
    return is_num(x) and math.isfinite(x)


def spec_differences(G: nx.MultiDiGraph, H: nx.MultiDiGraph, what: str) -> list[Finding]:
    """Where topology ``G`` (the file) differs from ``H`` (``what``, e.g. a rebuilt spec).

    Nodes (kind, pos, row, col), arcs (cls, bandwidth, latency), and the graph fields family,
    rows, cols and params; at most a few findings of each kind.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The file's topology.
    H : networkx.MultiDiGraph
        What it should equal.
    what : str
        How ``H`` is named in the messages.

    Returns
    -------
    list of Finding
        ``spec-mismatch`` errors.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G, H = build("smbi:2x2"), build("smbi:2x2")
    >>> G.edges[0, 1, 0]["bandwidth"] = 2.0
    >>> [f.message for f in spec_differences(G, H, "spec 'smbi:2x2'")]
    ["arc 0->1 key 0 has bandwidth 2.0, spec 'smbi:2x2' gives 1.0"]
    """
    found: list[Finding] = []
    mine, theirs = set(G.edges(keys=True)), set(H.edges(keys=True))
    for a in sorted(theirs - mine)[:_SHOWN]:
        found.append(
            Finding("spec-mismatch", f"{what} has arc {_arc(a)}, the file does not", arc=a)
        )
    for a in sorted(mine - theirs)[:_SHOWN]:
        found.append(
            Finding("spec-mismatch", f"the file has arc {_arc(a)}, {what} does not", arc=a)
        )
    shown: Counter[str] = Counter()
    for a in sorted(mine & theirs):
        for name in ("cls", "bandwidth", "latency"):
            x, y = G.edges[a].get(name), H.edges[a].get(name)
            if x != y and shown[name] < _SHOWN:
                shown[name] += 1
                found.append(
                    Finding(
                        "spec-mismatch",
                        f"arc {_arc(a)} has {name} {x!r}, {what} gives {y!r}",
                        arc=a,
                    )
                )
    for n in sorted(set(G) | set(H)):
        for name in ("kind", "pos", "row", "col"):
            x = G.nodes[n].get(name) if n in G else None
            y = H.nodes[n].get(name) if n in H else None
            if name == "pos" and x is not None and y is not None:
                x, y = tuple(map(float, x)), tuple(map(float, y))
            if x != y and shown[name] < _SHOWN:
                shown[name] += 1
                found.append(
                    Finding(
                        "spec-mismatch",
                        f"node {n} has {name} {x!r} in the file, {y!r} in {what}",
                        node=n,
                    )
                )
    for name in ("family", "rows", "cols", "params"):
        x, y = G.graph.get(name), H.graph.get(name)
        if name == "params":
            x = {k: v for k, v in (x or {}).items() if k != "design"}
            y = {k: v for k, v in (y or {}).items() if k != "design"}
        if x != y:
            found.append(
                Finding("spec-mismatch", f"the file's {name} is {x!r}, {what} gives {y!r}")
            )
    return found


def _spec_findings(doc: dict[str, Any], G: nx.MultiDiGraph) -> list[Finding]:
    spec = doc.get("spec")
    if not isinstance(spec, str) or not spec or spec.endswith(".json") or ":" not in spec:
        return []
    if len(spec) > 200:
        return [Finding("spec-mismatch", f"spec {spec[:40]!r}... is too long to be a spec")]
    try:
        expected = expected_compute(spec)
    except SupermeshError as exc:
        return [Finding("spec-mismatch", f"spec {spec!r} does not parse: {exc}")]
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
        return [Finding("spec-mismatch", f"spec {spec!r} does not build: {exc}")]
    return spec_differences(G, H, f"spec {spec!r}")


def _structure(doc: dict[str, Any], source: str) -> tuple[list[Finding], int]:
    nodes, raw_arcs = doc.get("nodes"), doc.get("arcs")
    if not isinstance(nodes, list) or not isinstance(raw_arcs, list):
        raise InputFileError(f"{source}: 'nodes' and 'arcs' must both be lists")
    found: list[Finding] = unknown_fields(doc, TOP, "the file")
    version = doc.get("version", 1)
    if isinstance(version, bool) or version != 1:
        raise InputFileError(f"{source} has version {version!r}; this tool reads version 1")
    ids: set[int] = set()
    for i, nd in enumerate(nodes):
        found += unknown_fields(nd, NODE, f"node #{i}")
        require(
            isinstance(nd, dict) and is_int(nd.get("id")) and nd["id"] >= 0,
            source,
            f"node #{i} has no non-negative integer id",
        )
        n = nd["id"]
        if n in ids:
            found.append(Finding("bad-attribute", f"node id {n} is repeated", node=n))
        ids.add(n)
        if nd.get("kind", "compute") not in NODE_KINDS:
            found.append(Finding("bad-attribute", f"node {n} has kind {nd.get('kind')!r}", node=n))
        pos = nd.get("pos", [0.0, 0.0])
        if not (isinstance(pos, list) and len(pos) == 2 and all(map(_finite, pos))):
            found.append(
                Finding(
                    "bad-attribute",
                    f"node {n} has pos {pos!r}, not [x, y] of two finite numbers",
                    node=n,
                )
            )
        for name in ("row", "col"):
            if nd.get(name) is not None and not is_int(nd[name]):
                found.append(Finding("bad-attribute", f"node {n} has {name} {nd[name]!r}", node=n))
    seen: Counter[tuple[int, int, int]] = Counter()
    touched: set[int] = set()
    for i, ad in enumerate(raw_arcs):
        require(
            isinstance(ad, dict)
            and all(is_int(ad.get(f)) and ad[f] >= 0 for f in ("src", "dst", "key")),
            source,
            f"arc #{i} lacks non-negative integer src, dst and key",
        )
        a = (ad["src"], ad["dst"], ad["key"])
        found += unknown_fields(ad, ARC, f"arc {_arc(a)}")
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
            if not _finite(value) or not value > 0:
                found.append(Finding("bad-attribute", f"arc {_arc(a)} has {name} {value!r}", arc=a))
    keys: dict[tuple[int, int], list[int]] = defaultdict(list)
    for a, count in sorted(seen.items()):
        keys[(a[0], a[1])].append(a[2])
        if count > 1:
            found.append(Finding("arc-repeated", f"arc {_arc(a)} is listed {count} times", arc=a))
    for (u, v), ks in sorted(keys.items()):
        if sorted(set(ks)) != list(range(len(set(ks)))):
            found.append(
                Finding(
                    "key-gap",
                    f"arcs {u}->{v} have keys {ks}, not 0..{len(ks) - 1}",
                    "error" if doc.get("spec") else "warning",
                )
            )
    if len(ids) > 1:
        for n in sorted(ids - touched):
            found.append(Finding("isolated-node", f"node {n} has no arc", "warning", node=n))
    for name in ("rows", "cols"):
        if doc.get(name) is not None and not (is_int(doc[name]) and doc[name] >= 1):
            found.append(Finding("bad-attribute", f"{name} is {doc[name]!r}, not a count"))
    for name in ("name", "spec", "family"):
        if name in doc and not isinstance(doc[name], str):
            found.append(Finding("bad-attribute", f"{name} is {doc[name]!r}, not text"))
    if doc.get("params") is not None and not isinstance(doc["params"], dict):
        found.append(Finding("bad-attribute", f"params is {doc['params']!r}, not an object"))
    return found, len(ids)


def check_topology_file(doc: dict[str, Any], source: str) -> FileReport:
    """Check a ``supermesh-topology`` document (see the module docstring).

    Parameters
    ----------
    doc : dict
        The parsed document.
    source : str
        Name used in messages.

    Returns
    -------
    FileReport
        Kind ``"design"`` when the file holds a design (``params.design``), else ``"topology"``.

    Raises
    ------
    InputFileError
        If ``nodes`` or ``arcs`` are not lists of objects with integer ids.

    Examples
    --------
    >>> from supermesh.topologies import build, to_json
    >>> check_topology_file(to_json(build("mesh:2x2")), "t.json").ok
    True
    """
    found, n_nodes = _structure(doc, source)
    kind = "topology"
    claims: list[Claim] = []
    summary = f"topology {doc.get('spec') or source}: {n_nodes} nodes, {len(doc['arcs'])} arcs"
    if not any(f.is_error for f in found):
        try:
            G = from_json(doc, source=source)
        except (TypeError, ValueError) as exc:
            raise InputFileError(f"{source}: malformed topology ({exc})") from None
        summary = f"topology {G.graph['spec']}: {G.number_of_nodes()} nodes, {len(arcs(G))} arcs"
        params: dict[str, Any] = doc["params"] if isinstance(doc.get("params"), dict) else {}
        if "design" in params or str(doc.get("spec", "")).endswith(DESIGN_SUFFIX):
            kind = "design"
            more, design_claims = check_design(G, doc)
            found += more
            claims += design_claims
            summary = summary.replace("topology ", "design ", 1)
        else:
            found += _spec_findings(doc, G)
        if "metrics" in doc:
            more, metric_claims = check_metrics(G, doc["metrics"])
            found += more
            claims += metric_claims
    found += unproven_findings(claims)
    return FileReport(source, kind, summary, tuple(found), claims=tuple(claims))
