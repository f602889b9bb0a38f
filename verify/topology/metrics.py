"""Recount the ``metrics`` a topology file states (``topo -o`` writes them for people).

Every metric is a fact about the topology, recounted here from the nodes and arcs with the
meanings documented in :func:`supermesh.topologies.metrics.metrics` (none of its code runs):

``chiplets``
    nodes per kind (kinds with none left out).
``links``, ``arcs``, ``added_arcs``, ``added_share``, ``arcs_by_class``
    physical links (per chiplet pair the larger of the two directions' arc counts: a two-way
    link, or a one-way extra arc), arcs, arcs of class ``added`` and their share (4 decimals),
    arcs per class.
``links_per_node``, ``router_radix``
    per node ``max(in-arcs, out-arcs)``: the smallest and largest, and the distinct values per
    node class (``corner`` / ``border`` / ``interior`` compute chiplets of a grid; on HexaMesh
    ``interior`` means all six brick neighbours are compute chiplets; other nodes by kind); the
    radix is the largest plus the local port.
``diameter``
    the largest hop distance between two nodes, over directed paths.
``arc_connectivity``
    the fewest arc-disjoint paths between an ordered pair of compute chiplets (max-flow).
``bisection_width``, ``bisection_exact``
    the fewest arcs from one half of the nodes to the other over balanced halves (the smaller
    direction); ``exact`` claims the minimum over every bisection, recounted by enumeration up to
    :data:`EXACT_BISECTION_NODES` nodes; an upper bound (``exact`` false) names no bisection, so
    it is unproven.

Above :data:`LARGEST` nodes the diameter and connectivity are not recounted (unproven claims).
"""

from __future__ import annotations

import itertools
from collections import Counter, deque
from typing import Any

import networkx as nx
import numpy as np

from supermesh.verify.claims import Claim, re_derived, unproven
from supermesh.verify.documents import same_value
from supermesh.verify.findings import Finding

__all__ = ["EXACT_BISECTION_NODES", "LARGEST", "check_metrics", "recount_metrics"]

EXACT_BISECTION_NODES = 20
"""Largest topology whose exact bisection width is recounted by enumeration."""
LARGEST = 1024
"""Largest topology whose diameter and arc connectivity are recounted."""


def _node_class(G: nx.MultiDiGraph, n: int) -> str:
    d = G.nodes[n]
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if d.get("kind") != "compute" or rows is None or d.get("row") is None:
        return str(d.get("kind"))
    if G.graph.get("family") == "hexamesh":
        brick = {v for v in G.successors(n) if G.nodes[v].get("kind") == "compute"}
        return "interior" if len(brick) == 6 else "border"
    on_row, on_col = d["row"] in (0, rows - 1), d.get("col") in (0, (cols or 0) - 1)
    if on_row and on_col:
        return "corner"
    return "border" if on_row or on_col else "interior"


def _diameter(G: nx.MultiDiGraph) -> int:
    best = 0
    for s in G:
        dist = {s: 0}
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in G.successors(u):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        best = max(best, max(dist.values()))
    return best


def _connectivity(G: nx.MultiDiGraph) -> int:
    compute = sorted(n for n, k in G.nodes(data="kind") if k == "compute")
    if len(compute) < 2:
        return 0
    D = nx.DiGraph()
    D.add_nodes_from(G)
    for (u, v), c in Counter(G.edges()).items():
        D.add_edge(u, v, capacity=c)
    pivot = compute[0]
    flows = []
    for v in compute[1:]:  # Menger: the minimum over pairs is reached through any one node
        flows.append(nx.maximum_flow_value(D, pivot, v))
        flows.append(nx.maximum_flow_value(D, v, pivot))
    return int(min(flows))


def _bisection(G: nx.MultiDiGraph) -> int:
    nodes = sorted(G)
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    W = np.zeros((n, n), dtype=np.int64)
    for u, v in G.edges():
        W[index[u], index[v]] += 1
    best: int | None = None
    combos = itertools.combinations(range(1, n), n // 2 - 1)
    while batch := list(itertools.islice(combos, 20000)):
        X = np.zeros((len(batch), n), dtype=np.int64)
        X[:, 0] = 1  # node 0 on side A: each bisection once
        for j, combo in enumerate(batch):
            X[j, list(combo)] = 1
        forward = np.einsum("bi,ij,bj->b", X, W, 1 - X)
        backward = np.einsum("bi,ij,bj->b", 1 - X, W, X)
        low = int(np.minimum(forward, backward).min())
        best = low if best is None else min(best, low)
    return best or 0


def recount_metrics(G: nx.MultiDiGraph, *, bisection: bool = False) -> dict[str, Any]:
    """The metrics recounted from the arcs (see the module docstring); slow ones left out.

    ``diameter`` and ``arc_connectivity`` only up to :data:`LARGEST` nodes, the exact
    ``bisection_width`` only when asked and up to :data:`EXACT_BISECTION_NODES` nodes.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    bisection : bool
        Also recount the exact bisection width (small networks only).

    Returns
    -------
    dict
        Metric name -> value, the keys of :func:`supermesh.topologies.metrics.metrics`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> m = recount_metrics(build("smbi:4x4"), bisection=True)
    >>> m["links"], m["router_radix"], m["diameter"], m["arc_connectivity"], m["bisection_width"]
    (36, 6, 6, 4, 6)
    """
    kinds = Counter(k for _, k in G.nodes(data="kind"))
    classes = Counter(c for *_, c in G.edges(data="cls"))
    pairs = {frozenset((u, v)) for u, v in G.edges()}
    links = 0
    for p in pairs:
        u, v = sorted(p)
        links += max(G.number_of_edges(u, v), G.number_of_edges(v, u))
    ports = {n: max(G.in_degree(n), G.out_degree(n)) for n in G}
    by_class: dict[str, set[int]] = {}
    for n, k in ports.items():
        by_class.setdefault(_node_class(G, n), set()).add(k)
    m = G.number_of_edges()
    out: dict[str, Any] = {
        "name": G.graph.get("name", ""),
        "spec": G.graph.get("spec", ""),
        "chiplets": {k: kinds[k] for k in ("compute", "memory", "io", "router") if kinds.get(k)},
        "links": links,
        "arcs": m,
        "added_arcs": classes.get("added", 0),
        "added_share": round(classes.get("added", 0) / max(m, 1), 4),
        "arcs_by_class": dict(sorted(classes.items())),
        "links_per_node": {
            "min": min(ports.values(), default=0),
            "max": max(ports.values(), default=0),
            "by_class": {c: sorted(v) for c, v in sorted(by_class.items())},
        },
        "router_radix": max(ports.values(), default=0) + 1,
    }
    if G.number_of_nodes() <= LARGEST:
        out["diameter"] = _diameter(G)
        out["arc_connectivity"] = _connectivity(G)
    if bisection and G.number_of_nodes() <= EXACT_BISECTION_NODES:
        out["bisection_width"] = _bisection(G)
    return out


def check_metrics(G: nx.MultiDiGraph, stated: Any) -> tuple[list[Finding], list[Claim]]:
    """Hold a file's ``metrics`` against their recount.

    Returns
    -------
    (list of Finding, list of Claim)
        ``metrics-mismatch`` errors (a stated value that differs, an unknown metric); claims for
        the bisection width (re-derived when exact and small enough, else unproven) and for the
        metrics too large to recount.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    stated : object
        The file's ``metrics`` object.

    Examples
    --------
    >>> from supermesh.topologies import build, metrics
    >>> G = build("mesh:3x3")
    >>> stated = metrics(G) | {"diameter": 3}
    >>> [f.message for f in check_metrics(G, stated)[0]]
    ['metrics.diameter is 3, the topology gives 4']
    """
    if not isinstance(stated, dict):
        return [Finding("metrics-mismatch", f"metrics is {stated!r}, not an object")], []
    exact = stated.get("bisection_exact")
    small = G.number_of_nodes() <= EXACT_BISECTION_NODES
    true = recount_metrics(G, bisection="bisection_width" in stated and small)
    found: list[Finding] = []
    claims: list[Claim] = []
    for key, value in stated.items():
        if key in ("bisection_width", "bisection_exact"):
            continue
        if key not in true:
            if key in ("diameter", "arc_connectivity"):
                claims.append(
                    unproven(
                        f"metrics.{key}", f"{key} {value}", f"not recounted above {LARGEST} nodes"
                    )
                )
            else:
                found.append(Finding("metrics-mismatch", f"metrics.{key} is not a known metric"))
            continue
        if not same_value(value, true[key]):
            found.append(
                Finding(
                    "metrics-mismatch",
                    f"metrics.{key} is {value!r}, the topology gives {true[key]!r}",
                )
            )
    width = stated.get("bisection_width")
    if "bisection_width" in stated or "bisection_exact" in stated:
        if not isinstance(width, int) or isinstance(width, bool) or not isinstance(exact, bool):
            found.append(
                Finding(
                    "metrics-mismatch",
                    "metrics.bisection_width must be an integer and bisection_exact true or false",
                )
            )
        elif "bisection_width" in true:
            smallest = true["bisection_width"]
            if width < smallest or (exact and width != smallest):
                found.append(
                    Finding(
                        "metrics-mismatch",
                        f"metrics.bisection_width is {'exactly' if exact else 'at most'} {width}, "
                        f"the smallest bisection has {smallest} arcs",
                    )
                )
            else:
                claims.append(
                    re_derived(
                        "metrics.bisection_width",
                        f"the bisection width is {'exactly' if exact else 'at most'} {width}",
                        f"every balanced bisection enumerated: the smallest has {smallest} arcs",
                    )
                )
        else:
            what = "exactly" if exact else "at most"
            why = (
                f"not enumerated above {EXACT_BISECTION_NODES} nodes"
                if exact
                else "an upper bound names no bisection to recount"
            )
            claims.append(
                unproven("metrics.bisection_width", f"the bisection width is {what} {width}", why)
            )
    return found, claims
