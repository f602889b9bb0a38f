"""Proofs for :mod:`supermesh.trees.design`: the counting bound, and why a target is unreachable.

Counting (in-degree deficiency)
    A span node with ``d`` arcs too few in (or out) needs ``d`` more links ending at it; an added
    link has two ends, so at least ``ceil(D / 2)`` links are needed for a total deficiency ``D``
    (with costs: each end of a link is charged half its cost, at least half the cheapest
    candidate at that node). When the optimum meets this bound the count alone proves it.

Reasons a target is unreachable, tried in this order
    1. a node needs more link ends than its port budget or its candidates allow;
    2. a node set that, even with every candidate added, is entered by too few arcs (then with
       every candidate the port budgets allow);
    3. parity: on a connected group of candidate links whose every node needs exactly as many
       added ends as it can take, the additions are forced; if the group is bipartite (an even
       cycle, for instance the perimeter of an N x N grid) each link adds one end on each side,
       so both sides must need the same total (going round a cycle: the alternating sum of the
       needs must be 0); otherwise the total must be even;
    4. forcing: a chiplet that needs every usable candidate at it forces those links; a chiplet
       then full drops its other candidates; repeated, this may leave a chiplet short (or a
       group for the parity test).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from supermesh.trees.design_candidates import Candidate
from supermesh.trees.design_cuts import (
    Cut,
    Requirement,
    crossing,
    entering,
    violated_cuts,
    with_links,
)

__all__ = ["counting_bound", "cut_reason", "height_reason", "infeasibility_reason"]

_SHOWN = 12


def _nodes(ids: Sequence[int]) -> str:
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
        Node -> added link ends it needs (:func:`~supermesh.trees.design_cuts.link_ends_needed`).
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
    >>> from supermesh.trees.design_candidates import Candidate
    >>> path = [Candidate(0, 1, 1, "x"), Candidate(1, 2, 1, "x")]
    >>> b = counting_bound({0: 1, 2: 1}, path)
    >>> b["ends"], b["links"], b["sides"]  # 0 and 2 are on one side: no link serves both
    (2, 2, [[2, 0]])
    """
    usable = list(cands) if room is None else _usable(cands, room)
    cheapest: dict[int, int] = {}
    H = nx.Graph()
    H.add_nodes_from(v for v, d in need.items() if d > 0)
    for c in usable:
        H.add_edge(c.u, c.v)
        for v in c.pair:
            cheapest[v] = min(cheapest.get(v, c.cost), c.cost)
    links = cost = 0
    sides = []
    for comp in sorted(nx.connected_components(H), key=min):
        d = {v: need.get(v, 0) for v in comp}
        charge = {v: d[v] * cheapest.get(v, 0) for v in comp}
        sub = H.subgraph(comp)
        if len(comp) > 1 and nx.is_bipartite(sub):
            a, b = nx.bipartite.sets(sub)
            ea, eb = sum(d[v] for v in a), sum(d[v] for v in b)
            links += max(ea, eb)
            cost += max(sum(charge[v] for v in a), sum(charge[v] for v in b))
            if ea != eb:
                sides.append(sorted([ea, eb], reverse=True))
        else:
            links += -(-sum(d.values()) // 2)
            cost += -(-sum(charge.values()) // 2)
    return {
        "ends": sum(need.values()),
        "links": links,
        "cost": cost,
        "need": {str(v): n for v, n in sorted(need.items())},
        "sides": sides,
    }


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
            f"{usable}, the set {_nodes(shown)} is {verb} by only {base + cross} arcs ({base} in "
            f"the base topology, {cross} from candidate links crossing it), but {cut.required} "
            "trees must cross it (each tree rooted on the far side needs an arc of its own)"
        ),
    }


def _usable(cands: Sequence[Candidate], room: Mapping[int, int]) -> list[Candidate]:
    return [c for c in cands if room.get(c.u, 0) > 0 and room.get(c.v, 0) > 0]


def _links(n: int) -> str:
    return f"{n} link" if n == 1 else f"{n} links"


def _degree_reason(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int], budget: Mapping
) -> dict | None:
    touching: dict[int, int] = defaultdict(int)
    offered: dict[int, int] = defaultdict(int)
    for c in cands:
        offered[c.u] += 1
        offered[c.v] += 1
    for c in _usable(cands, room):
        touching[c.u] += 1
        touching[c.v] += 1
    for v, d in sorted(need.items()):
        r = room.get(v, 0)
        if d <= min(r, touching[v]):
            continue
        if r < d:
            kind, why = "port-budget", f"its port budget of {_links(budget[v])} leaves room for {r}"
        elif offered[v] < d:
            kind, why = "candidates", f"only {offered[v]} candidate links end at it"
        else:
            kind = "candidates"
            why = (
                f"of the {offered[v]} candidate links ending at it only {touching[v]} lead to a "
                "chiplet with a free port"
            )
        return {
            "kind": kind,
            "node": v,
            "needs": d,
            "room": r,
            "candidates": touching[v],
            "text": f"chiplet {v} needs {_links(d)} more, but {why}",
        }
    return None


def _parity_reason(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int]
) -> dict | None:
    usable = _usable(cands, room)
    H = nx.Graph()
    for c in usable:
        H.add_edge(c.u, c.v)
    for comp in sorted(nx.connected_components(H), key=min):
        b = {v: need.get(v, 0) for v in comp}
        if any(b[v] != min(room.get(v, 0), H.degree(v)) for v in comp):
            continue  # some node has slack: no forced equation
        sub = H.subgraph(comp)
        if nx.is_bipartite(sub):
            a, c = nx.bipartite.sets(sub)
            sa, sc = sum(b[v] for v in a), sum(b[v] for v in c)
            if sa == sc:
                continue
            return _bipartite_text(sub, b, sorted(a), sorted(c), sa, sc)
        if sum(b.values()) % 2:
            return {
                "kind": "parity",
                "nodes": sorted(comp),
                "text": (
                    f"the chiplets {_nodes(sorted(comp))} each need exactly as many added links "
                    "as they can take, and those links stay among them, so they need an even "
                    f"number of link ends in all, but they need {sum(b.values())}"
                ),
            }
    return None


def _forced(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int]
) -> tuple[list[Candidate], list[Candidate], dict[int, int], dict[int, int], int | None]:
    """Fix the links some chiplet cannot do without and drop those at chiplets then full.

    Returns ``(forced, free, need left, room left, stuck)``: ``stuck`` is a chiplet that still
    needs more links than the free candidates at it (or whose forced links exceed its budget).
    """
    free = list(_usable(cands, room))
    forced: list[Candidate] = []
    got: dict[int, int] = defaultdict(int)
    nodes = sorted(set(need) | {v for c in free for v in c.pair})
    changed = True
    while changed:
        changed = False
        at: dict[int, list[Candidate]] = defaultdict(list)
        for c in free:
            at[c.u].append(c)
            at[c.v].append(c)
        for v in nodes:
            short, left = need.get(v, 0) - got[v], room.get(v, 0) - got[v]
            if short > min(len(at[v]), max(left, 0)) or left < 0:
                return forced, free, {}, {}, v
            if short > 0 and short == len(at[v]):
                pick = at[v]
            elif left == 0 and at[v]:
                pick = []
            else:
                continue
            gone = set(map(id, at[v]))
            free = [c for c in free if id(c) not in gone]
            for c in pick:
                forced.append(c)
                got[c.u] += 1
                got[c.v] += 1
            changed = True
            break
    rest_need = {v: need.get(v, 0) - got[v] for v in nodes}
    return forced, free, rest_need, {v: room.get(v, 0) - got[v] for v in nodes}, None


def _forced_reason(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int]
) -> dict | None:
    forced, free, rest_need, rest_room, stuck = _forced(need, cands, room)
    if not forced:
        return None
    shown = ", ".join(f"{c.u}-{c.v}" for c in forced[:_SHOWN])
    shown += ", ..." if len(forced) > _SHOWN else ""
    head = (
        f"some chiplets need every usable candidate link they have, which forces {len(forced)} "
        f"links ({shown}) and fills other chiplets, whose remaining candidates drop out; then "
    )
    if stuck is not None:
        return {
            "kind": "forced",
            "forced": [list(c.pair) for c in forced],
            "node": stuck,
            "text": head + f"chiplet {stuck} still needs more links than it can get",
        }
    inner = _parity_reason(rest_need, free, rest_room)
    if inner is None:
        return None
    return inner | {"forced": [list(c.pair) for c in forced], "text": head + inner["text"]}


def _bipartite_text(sub: nx.Graph, b: dict, a: list, c: list, sa: int, sc: int) -> dict:
    out: dict[str, Any] = {"kind": "parity", "sides": [a, c], "side_needs": [sa, sc]}
    if all(d == 2 for _, d in sub.degree()) and nx.is_connected(sub):
        start = min(sub.nodes)
        cycle = [start]
        prev, cur = None, start
        while True:
            nxt = min(w for w in sub.neighbors(cur) if w != prev)
            if nxt == start:
                break
            cycle.append(nxt)
            prev, cur = cur, nxt
        needs = [b[v] for v in cycle]
        alt = sum(d if i % 2 == 0 else -d for i, d in enumerate(needs))
        out |= {"cycle": cycle, "needs": needs, "alternating_sum": alt}
        out["text"] = (
            f"going round the cycle of candidate links {_nodes(cycle)}, every chiplet on it "
            "needs exactly as many added links as it can take (needs "
            f"{', '.join(map(str, needs[:_SHOWN]))}{', ...' if len(needs) > _SHOWN else ''}); "
            "each added link adds one end to two consecutive chiplets, so the alternating sum "
            f"of the needs must be 0, but it is {alt}"
        )
        return out
    out["text"] = (
        f"the chiplets {_nodes(a + c)} each need exactly as many added links as they can take and "
        "their candidate links form a bipartite graph, so each link adds one end on each side "
        f"and both sides must need the same number, but they need {sa} and {sc}"
    )
    return out


def infeasibility_reason(
    G: nx.MultiDiGraph,
    cands: Sequence[Candidate],
    budget: Mapping[int, int],
    room: Mapping[int, int],
    need: Mapping[int, int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
) -> dict[str, Any] | None:
    """Why no choice of candidates within the budgets meets the target, if a simple reason exists.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The base topology.
    cands : sequence of Candidate
    budget, room : mapping
        Node -> link limit, and node -> links it may still gain.
    need : mapping
        Node -> added link ends it needs (the one-node conditions).
    reqs, span
        The target (:class:`~supermesh.trees.design_cuts.Requirement`) and the span.

    Returns
    -------
    dict or None
        ``{"kind": "port-budget" | "candidates" | "cut" | "parity", "text": ..., ...}``;
        ``None`` when none of these simple reasons applies (the solver's proof stands alone).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design_candidates import candidate_links
    >>> G = build("mesh:3x3")
    >>> cands = candidate_links(G, "perimeter-parallel")
    >>> room = {v: 4 - G.out_degree(v) for v in G}
    >>> need = {v: max(0, 4 - G.in_degree(v)) for v in G}
    >>> r = infeasibility_reason(G, cands, {v: 4 for v in G}, room, need,
    ...                          [Requirement(4)], list(G))
    >>> r["kind"], r["alternating_sum"]
    ('parity', 4)
    """
    reason = _degree_reason(need, cands, room, budget)
    if reason is not None:
        return reason
    pools = (
        (list(cands), "even with every candidate"),
        (_usable(cands, room), "even with every candidate the port budgets allow"),
    )
    for pool, label in pools:
        cuts = violated_cuts(with_links(G, (c.pair for c in pool)), reqs, span, limit=1)
        if cuts:
            return cut_reason(G, cuts[0], pool, label)
    return _parity_reason(need, cands, room) or _forced_reason(need, cands, room)


def height_reason(
    G: nx.MultiDiGraph,
    cands: Sequence[Candidate],
    room: Mapping[int, int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
    max_height: int,
) -> dict[str, Any] | None:
    """A chiplet too far from a root for the height limit, even with every usable candidate.

    A tree of height ``h`` reaches only chiplets within ``h`` hops of its root, and added links
    can only shorten distances, so a distance above ``max_height`` in the topology with every
    usable candidate rules the target out.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design_candidates import candidate_links
    >>> G = build("mesh:4x4")
    >>> r = height_reason(G, candidate_links(G, "perimeter-parallel"), {v: 1 for v in G},
    ...                   [Requirement(1, (0,), "out")], list(G), 5)
    >>> r["root"], r["node"], r["distance"]
    (0, 15, 6)
    """
    H = with_links(G, (c.pair for c in _usable(cands, room)))
    for req in reqs:
        if req.roots is None:
            continue
        view = H.reverse(copy=False) if req.direction == "in" else H
        for r in dict.fromkeys(req.roots):
            dist = nx.single_source_shortest_path_length(view, r)
            far = max(span, key=lambda v: (dist.get(v, len(H) + 1), -v))
            d = dist.get(far, len(H) + 1)
            if d > max_height:
                way = "from" if req.direction == "out" else "to"
                return {
                    "kind": "height",
                    "root": r,
                    "node": far,
                    "distance": d,
                    "direction": req.direction,
                    "text": (
                        f"even with every usable candidate link, chiplet {far} is {d} hops "
                        f"{way} root {r}, so a tree of height at most {max_height} cannot reach it"
                    ),
                }
    return None
