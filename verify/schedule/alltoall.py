"""Check an AllToAll schedule table (point-to-point routes), independently of its builder.

The table layout is documented in :mod:`supermesh.trees.schedule.model` (routes: ``roots`` hold
each route's source, ``dests`` its destination, ``shares`` its part of the block); nothing that
builds it runs here. :func:`check_alltoall` re-derives:

Structure
    ids are positions; every entry has phase ``a2a``, the schedule's collective, a known ``op``
    and ``on_recv``; its link exists; ``roots``, ``dests`` and ``shares`` have one value per
    route; each chiplet's table lists exactly its entries.
Routes
    the hops of route ``t`` (entries with ``tree = t``, by ``depth`` ``1, 2, ...``) form a path
    over existing arcs from its source to its destination that visits no chiplet twice; each hop
    waits for exactly the previous one (the first for nothing), carries the route's chunks, and
    has ``op`` ``send`` on the first hop and ``recv-send`` after.
Delivery
    sources and destinations are distinct ranks; for every ordered pair of ranks, the chunk
    ranges of its routes cover the pair's block ``[b*C, b*C + C - 1]`` (``b = i*n + j``) exactly
    once, so every block from every source reaches its destination exactly once; each pair's
    shares add up to 1.
Causality
    the steps of each link are ``0 .. n-1``; the FIFO order (chunk index, then step) and the
    data waits admit an execution: the wait graph over (entry, chunk index) transfers has no
    cycle. Data waits keep the chunk index and each link serves index ``c`` before ``c + 1``,
    so a cycle stays at one index; the transfers of an index ``c >= 1`` are those of index 1
    whose entry has more than ``c`` chunks, in the same relative order, so indices 0 and 1 are
    the only ones to check.

References
----------
BRIEF sections 7 and 8 (schedule tables; TE-CCL's AllToAll).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx

from supermesh.trees.schedule.model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import span_nodes

__all__ = ["check_alltoall"]


def _arc(a: tuple[int, int, int]) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _structure(G: nx.MultiDiGraph, s: Schedule) -> list[Finding]:
    found: list[Finding] = []
    for i, e in enumerate(s.entries):
        w = f"entry {e.id}"
        if e.id != i:
            found.append(Finding("entry-id", f"entry #{i} has id {e.id}", entry=e.id))
        if e.phase != "a2a" or e.collective != s.collective or e.set_index != 0:
            found.append(
                Finding("bad-field", f"{w}: phase {e.phase!r} / set {e.set_index}, not a2a / 0")
            )
        if e.op not in ("send", "recv-send") or e.on_recv != "store":
            found.append(Finding("bad-field", f"{w}: op {e.op!r}, on_recv {e.on_recv!r}"))
        if e.src not in G or e.dst not in G:
            found.append(Finding("node-out-of-range", f"{w} names a node not in the topology"))
        elif not G.has_edge(e.src, e.dst, e.key):
            found.append(
                Finding("arc-missing", f"{w}: link {_arc(e.arc)} does not exist", arc=e.arc)
            )
    routes = len(s.roots[0]) if len(s.roots) == 1 else -1
    shape_ok = (
        routes >= 0
        and s.dests is not None
        and len(s.dests) == 1
        and len(s.dests[0]) == routes
        and s.shares is not None
        and len(s.shares) == 1
        and len(s.shares[0]) == routes
    )
    if not shape_ok:
        found.append(
            Finding(
                "bad-field", "roots, dests and shares must each be one set with a value per route"
            )
        )
    rows: dict[int, list[int]] = defaultdict(list)
    for e in s.entries:
        rows[e.src].append(e.id)
        rows[e.dst].append(e.id)
    for n in sorted(G):
        if sorted(rows.get(n, [])) != list(s.tables.get(n, ())):
            found.append(
                Finding(
                    "table-mismatch", f"the table of chiplet {n} does not list its entries", node=n
                )
            )
    return found


def _routes(s: Schedule, ranks: list[int]) -> list[Finding]:
    if s.dests is None or s.shares is None:  # reported by _structure
        return []
    found: list[Finding] = []
    hops: dict[int, list[ScheduleEntry]] = defaultdict(list)
    for e in s.entries:
        hops[e.tree_index].append(e)
    sources, dests, shares = s.roots[0], s.dests[0], s.shares[0]
    rank_set = set(ranks)
    cover: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
    share_sum: dict[tuple[int, int], float] = defaultdict(float)
    for t in range(len(sources)):
        src, dst = sources[t], dests[t]
        w = f"route {t} ({src} -> {dst})"
        if src not in rank_set or dst not in rank_set or src == dst:
            found.append(Finding("route-ends", f"{w} does not join two distinct ranks", tree=t))
            continue
        path = sorted(hops.get(t, []), key=lambda e: e.depth)
        if not path:
            found.append(Finding("route-missing", f"{w} has no hops", tree=t))
            continue
        at, seen = src, {src}
        for h, e in enumerate(path, start=1):
            if e.depth != h or e.src != at:
                found.append(
                    Finding(
                        "route-broken",
                        f"{w}: hop {h} is entry {e.id} ({_arc(e.arc)}, depth {e.depth}), "
                        f"which does not continue the path at {at}",
                        tree=t,
                        entry=e.id,
                    )
                )
                break
            want = (path[h - 2].id,) if h > 1 else ()
            if e.deps != want:
                found.append(
                    Finding(
                        "route-deps",
                        f"{w}: entry {e.id} waits for {list(e.deps)}, not {list(want)}",
                        tree=t,
                        entry=e.id,
                    )
                )
            if e.op != ("send" if h == 1 else "recv-send") or e.root != src:
                found.append(
                    Finding("bad-field", f"{w}: entry {e.id} has op {e.op!r}, root {e.root}")
                )
            if (e.chunk_first, e.chunk_last) != (path[0].chunk_first, path[0].chunk_last):
                found.append(Finding("route-chunks", f"{w}: hops carry different chunks", tree=t))
            at = e.dst
            if at in seen and at != dst:
                found.append(Finding("route-cycle", f"{w} visits chiplet {at} twice", tree=t))
            seen.add(at)
        else:
            if at != dst:
                found.append(Finding("route-ends", f"{w} ends at {at}", tree=t))
        cover[(src, dst)].append((path[0].chunk_first, path[0].chunk_last, t))
        share_sum[(src, dst)] += shares[t]
    pos = {r: i for i, r in enumerate(ranks)}
    n, c = len(ranks), s.chunks
    for a in ranks:
        for b in ranks:
            if a == b:
                continue
            block = (pos[a] * n + pos[b]) * c
            got: list[int] = []
            for first, last, _ in cover.get((a, b), []):
                got += range(first, last + 1)
            if sorted(got) != list(range(block, block + c)):
                found.append(
                    Finding(
                        "block-coverage",
                        f"the block from {a} to {b} (chunks {block}..{block + c - 1}) is carried "
                        f"as {sorted(got)[:6]}{'...' if len(got) > 6 else ''}: not each chunk once",
                    )
                )
            elif abs(share_sum[(a, b)] - 1.0) > 1e-9:
                found.append(
                    Finding(
                        "shares",
                        f"the shares of the routes {a} -> {b} add up to {share_sum[(a, b)]}, not 1",
                    )
                )
    return found


def _causality(s: Schedule) -> list[Finding]:
    found: list[Finding] = []
    links: dict[tuple[int, int, int], list[ScheduleEntry]] = defaultdict(list)
    for e in s.entries:
        links[e.arc].append(e)
    wait = nx.DiGraph()
    for arc, es in sorted(links.items()):
        es = sorted(es, key=lambda e: (e.step, e.id))
        if [e.step for e in es] != list(range(len(es))):
            found.append(
                Finding("fifo-step", f"link {_arc(arc)}: steps are not 0..{len(es) - 1}", arc=arc)
            )
        order = [(e.id, c) for c in (0, 1) for e in es if e.chunk_last - e.chunk_first + 1 > c]
        for a, b in itertools.pairwise(order):
            wait.add_edge(a, b)
    by_id = {e.id: e for e in s.entries}
    for e in s.entries:
        for d in e.deps:
            if d in by_id:
                for c in (0, 1):
                    if e.chunk_last - e.chunk_first + 1 > c:
                        wait.add_edge((d, c), (e.id, c))
    try:
        cycle = nx.find_cycle(wait)
    except nx.NetworkXNoCycle:
        return found
    ids = sorted({u[0] for u, _ in cycle})
    found.append(
        Finding(
            "deadlock-cycle",
            f"the link orders and the data waits of entries {ids[:8]} wait on each other: "
            "the schedule never finishes",
            entry=ids[0],
        )
    )
    return found


def check_alltoall(G: nx.MultiDiGraph, schedule: Schedule) -> list[Finding]:
    """Check an AllToAll table (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    schedule : Schedule
        With ``dests`` (an AllToAll table).

    Returns
    -------
    list of Finding
        Empty when the table is valid.

    Examples
    --------
    >>> import dataclasses
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.model import ScheduleEntry
    >>> G = build("mesh:2x2")
    >>> e = ScheduleEntry(0, "alltoall", "a2a", 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, (), "send", "store")
    >>> s = Schedule("mesh:2x2", "alltoall", 1, 12288, None, False, ((0,),), (0, 1, 2, 3),
    ...              (e,), {0: (0,), 1: (0,), 2: (), 3: ()}, ((1.0,),), ((1,),))
    >>> sorted({f.code for f in check_alltoall(G, s)})  # 11 of the 12 blocks have no route
    ['block-coverage']
    """
    if schedule.dests is None or schedule.chunks < 1:
        return [Finding("bad-field", "an AllToAll table needs dests and at least 1 chunk")]
    found = _structure(G, schedule)
    ranks = sorted(set(schedule.ranks) & set(span_nodes(G)))
    if sorted(schedule.ranks) != sorted(span_nodes(G)):
        found.append(
            Finding(
                "ranks-mismatch", "the schedule's ranks are not the topology's compute chiplets"
            )
        )
    if any(f.code in ("bad-field", "entry-id") for f in found):
        return found
    found += _routes(schedule, ranks)
    found += _causality(schedule)
    return found
