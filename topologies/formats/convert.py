"""Any networkx graph as a topology: :func:`from_networkx`; :func:`as_topology` for entry points.

A user's network arrives as a networkx ``Graph``, ``DiGraph``, ``MultiGraph`` or ``MultiDiGraph``
with whatever labels and attributes the notebook or tool gave it. :func:`from_networkx` turns it
into a topology (:mod:`supermesh.topologies.model`): integer node ids ``0..n-1`` with ``kind`` and
``pos``, every link as arcs with ``key``, ``cls``, ``bandwidth`` and ``latency``. The readers of
GraphML and DOT files build a networkx graph and pass it here, so a file and a graph in memory
follow the same rules.

Node labels and values are read by :mod:`~supermesh.topologies.formats.labels`, positions and
grid cells by :mod:`~supermesh.topologies.formats.placement`;
:mod:`~supermesh.topologies.formats.accept` is what the public API accepts as a topology.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies.formats.labels import as_int, as_number, is_int, numbering, where
from supermesh.topologies.formats.placement import PosRule, full_grid, grid_cells, node_positions
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, new_topology

__all__ = ["from_networkx"]

KindRule = str | Callable[[Hashable, Mapping[str, Any]], str]


def _edges(G: nx.Graph) -> list[tuple[Hashable, Hashable, Any, dict[str, Any]]]:
    if G.is_multigraph():
        return [(u, v, k, d) for u, v, k, d in G.edges(keys=True, data=True)]
    return [(u, v, None, d) for u, v, d in G.edges(data=True)]


def from_networkx(
    G: nx.Graph,
    *,
    kind: KindRule = "kind",
    pos: PosRule = "pos",
    bandwidth: str = "bandwidth",
    latency: str = "latency",
    cls: str = "cls",
    multiplicity: str | None = None,
    default_bandwidth: float = 1.0,
    default_latency: float = 1.0,
    default_cls: str = "mesh",
    ordering: str = "sorted",
    label_attribute: str | None = "label",
    name: str | None = None,
    spec: str | None = None,
    source: str = "",
) -> nx.MultiDiGraph:
    """Turn any networkx graph into a topology.

    Nodes become chiplets with ids ``0..n-1``; links become arcs (an undirected edge is a
    bidirectional link: two opposite arcs; a directed edge is one arc); parallel edges of a
    multigraph, or an edge whose ``multiplicity`` attribute says ``m``, become parallel links
    told apart by their ``key``.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
        The network. Node labels may be any hashable values.
    kind : str or callable
        Node attribute holding the kind (``"compute"``, ``"memory"``, ``"io"``, ``"router"``;
        missing means ``"compute"``), or ``kind(label, attrs) -> str``.
    pos : str, (str, str), mapping, callable or None
        Drawing positions: the node attribute holding ``(x, y)`` (or Graphviz ``"x,y"`` text), a
        pair of attribute names ``("x", "y")``, a mapping label -> ``(x, y)``, or a layout
        function such as ``networkx.spring_layout`` called on ``G``. With the default ``"pos"``,
        when no node has that attribute, ``x`` / ``y`` attributes are used, then grid cells
        (``(col, -row)``), then a spring layout with a fixed seed
        (:data:`~supermesh.topologies.formats.placement.LAYOUT_SEED`; a circle from 500 nodes
        on). ``None`` skips the attributes.
    bandwidth, latency, cls : str
        Edge attributes holding the link's relative bandwidth (> 0), relative latency (>= 0;
        1.0 is one base die-to-die link) and class (``mesh``, ``added``, ``memory``, ``other``).
    multiplicity : str, optional
        Edge attribute holding how many parallel links the edge stands for (a positive integer;
        missing means 1).
    default_bandwidth, default_latency, default_cls
        Values for edges without the attribute.
    ordering : {"sorted", "given"}
        How labels are numbered: labels that are already the integers ``0..n-1`` keep their
        value; otherwise ``"sorted"`` numbers them in sorted order (strings naturally, so ``n2``
        comes before ``n10``; labels of mixed types keep the graph's order) and ``"given"`` in
        the graph's node order.
    label_attribute : str or None
        Node attribute that keeps each node's original label when ids were renumbered (as
        ``networkx.convert_node_labels_to_integers`` does); ``None`` keeps none. Labels that are
        ``(row, col)`` pairs of integers (``networkx.grid_2d_graph``) also give the grid cells.
    name, spec : str, optional
        Display name and spec of the topology (default: those of ``G.graph``, else
        ``G.name``). A spec of a topology made in memory regenerates nothing; set it to the path
        of the topology file you write if tree or schedule files should name it.
    source : str
        What ``G`` is, for error messages (a file name).

    Returns
    -------
    networkx.MultiDiGraph
        A topology with the attributes of :mod:`supermesh.topologies.model`. Grid cells come
        from ``row`` / ``col`` node attributes or ``(row, col)`` labels; when the compute
        chiplets fill a rectangle the graph gets ``rows`` and ``cols``, so grid root names such
        as ``corners`` work.

    Raises
    ------
    TopologyError
        A self-loop, an unknown kind or class, a bandwidth, latency or multiplicity that is not
        a valid number, or missing positions; the message names the node or edge.

    See Also
    --------
    as_topology : what the public functions apply to a graph they are given.
    supermesh.topologies.formats.read_topology : files (GraphML and DOT go through here).

    Examples
    --------
    >>> import networkx as nx
    >>> T = from_networkx(nx.grid_2d_graph(3, 3))
    >>> T.number_of_nodes(), T.number_of_edges(), T.graph["rows"], T.nodes[5]["label"]
    (9, 24, 3, (1, 2))

    A doubled link from an integer edge attribute, and kinds from a callable:

    >>> H = nx.Graph([("a", "b", {"links": 2}), ("b", "m", {})])
    >>> def memory_m(label, attrs):
    ...     return "memory" if label == "m" else "compute"
    >>> T = from_networkx(H, multiplicity="links", kind=memory_m)
    >>> sorted(T.edges(keys=True)), T.nodes[2]["kind"]
    ([(0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 2, 0), (2, 1, 0)], 'memory')
    """
    if not isinstance(G, nx.Graph):
        raise TopologyError(
            f"expected a networkx graph, got {type(G).__name__}",
            hint="pass a networkx Graph, DiGraph, MultiGraph or MultiDiGraph",
        )
    if default_cls not in ARC_CLASSES:
        raise TopologyError(f"default_cls={default_cls!r} is not one of {ARC_CLASSES}")
    order = numbering(list(G.nodes), ordering)
    ids = {label: i for i, label in enumerate(order)}
    identity = all(is_int(x) and ids[x] == x for x in order)
    g = G.graph
    grid = grid_cells(G, order, source)
    kinds = {}
    for n in order:
        k = kind(n, G.nodes[n]) if callable(kind) else G.nodes[n].get(kind, "compute")
        if k not in NODE_KINDS:
            raise TopologyError(
                where(source, f"node {n!r} has kind {k!r}"), hint=f"use one of {NODE_KINDS}"
            )
        kinds[n] = k
    placed = node_positions(G, order, pos, grid, source)
    compute_cells = [grid[n] for n in order if kinds[n] == "compute" and n in grid]
    shape = None
    if len(compute_cells) == sum(1 for n in order if kinds[n] == "compute"):
        shape = full_grid(compute_cells)
    rows, cols = g.get("rows"), g.get("cols")
    if not (is_int(rows) and is_int(cols)):
        rows, cols = shape if shape else (None, None)
    T = new_topology(
        str(g.get("family") or "networkx"),
        str(spec if spec is not None else g.get("spec", "")),
        str(
            name
            if name is not None
            else (g.get("name") or G.name or f"{type(G).__name__} ({len(order)} nodes)")
        ),
        rows=rows,
        cols=cols,
        params=dict(g["params"]) if isinstance(g.get("params"), Mapping) else {},
    )
    for n in order:
        row, col = grid.get(n, (None, None))
        T.add_node(ids[n], kind=kinds[n], pos=placed[n], row=row, col=col)
        if not identity and label_attribute is not None:
            T.nodes[ids[n]][label_attribute] = n
        elif label_attribute is not None and G.nodes[n].get(label_attribute) is not None:
            T.nodes[ids[n]][label_attribute] = G.nodes[n][label_attribute]
    _add_arcs(
        T,
        G,
        ids,
        bandwidth,
        latency,
        cls,
        multiplicity,
        (default_bandwidth, default_latency, default_cls),
        source,
    )
    return T


def _add_arcs(
    T: nx.MultiDiGraph,
    G: nx.Graph,
    ids: dict[Hashable, int],
    bandwidth: str,
    latency: str,
    cls: str,
    multiplicity: str | None,
    defaults: tuple[float, float, str],
    source: str,
) -> None:
    edges = _edges(G)
    keep_keys = multiplicity is None and _keys_are_lanes(G, edges)
    used: dict[tuple[int, int], set[int]] = defaultdict(set)
    for u, v, key, d in edges:
        what = where(source, f"edge {u!r} -> {v!r}" if G.is_directed() else f"edge {u!r} -- {v!r}")
        if u == v:
            raise TopologyError(f"{what} is a self-loop, not a link", hint="remove it")
        c = d.get(cls, defaults[2])
        if c not in ARC_CLASSES:
            raise TopologyError(f"{what} has class {c!r}", hint=f"use one of {ARC_CLASSES}")
        attrs = {
            "cls": c,
            "bandwidth": as_number(
                d.get(bandwidth, defaults[0]), f"{what} {bandwidth}", positive=True
            ),
            "latency": as_number(d.get(latency, defaults[1]), f"{what} {latency}", positive=False),
        }
        m = 1
        if multiplicity is not None and d.get(multiplicity) is not None:
            m = as_int(d[multiplicity], f"{what} {multiplicity}") or 0
            if m < 1:
                raise TopologyError(
                    f"{what} {multiplicity} is {d[multiplicity]!r}; it must be 1 or more"
                )
        pairs = [(ids[u], ids[v])] if G.is_directed() else [(ids[u], ids[v]), (ids[v], ids[u])]
        for _ in range(m):
            for a, b in pairs:
                k = int(key) if keep_keys else min(set(range(len(used[a, b]) + 1)) - used[a, b])
                used[a, b].add(k)
                T.add_edge(a, b, key=k, **attrs)


def _keys_are_lanes(
    G: nx.Graph, edges: list[tuple[Hashable, Hashable, Any, dict[str, Any]]]
) -> bool:
    """Whether a multigraph's keys are already lanes ``0..m-1`` of each node pair (kept then)."""
    if not G.is_multigraph():
        return False
    keys: dict[tuple[Hashable, Hashable], list[Any]] = defaultdict(list)
    for u, v, k, _ in edges:
        if not is_int(k):
            return False
        keys[(u, v) if G.is_directed() else frozenset((u, v))].append(k)  # type: ignore[index]
    return all(sorted(ks) == list(range(len(ks))) for ks in keys.values())
