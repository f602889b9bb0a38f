"""Per-tree data checks of a schedule table: chunk ranges, delivery, reduction, the trees given.

Helpers of :func:`supermesh.verify.schedule.check_schedule`. The entries of one (phase, set,
tree) form a tree in data direction: in-tree phases (``rs``, ``reduce``) send child -> parent,
out-tree phases (``ag``, ``bcast``) parent -> child. Values are followed symbolically: an
in-tree sender sends its own contribution (if it is a rank) plus everything delivered to it in
that tree, as a multiset of ranks, so the root's final value must hold every rank exactly once;
an out-tree chunk must reach every rank exactly once. Nothing here calls the schedule builder.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from supermesh.trees.model import TreePacking
from supermesh.trees.schedule_model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding

__all__ = ["PHASES_OF", "check_chunk_ranges", "check_packings", "check_tree_flows", "where"]

PHASES_OF: dict[str, tuple[str, ...]] = {
    "allreduce": ("rs", "ag"),
    "reducescatter": ("rs",),
    "allgather": ("ag",),
    "broadcast": ("bcast",),
    "reduce": ("reduce",),
}
"""Collective -> its phases (BRIEF section 4: AllReduce is RS, a barrier, then AG)."""
IN_PHASES = ("rs", "reduce")
PER_RANK = ("reducescatter", "allgather")
Group = tuple[str, int, int]
_CAP = 5  # findings of one kind per tree


def where(e: ScheduleEntry) -> str:
    """``"rs set 0 tree 2 (root 5)"``: the tree an entry belongs to."""
    return f"{e.phase} set {e.set_index} tree {e.tree_index} (root {e.root})"


def _groups(s: Schedule) -> dict[Group, list[ScheduleEntry]]:
    out: dict[Group, list[ScheduleEntry]] = defaultdict(list)
    for e in s.entries:
        out[(e.phase, e.set_index, e.tree_index)].append(e)
    return dict(sorted(out.items()))


def _typical(es: list[ScheduleEntry]) -> ScheduleEntry:
    """The entry whose (root, chunk range) most entries of the tree share (ties: lowest id)."""
    votes = Counter((e.root, e.chunk_first, e.chunk_last) for e in es)
    best = max(votes.values())
    return next(e for e in es if votes[(e.root, e.chunk_first, e.chunk_last)] == best)


def _f(code: str, e: ScheduleEntry, msg: str, severity: str = "error", **kw: object) -> Finding:
    return Finding(code, f"{where(e)}, chunks {e.chunk_first}..{e.chunk_last}: {msg}", severity,
                   set=e.set_index, tree=e.tree_index, **kw)  # type: ignore[arg-type]  # fmt: skip


def _ranges(rs: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a}..{b}" for a, b in rs[:_CAP]) + (", ..." if len(rs) > _CAP else "")


def _cover(
    ranges: list[tuple[int, int]], total: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Chunk ranges carried twice, and ranges of ``0 .. total-1`` carried by none (intervals)."""
    twice: list[tuple[int, int]] = []
    gaps: list[tuple[int, int]] = []
    reach = -1  # every chunk up to here is covered
    for a, b in sorted(ranges):
        if a <= reach:
            twice.append((a, min(b, reach)))
        elif a > reach + 1:
            gaps.append((reach + 1, a - 1))
        reach = max(reach, b)
    if reach < total - 1:
        gaps.append((reach + 1, total - 1))
    return twice, gaps


def check_chunk_ranges(s: Schedule, ranks: list[int]) -> list[Finding]:
    """Each tree one root and one chunk range; per phase the ranges cover the data once."""
    found: list[Finding] = []
    rank_of = {r: i for i, r in enumerate(ranks)}
    per_phase: dict[str, list[ScheduleEntry]] = defaultdict(list)
    for (phase, si, ti), es in _groups(s).items():
        head = _typical(es)
        per_phase[phase].append(head)
        for e in es:
            if e.root != head.root:
                found.append(_f("roots-mismatch", e, f"entry {e.id} names root {e.root}, the "
                                f"other entries of its tree {head.root}", entry=e.id))  # fmt: skip
            if (e.chunk_first, e.chunk_last) != (head.chunk_first, head.chunk_last):
                found.append(_f("chunk-range", e, f"entry {e.id} carries other chunks than the "
                                f"other entries of its tree ({head.chunk_first}.."
                                f"{head.chunk_last})", entry=e.id))  # fmt: skip
        listed = s.roots[si][ti] if si < len(s.roots) and ti < len(s.roots[si]) else None
        if listed != head.root:
            found.append(_f("roots-mismatch", head, f"the schedule's roots list {listed} for "
                            "this tree", node=head.root))  # fmt: skip
        if s.collective in PER_RANK and head.root in rank_of:
            first = rank_of[head.root] * s.chunks
            if head.chunk_first != first:
                found.append(_f("chunk-range", head, f"the tree of rank {rank_of[head.root]} "
                                f"must carry its block {first}..{first + s.chunks - 1}"))  # fmt: skip
    listed = [(si, ti) for si, rs in enumerate(s.roots) for ti in range(len(rs))]
    groups = _groups(s)
    for phase in PHASES_OF.get(s.collective, ()):
        if len(ranks) < 2:
            break
        for si, ti in listed:
            if (phase, si, ti) not in groups:
                code = "chunk-incomplete" if phase in IN_PHASES else "chunk-undelivered"
                found.append(Finding(code, f"{phase} set {si} tree {ti} (root {s.roots[si][ti]}) "
                                     "has no entry: its chunks never move", set=si, tree=ti))  # fmt: skip
    for phase, heads in per_phase.items():
        twice, gaps = _cover([(h.chunk_first, h.chunk_last) for h in heads],
                             max(len(heads), len(listed)) * s.chunks)  # fmt: skip
        if twice:
            found.append(Finding("chunk-coverage", f"{phase}: chunks {_ranges(twice)} are "
                                 "carried by more than one tree"))  # fmt: skip
        if gaps:
            found.append(Finding("chunk-coverage", f"{phase}: chunks {_ranges(gaps)} are "
                                 "carried by no tree: that part of the data never moves"))  # fmt: skip
        roots = Counter(h.root for h in heads)
        if s.collective in PER_RANK and (set(roots) != set(ranks) or max(roots.values()) > 1):
            found.append(Finding("roots-mismatch", f"{phase}: {s.collective} needs one tree per "
                                 f"rank, roots are {sorted(roots.elements())}"))  # fmt: skip
        if s.collective in ("broadcast", "reduce") and len(roots) > 1:
            found.append(Finding("roots-mismatch", f"{phase}: {s.collective} trees must share "
                                 f"one root, not {sorted(roots)}"))  # fmt: skip
    if s.collective == "allreduce":
        rs = {(h.root, h.chunk_first, h.chunk_last) for h in per_phase.get("rs", [])}
        ag = {(h.root, h.chunk_first, h.chunk_last) for h in per_phase.get("ag", [])}
        for root, a, b in sorted(rs ^ ag):
            which = "reduced but never gathered" if (root, a, b) in rs else "gathered unreduced"
            found.append(Finding("phase-mismatch", f"chunks {a}..{b} at root {root} are {which}: "
                                 "AllReduce gathers from each root what it reduced there",
                                 node=root))  # fmt: skip
    return found


def _deps_check(e: ScheduleEntry, need: list[ScheduleEntry], what: str) -> list[Finding]:
    missing = sorted(d.id for d in need if d.id not in e.deps)
    if not missing:
        return []
    return [_f("deps-incomplete", e, f"entry {e.id} ({e.src}->{e.dst}) sends before {what}: "
               f"it does not wait for entries {missing}", entry=e.id, node=e.src)]  # fmt: skip


def _out_flow(es: list[ScheduleEntry], ranks: set[int], gathered: list[ScheduleEntry] | None,
              ) -> list[Finding]:  # fmt: skip
    found: list[Finding] = []
    head = _typical(es)
    root = head.root
    into: dict[int, list[ScheduleEntry]] = defaultdict(list)
    out_of: dict[int, list[ScheduleEntry]] = defaultdict(list)
    for e in es:
        into[e.dst].append(e)
        out_of[e.src].append(e)
    for v, got in sorted(into.items()):
        if len(got) > 1 or v == root:
            found.append(_f("received-twice", got[0], f"node {v} receives these chunks from "
                            f"{sorted(g.src for g in got)}" + (" although it is the root" if
                            v == root else ""), node=v))  # fmt: skip
    depth, queue = {root: 0}, [root]
    for u in queue:
        for e in out_of.get(u, []):
            if e.dst not in depth:
                depth[e.dst] = depth[u] + 1
                queue.append(e.dst)
    for e in es:
        if e.src == root:
            op = "send"
            if gathered is not None:
                found += _deps_check(e, gathered, "the root has reduced the chunks")
        else:
            op = "recv-send"
            if not into.get(e.src):
                found.append(_f("chunk-undelivered", e, f"entry {e.id}: node {e.src} forwards "
                                "chunks it never receives", entry=e.id, node=e.src))  # fmt: skip
            found += _deps_check(e, into.get(e.src, []), f"node {e.src} has received the chunks")
        if (e.op, e.on_recv) != (op, "store"):
            found.append(_f("op-mismatch", e, f"entry {e.id} has op {e.op!r}, on_recv "
                            f"{e.on_recv!r}; an out-tree {'root' if op == 'send' else 'forward'}"
                            f" is {op!r}, 'store'", entry=e.id))  # fmt: skip
        if e.dst in depth and e.depth != depth[e.dst]:
            found.append(_f("depth-mismatch", e, f"entry {e.id} says depth {e.depth}, node "
                            f"{e.dst} is at depth {depth[e.dst]}", "warning", entry=e.id))  # fmt: skip
    lost = sorted(ranks - set(depth))
    if lost:
        found.append(_f("chunk-undelivered", head, f"ranks {lost[:_CAP * 2]} never receive "
                        "these chunks", node=lost[0]))  # fmt: skip
    return found


def _in_flow(es: list[ScheduleEntry], ranks: set[int]) -> list[Finding]:
    found: list[Finding] = []
    head = _typical(es)
    root = head.root
    into: dict[int, list[ScheduleEntry]] = defaultdict(list)
    for e in es:
        into[e.dst].append(e)
        if e.src == root:
            found.append(_f("root-sends", e, f"entry {e.id}: the root sends its reduced chunks "
                            f"on to {e.dst}", entry=e.id, node=root))  # fmt: skip
    for e in es:
        inputs = into.get(e.src, [])
        found += _deps_check(e, inputs, f"node {e.src} has all its inputs")
        ops = ("send",) if not inputs else ("recv-reduce-send",)
        if len(inputs) == 1 and e.src not in ranks:
            ops = ("recv-send", "recv-reduce-send")
        if e.op not in ops or e.on_recv != "reduce":
            found.append(_f("op-mismatch", e, f"entry {e.id} has op {e.op!r}, on_recv "
                            f"{e.on_recv!r}; node {e.src} with {len(inputs)} input(s) must "
                            f"{' or '.join(map(repr, ops))} and the receiver 'reduce'",
                            entry=e.id))  # fmt: skip
    value: dict[int, Counter[int]] = {}
    depth: dict[int, int] = {root: 0}
    on_path: set[int] = set()

    def reduce_at(v: int, d: int | None) -> Counter[int]:
        if v in value:
            return value[v]
        if v in on_path:
            found.append(_f("cycle", head, f"the entries into node {v} form a cycle: those "
                            "chunks never arrive", node=v))  # fmt: skip
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
        found.append(_f("chunk-incomplete", head, f"the reduction at root {root} lacks the "
                        f"contributions of ranks {missing[:_CAP * 2]}", node=root))  # fmt: skip
    if twice:
        found.append(_f("double-count", head, f"the reduction at root {root} counts ranks "
                        f"{twice[:_CAP * 2]} more than once", node=root))  # fmt: skip
    for e in es:
        if e.src in depth and e.depth != depth[e.src]:
            found.append(_f("depth-mismatch", e, f"entry {e.id} says depth {e.depth}, node "
                            f"{e.src} is at depth {depth[e.src]}", "warning", entry=e.id))  # fmt: skip
    return found


def check_tree_flows(
    s: Schedule, ranks: list[int], by_id: dict[int, ScheduleEntry]
) -> list[Finding]:
    """Delivery (out-tree phases) and exact reduction (in-tree phases) of every tree's chunks."""
    found: list[Finding] = []
    rank_set = set(ranks)
    groups = _groups(s)
    reduced: dict[tuple[int, int, int], list[ScheduleEntry]] = defaultdict(list)
    for (phase, _, _), es in groups.items():
        if phase == "rs":
            for e in es:
                if e.dst == e.root:
                    reduced[(e.root, e.chunk_first, e.chunk_last)].append(e)
    for (phase, _, _), es in groups.items():
        if phase in IN_PHASES:
            found += _in_flow(es, rank_set)
        else:
            head = _typical(es)
            key = (head.root, head.chunk_first, head.chunk_last)
            gathered = reduced.get(key, []) if s.collective == "allreduce" else None
            found += _out_flow(es, rank_set, gathered)
    return found


def check_packings(
    s: Schedule, packings: TreePacking | Sequence[TreePacking], ranks: list[int]
) -> list[Finding]:
    """Every tree arc of the packings appears once, in its tree, with the documented chunks."""
    found: list[Finding] = []
    packs = [packings] if isinstance(packings, TreePacking) else list(packings)
    by_dir = {p.direction: p for p in packs}
    if len(by_dir) != len(packs):
        found.append(Finding("tree-mismatch", "two packings of one direction were given"))
    groups = _groups(s)
    rank_of = {r: i for i, r in enumerate(ranks)}
    for phase in PHASES_OF[s.collective]:
        want = "in" if phase in IN_PHASES else "out"
        if want in by_dir:
            sets = [[(t.root, list(t.arcs)) for t in ts.trees] for ts in by_dir[want].sets]
        elif by_dir:
            other = next(iter(by_dir.values()))
            sets = [[(t.root, [(v, u, k) for u, v, k in t.arcs]) for t in ts.trees]
                    for ts in other.sets]  # fmt: skip
        else:
            continue
        g = 0
        for si, trees in enumerate(sets):
            for ti, (root, tree_arcs) in enumerate(trees):
                es = groups.pop((phase, si, ti), [])
                label = f"{phase} set {si} tree {ti} (root {root})"
                have = Counter(e.arc for e in es)
                need = Counter(tree_arcs)
                for a in sorted((need - have).elements())[:_CAP]:
                    found.append(Finding("tree-mismatch", f"{label}: tree arc {a} has no entry",
                                         set=si, tree=ti, arc=a))  # fmt: skip
                for a in sorted((have - need).elements())[:_CAP]:
                    found.append(Finding("tree-mismatch", f"{label}: an entry uses {a}, which is "
                                         "not an arc of the tree", set=si, tree=ti, arc=a))  # fmt: skip
                block = rank_of.get(root, -1) if s.collective in PER_RANK else g
                g += 1
                first = block * s.chunks
                for e in es:
                    if e.root != root or (e.chunk_first, e.chunk_last) != (
                        first, first + s.chunks - 1,
                    ):  # fmt: skip
                        found.append(_f("chunk-range", e, f"entry {e.id} should carry chunks "
                                        f"{first}..{first + s.chunks - 1} of the tree rooted at "
                                        f"{root}", entry=e.id))  # fmt: skip
                        break
        for (p, si, ti), es in list(groups.items()):
            if p == phase:
                found.append(Finding("tree-mismatch", f"{where(es[0])} is not a tree of the "
                                     "packing", set=si, tree=ti))  # fmt: skip
                del groups[(p, si, ti)]
    return found
