"""The topology data type: a networkx ``MultiDiGraph`` with documented attributes.

A topology is a directed multigraph. A physical bidirectional link is two opposite arcs; a doubled
link (SuperMesh) is two parallel arcs per direction, told apart by their integer ``key``
(0 for the first link between two chiplets, 1 for the second, ...). One-way links (SMUni) are a
single arc.

Graph attributes (``G.graph``)
    ``name``      display name, e.g. ``"SMBi 4x4"``
    ``spec``      canonical spec string that regenerates the topology, e.g. ``"smbi:4x4"``
    ``family``    generator family, e.g. ``"smbi"``
    ``rows``, ``cols``  size of the compute array (grid families; ``None`` otherwise)
    ``params``    dict of generator options (JSON-ready)

Node attributes
    ``kind``      ``"compute"``, ``"memory"``, ``"io"`` or ``"router"`` (a concentrating router
                  with no chiplet of its own, as in CMesh); only compute chiplets are ranks
    ``pos``       ``(x, y)`` drawing position, x to the right, y up (row 0 is drawn at the top)
    ``row``, ``col``  grid coordinates where the family has a grid (memory chiplets outside the
                  array have row -1 or ``rows`` / col -1 or ``cols``); brick-wall families use
                  half-chiplet x units in ``col``
    ``label``     optional: the node's name in the file or networkx graph it was read from,
                  when ids were renumbered (see :func:`supermesh.topologies.from_networkx`)

Arc attributes
    ``bandwidth`` relative bandwidth (1.0 = one base die-to-die link, the simulator preset's
                  link); must be positive. A transfer's serialisation time is divided by it.
    ``latency``   relative per-hop wire latency (1.0 = one base link); non-negative. How it
                  enters a transfer's time depends on the preset's link model
                  (:mod:`supermesh.sim.program`): ``booksim`` (the reference's channel is not
                  pipelined, so a flit holds a link of latency ``l`` for ``l`` x 20 cycles)
                  multiplies the serialisation by it; ``paper`` (25 GB/s, 20 ns per hop) adds
                  ``l`` x 20 ns once per hop. The interposer families set it from their wire
                  lengths (:mod:`supermesh.topologies.interposer`); every family takes
                  ``bandwidth=``, ``latency=`` and per-class ``added-latency=``-style spec
                  options (:mod:`supermesh.topologies.costs`), and topology JSON files carry both
                  per arc. Unit values everywhere time exactly as a network without costs.
    ``cls``       ``"mesh"`` (base network), ``"added"`` (links the design adds), ``"memory"``
                  (links to memory chiplets) or ``"other"``

Node ids are integers, row-major from the top-left chiplet (``id = row * cols + col``) for every
grid-based family; memory and I/O chiplets are numbered after the compute chiplets.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import networkx as nx

from supermesh.errors import TopologyError

__all__ = [
    "ARC_CLASSES",
    "NODE_KINDS",
    "Arc",
    "Topology",
    "add_arc",
    "add_link",
    "add_node",
    "arcs",
    "check_node",
    "compute_nodes",
    "grid_id",
    "grid_positions",
    "new_topology",
    "nodes_of_kind",
]

Topology = nx.MultiDiGraph
"""Alias used in type hints: a topology is a plain ``networkx.MultiDiGraph``."""

Arc = tuple[int, int, int]
"""One directed arc ``(src, dst, key)``."""

NodeKind = Literal["compute", "memory", "io", "router"]
ArcClass = Literal["mesh", "added", "memory", "other"]
NODE_KINDS: tuple[str, ...] = ("compute", "memory", "io", "router")
ARC_CLASSES: tuple[str, ...] = ("mesh", "added", "memory", "other")


def new_topology(
    family: str,
    spec: str,
    name: str,
    *,
    rows: int | None = None,
    cols: int | None = None,
    params: dict[str, Any] | None = None,
) -> nx.MultiDiGraph:
    """Return an empty topology carrying its graph attributes.

    Parameters
    ----------
    family, spec, name : str
        Generator family, canonical spec string and display name.
    rows, cols : int, optional
        Size of the compute array for grid families.
    params : dict, optional
        Generator options, JSON-ready.

    Returns
    -------
    networkx.MultiDiGraph

    Examples
    --------
    >>> G = new_topology("mesh", "mesh:2x2", "Mesh 2x2", rows=2, cols=2)
    >>> G.graph["spec"]
    'mesh:2x2'
    """
    return nx.MultiDiGraph(
        family=family, spec=spec, name=name, rows=rows, cols=cols, params=dict(params or {})
    )


def grid_id(row: int, col: int, cols: int) -> int:
    """Row-major node id of grid position ``(row, col)`` in an array ``cols`` wide.

    Examples
    --------
    >>> grid_id(1, 2, 4)
    6
    """
    return row * cols + col


def add_node(
    G: nx.MultiDiGraph,
    node: int,
    *,
    kind: str = "compute",
    pos: tuple[float, float],
    row: int | None = None,
    col: int | None = None,
) -> None:
    """Add one chiplet with its documented attributes.

    Raises
    ------
    TopologyError
        If ``kind`` is not one of :data:`NODE_KINDS` or the node already exists.

    Examples
    --------
    >>> G = new_topology("x", "x", "x")
    >>> add_node(G, 0, pos=(0, 0)); add_node(G, 1, kind="memory", pos=(1, 0))
    >>> G.nodes[1]["kind"], G.nodes[1]["pos"]
    ('memory', (1.0, 0.0))
    """
    if kind not in NODE_KINDS:
        raise TopologyError(f"unknown node kind {kind!r}", hint=f"use one of {NODE_KINDS}")
    if node in G:
        raise TopologyError(f"node {node} already exists")
    G.add_node(node, kind=kind, pos=(float(pos[0]), float(pos[1])), row=row, col=col)


def add_arc(
    G: nx.MultiDiGraph,
    src: int,
    dst: int,
    *,
    cls: str = "mesh",
    bandwidth: float = 1.0,
    latency: float = 1.0,
) -> int:
    """Add one directed arc and return its key (the next free key for ``src -> dst``).

    Raises
    ------
    TopologyError
        If an endpoint is missing, ``src == dst`` or ``cls`` is unknown.

    Examples
    --------
    >>> G = new_topology("x", "x", "x")
    >>> add_node(G, 0, pos=(0, 0)); add_node(G, 1, pos=(1, 0))
    >>> add_arc(G, 0, 1), add_arc(G, 0, 1, cls="added")
    (0, 1)
    """
    if cls not in ARC_CLASSES:
        raise TopologyError(f"unknown arc class {cls!r}", hint=f"use one of {ARC_CLASSES}")
    if src not in G or dst not in G:
        raise TopologyError(f"arc {src}->{dst} names a node that does not exist")
    if src == dst:
        raise TopologyError(f"self-loop at node {src} is not a link")
    key = G.number_of_edges(src, dst)
    G.add_edge(src, dst, key=key, cls=cls, bandwidth=float(bandwidth), latency=float(latency))
    return key


def add_link(
    G: nx.MultiDiGraph,
    u: int,
    v: int,
    *,
    cls: str = "mesh",
    bandwidth: float = 1.0,
    latency: float = 1.0,
) -> None:
    """Add one bidirectional physical link: the two opposite arcs ``u -> v`` and ``v -> u``.

    Examples
    --------
    >>> G = new_topology("x", "x", "x")
    >>> add_node(G, 0, pos=(0, 0)); add_node(G, 1, pos=(1, 0))
    >>> add_link(G, 0, 1); add_link(G, 0, 1, cls="added")
    >>> sorted(G.edges(keys=True))
    [(0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1)]
    """
    add_arc(G, u, v, cls=cls, bandwidth=bandwidth, latency=latency)
    add_arc(G, v, u, cls=cls, bandwidth=bandwidth, latency=latency)


def nodes_of_kind(G: nx.MultiDiGraph, kind: str) -> list[int]:
    """Sorted ids of the nodes whose ``kind`` attribute is ``kind``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> nodes_of_kind(build("mesh:2x2,memory=south"), "memory")
    [4, 5]
    """
    return sorted(n for n, k in G.nodes(data="kind") if k == kind)


def compute_nodes(G: nx.MultiDiGraph) -> list[int]:
    """Sorted ids of the compute chiplets: the ranks of a collective.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> len(compute_nodes(build("mesh:3x3,memory=south")))
    9
    """
    return nodes_of_kind(G, "compute")


def arcs(G: nx.MultiDiGraph) -> list[Arc]:
    """All arcs as sorted ``(src, dst, key)`` triples (the order every table uses).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> arcs(build("smbi:2x2"))[:3]
    [(0, 1, 0), (0, 1, 1), (0, 2, 0)]
    """
    return sorted((int(u), int(v), int(k)) for u, v, k in G.edges(keys=True))


def grid_positions(
    G: nx.MultiDiGraph, *, what: str = "this operation", hint: str | None = None
) -> tuple[int, int, dict[tuple[int, int], int]]:
    """``rows``, ``cols`` and ``(row, col) -> node id`` of a full grid of compute chiplets.

    Memory or I/O chiplets attached around the grid are ignored.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    what : str
        What needs the grid (for the error message).
    hint : str, optional
        What to do instead (for the error message).

    Raises
    ------
    TopologyError
        ``G`` is not a grid family (HexaMesh, interposer routers) or some grid position holds no
        compute chiplet.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> rows, cols, where = grid_positions(build("smbi:2x3,memory=south"))
    >>> rows, cols, where[1, 2]
    (2, 3, 5)
    """
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    where = {
        (d.get("row"), d.get("col")): int(n)
        for n, d in G.nodes(data=True)
        if d.get("kind") == "compute"
    }
    if (
        rows is None
        or cols is None
        or G.graph.get("family") == "hexamesh"
        or any((r, c) not in where for r in range(rows) for c in range(cols))
    ):
        raise TopologyError(
            f"{what} needs a full grid of compute chiplets; "
            f"{G.graph.get('spec', 'this topology')} is not one",
            hint=hint or "use a grid topology such as mesh:8x8 or smbi:8x8",
        )
    return int(rows), int(cols), where


def check_node(G: nx.MultiDiGraph, node: Any, *, what: str = "node") -> int:
    """Return ``node`` as an int if it is a node of ``G``; raise a :class:`TopologyError` if not.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> check_node(build("mesh:2x2"), 3)
    3
    """
    try:
        n = int(node)
    except (TypeError, ValueError):
        raise TopologyError(f"{what} {node!r} is not an integer node id") from None
    if n not in G:
        raise TopologyError(
            f"{what} {n} is out of range for {G.graph.get('spec', 'this topology')}",
            hint=f"node ids run from 0 to {G.number_of_nodes() - 1}",
        )
    return n


def check_nodes(G: nx.MultiDiGraph, nodes: Iterable[Any], *, what: str = "node") -> list[int]:
    """Apply :func:`check_node` to each of ``nodes``."""
    return [check_node(G, n, what=what) for n in nodes]
