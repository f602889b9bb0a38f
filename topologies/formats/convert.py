"""Any networkx graph as a topology: :func:`from_networkx`; :func:`as_topology` for entry points.

A user's network arrives as a networkx ``Graph``, ``DiGraph``, ``MultiGraph`` or ``MultiDiGraph``
with whatever labels and attributes the notebook or tool gave it. :func:`from_networkx` turns it
into a topology (:mod:`supermesh.topologies.model`): integer node ids ``0..n-1`` with ``kind`` and
``pos``, every link as arcs with ``key``, ``cls``, ``bandwidth`` and ``latency``. The readers of
GraphML and DOT files build a networkx graph and pass it here, so a file and a graph in memory
follow the same rules.

:func:`as_topology` is the one normalising helper the public API uses: a topology passes through
untouched, anything else networkx goes through :func:`from_networkx` with its defaults.
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, new_topology

__all__ = [
    "as_topology",
    "file_labels",
    "from_networkx",
    "is_topology",
    "takes_topology",
    "topology_input",
]

KindRule = str | Callable[[Hashable, Mapping[str, Any]], str]
PosRule = (
    str
    | tuple[str, str]
    | Mapping[Hashable, Sequence[float]]
    | Callable[[nx.Graph], Mapping[Hashable, Sequence[float]]]
    | None
)

LAYOUT_SEED = 0
"""Seed of the spring layout given to graphs that carry no positions (drawings repeat)."""

_SPRING_MAX_NODES = 500  # networkx's spring layout needs scipy beyond this; use a circle

_INT = re.compile(r"-?(0|[1-9]\d*)$")
_TUPLE = re.compile(r"\(\s*-?\d+\s*(,\s*-?\d+\s*)+\)$")


def file_labels(ids: list[str]) -> dict[str, Any]:
    """A file's node names -> labels: all integers, all integer tuples, or the names themselves.

    Examples
    --------
    >>> file_labels(["0", "1"]), file_labels(["(0, 1)"]), file_labels(["0", "a"])
    ({'0': 0, '1': 1}, {'(0, 1)': (0, 1)}, {'0': '0', 'a': 'a'})
    """
    if ids and all(_INT.match(i) for i in ids):
        return {i: int(i) for i in ids}
    if ids and all(_TUPLE.match(i) for i in ids):
        return {i: ast.literal_eval(i) for i in ids}
    return {i: i for i in ids}


def _natural_key(label: Hashable) -> Any:
    """Sort key that puts ``n2`` before ``n10`` (labels of one type only)."""
    if isinstance(label, str):
        return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label))
    return label


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _numbering(labels: list[Hashable], ordering: str) -> list[Hashable]:
    """The labels in id order: ids ``0..n-1`` are kept, else sorted (natural) or given order."""
    if ordering not in ("sorted", "given"):
        raise TopologyError(f"ordering={ordering!r} is not 'sorted' or 'given'")
    if all(_is_int(x) for x in labels) and set(labels) == set(range(len(labels))):
        return sorted(labels)  # type: ignore[type-var]
    if ordering == "given":
        return labels
    kinds = {type(x) for x in labels}
    if len(kinds) > 1:  # mixed types have no order; the graph's own order is deterministic
        return labels
    try:
        return sorted(labels, key=_natural_key)
    except TypeError:
        return labels


def _grid_label(label: Hashable) -> tuple[int, int] | None:
    """``(row, col)`` of a label such as networkx's ``grid_2d_graph`` gives, else None."""
    if isinstance(label, tuple) and len(label) == 2 and all(_is_int(x) for x in label):
        return int(label[0]), int(label[1])
    return None


def _as_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if _is_int(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    raise TopologyError(f"{what} is {value!r}, not an integer")


def _as_number(value: Any, what: str, *, positive: bool) -> float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise TopologyError(f"{what} is {value!r}, not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TopologyError(f"{what} is {value!r}, not a number")
    x = float(value)
    if not math.isfinite(x) or x < 0 or (positive and x == 0):
        need = "positive" if positive else "zero or more"
        raise TopologyError(f"{what} is {value!r}; it must be finite and {need}")
    return x


def _point(value: Any, what: str) -> tuple[float, float]:
    """A position from ``(x, y)``, ``[x, y]``, an array, or Graphviz text ``"x,y"`` / ``"x,y!"``."""
    if isinstance(value, str):
        parts: list[Any] = value.strip().rstrip("!").split(",")
    else:
        try:
            parts = list(value)
        except TypeError:
            parts = []
    if len(parts) in (2, 3) and not any(isinstance(p, bool) for p in parts):
        try:
            x, y = float(parts[0]), float(parts[1])
        except (TypeError, ValueError):
            pass
        else:
            if math.isfinite(x) and math.isfinite(y):
                return x, y
    raise TopologyError(f"{what} is {value!r}, not a position (x, y)")


def _where(source: str, what: str) -> str:
    return f"{source}: {what}" if source else what


def _positions(
    G: nx.Graph,
    order: list[Hashable],
    pos: PosRule,
    grid: dict[Hashable, tuple[int, int]],
    source: str,
) -> dict[Hashable, tuple[float, float]]:
    """Every node's drawing position, by the rule documented in :func:`from_networkx`."""
    if callable(pos) and not isinstance(pos, Mapping):
        layout = pos(G)
        return {n: _point(layout[n], _where(source, f"layout position of {n!r}")) for n in order}
    if isinstance(pos, Mapping):
        missing = [n for n in order if n not in pos]
        if missing:
            raise TopologyError(_where(source, f"pos gives no position for node {missing[0]!r}"))
        return {n: _point(pos[n], _where(source, f"position of node {n!r}")) for n in order}
    if isinstance(pos, tuple):
        xattr, yattr = pos
        out = {}
        for n in order:
            d = G.nodes[n]
            if xattr not in d or yattr not in d:
                raise TopologyError(
                    _where(source, f"node {n!r} has no {xattr!r} / {yattr!r} attribute"),
                    hint="give every node both coordinates, or pass pos=None for a layout",
                )
            out[n] = _point((d[xattr], d[yattr]), _where(source, f"node {n!r} position"))
        return out
    data = [G.nodes[n] for n in order]
    if isinstance(pos, str):
        have = [pos in d for d in data]
        if all(have):
            return {
                n: _point(d[pos], _where(source, f"node {n!r} {pos}"))
                for n, d in zip(order, data, strict=True)
            }
        if any(have):
            n = order[have.index(False)]
            raise TopologyError(
                _where(source, f"node {n!r} has no {pos!r} attribute while others have one"),
                hint=f"give every node a {pos!r}, or none (a layout is computed)",
            )
        if all("x" in d and "y" in d for d in data):
            return _positions(G, order, ("x", "y"), grid, source)
    if order and len(grid) == len(order):
        return {n: (float(grid[n][1]), -float(grid[n][0])) for n in order}
    return _layout(G, order)


def _layout(G: nx.Graph, order: list[Hashable]) -> dict[Hashable, tuple[float, float]]:
    H = nx.Graph()
    H.add_nodes_from(order)
    H.add_edges_from((u, v) for u, v, *_ in G.edges if u != v)
    if len(H) < _SPRING_MAX_NODES:
        layout = nx.spring_layout(H, seed=LAYOUT_SEED)
    else:
        layout = nx.circular_layout(H)
    return {n: (round(float(layout[n][0]), 6), round(float(layout[n][1]), 6)) for n in order}


def _grid(G: nx.Graph, order: list[Hashable], source: str) -> dict[Hashable, tuple[int, int]]:
    """``(row, col)`` per node from ``row`` / ``col`` attributes, else from (row, col) labels."""
    out = {}
    for n in order:
        d = G.nodes[n]
        if d.get("row") is not None and d.get("col") is not None:
            out[n] = (
                _as_int(d["row"], _where(source, f"node {n!r} row")),
                _as_int(d["col"], _where(source, f"node {n!r} col")),
            )
        elif "row" not in d and "col" not in d and (rc := _grid_label(n)) is not None:
            out[n] = rc
    return out  # type: ignore[return-value]


def _full_grid(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """``(rows, cols)`` when ``cells`` are exactly the cells of a rectangle from (0, 0)."""
    if not cells:
        return None
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    if len(cells) == rows * cols and set(cells) == {
        (r, c) for r in range(rows) for c in range(cols)
    }:
        return rows, cols
    return None


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
        (``(col, -row)``), then a spring layout with seed :data:`LAYOUT_SEED` (a circle from 500
        nodes on). ``None`` skips the attributes.
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
    order = _numbering(list(G.nodes), ordering)
    ids = {label: i for i, label in enumerate(order)}
    identity = all(_is_int(x) and ids[x] == x for x in order)
    g = G.graph
    grid = _grid(G, order, source)
    kinds = {}
    for n in order:
        k = kind(n, G.nodes[n]) if callable(kind) else G.nodes[n].get(kind, "compute")
        if k not in NODE_KINDS:
            raise TopologyError(
                _where(source, f"node {n!r} has kind {k!r}"), hint=f"use one of {NODE_KINDS}"
            )
        kinds[n] = k
    where = _positions(G, order, pos, grid, source)
    compute_cells = [grid[n] for n in order if kinds[n] == "compute" and n in grid]
    shape = None
    if len(compute_cells) == sum(1 for n in order if kinds[n] == "compute"):
        shape = _full_grid(compute_cells)
    rows, cols = g.get("rows"), g.get("cols")
    if not (_is_int(rows) and _is_int(cols)):
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
        T.add_node(ids[n], kind=kinds[n], pos=where[n], row=row, col=col)
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
        what = _where(source, f"edge {u!r} -> {v!r}" if G.is_directed() else f"edge {u!r} -- {v!r}")
        if u == v:
            raise TopologyError(f"{what} is a self-loop, not a link", hint="remove it")
        c = d.get(cls, defaults[2])
        if c not in ARC_CLASSES:
            raise TopologyError(f"{what} has class {c!r}", hint=f"use one of {ARC_CLASSES}")
        attrs = {
            "cls": c,
            "bandwidth": _as_number(
                d.get(bandwidth, defaults[0]), f"{what} {bandwidth}", positive=True
            ),
            "latency": _as_number(d.get(latency, defaults[1]), f"{what} {latency}", positive=False),
        }
        m = 1
        if multiplicity is not None and d.get(multiplicity) is not None:
            m = _as_int(d[multiplicity], f"{what} {multiplicity}") or 0
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
        if not _is_int(k):
            return False
        keys[(u, v) if G.is_directed() else frozenset((u, v))].append(k)  # type: ignore[index]
    return all(sorted(ks) == list(range(len(ks))) for ks in keys.values())


def is_topology(G: Any) -> bool:
    """Whether ``G`` already is a topology: a MultiDiGraph with integer ids and every attribute.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import build
    >>> is_topology(build("mesh:2x2")), is_topology(nx.path_graph(3))
    (True, False)
    """
    if not isinstance(G, nx.MultiDiGraph):
        return False
    for n, d in G.nodes(data=True):
        if not _is_int(n) or d.get("kind") not in NODE_KINDS or "pos" not in d:
            return False
    return all(
        _is_int(k) and "cls" in d and "bandwidth" in d and "latency" in d
        for _, _, k, d in G.edges(keys=True, data=True)
    )


def as_topology(G: Any) -> nx.MultiDiGraph:
    """``G`` itself if it is a topology, else :func:`from_networkx` of it with the defaults.

    Parameters
    ----------
    G : networkx graph

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    TopologyError
        As :func:`from_networkx`.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import build
    >>> G = build("smbi:2x2")
    >>> as_topology(G) is G, as_topology(nx.cycle_graph(4)).number_of_edges()
    (True, 8)
    """
    return G if is_topology(G) else from_networkx(G)


F = TypeVar("F", bound=Callable[..., Any])


def takes_topology(func: Callable[..., Any]) -> bool:
    """Whether ``func``'s first parameter is annotated as a topology (a ``MultiDiGraph``)."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(params) and "MultiDiGraph" in str(params[0].annotation)


def topology_input(func: F) -> F:
    """Wrap ``func`` so that a networkx graph given as its first argument goes through
    :func:`as_topology` first; anything else (a spec string, a path) passes unchanged.

    This is how every public function of :mod:`supermesh` that takes a topology accepts any
    networkx graph: the package map wraps them once, where they are looked up.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import compute_nodes
    >>> topology_input(compute_nodes)(nx.path_graph(["a", "b", "c"]))
    [0, 1, 2]
    """
    first = next(iter(inspect.signature(func).parameters))

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], nx.Graph):
            args = (as_topology(args[0]), *args[1:])
        elif isinstance(kwargs.get(first), nx.Graph):
            kwargs[first] = as_topology(kwargs[first])
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
