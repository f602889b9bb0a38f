"""GraphML files as topologies: supermesh's own, networkx's, yEd's and other tools'.

The file is parsed with the standard library's expat (entity declarations are refused, so no
entity expansion bomb gets through), keeping the line of every element for error messages, into a
networkx graph that :func:`~supermesh.topologies.formats.convert.from_networkx` turns into a
topology. What is read:

- ``<key>`` declarations with their ``attr.name``, ``attr.type`` and ``<default>``;
- ``<graph edgedefault=...>`` and each ``<edge directed=...>`` (an undirected edge is a
  bidirectional link: two arcs); ``<node id>`` and ``<edge source target>`` with their
  ``<data>``; graph-level ``<data>`` for ``name``, ``spec``, ``family``, ``rows``, ``cols`` and
  ``params`` (a JSON object, as supermesh writes it);
- node ids that are all integers become those integers; ids like ``(0, 1)`` (what
  ``networkx.write_graphml`` writes for ``grid_2d_graph``) become ``(row, col)`` tuples;
  others stay strings;
- yEd's ``<y:Geometry x y width height>`` inside a node's data gives its position (centre, y
  turned up) when the node has no ``x`` / ``y`` data.

supermesh's own GraphML (``supermesh topo SPEC -o FILE.graphml``) reads back exactly: the same
nodes, arcs, keys and attributes as the JSON. Nested graphs, hyperedges and ports have no
meaning for a chiplet network and are refused with their line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

import networkx as nx

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.formats.convert import from_networkx
from supermesh.topologies.formats.labels import file_labels
from supermesh.topologies.io import read_text_file

__all__ = ["graphml_graph", "read_graphml"]

_NS = "http://graphml.graphdrawing.org/xmlns"
_YED_NS = "http://www.yworks.com/xml/graphml"
_TYPES = {"boolean", "int", "long", "float", "double", "string"}
_GRAPH_ATTRS = ("name", "spec", "family", "rows", "cols", "params")
_UNSUPPORTED = {"hyperedge", "port", "endpoint", "locator"}


@dataclass
class _Key:
    name: str
    domain: str
    type: str
    default: Any = None
    line: int = 0


@dataclass
class _Item:
    tag: str
    line: int
    attrs: dict[str, Any] = field(default_factory=dict)
    xml: dict[str, str] = field(default_factory=dict)


class _Parser:
    """Expat callbacks that collect keys, nodes and edges with the line each starts on."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.p = expat.ParserCreate(namespace_separator="}")
        self.p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.p.StartElementHandler = self.start
        self.p.EndElementHandler = self.end
        self.p.CharacterDataHandler = self.text
        self.p.EntityDeclHandler = self.entity
        self.keys: dict[str, _Key] = {}
        self.nodes: list[_Item] = []
        self.edges: list[_Item] = []
        self.graph: dict[str, Any] = {}
        self.edgedefault = "directed"
        self.stack: list[str] = []
        self.graphs = 0
        self.item: _Item | None = None
        self.key: _Key | None = None
        self.data: tuple[str, int] | None = None
        self.chars: list[str] = []
        self.geometry: dict[str, str] | None = None
        self.nested = False

    def fail(self, msg: str, hint: str | None = None) -> SupermeshError:
        return InputFileError(
            f"{self.source} line {self.p.CurrentLineNumber}: {msg}",
            hint=hint or "fix that element (GraphML: graphml.graphdrawing.org)",
        )

    def entity(self, name: str, *_: Any) -> None:
        raise self.fail(f"declares the entity {name!r}; GraphML files need none")

    @staticmethod
    def split(tag: str) -> tuple[str, str]:
        ns, _, local = tag.rpartition("}")
        return ns, local

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        ns, local = self.split(tag)
        parent = self.stack[-1] if self.stack else None
        self.stack.append(local if ns in ("", _NS) else f"{{{ns}}}{local}")
        if ns not in ("", _NS):
            if ns == _YED_NS and local == "Geometry" and self.item and self.item.tag == "node":
                self.geometry = attrs
            self.nested = self.data is not None  # a tool's own markup: not a value
            return
        if self.data is not None:
            raise self.fail(f"<{local}> inside <data> is not GraphML")
        line = self.p.CurrentLineNumber
        if local in _UNSUPPORTED:
            raise self.fail(f"<{local}> has no meaning for a chiplet network")
        if local == "graph":
            self.graphs += 1
            if self.graphs > 1 or parent != "graphml":
                raise self.fail("nested or second <graph>: give one flat graph")
            self.edgedefault = attrs.get("edgedefault", "directed")
            if self.edgedefault not in ("directed", "undirected"):
                raise self.fail(f'edgedefault="{self.edgedefault}" is not directed or undirected')
        elif local == "key":
            self.start_key(attrs, line)
        elif local == "default":
            if self.key is None:
                raise self.fail("<default> outside a <key>")
            self.chars = []
        elif local == "node":
            if "id" not in attrs:
                raise self.fail("<node> has no id")
            self.item = _Item("node", line, xml=attrs)
        elif local == "edge":
            for a in ("source", "target"):
                if a not in attrs:
                    raise self.fail(f"<edge> has no {a}")
            self.item = _Item("edge", line, xml=attrs)
        elif local == "data":
            if "key" not in attrs:
                raise self.fail("<data> has no key attribute")
            self.data = (attrs["key"], line)
            self.chars = []

    def start_key(self, attrs: dict[str, str], line: int) -> None:
        if "id" not in attrs:
            raise self.fail("<key> has no id")
        kind = attrs.get("attr.type", "string")
        if kind not in _TYPES:
            raise self.fail(f'<key id="{attrs["id"]}"> has attr.type="{kind}"')
        self.key = _Key(
            attrs.get("attr.name", attrs["id"]), attrs.get("for", "all"), kind, line=line
        )
        self.keys[attrs["id"]] = self.key

    def text(self, data: str) -> None:
        self.chars.append(data)

    def end(self, tag: str) -> None:
        ns, local = self.split(tag)
        self.stack.pop()
        if ns not in ("", _NS):
            return
        if local == "default" and self.key is not None:
            self.key.default = self.typed(self.key, "".join(self.chars), "<default>")
        elif local == "key":
            self.key = None
        elif local == "data" and self.data is not None:
            self.end_data()
        elif local in ("node", "edge") and self.item is not None:
            if self.geometry is not None:
                self.yed_position(self.item, self.geometry)
            (self.nodes if local == "node" else self.edges).append(self.item)
            self.item, self.geometry = None, None

    def end_data(self) -> None:
        assert self.data is not None
        key_id, _ = self.data
        self.data = None
        key = self.keys.get(key_id)
        if key is None:
            raise self.fail(f'<data key="{key_id}"> names no <key> declared before it')
        raw = "".join(self.chars)
        if self.nested:  # e.g. yEd's graphics: only its Geometry is read
            self.nested = False
            return
        owner = self.item.tag if self.item is not None else "graph"
        value = self.typed(key, raw, f'<data key="{key_id}"> of this {owner}')
        if self.item is not None:
            self.item.attrs[key.name] = value
        elif self.stack and self.stack[-1] == "graph":
            self.graph[key.name] = value

    def typed(self, key: _Key, raw: str, what: str) -> Any:
        text = raw.strip()
        try:
            if key.type in ("int", "long"):
                return int(text)
            if key.type in ("float", "double"):
                return float(text)
            if key.type == "boolean":
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                return text.lower() in ("true", "1")
        except ValueError:
            raise self.fail(f"{what}: {text!r} is not a {key.type}") from None
        return raw

    @staticmethod
    def yed_position(item: _Item, geometry: dict[str, str]) -> None:
        if "x" in item.attrs or "y" in item.attrs:
            return
        try:
            x, y = float(geometry["x"]), float(geometry["y"])
            w, h = float(geometry.get("width", 0)), float(geometry.get("height", 0))
        except (KeyError, ValueError):
            return
        item.attrs["x"], item.attrs["y"] = x + w / 2, -(y + h / 2)  # yEd's y axis points down


def graphml_graph(text: str, *, source: str = "GraphML") -> nx.MultiGraph | nx.MultiDiGraph:
    """Parse GraphML text into a networkx multigraph (attributes typed, no topology rules yet).

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        The file name, for messages.

    Returns
    -------
    networkx.MultiGraph or networkx.MultiDiGraph
        Undirected when every edge is; a directed graph gets both arcs of an undirected edge.
        An edge's integer ``key`` data (as supermesh writes) is its key.

    Raises
    ------
    InputFileError
        Malformed XML, or an element that is wrong, with its line.

    Examples
    --------
    >>> text = '''<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
    ...   <graph edgedefault="undirected"><node id="a"/><node id="b"/>
    ...   <edge source="a" target="b"/></graph></graphml>'''
    >>> sorted(graphml_graph(text).edges())
    [('a', 'b')]
    >>> graphml_graph(text.replace('target="b"', 'target="c"'), source="x.graphml")
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: x.graphml line 3: <edge source="a" target="c">: no node "c"
    """
    parser = _Parser(source)
    try:
        parser.p.Parse(text, True)
    except expat.ExpatError as exc:
        raise InputFileError(
            f"{source} line {exc.lineno}: not well-formed XML "
            f"({expat.errors.messages[exc.code]}, column {exc.offset + 1})",
            hint="was the file cut short or edited by hand?",
        ) from None
    if parser.graphs == 0:
        raise InputFileError(
            f"{source} holds no GraphML <graph>",
            hint="give a GraphML file (<graphml><graph>...</graph></graphml>)",
        )
    labels = file_labels([n.xml["id"] for n in parser.nodes])
    seen: dict[str, int] = {}
    for n in parser.nodes:
        if n.xml["id"] in seen:
            raise InputFileError(
                f'{source} line {n.line}: <node id="{n.xml["id"]}"> repeats the node of line '
                f"{seen[n.xml['id']]}"
            )
        seen[n.xml["id"]] = n.line
    directed = [
        e.xml.get("directed", "true" if parser.edgedefault == "directed" else "false") == "true"
        for e in parser.edges
    ]
    H: nx.MultiGraph = nx.MultiDiGraph() if any(directed) else nx.MultiGraph()
    defaults = {k.name: k.default for k in parser.keys.values() if k.default is not None}
    graph_data = {**_for(parser, defaults, "graph"), **parser.graph}
    H.graph.update({a: graph_data[a] for a in _GRAPH_ATTRS if a in graph_data})
    if isinstance(H.graph.get("params"), str):
        try:
            H.graph["params"] = json.loads(H.graph["params"])
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{source}: graph data 'params' is not JSON ({exc.msg})") from None
    for n in parser.nodes:
        H.add_node(labels[n.xml["id"]], **{**_for(parser, defaults, "node"), **n.attrs})
    for e, one_way in zip(parser.edges, directed, strict=True):
        ends = []
        for end in ("source", "target"):
            if e.xml[end] not in labels:
                raise InputFileError(
                    f'{source} line {e.line}: <edge source="{e.xml["source"]}" '
                    f'target="{e.xml["target"]}">: no node "{e.xml[end]}"',
                    hint="declare every node an edge names",
                )
            ends.append(labels[e.xml[end]])
        attrs = {**_for(parser, defaults, "edge"), **e.attrs}
        key = attrs.pop("key", None)
        key = key if isinstance(key, int) and not isinstance(key, bool) else None
        pairs = (
            [tuple(ends)] if one_way or not H.is_directed() else [tuple(ends), tuple(ends[::-1])]
        )
        for u, v in pairs:
            if key is not None and H.has_edge(u, v, key):
                raise InputFileError(
                    f"{source} line {e.line}: a second edge {u!r} -> {v!r} with key {key}",
                    hint="give parallel edges keys 0, 1, ... or no key",
                )
            H.add_edge(u, v, key=key, **attrs)
    return H


def _for(parser: _Parser, defaults: dict[str, Any], domain: str) -> dict[str, Any]:
    """The declared defaults that apply to ``domain`` (node, edge or graph)."""
    return {
        k.name: defaults[k.name]
        for k in parser.keys.values()
        if k.name in defaults and k.domain in (domain, "all")
    }


def graphml_topology(text: str, *, source: str = "GraphML", **options: Any) -> nx.MultiDiGraph:
    """Turn GraphML text into a topology: :func:`graphml_graph`, then
    :func:`~supermesh.topologies.formats.convert.from_networkx`.

    Parameters
    ----------
    text : str
    source : str
        The file name (for messages, and the spec when the file names none).
    **options
        Passed to :func:`~supermesh.topologies.formats.convert.from_networkx` (attribute names,
        defaults, ``multiplicity``, ``kind``, ``pos``).

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        A syntax error or an element that is wrong, with its line.
    TopologyError
        A value that is not valid for a topology (with the node or edge).

    Examples
    --------
    >>> T = graphml_topology('''<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
    ...   <key id="k" for="edge" attr.name="links" attr.type="int"/>
    ...   <graph edgedefault="undirected"><node id="a"/><node id="b"/>
    ...   <edge source="a" target="b"><data key="k">2</data></edge></graph></graphml>''',
    ...   multiplicity="links")
    >>> sorted(T.edges(keys=True))
    [(0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1)]
    """
    H = graphml_graph(text, source=source)
    if not H.graph.get("spec"):
        H.graph["spec"] = source
    H.graph.setdefault("family", "file")
    H.graph.setdefault("name", Path(source).name)
    return from_networkx(H, source=source, **options)


def read_graphml(path: str | Path, **options: Any) -> nx.MultiDiGraph:
    """Read a GraphML file as a topology.

    Parameters
    ----------
    path : str or Path
    **options
        As for :func:`graphml_topology`.

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        Unreadable, malformed, or an element that is wrong (with its line).
    TopologyError
        A value that is not valid for a topology (with the node or edge).

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> path = tempfile.mkdtemp() + "/grid.graphml"
    >>> nx.write_graphml(nx.grid_2d_graph(2, 3), path)
    >>> T = read_graphml(path)
    >>> T.number_of_edges(), T.graph["rows"], T.graph["cols"], T.nodes[4]["label"]
    (14, 2, 3, (1, 1))
    """
    return graphml_topology(read_text_file(path), source=str(path), **options)
