"""Why a design target is unreachable: reasons a person can check, besides the solver's proof.

Tried in this order by :func:`infeasibility_reason`:

1. a node needs more link ends than its port budget or its candidates allow;
2. a node set that, even with every candidate added, is entered by too few arcs (then with every
   candidate the port budgets allow);
3. parity: on a connected group of candidate links whose every node needs exactly as many added
   ends as it can take, the additions are forced; if the group is bipartite (an even cycle, for
   instance the perimeter of an N x N grid) each link adds one end on each side, so both sides
   must need the same total (going round a cycle: the alternating sum of the needs must be 0);
   otherwise the total must be even;
4. forcing: a chiplet that needs every usable candidate at it forces those links; a chiplet then
   full drops its other candidates; repeated, this may leave a chiplet short (or a group for the
   parity test).

:func:`height_reason` rules out a height limit by distance alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from supermesh.trees.design.candidates import Candidate
from supermesh.trees.design.cuts import Requirement, violated_cuts, with_links
from supermesh.trees.design.proof import cut_reason, node_list, usable_candidates

__all__ = ["height_reason", "infeasibility_reason"]

_SHOWN = 12


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
    for c in usable_candidates(cands, room):
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
            "text": f"chiplet {v} needs {d} more link{'s' if d > 1 else ''}, but {why}",
        }
    return None


def _parity_reason(
    need: Mapping[int, int], cands: Sequence[Candidate], room: Mapping[int, int]
) -> dict | None:
    usable = usable_candidates(cands, room)
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
                    f"the chiplets {node_list(sorted(comp))} each need exactly as many added links "
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
    free = list(usable_candidates(cands, room))
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
            f"going round the cycle of candidate links {node_list(cycle)}, every chiplet on it "
            "needs exactly as many added links as it can take (needs "
            f"{', '.join(map(str, needs[:_SHOWN]))}{', ...' if len(needs) > _SHOWN else ''}); "
            "each added link adds one end to two consecutive chiplets, so the alternating sum "
            f"of the needs must be 0, but it is {alt}"
        )
        return out
    out["text"] = (
        f"the chiplets {node_list(a + c)} each need exactly as many added links as they can "
        "take and their candidate links form a bipartite graph, so each link adds one end on "
        "each side "
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
        The target (:class:`~supermesh.trees.design.cuts.Requirement`) and the span.

    Returns
    -------
    dict or None
        ``{"kind": "port-budget" | "candidates" | "cut" | "parity", "text": ..., ...}``;
        ``None`` when none of these simple reasons applies (the solver's proof stands alone).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design.candidates import candidate_links
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
        (usable_candidates(cands, room), "even with every candidate the port budgets allow"),
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
    >>> from supermesh.trees.design.candidates import candidate_links
    >>> G = build("mesh:4x4")
    >>> r = height_reason(G, candidate_links(G, "perimeter-parallel"), {v: 1 for v in G},
    ...                   [Requirement(1, (0,), "out")], list(G), 5)
    >>> r["root"], r["node"], r["distance"]
    (0, 15, 6)
    """
    H = with_links(G, (c.pair for c in usable_candidates(cands, room)))
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
