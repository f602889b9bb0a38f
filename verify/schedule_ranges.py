"""Chunk ranges of a schedule table, and its agreement with the tree packings it claims.

Helpers of :func:`supermesh.verify.schedule.check_schedule`: every tree carries one range of
``chunks`` chunks; per phase the ranges cover the data exactly once; ReduceScatter / AllGather
give the tree of the rank-``r`` root the block ``r``; AllReduce gathers from each root exactly
the chunks it reduced there; and, given the packings, each tree's entries are exactly its arcs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from supermesh.trees.model import TreePacking
from supermesh.trees.schedule_model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.schedule_flow import (
    CAP,
    IN_PHASES,
    PER_RANK,
    PHASES_OF,
    group_entries,
    tree_finding,
    typical_entry,
    where,
)

__all__ = ["check_chunk_ranges", "check_packings"]


def _ranges(rs: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a}..{b}" for a, b in rs[:CAP]) + (", ..." if len(rs) > CAP else "")


def _cover(ranges: list[tuple[int, int]], total: int) -> tuple[list[tuple[int, int]], ...]:
    """Chunk ranges carried twice, ranges of ``0 .. total-1`` carried by none, ranges past it."""
    twice: list[tuple[int, int]] = []
    gaps: list[tuple[int, int]] = []
    reach = -1  # every chunk up to here is covered
    for a, b in sorted(ranges):
        if a <= reach:
            twice.append((a, min(b, reach)))
        elif a > reach + 1 and reach + 1 < total:
            gaps.append((reach + 1, min(a, total) - 1))
        reach = max(reach, b)
    if reach < total - 1:
        gaps.append((reach + 1, total - 1))
    beyond = sorted((max(a, total), b) for a, b in ranges if b >= total)
    return twice, gaps, beyond


def check_chunk_ranges(s: Schedule, ranks: list[int]) -> list[Finding]:
    """Each tree one root and one chunk range; per phase the ranges cover the data once.

    Parameters
    ----------
    s : supermesh.trees.schedule_model.Schedule
    ranks : list of int
        The compute chiplets, in rank order (ReduceScatter / AllGather: the tree of rank ``r``
        carries block ``r``).

    Returns
    -------
    list of Finding
        ``roots-mismatch``, ``chunk-range``, ``chunk-coverage``, ``chunk-undelivered`` /
        ``chunk-incomplete`` (a listed tree without entries), ``phase-mismatch``.

    Examples
    --------
    >>> import dataclasses
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t, t)),))
    >>> s = build_schedule(build("mesh:2x2"), "broadcast", p, chunks=2)
    >>> late = tuple(dataclasses.replace(e, chunk_first=e.chunk_first + 1,
    ...                                  chunk_last=e.chunk_last + 1) for e in s.entries)
    >>> for f in check_chunk_ranges(dataclasses.replace(s, entries=late), [0, 1, 2, 3]):
    ...     print(f.message)
    bcast: chunks 4..4 lie beyond the 4 chunks of the data
    bcast: chunks 0..0 are carried by no tree: that part of the data never moves
    """
    found: list[Finding] = []
    rank_of = {r: i for i, r in enumerate(ranks)}
    per_phase: dict[str, list[ScheduleEntry]] = defaultdict(list)
    for (phase, si, ti), es in group_entries(s).items():
        head = typical_entry(es)
        per_phase[phase].append(head)
        for e in es:
            if e.root != head.root:
                found.append(
                    tree_finding(
                        "roots-mismatch",
                        e,
                        f"entry {e.id} names root {e.root}, the "
                        f"other entries of its tree {head.root}",
                        entry=e.id,
                    )
                )
            if (e.chunk_first, e.chunk_last) != (head.chunk_first, head.chunk_last):
                found.append(
                    tree_finding(
                        "chunk-range",
                        e,
                        f"entry {e.id} carries other chunks than the "
                        f"other entries of its tree ({head.chunk_first}.."
                        f"{head.chunk_last})",
                        entry=e.id,
                    )
                )
        named = s.roots[si][ti] if si < len(s.roots) and ti < len(s.roots[si]) else None
        if named != head.root:
            found.append(
                tree_finding(
                    "roots-mismatch",
                    head,
                    f"the schedule's roots list {named} for this tree",
                    node=head.root,
                )
            )
        if s.collective in PER_RANK and head.root in rank_of:
            first = rank_of[head.root] * s.chunks
            if head.chunk_first != first:
                found.append(
                    tree_finding(
                        "chunk-range",
                        head,
                        f"the tree of rank {rank_of[head.root]} "
                        f"must carry its block {first}..{first + s.chunks - 1}",
                    )
                )
    listed = [(si, ti) for si, rs in enumerate(s.roots) for ti in range(len(rs))]
    groups = group_entries(s)
    for phase in PHASES_OF.get(s.collective, ()):
        if len(ranks) < 2:
            break
        for si, ti in listed:
            if (phase, si, ti) not in groups:
                code = "chunk-incomplete" if phase in IN_PHASES else "chunk-undelivered"
                found.append(
                    Finding(
                        code,
                        f"{phase} set {si} tree {ti} (root {s.roots[si][ti]}) "
                        "has no entry: its chunks never move",
                        set=si,
                        tree=ti,
                    )
                )
    for phase, heads in per_phase.items():
        twice, gaps, beyond = _cover(
            [(h.chunk_first, h.chunk_last) for h in heads], max(len(heads), len(listed)) * s.chunks
        )
        if twice:
            found.append(
                Finding(
                    "chunk-coverage",
                    f"{phase}: chunks {_ranges(twice)} are carried by more than one tree",
                )
            )
        if beyond:
            found.append(
                Finding(
                    "chunk-coverage",
                    f"{phase}: chunks {_ranges(beyond)} lie beyond the "
                    f"{max(len(heads), len(listed)) * s.chunks} chunks of the data",
                )
            )
        if gaps:
            found.append(
                Finding(
                    "chunk-coverage",
                    f"{phase}: chunks {_ranges(gaps)} are "
                    "carried by no tree: that part of the data never moves",
                )
            )
        roots = Counter(h.root for h in heads)
        if s.collective in PER_RANK and (set(roots) != set(ranks) or max(roots.values()) > 1):
            found.append(
                Finding(
                    "roots-mismatch",
                    f"{phase}: {s.collective} needs one tree per "
                    f"rank, roots are {sorted(roots.elements())}",
                )
            )
        if s.collective in ("broadcast", "reduce") and len(roots) > 1:
            found.append(
                Finding(
                    "roots-mismatch",
                    f"{phase}: {s.collective} trees must share one root, not {sorted(roots)}",
                )
            )
    if s.collective == "allreduce":
        rs = {(h.root, h.chunk_first, h.chunk_last) for h in per_phase.get("rs", [])}
        ag = {(h.root, h.chunk_first, h.chunk_last) for h in per_phase.get("ag", [])}
        for root, a, b in sorted(rs ^ ag):
            which = "reduced but never gathered" if (root, a, b) in rs else "gathered unreduced"
            found.append(
                Finding(
                    "phase-mismatch",
                    f"chunks {a}..{b} at root {root} are {which}: "
                    "AllReduce gathers from each root what it reduced there",
                    node=root,
                )
            )
    return found


def check_packings(
    s: Schedule, packings: TreePacking | Sequence[TreePacking], ranks: list[int]
) -> list[Finding]:
    """Every tree arc of the packings appears once, in its tree, with the documented chunks.

    Parameters
    ----------
    s : supermesh.trees.schedule_model.Schedule
    packings : TreePacking or sequence of TreePacking
        At most one per direction; a phase whose direction is missing is compared with the
        other packing's trees reversed.
    ranks : list of int
        The compute chiplets, in rank order.

    Returns
    -------
    list of Finding
        ``tree-mismatch`` (an arc without entry, an entry off the tree, a tree the packing lacks)
        and ``chunk-range`` (AllReduce / Broadcast / Reduce: tree ``g`` in set-major order
        carries ``g*C .. g*C+C-1``; ReduceScatter / AllGather: the rank-``r`` root's tree
        carries ``r*C .. r*C+C-1``).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),))
    >>> s = build_schedule(build("mesh:2x2"), "broadcast", p)
    >>> u = Tree(0, ((0, 1, 0), (0, 2, 0), (2, 3, 0)), 2)
    >>> q = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((u,)),))
    >>> [f.arc for f in check_packings(s, q, [0, 1, 2, 3])]
    [(2, 3, 0), (1, 3, 0)]
    """
    found: list[Finding] = []
    packs = [packings] if isinstance(packings, TreePacking) else list(packings)
    by_dir = {p.direction: p for p in packs}
    if len(by_dir) != len(packs):
        found.append(Finding("tree-mismatch", "two packings of one direction were given"))
    groups = group_entries(s)
    rank_of = {r: i for i, r in enumerate(ranks)}
    for phase in PHASES_OF[s.collective]:
        want = "in" if phase in IN_PHASES else "out"
        if want in by_dir:
            sets = [[(t.root, list(t.arcs)) for t in ts.trees] for ts in by_dir[want].sets]
        elif by_dir:
            other = next(iter(by_dir.values()))
            sets = [
                [(t.root, [(v, u, k) for u, v, k in t.arcs]) for t in ts.trees] for ts in other.sets
            ]
        else:
            continue
        g = 0
        for si, trees in enumerate(sets):
            for ti, (root, tree_arcs) in enumerate(trees):
                es = groups.pop((phase, si, ti), [])
                label = f"{phase} set {si} tree {ti} (root {root})"
                have = Counter(e.arc for e in es)
                need = Counter(tree_arcs)
                for a in sorted((need - have).elements())[:CAP]:
                    found.append(
                        Finding(
                            "tree-mismatch",
                            f"{label}: tree arc {a} has no entry",
                            set=si,
                            tree=ti,
                            arc=a,
                        )
                    )
                for a in sorted((have - need).elements())[:CAP]:
                    found.append(
                        Finding(
                            "tree-mismatch",
                            f"{label}: an entry uses {a}, which is not an arc of the tree",
                            set=si,
                            tree=ti,
                            arc=a,
                        )
                    )
                block = rank_of.get(root, -1) if s.collective in PER_RANK else g
                g += 1
                first = block * s.chunks
                for e in es:
                    if e.root != root or (e.chunk_first, e.chunk_last) != (
                        first,
                        first + s.chunks - 1,
                    ):
                        found.append(
                            tree_finding(
                                "chunk-range",
                                e,
                                f"entry {e.id} should carry chunks "
                                f"{first}..{first + s.chunks - 1} of the tree rooted at "
                                f"{root}",
                                entry=e.id,
                            )
                        )
                        break
        for (p, si, ti), es in list(groups.items()):
            if p == phase:
                found.append(
                    Finding(
                        "tree-mismatch",
                        f"{where(es[0])} is not a tree of the packing",
                        set=si,
                        tree=ti,
                    )
                )
                del groups[(p, si, ti)]
    return found
