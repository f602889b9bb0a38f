"""The campaign's judge of topology and design files, from docs/schemas/topology.schema.json and
design.schema.json.

A topology file is valid when it is schema-valid JSON with distinct node ids, arcs between
existing distinct nodes, each (src, dst, key) once and parallel arcs keyed 0, 1, ...; when its
spec is the original's, its nodes, arcs and graph fields are the original's (the spec's, which
the original holds); its metrics are the original's facts (a bisection width stated as an upper
bound may be any value not below the true one). A design is valid when, moreover, the file is its
base plus the added links, each a candidate within the port budget; the design carries its target
(max-flow); its cost is the links' cost, optimal exactly when the lower bound meets it, and the
lower bound is at most the counting bound or the original's in a context no easier.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

import networkx as nx
from _oracle_common import Invalid, check_schema, compute, flow_ok, need, same_json

from supermesh.errors import SupermeshError
from supermesh.topologies import build


def _norm(doc: dict[str, Any]) -> tuple[Any, ...]:
    nodes, arcs = {}, {}
    for nd in doc["nodes"]:
        need(nd["id"] not in nodes, "a node id is repeated")
        pos = tuple(float(x) for x in nd.get("pos", [0.0, 0.0]))
        nodes[nd["id"]] = (nd.get("kind", "compute"), pos, nd.get("row"), nd.get("col"))
    for ad in doc["arcs"]:
        a = (ad["src"], ad["dst"], ad["key"])
        need(a not in arcs and a[0] in nodes and a[1] in nodes and a[0] != a[1], f"arc {a}")
        arcs[a] = (
            ad.get("cls", "mesh"),
            float(ad.get("bandwidth", 1.0)),
            float(ad.get("latency", 1.0)),
        )
    keys: dict[tuple[int, int], list[int]] = defaultdict(list)
    for u, v, k in arcs:
        keys[(u, v)].append(k)
    need(all(sorted(ks) == list(range(len(ks))) for ks in keys.values()), "keys are not 0, 1, ...")
    params = {k: v for k, v in (doc.get("params") or {}).items() if k != "design"}
    graph = (doc.get("family", "file"), doc.get("rows"), doc.get("cols"), params)
    return nodes, arcs, graph


def _graph(nodes: dict[int, Any], arcs: dict[tuple[int, int, int], Any]) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for n, (kind, *_rest) in nodes.items():
        G.add_node(n, kind=kind)
    for (u, v, k), (cls, bw, lat) in arcs.items():
        G.add_edge(u, v, key=k, cls=cls, bandwidth=bw, latency=lat)
    return G


def _metrics(doc: dict[str, Any], original: dict[str, Any]) -> None:
    stated, truth = doc["metrics"], original.get("metrics") or {}
    for key, value in stated.items():
        if key in ("name", "spec"):
            need(value == doc.get(key, ""), f"metrics.{key} is not the file's {key}")
        elif key == "bisection_width":
            exact = stated.get("bisection_exact")
            need(
                isinstance(exact, bool) and truth.get("bisection_exact") is True, "bisection claims"
            )
            true = truth["bisection_width"]
            need(value == true if exact else value >= true, "bisection width")
        elif key == "bisection_exact":
            need("bisection_width" in stated, "bisection_exact without a width")
        else:
            need(same_json(value, truth.get(key)), f"metrics.{key} differs from the true value")


def _cells(B: nx.MultiDiGraph) -> dict[tuple[int, int], int]:
    return {
        (d["row"], d["col"]): n
        for n, d in B.nodes(data=True)
        if d["kind"] == "compute" and d.get("row") is not None
    }


def _family(B: nx.MultiDiGraph, name: str) -> set[tuple[int, int]]:
    linked = {tuple(sorted((u, v))) for u, v in B.edges()}
    if name == "any-parallel":
        return linked
    cells = _cells(B)
    if B.graph.get("family") == "hexamesh":
        if name != "perimeter-parallel":
            return set()
        ring = {
            n
            for n in B
            if B.nodes[n]["kind"] == "compute"
            and sum(B.nodes[m]["kind"] == "compute" for m in B.successors(n)) < 6
        }
        return {p for p in linked if set(p) <= ring}
    R, C = B.graph["rows"], B.graph["cols"]
    if name == "diagonal":
        return {
            tuple(sorted((n, cells[(r + 1, c + d)])))
            for (r, c), n in cells.items()
            for d in (-1, 1)
            if (r + 1, c + d) in cells
        }
    ring = [(0, c) for c in range(C)] + [(r, C - 1) for r in range(1, R)]
    ring += [(R - 1, c) for c in range(C - 2, -1, -1)] + [(r, 0) for r in range(R - 2, 0, -1)]
    out = set()
    for i, a in enumerate(ring):
        b = ring[(i + 1) % len(ring)]
        p = tuple(sorted((cells[a], cells[b])))
        if p in linked:
            out.add(p)
    return out


def _candidates(B: nx.MultiDiGraph, design: dict[str, Any]) -> dict[tuple[int, int], int]:
    cands = design.get("candidates")
    need(isinstance(cands, dict), "no candidates stated")
    offered = {}
    for name in cands.get("families", []):
        offered |= dict.fromkeys(_family(B, name), 1)
    for u, v in cands.get("links", []):
        need(u < v, "a link pair not in order")
        offered[(u, v)] = 1
    for text, c in cands.get("costs", {}).items():
        u, v = map(int, text.split("-"))
        need((u, v) in offered, "a cost for a non-candidate")
        offered[(u, v)] = c
    return offered


def _ports(G: nx.MultiDiGraph) -> dict[int, int]:
    return {n: max(G.in_degree(n), G.out_degree(n)) for n in G}


def _budget(B: nx.MultiDiGraph, design: dict[str, Any]) -> dict[int, int]:
    raw = design.get("max_links")
    if isinstance(raw, int):
        return dict.fromkeys(B, raw)
    need(isinstance(raw, dict), "no port budget stated")
    base = max(_ports(B).values())
    return {n: raw.get(str(n), base) for n in B}


def _need(
    B: nx.MultiDiGraph, target: dict[str, Any], span: list[int], offered: dict[tuple[int, int], int]
) -> dict[int, int]:
    k, roots = target["trees"], target["roots"]
    dirs = ["out", "in"] if target["direction"] == "both" else [target["direction"]]
    sets = (
        [None] if roots == "any" else (roots if roots and isinstance(roots[0], list) else [roots])
    )
    hang: dict[int, set[int]] = defaultdict(set)
    for m in B:
        around = set(B.successors(m)) | set(B.predecessors(m))
        if m not in span and len(around) == 1 and next(iter(around)) in span:
            hang[next(iter(around))].add(m)
    out: dict[int, int] = {}
    for v in span:
        side = {v} | hang[v]
        if any((a in side) != (b in side) and v not in (a, b) for a, b in offered):
            side = {v}
        worst = 0
        for rs in sets:
            for d in dirs:
                want = k if rs is None else sum(1 for r in rs if r not in side)
                arcs = B.in_edges(side) if d == "out" else B.out_edges(side)
                have = sum(1 for a, b in arcs if (a if d == "out" else b) not in side)
                worst = max(worst, want - have)
        if worst > 0:
            out[v] = worst
    return out


def _counting(
    B: nx.MultiDiGraph,
    need_: dict[int, int],
    offered: dict[tuple[int, int], int],
    budget: dict[int, int],
) -> int:
    room = {n: budget[n] - p for n, p in _ports(B).items()}
    H = nx.Graph()
    H.add_weighted_edges_from(
        (u, v, c) for (u, v), c in offered.items() if room[u] > 0 and room[v] > 0
    )
    if any(v not in H for v in need_):
        return 10**9
    cheap = {v: min(H[v][w]["weight"] for w in H[v]) for v in H}
    total = 0
    for comp in nx.connected_components(H):
        sub = H.subgraph(comp)
        if nx.is_bipartite(sub):
            sides = nx.bipartite.sets(sub)
            total += max(sum(need_.get(v, 0) * cheap[v] for v in side) for side in sides)
        else:
            total += math.ceil(sum(need_.get(v, 0) * cheap[v] for v in comp) / 2)
    return total


def _design(doc: dict[str, Any], original: dict[str, Any], G: nx.MultiDiGraph) -> None:
    design, orig = doc["params"]["design"], original["params"]["design"]
    need(doc["spec"] == design["base"] + "+design", "spec is not base+design")
    try:
        B = build(design["base"])
    except SupermeshError:
        raise Invalid("the base does not build") from None
    added = [tuple(p) for p in design["added"]]
    need(all(u < v for u, v in added) and len(set(added)) == len(added), "added pairs")
    expected = Counter(B.edges()) + Counter(x for u, v in added for x in ((u, v), (v, u)))
    need(Counter(G.edges()) == expected and set(G) == set(B), "the file is not base plus the links")
    for u, v, k, d in G.edges(keys=True, data=True):
        base = B.number_of_edges(u, v)
        want = (
            dict(B.edges[u, v, k])
            if k < base
            else {"cls": "added", "bandwidth": 1.0, "latency": 1.0}
        )
        need(d == want, "an arc's attributes")
    target = design["target"]
    span = compute(B) if target["span"] == "compute" else sorted(set(target["span"]))
    need(set(span) <= set(B), "the span")
    k = target["trees"]
    roots = target["roots"]
    sets = (
        [None] if roots == "any" else (roots if roots and isinstance(roots[0], list) else [roots])
    )
    dirs = ["out", "in"] if target["direction"] == "both" else [target["direction"]]
    for rs in sets:
        need(rs is None or (0 < len(rs) <= k and set(rs) <= set(B)), "target roots")
        for d in dirs:
            need(flow_ok(G, rs, k, d, span), "the design does not carry its target")
    need(len(span) == G.number_of_nodes(), "relays: the target cannot be shown by flow")
    need(target.get("max_height") is None, "a height target the file cannot show")
    offered = _candidates(B, design)
    need(all(p in offered for p in added), "an added link is no candidate")
    budget = _budget(B, design)
    need(all(p <= budget[n] for n, p in _ports(G).items()), "over the port budget")
    cost = sum(offered[p] for p in added)
    lb, status = design.get("lower_bound"), design.get("status")
    need(design.get("cost", cost) == cost, "cost")
    need(lb is None or (lb <= cost and (status == "optimal") == (lb == cost)), "status / bound")
    if lb is None:
        return
    counting = _counting(B, _need(B, target, span, offered), offered, budget)
    same = (
        design["base"] == orig["base"]
        and same_json(target, orig["target"])
        and offered == _candidates(B, orig)
        and budget == _budget(B, orig)
    )
    need(lb <= counting or (same and lb <= orig["lower_bound"]), "lower_bound not known true")


def topology_problem(doc: Any, original: dict[str, Any]) -> None:
    """Raise :class:`Invalid` unless the topology (or design) document ``doc`` is valid."""
    is_design = isinstance(doc, dict) and (
        str(doc.get("spec", "")).endswith("+design")
        or "design" in (doc.get("params") if isinstance(doc.get("params"), dict) else {})
    )
    check_schema(doc, "design" if is_design else "topology", original)
    nodes, arcs, graph = _norm(doc)
    if doc.get("spec", "") == original.get("spec", ""):
        o_nodes, o_arcs, o_graph = _norm(original)
        need(
            nodes == o_nodes and arcs == o_arcs and same_json(graph, o_graph),
            "not the spec's topology",
        )
    else:
        need(doc.get("spec", "") == "", "a spec other than the original's")
    G = _graph(nodes, arcs)
    if "metrics" in doc:
        need(
            "metrics" in original and _norm(doc)[:2] == _norm(original)[:2],
            "metrics of another topology",
        )
        _metrics(doc, original)
    if is_design:
        need("design" in (original.get("params") or {}), "a design where there was none")
        _design(doc, original, G)
