"""The campaign's judge of schedule tables, from docs/schemas/schedule.schema.json and the build
rules (AllToAll route tables: :mod:`_oracle_alltoall`).

A table is valid when its entries, grouped by (phase, set, tree), are arborescences of the
topology in data direction rooted at the listed roots and reaching every rank (a compute chiplet
that is no rank may only relay), and every other field is what the documented rules give for
those trees: chunk ranges, depths, ops, the exact dependencies, the entry order, the FIFO steps,
each chiplet's table, the chunk count from nbytes, the barrier, the shares. The table must then
run to completion: a progress simulation of the link FIFOs (unbounded receive buffers; a weighted
table has a slot per row, so that is its model) must deliver every chunk, and an unweighted table
may not put trees on a link that the original (trusted) table kept apart.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from _oracle_alltoall import alltoall_problem
from _oracle_common import check_schema, compute, need
from _oracle_trees import topology

PHASES = ("rs", "ag", "bcast", "reduce", "a2a")
OF = {
    "allreduce": ("rs", "ag"),
    "reducescatter": ("rs",),
    "allgather": ("ag",),
    "broadcast": ("bcast",),
    "reduce": ("reduce",),
}
IN = ("rs", "reduce")


def _split(chunks: int, shares: list[float]) -> list[int]:
    """The documented largest-remainder split of a block among a root's trees."""
    from fractions import Fraction

    w = [Fraction(x) for x in shares]
    total = sum(w)
    exact = [x * chunks / total for x in w]
    got = [math.floor(x) for x in exact]
    order = sorted(range(len(w)), key=lambda i: (-(exact[i] - got[i]), i))
    for i in order[: chunks - sum(got)]:
        got[i] += 1
    while min(got) == 0:
        got[got.index(max(got))] -= 1
        got[got.index(0)] += 1
    return got


def _ranges(doc: dict[str, Any], ranks: list[int]) -> dict[tuple[int, int], tuple[int, int]]:
    C, roots, coll = doc["chunks"], doc["roots"], doc["collective"]
    out: dict[tuple[int, int], tuple[int, int]] = {}
    if "shares" in doc:
        shares = doc["shares"]
        need(
            [len(s) for s in shares] == [len(r) for r in roots], "shares are not shaped like roots"
        )
        mine: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for si, rs in enumerate(roots):
            for ti, r in enumerate(rs):
                mine[r].append((si, ti))
        for trees in mine.values():
            need(abs(math.fsum(shares[si][ti] for si, ti in trees) - 1) <= 1e-9, "shares of a root")
            need(len(trees) <= C, "fewer chunks than trees of one root")
        for b, r in enumerate(sorted(mine, key=ranks.index)):
            first = b * C
            for (si, ti), n in zip(
                mine[r], _split(C, [shares[si][ti] for si, ti in mine[r]]), strict=True
            ):
                out[(si, ti)] = (first, first + n - 1)
                first += n
        return out
    g = 0
    for si, rs in enumerate(roots):
        for ti, r in enumerate(rs):
            block = ranks.index(r) if coll in ("reducescatter", "allgather") else g
            out[(si, ti)] = (block * C, block * C + C - 1)
            g += 1
    return out


def _chunks(doc: dict[str, Any], ranks: list[int]) -> int:
    roots = [r for rs in doc["roots"] for r in rs]
    cb, nb = doc.get("chunk_bytes", 12288), doc["nbytes"]
    if "shares" in doc:
        return max(1, math.ceil(nb / (len(set(roots)) * cb)), max(roots.count(r) for r in roots))
    m = len(ranks) if doc["collective"] in ("reducescatter", "allgather") else len(roots)
    return max(1, math.ceil(nb / (m * cb)))


def _progress(entries: list[dict[str, Any]], barrier: bool) -> None:
    """Run the link FIFOs (phase, set, chunk, step) to the end, or raise Invalid (a stall)."""
    fifo: dict[tuple[int, int, int], list[tuple[Any, ...]]] = defaultdict(list)
    for e in entries:
        for c in range(e["chunk_first"], e["chunk_last"] + 1):
            order = (PHASES.index(e["phase"]), e["set"], c - e["chunk_first"], e["step"])
            fifo[(e["src"], e["dst"], e["key"])].append((*order, e["id"], c))
    for q in fifo.values():
        q.sort()
    done: set[tuple[int, int]] = set()
    rs_left = sum(
        1
        for e in entries
        if e["phase"] == "rs"
        for _ in range(e["chunk_first"], e["chunk_last"] + 1)
    )
    heads = dict.fromkeys(fifo, 0)
    moved = True
    while moved:
        moved = False
        for link, q in fifo.items():
            while heads[link] < len(q):
                *_, i, c = q[heads[link]]
                e = entries[i]
                if any((d, c) not in done for d in e["deps"]) or (
                    barrier and e["phase"] == "ag" and rs_left
                ):
                    break
                done.add((i, c))
                rs_left -= e["phase"] == "rs"
                heads[link] += 1
                moved = True
    need(all(heads[k] == len(q) for k, q in fifo.items()), "the FIFOs stall: a deadlock")


def _contention(entries: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    """(link, group, group) for the trees that share a link, in FIFO order."""
    by_link: dict[tuple[int, int, int], list[tuple[int, str, int, int]]] = defaultdict(list)
    for e in entries:
        by_link[(e["src"], e["dst"], e["key"])].append((e["id"], e["phase"], e["set"], e["tree"]))
    out = set()
    for link, es in by_link.items():
        es.sort()
        for a in range(len(es)):
            for b in range(a + 1, len(es)):
                out.add((link, es[a][1:], es[b][1:]))
    return out


def schedule_problem(doc: Any, original: dict[str, Any]) -> None:
    """Raise :class:`Invalid` unless the schedule document ``doc`` is provably valid."""
    check_schema(doc, "schedule", original)
    G = topology(doc["topology"])
    if doc["collective"] == "alltoall":
        alltoall_problem(doc, G, _split, _progress)
        return
    coll, entries, roots = doc["collective"], doc["entries"], doc["roots"]
    ranks = doc["ranks"]
    need(ranks == sorted(set(ranks)) and set(ranks) <= set(compute(G)), "ranks")
    need(all(r in ranks for rs in roots for r in rs), "a root is no rank")
    need(doc.get("barrier", False) == (coll == "allreduce"), "barrier")
    if doc.get("nbytes") is not None:
        need(doc["chunks"] == _chunks(doc, ranks), "chunks does not follow from nbytes")
    ranges = _ranges(doc, ranks)
    need([e["id"] for e in entries] == list(range(len(entries))), "ids are not positions")
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        need(e["collective"] == coll and e["phase"] in OF[coll], "collective or phase")
        need(e["set"] < len(roots) and e["tree"] < len(roots[e["set"]]), "no such set or tree")
        need(e["root"] == roots[e["set"]][e["tree"]], "root")
        groups[(e["phase"], e["set"], e["tree"])].append(e)
    listed = {(p, si, ti) for p in OF[coll] for si, rs in enumerate(roots) for ti in range(len(rs))}
    need(set(groups) == listed or len(ranks) < 2, "a listed tree without entries, or the reverse")
    rank_set = set(ranks)
    expected_deps: dict[int, set[int]] = {}
    depth_of: dict[int, int] = {}
    for (phase, si, ti), es in groups.items():
        root = roots[si][ti]
        parent: dict[int, int] = {}
        kids: dict[int, list[int]] = defaultdict(list)
        into: dict[int, list[int]] = defaultdict(list)
        for e in es:
            u, v, k = e["src"], e["dst"], e["key"]
            need(u in G and v in G and G.has_edge(u, v, k), "a link the topology lacks")
            p, c = (v, u) if phase in IN else (u, v)
            need(c not in parent and c != root, "two parents, or the root has one")
            parent[c] = p
            kids[p].append(c)
            into[v].append(e["id"])
            need(ranges[(si, ti)] == (e["chunk_first"], e["chunk_last"]), "a chunk range")
        depth = {root: 0}
        order = [root]
        for x in order:
            for c in kids[x]:
                depth[c] = depth[x] + 1
                order.append(c)
        need(len(depth) == len(parent) + 1, "entries not connected to the root")
        need(rank_set <= set(depth), "a rank is not reached")
        for x in depth:
            need(x in rank_set or kids[x], f"non-rank {x} is a leaf: it may only relay")
        for e in es:
            u, v = e["src"], e["dst"]
            depth_of[e["id"]] = depth[u] if phase in IN else depth[v]
            if phase in IN:
                n = len(kids[u])
                ops = ("send",) if n == 0 else ("recv-reduce-send",)
                if n == 1 and u not in rank_set:
                    ops = ("recv-send", "recv-reduce-send")
                need(e["op"] in ops and e["on_recv"] == "reduce", "op / on_recv")
                expected_deps[e["id"]] = set(into[u])
            else:
                need(
                    e["op"] == ("send" if u == root else "recv-send") and e["on_recv"] == "store",
                    "op",
                )
                if u == root and coll == "allreduce":
                    expected_deps[e["id"]] = {
                        x["id"] for x in groups.get(("rs", si, ti), []) if x["dst"] == root
                    }
                else:
                    expected_deps[e["id"]] = set(into[u])
            need(e["depth"] == depth_of[e["id"]], "depth")
    for e in entries:
        need(
            len(set(e["deps"])) == len(e["deps"]) and set(e["deps"]) == expected_deps[e["id"]],
            "deps",
        )
    keys = [
        (
            PHASES.index(e["phase"]),
            e["set"],
            -e["depth"] if e["phase"] in IN else e["depth"],
            e["tree"],
            e["src"],
            e["dst"],
            e["key"],
        )
        for e in entries
    ]
    need(
        keys == sorted(keys) and len(set(keys)) == len(keys),
        "entries are not in the documented order",
    )
    by_link: dict[tuple[int, int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_link[(e["src"], e["dst"], e["key"])].append(e)
    for es in by_link.values():
        need(sorted(e["step"] for e in es) == list(range(len(es))), "steps are not 0..n-1")
        runs: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
        for e in es:
            runs[(PHASES.index(e["phase"]), e["set"])].append(e)
        last = -1
        for key in sorted(runs):
            steps = sorted(e["step"] for e in runs[key])
            need(
                steps[0] == last + 1 and steps == list(range(steps[0], steps[0] + len(steps))),
                "a later phase or set goes first on a link",
            )
            last = steps[-1]
            run = runs[key]
            # trees of a weighted set may share a link in any order that does not stall (the
            # progress run below); unweighted sets are arc-disjoint
            need(len(run) == 1 or "shares" in doc, "two trees of an unweighted set share a link")
    tables = {str(n): sorted({e["id"] for e in entries if n in (e["src"], e["dst"])}) for n in G}
    need(doc["tables"] == tables, "the tables")
    _progress(entries, coll == "allreduce")
    if "shares" not in doc:
        need(_contention(entries) <= _contention(original["entries"]), "new contention on a link")
