"""Topology files other tools read: JSON, BookSim anynet, Graphviz dot, GraphML.

Every exporter keeps every arc, parallel arcs included. The JSON is the lossless format the tool
reads back (:mod:`supermesh.topologies.io`); the others are for BookSim, Graphviz and graph
editors.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.topologies.io import to_json
from supermesh.topologies.model import arcs

__all__ = ["FORMATS", "anynet_text", "dot_text", "export_text", "graphml_text"]

FORMATS: tuple[str, ...] = ("json", "anynet", "dot", "graphml")

_DOT_COLORS = {"mesh": "gray30", "added": "red3", "memory": "darkgreen", "other": "royalblue3"}


def export_text(G: nx.MultiDiGraph, fmt: str, metrics: dict[str, Any] | None = None) -> str:
    """Return topology ``G`` as the text of format ``fmt``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    fmt : {"json", "anynet", "dot", "graphml"}
        Output format; see :func:`anynet_text`, :func:`dot_text`, :func:`graphml_text`.
    metrics : dict, optional
        Stored in the JSON (``metrics``) and GraphML (graph attribute) outputs.

    Raises
    ------
    SupermeshError
        On an unknown format.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> export_text(build("mesh:2x2"), "anynet").splitlines()[-1]
    'router 3 node 3 router 1 20 router 2 20'
    """
    if fmt == "json":
        return json.dumps(to_json(G, metrics=metrics), indent=1) + "\n"
    if fmt == "anynet":
        return anynet_text(G)
    if fmt == "dot":
        return dot_text(G)
    if fmt == "graphml":
        return graphml_text(G, metrics=metrics)
    raise SupermeshError(f"unknown export format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}")


def _lanes(G: nx.MultiDiGraph) -> dict[tuple[int, int], list[tuple[int | None, int | None]]]:
    """Per node pair ``u < v``: lanes ``(key u->v or None, key v->u or None)``, keys in order."""
    keys: dict[tuple[int, int], list[int]] = defaultdict(list)
    for u, v, k in arcs(G):
        keys[u, v].append(k)
    out = {}
    for u, v in sorted({(min(p), max(p)) for p in keys}):
        out[u, v] = list(itertools.zip_longest(keys.get((u, v), []), keys.get((v, u), [])))
    return out


def anynet_text(G: nx.MultiDiGraph, *, cycles_per_unit: int = 20, header: bool = True) -> str:
    """BookSim ``anynet`` network file, one ``router R node N router R2 LAT ...`` line per router.

    Chiplet ``i`` (in sorted id order) is router ``i`` with terminal ``node i``. A link's latency
    ``L`` becomes ``max(1, round(L * cycles_per_unit))`` cycles (20 per unit link, as in the
    SuperMesh reference runs). Stock BookSim keeps a single channel per router pair and direction
    and adds the reverse direction of every listed link itself, so:

    * the first link between two chiplets is listed directly, each direction on its sender's line;
    * every further (parallel) link goes through its own relay router, numbered after the
      chiplets and without a terminal, the latency split over its two halves (a relayed 1-cycle
      link costs 2). Every physical link is kept; BookSim's shortest-path ``min_anynet`` routing
      never picks a relayed path, a schedule-driven simulator can.
    * a one-way arc (SMUni) cannot be expressed: BookSim makes it two-way.

    With ``header`` the file starts with ``//`` lines saying so. Stock BookSim's anynet parser has
    no comment syntax (any line not starting with ``router`` or ``node`` is fatal), so strip them
    before use (``grep -v '^//'``), or pass ``header=False``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> print(anynet_text(build("smbi:2x2"), header=False).splitlines()[0])
    router 0 node 0 router 1 20 router 4 10 router 2 20 router 5 10
    """
    index = {n: i for i, n in enumerate(sorted(G.nodes))}
    n = len(index)
    links: dict[int, list[tuple[int, int]]] = defaultdict(list)
    relays: list[str] = []

    def cycles(u: int, v: int, k: int) -> int:
        return max(1, round(G.edges[u, v, k]["latency"] * cycles_per_unit))

    def halves(total: int) -> tuple[int, int]:
        first = max(1, (total + 1) // 2)
        return first, max(1, total - first)

    for (u, v), lanes in _lanes(G).items():
        for lane, (k_uv, k_vu) in enumerate(lanes):
            if lane == 0:
                if k_uv is not None:
                    links[index[u]].append((index[v], cycles(u, v, k_uv)))
                if k_vu is not None:
                    links[index[v]].append((index[u], cycles(v, u, k_vu)))
                continue
            relay = n + len(relays)
            cls = G.edges[(u, v, k_uv) if k_uv is not None else (v, u, k_vu)]["cls"]
            way = "<->" if k_uv is not None and k_vu is not None else "->"
            src, dst = (u, v) if k_uv is not None else (v, u)
            relays.append(f"// relay router {relay}: {src} {way} {dst} (link {lane}, {cls})")
            for a, b, k in ((u, v, k_uv), (v, u, k_vu)):
                if k is not None:
                    first, second = halves(cycles(a, b, k))
                    links[index[a]].append((relay, first))
                    links[relay].append((index[b], second))
    lines = []
    if header:
        spec = G.graph.get("spec", "")
        lines += [
            f"// supermesh topology {spec} ({G.graph.get('name', '')}): {n} nodes, "
            f"{G.number_of_edges()} arcs",
            "// stock BookSim's anynet parser has no comments: strip these lines first, e.g.",
            "//   grep -v '^//' THIS_FILE > network.anynet",
            f"// router i with terminal node i is node i (sorted ids); latencies in cycles "
            f"({cycles_per_unit} per unit link)",
            "// stock BookSim merges repeated router pairs, so every parallel link beyond the",
            "// first runs through its own relay router (no terminal; latency split in two):",
            *relays,
        ]
        if any(k is None for lanes in _lanes(G).values() for lane in lanes for k in lane):
            lines.append("// one-way arcs are listed one way; stock BookSim adds the reverse")
        if list(index) != list(range(n)):
            lines.append(
                "// chiplet ids -> routers: " + ", ".join(f"{a}:{i}" for a, i in index.items())
            )
    for router in range(n + len(relays)):
        head = f"router {router}" + (f" node {router}" if router < n else "")
        body = "".join(f" router {other} {lat}" for other, lat in links[router])
        lines.append(head + body)
    return "\n".join(lines) + "\n"


def _q(value: Any) -> str:
    """A DOT double-quoted string (DOT's only escape is ``\\"``; the rest is kept as is)."""
    return '"' + str(value).replace('"', '\\"') + '"'


def dot_text(G: nx.MultiDiGraph) -> str:
    """Graphviz ``digraph``: one node per chiplet, one edge per arc (parallel arcs kept).

    Nodes carry ``kind``, ``row``, ``col``, a pinned ``pos`` (render with ``neato -n``) and
    their original ``label`` if they have one; edges carry ``key``, ``cls``, ``bandwidth``,
    ``latency`` and a colour per class; the graph its ``spec``, ``family``, ``rows``, ``cols`` and
    ``params`` (JSON). Numbers are written exactly, so the file reads back to the same topology
    (:func:`supermesh.topologies.formats.read_dot`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> sum(" -> " in line for line in dot_text(build("smbi:2x2")).splitlines())
    16
    """
    g = G.graph
    lines = [
        f"// supermesh topology {g.get('spec', '')}: {G.number_of_nodes()} chiplets, "
        f"{G.number_of_edges()} arcs (parallel arcs are separate edges)",
        f"digraph {_q(g.get('spec', 'topology'))} {{",
        f"  graph [label={_q(g.get('name', ''))}, spec={_q(g.get('spec', ''))}, "
        f"family={_q(g.get('family', ''))}"
        + "".join(f", {a}={g[a]}" for a in ("rows", "cols") if g.get(a) is not None)
        + f", params={_q(json.dumps(g.get('params', {}), sort_keys=True))}];",
        "  node [shape=box, style=filled];",
    ]
    fill = {
        "compute": "lightsteelblue1",
        "memory": "navajowhite",
        "io": "gray85",
        "router": "gray95",
    }
    for node, d in sorted(G.nodes(data=True)):
        x, y = (float(p) for p in d["pos"])
        grid = "".join(f", {a}={d[a]}" for a in ("row", "col") if d.get(a) is not None)
        label = f", label={_q(d['label'])}" if d.get("label") is not None else ""
        lines.append(
            f"  {node} [kind={_q(d['kind'])}{grid}{label}, "
            f'pos="{x!r},{y!r}!", fillcolor={_q(fill.get(d["kind"], "white"))}];'
        )
    for u, v, k in arcs(G):
        e = G.edges[u, v, k]
        lines.append(
            f"  {u} -> {v} [key={k}, cls={_q(e['cls'])}, bandwidth={float(e['bandwidth'])!r}, "
            f"latency={float(e['latency'])!r}, color={_q(_DOT_COLORS.get(e['cls'], 'black'))}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def graphml_text(G: nx.MultiDiGraph, *, metrics: dict[str, Any] | None = None) -> str:
    """GraphML (via networkx): scalar attributes only.

    ``pos`` becomes ``x`` and ``y``; missing ``row``/``col`` are left out; ``params`` (and
    ``metrics`` if given) are JSON strings. Each edge has id ``eU_V_K`` and an integer ``key``
    attribute, so parallel arcs survive a round trip through ``networkx.read_graphml``, and the
    file reads back to the same topology (:func:`supermesh.topologies.formats.read_graphml`).

    Examples
    --------
    >>> import io, networkx as nx
    >>> from supermesh.topologies import build
    >>> H = nx.read_graphml(io.StringIO(graphml_text(build("smbi:2x2"))), force_multigraph=True)
    >>> H.number_of_edges()
    16
    """
    H = nx.MultiDiGraph()
    g = G.graph
    for attr in ("name", "spec", "family", "rows", "cols"):
        if g.get(attr) is not None:
            H.graph[attr] = g[attr]
    H.graph["params"] = json.dumps(g.get("params", {}), sort_keys=True)
    if metrics is not None:
        H.graph["metrics"] = json.dumps(metrics, sort_keys=True)
    for node, d in sorted(G.nodes(data=True)):
        attrs = {"kind": d["kind"], "x": float(d["pos"][0]), "y": float(d["pos"][1])}
        attrs.update({a: int(d[a]) for a in ("row", "col") if d.get(a) is not None})
        if d.get("label") is not None:
            attrs["label"] = str(d["label"])
        H.add_node(node, **attrs)
    for u, v, k in arcs(G):
        e = G.edges[u, v, k]
        H.add_edge(
            u,
            v,
            key=k,
            id=f"e{u}_{v}_{k}",
            cls=e["cls"],
            bandwidth=float(e["bandwidth"]),
            latency=float(e["latency"]),
        )
        H.edges[u, v, k]["key"] = k
    return "\n".join(nx.generate_graphml(H, edge_id_from_attribute="id")) + "\n"
