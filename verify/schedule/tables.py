"""Check a schedule table against the topology (and its trees), independently of its builder.

A schedule table (:class:`supermesh.trees.schedule.model.Schedule`) is read only through its
documented data (the meanings in :mod:`supermesh.trees.schedule.build`); none of the code that
builds it runs here. :func:`check_schedule` re-derives everything from the entries:

Structure
    entry ids are their positions; every field has a known value; every entry's link
    ``(src, dst, key)`` exists in the topology; every entry carries ``chunks`` chunks; the ranks
    are the compute chiplets; each chiplet's table lists exactly the entries it sends or
    receives; every dependency names an entry that carries the same chunks.
FIFO
    the steps of each link are ``0 .. n-1``, and agree with the documented service order
    (phase, set, chunk, step): a step may not put a later phase or set ahead of an earlier one,
    nor an entry ahead of one it waits for.
Data (per tree, :mod:`supermesh.verify.schedule.flow`)
    out-tree phases deliver every chunk of every tree to every rank exactly once, each forward
    waiting for the delivery into its sender; in-tree phases reduce into the root a value that
    holds every rank's contribution exactly once (contributions are counted, so a double count
    is caught), each reduction waiting for all its inputs; the chunk ranges of the trees cover
    the data once; AllReduce gathers from each root exactly what it reduced there.
Weighted tables (``shares`` set: several trees per root, :mod:`supermesh.trees.schedule.build`)
    the shares of each root add up to 1; the root's trees split its block of ``chunks`` chunks
    exactly as the documented largest-remainder rule gives (recomputed here), so every chunk of
    every block is carried by exactly one tree; ReduceScatter / AllGather need every rank to
    root a tree (one or more).
Trees (when ``packings`` are given)
    the entries of each tree are exactly its arcs, with the documented chunk range.

References
----------
BRIEF sections 3, 4 and 7 (the per-chiplet schedule table of the paper).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import networkx as nx

from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.model import COLLECTIVES, ROUTE_COLLECTIVES, Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.alltoall import check_alltoall
from supermesh.verify.schedule.flow import check_tree_flows
from supermesh.verify.schedule.groups import PER_RANK, PHASES_OF, where
from supermesh.verify.schedule.packings import check_packings
from supermesh.verify.schedule.ranges import check_chunk_ranges
from supermesh.verify.trees.arborescence import span_nodes

__all__ = ["check_schedule"]

OPS = ("send", "recv-send", "recv-reduce-send")
ON_RECV = ("reduce", "store")
PHASE_RANK = {"rs": 0, "ag": 1, "bcast": 2, "reduce": 3}


def _arc_text(a: tuple[int, int, int]) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _entry_fields(
    G: nx.MultiDiGraph, s: Schedule, e: ScheduleEntry, by_id: dict[int, ScheduleEntry]
) -> list[Finding]:
    found: list[Finding] = []
    w = f"entry {e.id} ({where(e)})"

    def bad(code: str, msg: str, **kw: Any) -> None:
        found.append(
            Finding(code, f"{w}: {msg}", set=e.set_index, tree=e.tree_index, entry=e.id, **kw)
        )

    if e.collective != s.collective:
        bad("bad-field", f"collective {e.collective!r}, the schedule's is {s.collective!r}")
    if e.phase not in PHASES_OF.get(s.collective, ()):
        bad("bad-field", f"phase {e.phase!r} is not a phase of {s.collective}")
    if e.op not in OPS or e.on_recv not in ON_RECV:
        bad("bad-field", f"op {e.op!r} / on_recv {e.on_recv!r} not in {OPS} / {ON_RECV}")
    if e.src not in G or e.dst not in G:
        node = e.src if e.src not in G else e.dst
        bad("node-out-of-range", f"names node {node}, not in the topology", node=node)
    elif not G.has_edge(e.src, e.dst, e.key):
        bad("arc-missing", f"link {_arc_text(e.arc)} does not exist", arc=e.arc)
    count = e.chunk_last - e.chunk_first + 1
    if s.shares is None and (e.chunk_first < 0 or count != s.chunks):
        bad(
            "chunk-range",
            f"carries chunks {e.chunk_first}..{e.chunk_last}, not {s.chunks} "
            "chunks (every tree carries `chunks`)",
        )
    elif s.shares is not None and (e.chunk_first < 0 or not 1 <= count <= s.chunks):
        bad(
            "chunk-range",
            f"carries chunks {e.chunk_first}..{e.chunk_last}: a tree of a weighted table "
            f"carries 1 to {s.chunks} chunks (part of its root's block)",
        )
    if not (e.set_index < len(s.roots) and e.tree_index < len(s.roots[e.set_index])):
        bad(
            "bad-field",
            f"names set {e.set_index} tree {e.tree_index}, which the schedule's roots do not list",
        )
    if len(set(e.deps)) != len(e.deps):
        bad("dep-missing", f"lists a dependency twice: {list(e.deps)}")
    for i in e.deps:
        d = by_id.get(i)
        if d is None or i == e.id:
            bad(
                "dep-missing",
                f"depends on entry {i}, which " + ("is itself" if i == e.id else "does not exist"),
            )
        elif not (d.chunk_first <= e.chunk_first and e.chunk_last <= d.chunk_last):
            bad(
                "dep-chunks",
                f"waits for chunks {e.chunk_first}..{e.chunk_last} from entry "
                f"{i}, which carries {d.chunk_first}..{d.chunk_last}",
            )
    return found


def _tables(G: nx.MultiDiGraph, s: Schedule) -> list[Finding]:
    found: list[Finding] = []
    rows: dict[int, list[int]] = defaultdict(list)
    for e in s.entries:
        rows[e.src].append(e.id)
        if e.dst != e.src:
            rows[e.dst].append(e.id)
    for n in sorted(set(s.tables) - set(G)):
        found.append(
            Finding("node-out-of-range", f"tables list node {n}, not in the topology", node=n)
        )
    for n in sorted(G):
        if n not in s.tables:
            found.append(
                Finding(
                    "table-mismatch",
                    f"chiplet {n} has no table (every node has one, maybe empty)",
                    node=n,
                )
            )
            continue
        want, got = sorted(rows.get(n, [])), list(s.tables.get(n, ()))
        if got != want:
            missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
            detail = f"lacks entries {missing[:5]}" if missing else f"has extra entries {extra[:5]}"
            if not missing and not extra:
                detail = "is not in ascending order or repeats an entry"
            found.append(Finding("table-mismatch", f"the table of chiplet {n} {detail}", node=n))
    return found


def _ancestors(by_id: dict[int, ScheduleEntry], a: int) -> set[int]:
    """The entries ``a`` waits for, directly or through others."""
    seen: set[int] = set()
    stack = [a]
    while stack:
        for d in by_id[stack.pop()].deps:
            if d in by_id and d not in seen:
                seen.add(d)
                stack.append(d)
    return seen


def _order_finding(
    arc: tuple[int, int, int], a: ScheduleEntry, b: ScheduleEntry, why: str
) -> Finding:
    return Finding(
        "fifo-order",
        f"link {_arc_text(arc)}: entry {a.id} (step {a.step}) is "
        f"served before entry {b.id} (step {b.step}): {why}",
        arc=arc,
        entry=a.id,
    )


def _fifo(s: Schedule, by_id: dict[int, ScheduleEntry]) -> list[Finding]:
    found: list[Finding] = []
    links: dict[tuple[int, int, int], list[ScheduleEntry]] = defaultdict(list)
    for e in s.entries:
        links[e.arc].append(e)
    for arc, es in sorted(links.items()):
        es = sorted(es, key=lambda e: (e.step, e.id))
        if [e.step for e in es] != list(range(len(es))):
            found.append(
                Finding(
                    "fifo-step",
                    f"link {_arc_text(arc)}: steps {[e.step for e in es]} are not 0..{len(es) - 1}",
                    arc=arc,
                )
            )
        keys = [(PHASE_RANK.get(e.phase, 9), e.set_index) for e in es]
        for i in range(1, len(es)):
            if keys[i - 1] > keys[i]:
                a, b = es[i - 1], es[i]
                found.append(
                    _order_finding(
                        arc,
                        a,
                        b,
                        f"{where(a)} before {where(b)}, against "
                        "the order (phase, set, chunk, step)",
                    )
                )
        runs: dict[tuple[int, int], list[ScheduleEntry]] = defaultdict(list)
        for k, e in zip(keys, es, strict=True):
            runs[k].append(e)
        for run in runs.values():  # a set's entries on one link (several only if trees share it)
            for i, a in enumerate(run[:-1]):
                waits = _ancestors(by_id, a.id) if a.id in by_id else set()
                for b in run[i + 1 :]:
                    if b.id in waits:
                        found.append(
                            _order_finding(
                                arc,
                                a,
                                b,
                                f"it waits for entry {b.id}, "
                                "which is behind it: the link would stall",
                            )
                        )
    return found


def _header(s: Schedule) -> list[Finding]:
    """The schedule-wide fields: the barrier, the roots, and chunks against nbytes."""
    found: list[Finding] = []
    if s.barrier and s.collective != "allreduce":
        found.append(
            Finding(
                "bad-field",
                f"barrier is true for {s.collective}: only an allreduce has one (its ag phase "
                "waiting for every reduced chunk)",
            )
        )
    if not s.roots or not all(s.roots):
        found.append(Finding("bad-field", "roots lists no tree (every set needs one)"))
    if s.nbytes is not None and s.roots and all(s.roots):
        want = _chunks_for(s)
        if want != s.chunks:
            found.append(
                Finding(
                    "chunks-mismatch",
                    f"chunks is {s.chunks}, but nbytes {s.nbytes} in chunks of {s.chunk_bytes} B "
                    f"gives {want} (the documented rule for {s.collective}"
                    + (" with shares)" if s.weighted else ")"),
                )
            )
    return found


def _chunks_for(s: Schedule) -> int:
    """The chunk count the documented rule derives from ``nbytes`` (module docstring of build)."""
    assert s.nbytes is not None
    roots = [r for rs in s.roots for r in rs]
    if s.shares is not None:
        blocks = len(set(roots))
        most = max(roots.count(r) for r in set(roots))
        return max(1, math.ceil(s.nbytes / (blocks * s.chunk_bytes)), most)
    share = len(s.ranks) if s.collective in PER_RANK else len(roots)
    return max(1, math.ceil(s.nbytes / (share * s.chunk_bytes)))


def check_schedule(
    G: nx.MultiDiGraph,
    schedule: Schedule,
    packings: TreePacking | Sequence[TreePacking] | None = None,
) -> list[Finding]:
    """Check a schedule table: links, FIFO steps, dependencies, and that the data arrive.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology the schedule runs on.
    schedule : supermesh.trees.schedule.model.Schedule
        The table.
    packings : TreePacking or sequence of TreePacking, optional
        The trees the schedule claims to implement (at most one per direction; a phase whose
        direction is missing is compared with the other packing's trees reversed).

    Returns
    -------
    list of Finding
        Empty when the schedule is valid (see the module docstring for what is checked).

    Examples
    --------
    >>> import dataclasses
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> G = build("mesh:2x2")
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),))
    >>> s = build_schedule(G, "allreduce", p, chunks=3)
    >>> check_schedule(G, s, p)
    []
    >>> e = s.entries[1]  # 1 -> 0: node 1 adds its child 3's chunk to its own and sends
    >>> bad = dataclasses.replace(s, entries=(s.entries[0], dataclasses.replace(e, deps=()),
    ...                                       *s.entries[2:]))
    >>> [f.code for f in check_schedule(G, bad)]
    ['deps-incomplete']
    """
    if schedule.collective in ROUTE_COLLECTIVES or schedule.routes:
        return check_alltoall(G, schedule)  # routes, not trees
    if schedule.collective not in COLLECTIVES:
        return [Finding("bad-field", f"unknown collective {schedule.collective!r}")]
    if schedule.chunks < 1:
        return [Finding("bad-field", f"chunks is {schedule.chunks}, not a positive count")]
    found: list[Finding] = _header(schedule)
    by_id: dict[int, ScheduleEntry] = {}
    for i, e in enumerate(schedule.entries):
        if e.id != i or e.id in by_id:
            found.append(
                Finding(
                    "entry-id",
                    f"entry #{i} has id {e.id}; ids must be 0, 1, 2, ... in order",
                    entry=e.id,
                )
            )
        by_id.setdefault(e.id, e)
    compute = span_nodes(G)
    listed = list(schedule.ranks)
    if listed != sorted(set(listed)):
        twice = sorted({r for r in listed if listed.count(r) > 1})
        found.append(
            Finding(
                "ranks-order",
                "the ranks must be distinct chiplets in ascending order (a rank's position "
                "numbers its block)"
                + (f": {twice[:8]} appear more than once" if twice else f", not {listed[:8]}..."),
            )
        )
    strangers = sorted(set(schedule.ranks) - set(compute))
    # the data flows are checked over the ranks that exist, so one bad id is one finding
    ranks = sorted(set(schedule.ranks) & set(compute))
    if strangers or not ranks:
        found.append(
            Finding(
                "ranks-mismatch",
                f"the schedule's ranks include {strangers[:8]}, which are not compute "
                "chiplets of the topology",
            )
        )
    elif len(ranks) < len(compute):
        left = sorted(set(compute) - set(ranks))
        found.append(
            Finding(
                "ranks-left-out",
                f"compute chiplets {left[:8]} take no part in the collective (they only relay), "
                "as in TTO: their data are not reduced or gathered",
                severity="warning",
            )
        )
    if packings is not None:
        for p in [packings] if isinstance(packings, TreePacking) else list(packings):
            expected = sorted(p.span) if p.span is not None else compute
            if expected != ranks:
                found.append(
                    Finding(
                        "ranks-mismatch",
                        f"the schedule's ranks {ranks[:8]}... differ from the chiplets its trees "
                        f"must span {expected[:8]}...",
                    )
                )
    for e in schedule.entries:
        found += _entry_fields(G, schedule, e, by_id)
    found += _tables(G, schedule)
    found += _fifo(schedule, by_id)
    if not any(f.code in ("entry-id", "bad-field", "ranks-order") for f in found):
        found += check_chunk_ranges(schedule, ranks)
        found += check_tree_flows(schedule, ranks)
        if packings is not None:
            found += check_packings(schedule, packings, ranks)
    return found
