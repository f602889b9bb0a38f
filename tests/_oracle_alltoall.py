"""The campaign's judge of AllToAll route tables, from the documented layout.

The layout is the AllToAll paragraph of :mod:`supermesh.trees.schedule.model` and the
``dests`` / ``shares`` descriptions of docs/schemas/schedule.schema.json: one set of routes,
route ``t`` from ``roots[0][t]`` to ``dests[0][t]``, hop by hop (entries with ``tree = t``,
``depth`` 1, 2, ...) along a simple path of arcs; each hop waits for exactly the previous one;
ops ``send`` then ``recv-send``, ``on_recv`` ``store``; the block ``b = i*n + j`` of each ordered
pair of ranks split among the pair's routes (in route order) by the largest-remainder rule of the
shares; chunks from nbytes; entries in (depth, route, src, dst, key) order; every link's steps
``0..n-1`` in an order under which the link FIFOs run to completion; each chiplet's table.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from _oracle_common import compute, need


def alltoall_problem(doc: dict[str, Any], G: Any, split: Any, progress: Any) -> None:
    """Raise :class:`Invalid` unless the AllToAll table ``doc`` (schema-valid) is valid on ``G``.

    ``split(chunks, shares)`` is the documented block split and ``progress(entries, barrier)``
    the FIFO run, shared with the tree tables' judge.
    """
    entries, ranks = doc["entries"], doc["ranks"]
    need(ranks == sorted(set(ranks)) == compute(G), "ranks are not the compute chiplets, ascending")
    need(len(doc["roots"]) == len(doc["dests"]) == len(doc["shares"]) == 1, "one set")
    sources, dests, shares = doc["roots"][0], doc["dests"][0], doc["shares"][0]
    need(len(sources) == len(dests) == len(shares), "a value per route")
    C, n = doc["chunks"], len(ranks)
    pairs: dict[tuple[int, int], list[int]] = defaultdict(list)
    for t, (s, d) in enumerate(zip(sources, dests, strict=True)):
        need(s in ranks and d in ranks and s != d, "a route does not join two distinct ranks")
        pairs[(s, d)].append(t)
    need(len(pairs) == n * (n - 1), "a pair of ranks without a route")
    most = max(len(ts) for ts in pairs.values())
    if doc.get("nbytes") is not None:
        want = max(most, math.ceil(doc["nbytes"] / (n * doc.get("chunk_bytes", 12288))))
        need(want == C, "chunks does not follow from nbytes")
    ranges: dict[int, tuple[int, int]] = {}
    for (s, d), ts in pairs.items():
        need(abs(math.fsum(shares[t] for t in ts) - 1) <= 1e-9, "the shares of a pair")
        need(len(ts) <= C, "fewer chunks than routes of a pair")
        first = (ranks.index(s) * n + ranks.index(d)) * C
        for t, count in zip(ts, split(C, [shares[t] for t in ts]), strict=True):
            ranges[t] = (first, first + count - 1)
            first += count
    need([e["id"] for e in entries] == list(range(len(entries))), "ids are not positions")
    hops: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        need(e["collective"] == "alltoall" and e["phase"] == "a2a" and e["set"] == 0, "phase")
        need(e["tree"] < len(sources), "no such route")
        need(e["root"] == sources[e["tree"]], "root")
        need(G.has_edge(e["src"], e["dst"], e["key"]), "a link the topology lacks")
        need((e["chunk_first"], e["chunk_last"]) == ranges[e["tree"]], "a chunk range")
        need(e["on_recv"] == "store", "on_recv")
        hops[e["tree"]].append(e)
    need(set(hops) == set(range(len(sources))), "a route without hops")
    for t, es in hops.items():
        es.sort(key=lambda e: e["depth"])
        need([e["depth"] for e in es] == list(range(1, len(es) + 1)), "hop depths")
        at, seen = sources[t], {sources[t]}
        for h, e in enumerate(es):
            need(e["src"] == at, "a hop does not continue its route")
            need(e["deps"] == ([es[h - 1]["id"]] if h else []), "deps")
            need(e["op"] == ("recv-send" if h else "send"), "op")
            at = e["dst"]
            need(at not in seen, "a route visits a chiplet twice")
            seen.add(at)
        need(at == dests[t], "a route does not end at its destination")
    keys = [(e["depth"], e["tree"], e["src"], e["dst"], e["key"]) for e in entries]
    need(keys == sorted(keys) and len(set(keys)) == len(keys), "entries out of order")
    steps: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for e in entries:
        steps[(e["src"], e["dst"], e["key"])].append(e["step"])
    need(all(sorted(v) == list(range(len(v))) for v in steps.values()), "steps are not 0..n-1")
    tables = {str(x): sorted({e["id"] for e in entries if x in (e["src"], e["dst"])}) for x in G}
    need(doc["tables"] == tables, "the tables")
    progress(entries, False)
