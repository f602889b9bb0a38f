"""Per-tree data checks of a schedule table: every chunk delivered, every reduction exact.

Part of :func:`supermesh.verify.schedule.tables.check_schedule`. The entries of one (phase, set,
tree) (:func:`~supermesh.verify.schedule.groups.group_entries`) form a tree in data direction:
in-tree phases (``rs``, ``reduce``) send child -> parent, out-tree phases (``ag``, ``bcast``)
parent -> child. Values are followed symbolically: an in-tree sender sends its own contribution
(if it is a rank) plus everything delivered to it in that tree, as a multiset of ranks, so the
root's final value must hold every rank exactly once; an out-tree chunk must reach every rank
exactly once. Nothing here calls the schedule builder.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from supermesh.trees.schedule.model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.groups import (
    CAP,
    IN_PHASES,
    group_entries,
    tree_finding,
    typical_entry,
)

__all__ = ["check_tree_flows"]


def _deps_check(
    e: ScheduleEntry, need: list[ScheduleEntry], what: str, entries: int
) -> list[Finding]:
    """``e.deps`` must be exactly the entries of ``need`` (the documented set)."""
    missing = sorted(d.id for d in need if d.id not in e.deps)
    # ids naming no entry are dep-missing findings of the table check, not repeated here
    extra = sorted(d for d in set(e.deps) - {d.id for d in need} if 0 <= d < entries)
    found = []
    if missing:
        found.append(
            tree_finding(
                "deps-incomplete",
                e,
                f"entry {e.id} ({e.src}->{e.dst}) sends before {what}: "
                f"it does not wait for entries {missing}",
                entry=e.id,
                node=e.src,
            )
        )
    if extra:
        found.append(
            tree_finding(
                "dep-extra",
                e,
                f"entry {e.id} ({e.src}->{e.dst}) waits for entries {extra}, which are not the "
                f"deliveries it needs (deps lists exactly those: {sorted(d.id for d in need)})",
                entry=e.id,
                node=e.src,
            )
        )
    return found


def _out_flow(
    es: list[ScheduleEntry],
    ranks: set[int],
    gathered: list[ScheduleEntry] | None,
    entries: int,
) -> list[Finding]:
    found: list[Finding] = []
    head = typical_entry(es)
    root = head.root
    into: dict[int, list[ScheduleEntry]] = defaultdict(list)
    out_of: dict[int, list[ScheduleEntry]] = defaultdict(list)
    for e in es:
        into[e.dst].append(e)
        out_of[e.src].append(e)
    for v, got in sorted(into.items()):
        if len(got) > 1 or v == root:
            found.append(
                tree_finding(
                    "received-twice",
                    got[0],
                    f"node {v} receives these chunks from "
                    f"{sorted(g.src for g in got)}"
                    + (" although it is the root" if v == root else ""),
                    node=v,
                )
            )
    depth, queue = {root: 0}, [root]
    for u in queue:
        for e in out_of.get(u, []):
            if e.dst not in depth:
                depth[e.dst] = depth[u] + 1
                queue.append(e.dst)
    for e in es:
        if e.src == root:
            op = "send"
            found += _deps_check(e, gathered or [], "the root has reduced the chunks", entries)
        else:
            op = "recv-send"
            if not into.get(e.src):
                found.append(
                    tree_finding(
                        "chunk-undelivered",
                        e,
                        f"entry {e.id}: node {e.src} forwards chunks it never receives",
                        entry=e.id,
                        node=e.src,
                    )
                )
            found += _deps_check(
                e, into.get(e.src, []), f"node {e.src} has received the chunks", entries
            )
        if (e.op, e.on_recv) != (op, "store"):
            found.append(
                tree_finding(
                    "op-mismatch",
                    e,
                    f"entry {e.id} has op {e.op!r}, on_recv "
                    f"{e.on_recv!r}; an out-tree {'root' if op == 'send' else 'forward'}"
                    f" is {op!r}, 'store'",
                    entry=e.id,
                )
            )
        if e.dst in depth and e.depth != depth[e.dst]:
            found.append(
                tree_finding(
                    "depth-mismatch",
                    e,
                    f"entry {e.id} says depth {e.depth}, node {e.dst} is at depth {depth[e.dst]}",
                    entry=e.id,
                )
            )
    for v in sorted(set(into) - ranks - set(out_of)):
        found.append(
            tree_finding(
                "relay-leaf",
                into[v][0],
                f"node {v} is not a rank but receives these chunks and forwards them to nobody: "
                "a chiplet that takes no part may only relay",
                entry=into[v][0].id,
                node=v,
            )
        )
    if root not in ranks:
        found.append(tree_finding("roots-mismatch", head, f"root {root} is not a rank", node=root))
    lost = sorted(ranks - set(depth))
    if lost:
        found.append(
            tree_finding(
                "chunk-undelivered",
                head,
                f"ranks {lost[: CAP * 2]} never receive these chunks",
                node=lost[0],
            )
        )
    return found


def _in_flow(es: list[ScheduleEntry], ranks: set[int], entries: int) -> list[Finding]:
    found: list[Finding] = []
    head = typical_entry(es)
    root = head.root
    into: dict[int, list[ScheduleEntry]] = defaultdict(list)
    for e in es:
        into[e.dst].append(e)
        if e.src == root:
            found.append(
                tree_finding(
                    "root-sends",
                    e,
                    f"entry {e.id}: the root sends its reduced chunks on to {e.dst}",
                    entry=e.id,
                    node=root,
                )
            )
    for e in es:
        inputs = into.get(e.src, [])
        found += _deps_check(e, inputs, f"node {e.src} has all its inputs", entries)
        if not inputs and e.src not in ranks:
            # a relay that receives nothing has no data: its send carries nothing to reduce
            found.append(
                tree_finding(
                    "op-mismatch",
                    e,
                    f"entry {e.id}: node {e.src} is not a rank and receives nothing in this "
                    "tree, so it has no data to send",
                    entry=e.id,
                    node=e.src,
                )
            )
            continue
        ops: tuple[str, ...] = ("send",) if not inputs else ("recv-reduce-send",)
        if len(inputs) == 1 and e.src not in ranks:
            ops = ("recv-send", "recv-reduce-send")
        if e.op not in ops or e.on_recv != "reduce":
            found.append(
                tree_finding(
                    "op-mismatch",
                    e,
                    f"entry {e.id} has op {e.op!r}, on_recv "
                    f"{e.on_recv!r}; node {e.src} with {len(inputs)} input(s) must "
                    f"{' or '.join(map(repr, ops))} and the receiver 'reduce'",
                    entry=e.id,
                )
            )
    value: dict[int, Counter[int]] = {}
    depth: dict[int, int] = {root: 0}
    on_path: set[int] = set()

    def reduce_at(v: int, d: int | None) -> Counter[int]:
        if v in value:
            return value[v]
        if v in on_path:
            found.append(
                tree_finding(
                    "cycle",
                    head,
                    f"the entries into node {v} form a cycle: those chunks never arrive",
                    node=v,
                )
            )
            return Counter()
        on_path.add(v)
        total: Counter[int] = Counter([v] if v in ranks else [])
        for e in into.get(v, []):
            if d is not None:
                depth.setdefault(e.src, d + 1)
            total += reduce_at(e.src, None if d is None else d + 1)
        on_path.discard(v)
        value[v] = total
        return total

    final = reduce_at(root, 0)
    for e in es:  # parts that never reach the root may still hold a cycle
        reduce_at(e.src, None)
    missing = sorted(ranks - set(final))
    twice = sorted(r for r, n in final.items() if n > 1)
    if missing:
        found.append(
            tree_finding(
                "chunk-incomplete",
                head,
                f"the reduction at root {root} lacks the "
                f"contributions of ranks {missing[: CAP * 2]}",
                node=root,
            )
        )
    if twice:
        found.append(
            tree_finding(
                "double-count",
                head,
                f"the reduction at root {root} counts ranks {twice[: CAP * 2]} more than once",
                node=root,
            )
        )
    for e in es:
        if e.src in depth and e.depth != depth[e.src]:
            found.append(
                tree_finding(
                    "depth-mismatch",
                    e,
                    f"entry {e.id} says depth {e.depth}, node {e.src} is at depth {depth[e.src]}",
                    entry=e.id,
                )
            )
    if root not in ranks:
        found.append(tree_finding("roots-mismatch", head, f"root {root} is not a rank", node=root))
    return found


def check_tree_flows(s: Schedule, ranks: list[int]) -> list[Finding]:
    """Delivery (out-tree phases) and exact reduction (in-tree phases) of every tree's chunks.

    Parameters
    ----------
    s : supermesh.trees.schedule.model.Schedule
    ranks : list of int
        The compute chiplets (whose contributions a reduction must hold, and which must receive
        every gathered chunk).

    Returns
    -------
    list of Finding
        ``deps-incomplete``, ``dep-extra``, ``op-mismatch``, ``depth-mismatch``,
        ``received-twice``, ``chunk-undelivered``, ``relay-leaf``, ``roots-mismatch``,
        ``root-sends``, ``cycle``, ``chunk-incomplete``, ``double-count``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),))
    >>> s = build_schedule(build("mesh:2x2"), "reduce", p)
    >>> [f.message for f in check_tree_flows(s, [0, 1, 2, 3, 4])]  # 4: a rank with no tree arc
    ['reduce set 0 tree 0 (root 0), chunks 0..0: the reduction at root 0 lacks the \
contributions of ranks [4]']
    """
    found: list[Finding] = []
    rank_set = set(ranks)
    groups = group_entries(s)
    reduced: dict[tuple[int, int, int], list[ScheduleEntry]] = defaultdict(list)
    for (phase, _, _), es in groups.items():
        if phase == "rs":
            for e in es:
                if e.dst == e.root:
                    reduced[(e.root, e.chunk_first, e.chunk_last)].append(e)
    for (phase, _, _), es in groups.items():
        if phase in IN_PHASES:
            found += _in_flow(es, rank_set, len(s.entries))
        else:
            head = typical_entry(es)
            key = (head.root, head.chunk_first, head.chunk_last)
            gathered = reduced.get(key, []) if s.collective == "allreduce" else None
            found += _out_flow(es, rank_set, gathered, len(s.entries))
    return found
