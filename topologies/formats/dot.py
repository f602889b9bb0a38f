"""Graphviz DOT files as topologies: supermesh's own, and those of Graphviz, pydot and editors.

The whole DOT language is parsed (``strict``, ``graph`` / ``digraph``, node, edge and attribute
statements, ``a = b`` graph attributes, edge chains ``a -> b -> c``, subgraphs with their
default-attribute scopes, edges to or from a subgraph, ports, quoted strings with ``+``
concatenation and escapes, HTML strings, ``//``, ``/* */`` and ``#`` comments) into a networkx
graph that :func:`~supermesh.topologies.formats.convert.from_networkx` turns into a topology.
All values are text: numbers (``bandwidth``, ``latency``, ``row``, ``key``) are read as numbers
there, and ``pos="x,y"`` (Graphviz's, ``!`` allowed) is a position. Node names that are all
integers become integers, names like ``"(0, 1)"`` become ``(row, col)`` tuples. A ``graph`` is
undirected (each edge a bidirectional link); a ``strict`` graph merges repeated edges, as
Graphviz does. Graph attributes ``label`` (the name), ``spec``, ``family``, ``rows``, ``cols`` and
``params`` (JSON) are read back, so supermesh's own DOT reads back exactly.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError
from supermesh.topologies.formats.convert import from_networkx
from supermesh.topologies.formats.labels import file_labels
from supermesh.topologies.formats.lexer import Token, dot_tokens
from supermesh.topologies.io import read_text_file

__all__ = ["dot_graph", "read_dot"]


class _Dot:
    """Recursive descent over the DOT grammar, collecting nodes and edges in file order."""

    def __init__(self, toks: list[Token], source: str) -> None:
        self.toks, self.i, self.source = toks, 0, source
        self.nodes: dict[str, dict[str, str]] = {}
        self.lines: dict[str, int] = {}
        self.edges: list[tuple[str, str, dict[str, str], int]] = []
        self.graph: dict[str, str] = {}
        self.directed = False
        self.strict = False
        self.name = ""

    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def fail(self, msg: str) -> InputFileError:
        tok = self.peek() or (self.toks[-1] if self.toks else Token("", "", 1))
        return InputFileError(
            f"{self.source} line {tok.line}: {msg}",
            hint="DOT: [strict] graph|digraph [NAME] { statements }",
        )

    def take(self, kind: str, what: str | None = None) -> Token:
        tok = self.peek()
        if tok is None or tok.kind != kind or (what is not None and tok.value != what):
            found = "the end of the file" if tok is None else repr(tok.value)
            raise self.fail(f"expected {what or kind!r}, found {found}")
        self.i += 1
        return tok

    def accept(self, kind: str, what: str | None = None) -> Token | None:
        tok = self.peek()
        if tok is not None and tok.kind == kind and (what is None or tok.value == what):
            self.i += 1
            return tok
        return None

    def ident(self) -> str:
        value = self.take("id").value
        while self.accept("+"):  # "a" + "b" concatenates quoted strings
            value += self.take("id").value
        return value

    def parse(self) -> None:
        self.strict = self.accept("kw", "strict") is not None
        tok = self.peek()
        if tok is None or tok.kind != "kw" or tok.value not in ("graph", "digraph"):
            raise self.fail("a DOT file starts with graph or digraph")
        self.i += 1
        self.directed = tok.value == "digraph"
        if self.peek() is not None and self.peek().kind == "id":  # type: ignore[union-attr]
            self.name = self.ident()
        self.take("{")
        self.statements({}, {}, top=True)
        self.take("}")
        if self.peek() is not None:
            raise self.fail("text after the closing brace of the graph")

    def attrs(self) -> dict[str, str]:
        out: dict[str, str] = {}
        while self.accept("["):
            while not self.accept("]"):
                key = self.ident()
                self.take("=")
                out[key] = self.ident()
                self.accept(",") or self.accept(";")
        return out

    def statements(self, ndef: dict[str, str], edef: dict[str, str], *, top: bool) -> list[str]:
        """Parse until the closing brace (not taken); returns the nodes the block mentions."""
        ndef, edef, members = dict(ndef), dict(edef), []
        while (tok := self.peek()) is not None and tok.kind != "}":
            if tok.kind == "kw" and tok.value in ("node", "edge", "graph"):
                self.i += 1
                values = self.attrs()
                if tok.value == "node":
                    ndef.update(values)
                elif tok.value == "edge":
                    edef.update(values)
                elif top:
                    self.graph.update(values)
            elif tok.kind == "id" and (nxt := self.peek(1)) is not None and nxt.kind == "=":
                key = self.ident()
                self.take("=")
                value = self.ident()
                if top:
                    self.graph[key] = value
            else:
                members += self.edge_or_node(ndef, edef)
            self.accept(";")
        return members

    def operand(self, ndef: dict[str, str], edef: dict[str, str]) -> list[str]:
        tok = self.peek()
        if tok is not None and (tok.kind == "{" or (tok.kind == "kw" and tok.value == "subgraph")):
            if self.accept("kw", "subgraph") and self.peek() and self.peek().kind == "id":  # type: ignore[union-attr]
                self.ident()
            self.take("{")
            members = self.statements(ndef, edef, top=False)
            self.take("}")
            return members
        if tok is None or tok.kind != "id":
            raise self.fail(f"expected a node name, found {tok.value if tok else 'the end'!r}")
        line = tok.line
        name = self.ident()
        if self.accept(":"):  # a port (and compass point) says where an edge meets the node
            self.ident()
            if self.accept(":"):
                self.ident()
        if name not in self.nodes:
            self.nodes[name] = dict(ndef)
            self.lines[name] = line
        return [name]

    def edge_or_node(self, ndef: dict[str, str], edef: dict[str, str]) -> list[str]:
        line = self.peek().line  # type: ignore[union-attr]
        groups = [self.operand(ndef, edef)]
        while (op := self.accept("edgeop")) is not None:
            if (op.value == "->") != self.directed:
                raise self.fail(
                    f"edge operator {op.value!r} in a {'digraph' if self.directed else 'graph'}"
                )
            groups.append(self.operand(ndef, edef))
        values = self.attrs()
        if len(groups) == 1:
            for name in groups[0]:
                self.nodes[name].update(values)
            return groups[0]
        for tails, heads in itertools.pairwise(groups):
            for u in tails:
                for v in heads:
                    self.edges.append((u, v, {**edef, **values}, line))
        return [n for g in groups for n in g]


def dot_graph(text: str, *, source: str = "DOT") -> nx.MultiGraph | nx.MultiDiGraph:
    """Parse DOT text into a networkx multigraph (attribute values as text).

    Parameters
    ----------
    text : str
    source : str
        The file name, for messages.

    Returns
    -------
    networkx.MultiGraph or networkx.MultiDiGraph
        A ``digraph`` gives a MultiDiGraph; an edge's integer ``key`` attribute is its key.

    Raises
    ------
    InputFileError
        A syntax error, with its line.

    Examples
    --------
    >>> H = dot_graph('graph { a -- b -- c [latency=2]; a -- b }')
    >>> H.number_of_edges(), H.edges["b", "c", 0]["latency"]
    (3, '2')
    >>> dot_graph('digraph { a -- b }', source="t.dot")
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: t.dot line 1: edge operator '--' in a digraph
    """
    parser = _Dot(dot_tokens(text, source), source)
    parser.parse()
    labels = file_labels(list(parser.nodes))
    H: nx.MultiGraph = nx.MultiDiGraph() if parser.directed else nx.MultiGraph()
    graph = dict(parser.graph)
    if "label" in graph:
        graph.setdefault("name", graph.pop("label"))
    if parser.name:
        graph.setdefault("name", parser.name)
    for attr in ("rows", "cols"):
        if attr in graph:
            try:
                graph[attr] = int(graph[attr])  # type: ignore[assignment]
            except ValueError:
                raise InputFileError(f"{source}: graph attribute {attr}={graph[attr]!r}") from None
    if "params" in graph:
        try:
            graph["params"] = json.loads(graph["params"])
        except json.JSONDecodeError as exc:
            raise InputFileError(
                f"{source}: graph attribute params is not JSON ({exc.msg})"
            ) from None
    H.graph.update(
        {k: graph[k] for k in ("name", "spec", "family", "rows", "cols", "params") if k in graph}
    )
    for name, attrs in parser.nodes.items():
        H.add_node(labels[name], **attrs)
    seen: set[Any] = set()
    for u, v, attrs, line in parser.edges:
        a, b = labels[u], labels[v]
        if parser.strict:
            pair = (a, b) if parser.directed else frozenset((a, b))
            if pair in seen:
                continue
            seen.add(pair)
        attrs = dict(attrs)
        key = attrs.pop("key", "")
        k = int(key) if key.isdigit() else None
        if k is not None and H.has_edge(a, b, k):
            raise InputFileError(
                f"{source} line {line}: a second edge {u} -> {v} with key={k}",
                hint="give parallel edges keys 0, 1, ... or no key",
            )
        H.add_edge(a, b, key=k, **attrs)
    return H


def dot_topology(text: str, *, source: str = "Graphviz DOT", **options: Any) -> nx.MultiDiGraph:
    """Turn Graphviz DOT text into a topology: :func:`dot_graph`, then
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
    >>> T = dot_topology('digraph { 0 -> 1 [bandwidth=2]; 1 -> 0 }')
    >>> sorted(T.edges(data="bandwidth"))
    [(0, 1, 2.0), (1, 0, 1.0)]
    """
    H = dot_graph(text, source=source)
    if not H.graph.get("spec"):
        H.graph["spec"] = source
    H.graph.setdefault("family", "file")
    H.graph.setdefault("name", Path(source).name)
    return from_networkx(H, source=source, **options)


def read_dot(path: str | Path, **options: Any) -> nx.MultiDiGraph:
    """Read a Graphviz DOT file as a topology.

    Parameters
    ----------
    path : str or Path
    **options
        As for :func:`dot_topology`.

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        Unreadable, or a syntax error (with its line).
    TopologyError
        A value that is not valid for a topology (with the node or edge).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "ring.dot"
    >>> _ = path.write_text("graph ring { a -- b -- c -- a }")
    >>> T = read_dot(path)
    >>> T.number_of_nodes(), T.number_of_edges(), [T.nodes[i]["label"] for i in T]
    (3, 6, ['a', 'b', 'c'])
    """
    return dot_topology(read_text_file(path), source=str(path), **options)
