"""Proofs for :mod:`supermesh.trees.design.optimise`: the counting bound and the cut certificate.

Counting (in-degree deficiency)
    A span node with ``d`` arcs too few in (or out) needs ``d`` more links ending at it; an added
    link has two ends, so at least ``ceil(D / 2)`` links are needed for a total deficiency ``D``.
    Sharper, per connected group of usable candidate links: when the group is bipartite (a grid's
    links are, like a chessboard; so is the perimeter cycle) every link has one end of each
    colour, so the group needs as many links as its needier colour needs ends. With costs, each
    needed end is charged the cheapest candidate at its node (half of it when not bipartite).
    When the optimum meets this bound the count alone proves it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from supermesh.trees.design.candidates import Candidate
from supermesh.trees.design.cuts import Cut, crossing, entering
from supermesh.units import plural

__all__ = ["counting_bound", "counting_groups", "cut_reason", "node_list", "usable_candidates"]

_SHOWN = 12


def node_list(ids: Sequence[int]) -> str:
    """``{a, b, c}`` text of a node list, cut after 12 with the count.

    Examples
    --------
    >>> node_list(range(3))
    '{0, 1, 2}'
    """
    shown = ", ".join(map(str, ids[:_SHOWN]))
    return "{" + (shown if len(ids) <= _SHOWN else f"{shown}, ... ({len(ids)} nodes)") + "}"


def counting_bound(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int] | None = None
) -> dict[str, Any]:
    """Lower bounds on the number and the cost of added links from link-end deficiencies.

    Per connected group of usable candidate links (both ends have room; all candidates when
    ``room`` is ``None``): if the group is bipartite (a grid's links, a perimeter cycle), every
    link has one end on each side, so it needs at least as many links as either side needs ends;
    otherwise half its total, rounded up. With costs, each needed end is charged the cheapest
    candidate at its node (on one side), or half of it.

    Parameters
    ----------
    need : mapping
        Node -> added link ends it needs (:func:`~supermesh.trees.design.cuts.link_ends_needed`).
    cands : sequence of Candidate
    room : mapping, optional
        Node -> links it may still gain.

    Returns
    -------
    dict
        ``ends`` (total deficiency), ``links`` and ``cost`` (the bounds), ``need`` (node ->
        ends, string keys), ``sides`` (for each bipartite group where a side decides the bound:
        ``[ends on the larger side, ends on the other side]``).

    Examples
    --------
    >>> from supermesh.trees.design.candidates import Candidate
    >>> path = [Candidate(0, 1, 1, "x"), Candidate(1, 2, 1, "x")]
    >>> b = counting_bound({0: 1, 2: 1}, path)
    >>> b["ends"], b["links"], b["sides"]  # 0 and 2 are on one side: no link serves both
    (2, 2, [[2, 0]])
    """
    groups = counting_groups(need, cands, room)
    return {
        "ends": sum(need.values()),
        "links": sum(g[1] for g in groups),
        "cost": sum(g[2] for g in groups),
        "need": {str(v): n for v, n in sorted(need.items())},
        "sides": [g[3] for g in groups if g[3] is not None],
    }


def counting_groups(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int] | None = None
) -> list[tuple[frozenset[int], int, int, list[int] | None]]:
    """The per-group terms of :func:`counting_bound`.

    Returns
    -------
    list of (nodes, links, cost, sides)
        For each connected group of usable candidate links holding a node that needs ends: its
        nodes, the least number and cost of links among them, and for a bipartite group whose
        sides need different numbers of ends ``[larger, smaller]`` (else ``None``). Every
        design has at least ``links`` chosen links with both ends in ``nodes``.

    Examples
    --------
    >>> from supermesh.trees.design.candidates import Candidate
    >>> counting_groups({0: 1, 2: 1}, [Candidate(0, 1, 1, "x"), Candidate(1, 2, 1, "x")])
    [(frozenset({0, 1, 2}), 2, 2, [2, 0])]
    """
    usable = list(cands) if room is None else usable_candidates(cands, room)
    cheapest: dict[int, int] = {}
    H = nx.Graph()
    H.add_nodes_from(v for v, d in need.items() if d > 0)
    for c in usable:
        H.add_edge(c.u, c.v)
        for v in c.pair:
            cheapest[v] = min(cheapest.get(v, c.cost), c.cost)
    out: list[tuple[frozenset[int], int, int, list[int] | None]] = []
    for comp in sorted(nx.connected_components(H), key=min):
        d = {v: need.get(v, 0) for v in comp}
        if not any(d.values()):
            continue
        charge = {v: d[v] * cheapest.get(v, 0) for v in comp}
        sub = H.subgraph(comp)
        if len(comp) > 1 and nx.is_bipartite(sub):
            a, b = nx.bipartite.sets(sub)
            ea, eb = sum(d[v] for v in a), sum(d[v] for v in b)
            cost = max(sum(charge[v] for v in a), sum(charge[v] for v in b))
            side = sorted([ea, eb], reverse=True) if ea != eb else None
            out.append((frozenset(comp), max(ea, eb), cost, side))
        else:
            half = -(-sum(charge.values()) // 2)
            out.append((frozenset(comp), -(-sum(d.values()) // 2), half, None))
    return out


def cut_reason(G: nx.MultiDiGraph, cut: Cut, cands: Sequence[Candidate], usable: str) -> dict:
    """The reason dict for a set that cannot be entered often enough.

    ``usable`` opens the text and says which candidates were counted (e.g. ``"even with every
    candidate"``). The text names the smaller side of the cut: the set itself ("entered by") or
    its complement ("left by"); ``set`` is always the side that must be entered.
    """
    base = entering(G, cut.members)
    cross = len(crossing(cands, cut.members))
    members = sorted(cut.members)
    other = sorted(set(G.nodes) - cut.members)
    shown, verb = (other, "left") if 0 < len(other) < len(members) else (members, "entered")
    return {
        "kind": "cut",
        "set": members,
        "base_entering_arcs": base,
        "crossing_candidates": cross,
        "required": cut.required,
        "text": (
            f"{usable}, the set {node_list(shown)} is {verb} by only {plural(base + cross, 'arc')} "
            f"({base} in the base topology, {cross} from candidate links crossing it), but "
            f"{plural(cut.required, 'tree')} "
            "must cross it (each tree rooted on the far side needs an arc of its own)"
        ),
    }


def usable_candidates(cands: Sequence[Candidate], room: Mapping[int, int]) -> list[Candidate]:
    """The candidates whose two ends both have a free port."""
    return [c for c in cands if room.get(c.u, 0) > 0 and room.get(c.v, 0) > 0]
