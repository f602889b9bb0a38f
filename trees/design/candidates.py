"""Candidate link additions for the design search: named families and port budgets.

A candidate is one more bidirectional link between two chiplets (two opposite arcs, class
``"added"``). The named families:

``perimeter-parallel``
    A second link beside every perimeter link. On a grid family the perimeter is the walk of
    :func:`supermesh.topologies.grid.perimeter_sides`; on HexaMesh it is every link between two
    compute chiplets that both lack one of their six brick neighbours (the outer ring).
``any-parallel``
    One more link beside any existing link (between any two linked nodes, memory links included).
``diagonal``
    A link from a grid chiplet to each of its (up to) 4 diagonal neighbours ``(r +- 1, c +- 1)``.

An explicit list of links ``u-v`` may replace or join the named families. A pair offered by two
families is one candidate (its cheapest cost).

Port budgets count die-to-die links per chiplet, as
:func:`supermesh.topologies.metrics.links_per_node` does (``max(in-arcs, out-arcs)``); the router
radix of :func:`supermesh.topologies.metrics.metrics` is that plus the local port.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.grid import perimeter_sides
from supermesh.topologies.metrics import links_per_node, node_class
from supermesh.topologies.model import check_node, compute_nodes

__all__ = [
    "FAMILY_NAMES",
    "Candidate",
    "candidate_links",
    "diagonal_pairs",
    "grid_cells",
    "links_budget",
    "parallel_pairs",
    "parse_costs",
    "parse_links",
    "perimeter_pairs",
    "port_budgets",
]

FAMILY_NAMES: tuple[str, ...] = ("perimeter-parallel", "any-parallel", "diagonal")

Pair = tuple[int, int]


@dataclass(frozen=True)
class Candidate:
    """One link the design may add.

    Attributes
    ----------
    u, v : int
        Its ends, ``u < v``.
    cost : int
        What adding it costs (non-negative integer).
    family : str
        The family (or families, ``+``-joined) that offered it; ``"list"`` for explicit links.
    """

    u: int
    v: int
    cost: int
    family: str

    @property
    def pair(self) -> Pair:
        """``(u, v)``."""
        return (self.u, self.v)


def _pair(u: int, v: int) -> Pair:
    return (u, v) if u < v else (v, u)


def grid_cells(G: nx.MultiDiGraph) -> dict[tuple[int, int], int]:
    """``(row, col) -> node`` of the compute chiplets of a grid family (empty if none)."""
    if G.graph.get("rows") is None or G.graph.get("family") == "hexamesh":
        return {}
    cells = {}
    for n in compute_nodes(G):
        r, c = G.nodes[n].get("row"), G.nodes[n].get("col")
        if r is not None and c is not None:
            cells[int(r), int(c)] = n
    return cells


def perimeter_pairs(G: nx.MultiDiGraph) -> list[Pair]:
    """Pairs ``(u, v)``, ``u < v``, of the perimeter links of a grid or HexaMesh topology.

    Raises
    ------
    SpecError
        If the topology is neither a grid family nor a HexaMesh.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> perimeter_pairs(build("mesh:3x3"))
    [(0, 1), (0, 3), (1, 2), (2, 5), (3, 6), (5, 8), (6, 7), (7, 8)]
    >>> len(perimeter_pairs(build("hexamesh:r2")))  # the outer ring of 12 chiplets
    12
    """
    if G.graph.get("family") == "hexamesh":
        ring = {n for n in compute_nodes(G) if node_class(G, n) == "border"}
        return sorted({_pair(u, v) for u, v in G.edges() if u in ring and v in ring})
    cells = grid_cells(G)
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if not cells or len(cells) != rows * cols:
        raise SpecError(
            f"perimeter-parallel needs a grid or HexaMesh topology, not {G.graph.get('spec')!r}",
            hint="use --add any-parallel or an explicit list of links like 0-1,5-6",
        )
    out = set()
    for links in perimeter_sides(rows, cols).values():
        for a, b in links:
            u, v = cells[divmod(a, cols)], cells[divmod(b, cols)]
            if G.has_edge(u, v) or G.has_edge(v, u):
                out.add(_pair(u, v))
    return sorted(out)


def parallel_pairs(G: nx.MultiDiGraph) -> list[Pair]:
    """Pairs ``(u, v)``, ``u < v``, joined by at least one arc (any class).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> parallel_pairs(build("mesh:2x2"))
    [(0, 1), (0, 2), (1, 3), (2, 3)]
    """
    return sorted({_pair(int(u), int(v)) for u, v in G.edges()})


def diagonal_pairs(G: nx.MultiDiGraph) -> list[Pair]:
    """Pairs ``(u, v)``, ``u < v``, of grid chiplets that are diagonal neighbours.

    Raises
    ------
    SpecError
        If the topology is not a grid family.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> diagonal_pairs(build("mesh:2x3"))
    [(0, 4), (1, 3), (1, 5), (2, 4)]
    """
    cells = grid_cells(G)
    if not cells:
        raise SpecError(
            f"diagonal candidates need a grid topology, not {G.graph.get('spec')!r}",
            hint="use --add any-parallel or an explicit list of links like 0-1,5-6",
        )
    out = set()
    for (r, c), u in cells.items():
        for dc in (-1, 1):
            v = cells.get((r + 1, c + dc))
            if v is not None:
                out.add(_pair(u, v))
    return sorted(out)


def parse_links(text: str) -> list[Pair]:
    """Parse an explicit list of links ``"u-v,u-v,..."``.

    Raises
    ------
    SpecError
        On a malformed item.

    Examples
    --------
    >>> parse_links("0-1, 5-6")
    [(0, 1), (5, 6)]
    """
    out = []
    for item in (s.strip() for s in text.split(",")):
        a, dash, b = item.partition("-")
        if not dash or not a.strip().isdigit() or not b.strip().isdigit():
            raise SpecError(
                f"link {item!r} is not u-v with two node ids",
                hint="write links like 0-1,5-6 or name a family: " + ", ".join(FAMILY_NAMES),
            )
        out.append((int(a), int(b)))
    return out


_FAMILIES = {
    "perimeter-parallel": perimeter_pairs,
    "any-parallel": parallel_pairs,
    "diagonal": diagonal_pairs,
}


def candidate_links(
    G: nx.MultiDiGraph,
    add: str | Sequence[str | Pair],
    *,
    costs: Mapping[str | Pair, int] | None = None,
) -> list[Candidate]:
    """The candidate links a design may choose from, sorted by pair.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The base topology.
    add : str or sequence of (str or (int, int))
        A family name (see the module docstring), an explicit list ``"u-v,..."``, or a sequence
        mixing family names and ``(u, v)`` pairs.
    costs : mapping, optional
        Cost of a family's links (key: the family name, ``"list"`` for explicit pairs) or of
        one link (key: ``(u, v)``, either order); the pair key wins. Default 1 each.

    Returns
    -------
    list of Candidate

    Raises
    ------
    SpecError
        An unknown family, a family that does not apply to the topology, a negative or
        non-integer cost, or no candidate at all.
    TopologyError
        An explicit link naming a node not in ``G`` or a self-loop.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> cands = candidate_links(build("mesh:3x3"), ["perimeter-parallel", (0, 4)])
    >>> len(cands), [c for c in cands if c.family == "list"]
    (9, [Candidate(u=0, v=4, cost=1, family='list')])
    """
    items: list[str | Pair] = [add] if isinstance(add, str) else list(add)
    costs = dict(costs or {})
    offered: dict[Pair, tuple[int, list[str]]] = {}

    def offer(pair: Pair, family: str) -> None:
        c = costs.get(pair, costs.get(pair[::-1], costs.get(family, 1)))
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise SpecError(f"cost {c!r} of link {pair[0]}-{pair[1]} is not an integer >= 0")
        old = offered.get(pair)
        if old is None:
            offered[pair] = (c, [family])
        else:
            offered[pair] = (min(old[0], c), [*old[1], family])

    for item in items:
        if isinstance(item, str) and item.strip().lower() in _FAMILIES:
            name = item.strip().lower()
            for p in _FAMILIES[name](G):
                offer(p, name)
        elif isinstance(item, str) and item.strip()[:1].isdigit():
            for p in _explicit(G, parse_links(item)):
                offer(p, "list")
        elif isinstance(item, str):
            raise SpecError(
                f"unknown candidate family {item!r}",
                hint=f"use one of {', '.join(FAMILY_NAMES)} or a list of links like 0-1,5-6",
            )
        else:
            for p in _explicit(G, [item]):
                offer(p, "list")
    if not offered:
        raise SpecError(
            f"no candidate link in {items!r} for {G.graph.get('spec')}",
            hint="name a family that applies to this topology or list links like 0-1",
        )
    return [
        Candidate(u, v, c, "+".join(dict.fromkeys(f))) for (u, v), (c, f) in sorted(offered.items())
    ]


def _explicit(G: nx.MultiDiGraph, pairs: Iterable[Sequence[int]]) -> list[Pair]:
    out = []
    for p in pairs:
        if len(p) != 2:
            raise SpecError(f"link {p!r} is not a pair of node ids", hint="write (u, v)")
        u, v = check_node(G, p[0], what="link end"), check_node(G, p[1], what="link end")
        if u == v:
            raise TopologyError(f"link {u}-{v} is a self-loop", hint="name two different nodes")
        out.append(_pair(u, v))
    return out


def port_budgets(
    G: nx.MultiDiGraph, max_links: int | Mapping[int, int] | None = None
) -> dict[int, int]:
    """Most die-to-die links each node may have once the design is built.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The base topology.
    max_links : int or mapping, optional
        One limit for every node, or a mapping node -> limit (nodes it omits get the default).
        Default: the base topology's largest :func:`~supermesh.topologies.metrics.links_per_node`
        (so no router needs more ports than the base already has). The router radix is this
        plus one (the local port).

    Returns
    -------
    dict
        Node -> link limit.

    Raises
    ------
    SpecError
        A limit that is not an integer >= 1.
    TopologyError
        A mapping key that is not a node.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> port_budgets(build("mesh:3x3"))[4], port_budgets(build("mesh:3x3"), 5)[0]
    (4, 5)
    """
    ports = links_per_node(G)
    default = max(ports.values())
    per_node: dict[int, int] = {}
    if isinstance(max_links, Mapping):
        per_node = {check_node(G, n, what="budget node"): m for n, m in max_links.items()}
    elif max_links is not None:
        default = max_links
    for m in [default, *per_node.values()]:
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise SpecError(
                f"port budget {m!r} is not an integer >= 1",
                hint="give the most links per chiplet, e.g. 4 (router radix 5)",
            )
    return {n: per_node.get(n, default) for n in ports}


def parse_costs(texts: Iterable[str]) -> dict[Any, int]:
    """Link costs as typed after ``--cost``: ``FAMILY=C`` or ``u-v=C`` with an integer ``C``.

    Returns
    -------
    dict
        Family name or link ``(u, v)`` -> cost, as :func:`~supermesh.trees.design.design` takes.

    Raises
    ------
    SpecError
        A text that is not ``KEY=C``.

    Examples
    --------
    >>> parse_costs(["diagonal=2", "0-1=3"])
    {'diagonal': 2, (0, 1): 3}
    """
    out: dict[Any, int] = {}
    for text in texts:
        key, eq, value = text.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or not re.fullmatch(r"[0-9]{1,9}", value) or not key:
            raise SpecError(
                f"--cost {text[:60]!r} is not KEY=C with a whole number C (at most 9 digits)",
                hint="e.g. --cost diagonal=2 or --cost 0-1=3",
            )
        link = re.fullmatch(r"([0-9]{1,9})-([0-9]{1,9})", key)
        if link is None and key not in FAMILY_NAMES:
            raise SpecError(
                f"--cost {text[:60]!r}: {key[:40]!r} is neither a candidate family nor a link u-v",
                hint=f"families: {', '.join(FAMILY_NAMES)}; links like 0-1",
            )
        out[(int(link.group(1)), int(link.group(2))) if link else key] = int(value)
    return out


def links_budget(max_links: int | None, max_radix: int | None) -> int | None:
    """Links per chiplet from ``--max-links`` or ``--max-radix`` (one router port is local).

    Examples
    --------
    >>> links_budget(None, 5), links_budget(4, None), links_budget(None, None)
    (4, 4, None)
    """
    if max_links is not None and max_radix is not None:
        raise SpecError(
            "give --max-links or --max-radix, not both",
            hint="--max-radix R means at most R - 1 links per chiplet (one port is local)",
        )
    if max_radix is not None:
        if max_radix < 2:
            raise SpecError(f"--max-radix {max_radix} leaves no link port", hint="e.g. 5")
        return max_radix - 1
    return max_links
