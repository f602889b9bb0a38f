"""Topology metrics: the paper's Table 2 (radix, diameter, bisection, added links) and more."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import networkx as nx
import numpy as np

from supermesh.errors import TopologyError
from supermesh.topologies.connectivity import min_rank_cut
from supermesh.topologies.flow import flow_network
from supermesh.topologies.model import compute_nodes

__all__ = [
    "arc_connectivity",
    "bisection_width",
    "diameter",
    "links_per_node",
    "metrics",
    "node_class",
]

_EXACT_BISECTION_MAX_NODES = 20
_KERNIGHAN_LIN_MAX_NODES = 1024


def links_per_node(G: nx.MultiDiGraph) -> dict[int, int]:
    """Die-to-die ports of each chiplet: max(in-arcs, out-arcs), parallel arcs counted.

    A bidirectional link is one port; a one-way extra arc (SMUni) still needs a port.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> links_per_node(build("smbi:3x3"))[1]
    5
    """
    return {int(n): max(G.in_degree(n), G.out_degree(n)) for n in sorted(G.nodes)}


def node_class(G: nx.MultiDiGraph, node: int) -> str:
    """Class of a node for the links-per-node table.

    ``corner``, ``border`` or ``interior`` for a compute chiplet of a grid; ``border`` or
    ``interior`` (all six brick neighbours present) for a HexaMesh chiplet; else its kind.
    """
    d = G.nodes[node]
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if d["kind"] != "compute" or rows is None or d.get("row") is None:
        return str(d["kind"])
    if G.graph.get("family") == "hexamesh":
        # interior: all six brick neighbours are compute chiplets
        touching = {v for v in G.successors(node) if G.nodes[v]["kind"] == "compute"}
        return "interior" if len(touching) == 6 else "border"
    r, c = d["row"], d["col"]
    edge_r, edge_c = r in (0, rows - 1), c in (0, cols - 1)
    if edge_r and edge_c:
        return "corner"
    return "border" if edge_r or edge_c else "interior"


def arc_connectivity(G: nx.MultiDiGraph, nodes: list[int] | None = None) -> int:
    """Smallest number of arc-disjoint paths between any ordered pair of ``nodes``.

    Defaults to the compute chiplets; other nodes may relay. One pivot suffices: the minimum over
    pairs equals the minimum over ``pivot -> v`` and ``v -> pivot`` (Menger), counted by short path
    searches (:func:`~supermesh.topologies.connectivity.min_rank_cut`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> arc_connectivity(build("mesh:4x4")), arc_connectivity(build("smbi:4x4"))
    (2, 4)
    """
    nodes = compute_nodes(G) if nodes is None else sorted(nodes)
    if len(nodes) < 2:
        return 0
    return min_rank_cut(G, nodes)[0]


def diameter(G: nx.MultiDiGraph) -> int:
    """Largest hop distance from any node to any other (arcs followed in their direction).

    A network whose every arc has its reverse needs only a few breadth-first searches: with the
    bounding-eccentricity method (Takes and Kosters, 2011; what :func:`networkx.diameter` does
    with ``usebounds``), each search from ``v`` bounds every other eccentricity by
    ``max(d(v, w), ecc(v) - d(v, w)) <= ecc(w) <= ecc(v) + d(v, w)``, and the search stops when
    the bounds meet; the searches run in igraph. Other digraphs (SMUni) get a search from every
    node.

    References
    ----------
    .. [1] F. W. Takes and W. A. Kosters, "Determining the diameter of small world networks",
       CIKM 2011.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> diameter(build("mesh:4x6")), diameter(build("smuni:3x3"))
    (8, 4)
    """
    if G.number_of_nodes() < 2:
        return 0
    net = flow_network(G)
    pairs = set(net.pairs)
    graph = net.graph
    if any((v, u) not in pairs for u, v in pairs if u != v):
        return int(graph.diameter(directed=True))
    n = len(net.nodes)
    lower = np.zeros(n, dtype=np.int64)
    upper = np.full(n, np.iinfo(np.int64).max // 2, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    best_lower, pick_high = 0, True
    while alive.any():
        candidates = np.flatnonzero(alive)
        # alternate between the node that could be the farthest and the most central one
        v = int(
            candidates[np.argmax(upper[candidates])]
            if pick_high
            else candidates[np.argmin(lower[candidates])]
        )
        pick_high = not pick_high
        dist = np.asarray(graph.distances(source=v, mode="out")[0], dtype=np.float64)
        if not np.isfinite(dist).all():
            raise TopologyError("the network is not strongly connected: its diameter is infinite")
        d = dist.astype(np.int64)
        ecc = int(d.max())
        lower = np.maximum(lower, np.maximum(d, ecc - d))
        upper = np.minimum(upper, ecc + d)
        best_lower = max(best_lower, int(lower.max()))
        best_upper = int(upper[alive].max())
        alive &= upper > best_lower  # cannot beat what is already known
        alive &= lower < upper  # eccentricity known exactly
        alive[v] = False
        if best_lower >= best_upper:
            break
    return best_lower


def bisection_width(G: nx.MultiDiGraph) -> tuple[int, bool]:
    """Fewest arcs from one half of the chiplets to the other, over balanced halves.

    Returns ``(width, exact)``. Exact by enumeration up to 20 nodes; above that the minimum of
    the two straight middle cuts of the drawing (first half of the nodes by x, by y) and, up to
    1024 nodes, a Kernighan-Lin bisection: an upper bound.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> bisection_width(build("mesh:4x4"))
    (4, True)
    """
    nodes = sorted(G.nodes)
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    if n <= _EXACT_BISECTION_MAX_NODES:
        W = np.zeros((n, n), dtype=np.int64)
        for u, v in G.edges():
            W[index[u], index[v]] += 1
        best = None
        rest = range(1, n)
        # node 0 fixed in side A: each bipartition counted once
        for batch in _batched(itertools.combinations(rest, n // 2 - 1), 65536):
            X = np.zeros((len(batch), n), dtype=np.int64)
            X[:, 0] = 1
            for j, combo in enumerate(batch):
                X[j, list(combo)] = 1
            ab = np.einsum("bi,ij,bj->b", X, W, 1 - X)
            ba = np.einsum("bi,ij,bj->b", 1 - X, W, X)
            low = int(np.minimum(ab, ba).min())
            best = low if best is None else min(best, low)
        return (best or 0), True
    # straight cuts through the drawing: the first half of the nodes by x, and by y
    coords = {v: tuple(G.nodes[v]["pos"]) for v in nodes}
    candidates = [set(sorted(nodes, key=lambda v: (coords[v][0], v))[: n // 2])]
    candidates.append(set(sorted(nodes, key=lambda v: (coords[v][1], v))[: n // 2]))
    if n <= _KERNIGHAN_LIN_MAX_NODES:  # its sweeps grow with n^2: the straight cuts above that
        U = nx.Graph()
        U.add_nodes_from(nodes)
        for (u, v), k in Counter(tuple(sorted(e)) for e in G.edges()).items():
            U.add_edge(u, v, weight=k)
        a, _ = nx.algorithms.community.kernighan_lin_bisection(U, weight="weight", seed=0)
        candidates.append(set(a))
    tails = np.array([index[u] for u, _ in G.edges()], dtype=np.int64)
    heads = np.array([index[v] for _, v in G.edges()], dtype=np.int64)

    def width(side: set[int]) -> int:
        x = np.zeros(n, dtype=bool)
        x[[index[v] for v in side]] = True
        return int(min((x[tails] & ~x[heads]).sum(), (~x[tails] & x[heads]).sum()))

    return min(width(c) for c in candidates), False


def _batched(it: Any, size: int) -> Any:
    while batch := list(itertools.islice(it, size)):
        yield batch


def metrics(G: nx.MultiDiGraph, *, bisection: bool = True) -> dict[str, Any]:
    """The metrics a designer compares first, as a JSON-ready dict.

    Keys: ``chiplets`` (count per kind), ``links`` (physical links: a two-way link or a one-way
    extra arc), ``arcs``, ``added_arcs`` and ``added_share``, ``links_per_node`` (min/max and per
    node class), ``router_radix`` (links + 1 local port, maximum), ``diameter`` (hops over all
    chiplets), ``bisection_width`` and ``bisection_exact``, ``arc_connectivity`` (over compute
    chiplets; memory chiplets may relay).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> m = metrics(build("smbi:4x4"))
    >>> m["arcs"], m["added_arcs"], m["router_radix"], m["diameter"], m["arc_connectivity"]
    (72, 24, 6, 6, 4)
    """
    kinds = Counter(k for _, k in G.nodes(data="kind"))
    cls = Counter(c for *_, c in G.edges(data="cls"))
    ports = links_per_node(G)
    pair_counts = Counter(frozenset((u, v)) for u, v in G.edges())
    links = sum(
        max(G.number_of_edges(*tuple(p)), G.number_of_edges(*tuple(p)[::-1])) for p in pair_counts
    )
    by_class: dict[str, list[int]] = {}
    for n, p in ports.items():
        by_class.setdefault(node_class(G, n), []).append(p)
    out: dict[str, Any] = {
        "name": G.graph.get("name", ""),
        "spec": G.graph.get("spec", ""),
        "chiplets": {
            k: kinds.get(k, 0) for k in ("compute", "memory", "io", "router") if kinds.get(k)
        },
        "links": links,
        "arcs": G.number_of_edges(),
        "added_arcs": cls.get("added", 0),
        "added_share": round(cls.get("added", 0) / max(G.number_of_edges(), 1), 4),
        "arcs_by_class": dict(sorted(cls.items())),
        "links_per_node": {
            "min": min(ports.values()),
            "max": max(ports.values()),
            "by_class": {c: sorted(set(v)) for c, v in sorted(by_class.items())},
        },
        "router_radix": max(ports.values()) + 1,
        "diameter": diameter(G),
        "arc_connectivity": arc_connectivity(G),
    }
    if bisection:
        width, exact = bisection_width(G)
        out["bisection_width"] = width
        out["bisection_exact"] = exact
    return out
