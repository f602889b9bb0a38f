"""Chunk ranges of a schedule table, and its agreement with the tree packings it claims.

Helpers of :func:`supermesh.verify.schedule.tables.check_schedule`: every tree carries one range of
``chunks`` chunks; per phase the ranges cover the data exactly once; ReduceScatter / AllGather
give the tree of the rank-``r`` root the block ``r``; AllReduce gathers from each root exactly
the chunks it reduced there; and, given the packings, each tree's entries are exactly its arcs.
In a weighted table (``shares`` set) each root's trees carry the parts of its block that the
documented largest-remainder rule of :mod:`supermesh.trees.schedule.build` gives; the rule is
recomputed here by :func:`weighted_ranges`, not taken from the builder.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from fractions import Fraction

from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.flow import (
    CAP,
    IN_PHASES,
    PER_RANK,
    PHASES_OF,
    group_entries,
    tree_finding,
    typical_entry,
    where,
)

__all__ = ["check_chunk_ranges", "check_packings", "check_shares", "weighted_ranges"]

SHARE_TOLERANCE = 1e-9
"""How far the shares of one root may be from adding up to 1 (as documented for the tables)."""
Ranges = dict[tuple[int, int], tuple[int, int]]


def _parts(chunks: int, shares: list[float]) -> list[int] | None:
    """Largest-remainder split of ``chunks`` by ``shares`` (None if it cannot give each one)."""
    weights = [Fraction(x) for x in shares]
    if chunks < len(weights) or not all(w > 0 for w in weights):
        return None
    whole = sum(weights)
    exact = [w * chunks / whole for w in weights]
    got = [math.floor(x) for x in exact]
    left = chunks - sum(got)
    for _, i in sorted((got[i] - x, i) for i, x in enumerate(exact))[:left]:
        got[i] += 1  # smallest (floor - exact) = largest fractional part; ties: earlier tree
    while min(got) == 0:
        most = max(got)
        got[got.index(most)] -= 1
        got[got.index(0)] += 1
    return got


def weighted_ranges(
    chunks: int,
    roots: Sequence[Sequence[int]],
    shares: Sequence[Sequence[float]],
    ranks: Sequence[int],
) -> Ranges:
    """The chunk range of every tree of a weighted table, from its documented rule.

    Parameters
    ----------
    chunks : int
        ``C``, chunks per root block.
    roots, shares : per set, per tree
        The table's ``roots`` and ``shares``.
    ranks : sequence of int
        The ranks in rank order (roots are numbered into blocks in this order).

    Returns
    -------
    dict
        ``(set, tree) -> (chunk_first, chunk_last)``; trees whose root is not a rank, or whose
        root's block cannot be split (fewer chunks than trees, a share not above 0), are left out.

    Examples
    --------
    >>> weighted_ranges(4, [[1, 0, 1]], [[0.25, 1.0, 0.75]], [0, 1])
    {(0, 1): (0, 3), (0, 0): (4, 4), (0, 2): (5, 7)}
    """
    position = {r: i for i, r in enumerate(ranks)}
    trees: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for si, rs in enumerate(roots):
        for ti, r in enumerate(rs):
            if r in position:
                trees[r].append((si, ti))
    out: Ranges = {}
    for b, r in enumerate(sorted(trees, key=lambda r: position[r])):
        mine = trees[r]
        counts = _parts(chunks, [shares[si][ti] for si, ti in mine])
        if counts is None:
            continue
        start = b * chunks
        for (si, ti), n in zip(mine, counts, strict=True):
            out[(si, ti)] = (start, start + n - 1)
            start += n
    return out


def check_shares(s: Schedule, ranks: list[int]) -> list[Finding]:
    """The ``shares`` of a weighted table: shaped like ``roots``, positive, 1 per root.

    Returns
    -------
    list of Finding
        ``share-mismatch``; empty for a table without shares.
    """
    if s.shares is None:
        return []
    if [len(x) for x in s.shares] != [len(x) for x in s.roots]:
        return [Finding("share-mismatch", "the shares are not given per set and tree like roots")]
    found = []
    total: dict[int, list[float]] = defaultdict(list)
    for si, rs in enumerate(s.roots):
        for ti, r in enumerate(rs):
            x = s.shares[si][ti]
            total[r].append(x)
            if not x > 0:
                found.append(
                    Finding(
                        "share-mismatch",
                        f"set {si} tree {ti} (root {r}) has share {x}: a tree must carry data",
                        set=si,
                        tree=ti,
                    )
                )
    for r, xs in sorted(total.items()):
        if abs(math.fsum(xs) - 1) > SHARE_TOLERANCE:
            found.append(
                Finding(
                    "share-mismatch",
                    f"the shares of root {r}'s trees add up to {math.fsum(xs):.12g}, not 1: "
                    "its data would be carried more or less than once",
                    node=r,
                )
            )
    if s.collective in PER_RANK and set(total) != set(ranks):
        odd = sorted(set(total) ^ set(ranks))
        found.append(
            Finding(
                "roots-mismatch",
                f"{s.collective} needs every rank to root a tree; {odd[:8]} break that",
            )
        )
    return found


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


def _has(table: Sequence[Sequence[float]], si: int, ti: int) -> bool:
    return si < len(table) and ti < len(table[si])


def check_chunk_ranges(s: Schedule, ranks: list[int]) -> list[Finding]:
    """Each tree one root and one chunk range; per phase the ranges cover the data once.

    Parameters
    ----------
    s : supermesh.trees.schedule.model.Schedule
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
    >>> from supermesh.trees.schedule.build import build_schedule
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
    found: list[Finding] = check_shares(s, ranks)
    rank_of = {r: i for i, r in enumerate(ranks)}
    per_phase: dict[str, list[ScheduleEntry]] = defaultdict(list)
    expected: Ranges | None = None
    if s.shares is not None and not found:
        expected = weighted_ranges(s.chunks, s.roots, s.shares, ranks)
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
        if expected is not None and expected.get((si, ti)) != (head.chunk_first, head.chunk_last):
            want = expected.get((si, ti))
            found.append(
                tree_finding(
                    "chunk-range",
                    head,
                    f"with share {s.shares[si][ti] if s.shares else '?'} the tree must carry "
                    + (f"chunks {want[0]}..{want[1]}" if want else "no chunks (no valid split)")
                    + " of its root's block (largest-remainder split)",
                )
            )
        if s.shares is None and s.collective in PER_RANK and head.root in rank_of:
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
    root_blocks = len({r for rs in s.roots for r in rs})  # weighted tables: a block per root
    for phase, heads in per_phase.items():
        blocks = root_blocks if s.shares is not None else max(len(heads), len(listed))
        twice, gaps, beyond = _cover(
            [(h.chunk_first, h.chunk_last) for h in heads], blocks * s.chunks
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
                    f"{blocks * s.chunks} chunks of the data",
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
        several = s.shares is None and max(roots.values()) > 1
        if s.collective in PER_RANK and (set(roots) != set(ranks) or several):
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
    s : supermesh.trees.schedule.model.Schedule
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
    >>> from supermesh.trees.schedule.build import build_schedule
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
            sets = [[(t.root, list(t.arcs), t.share) for t in ts.trees] for ts in by_dir[want].sets]
        elif by_dir:
            other = next(iter(by_dir.values()))
            sets = [
                [(t.root, [(v, u, k) for u, v, k in t.arcs], t.share) for t in ts.trees]
                for ts in other.sets
            ]
        else:
            continue
        parts: Ranges = {}
        if s.shares is not None:
            roots = [[t[0] for t in ts] for ts in sets]
            parts = weighted_ranges(s.chunks, roots, [[t[2] for t in ts] for ts in sets], ranks)
        g = 0
        for si, trees in enumerate(sets):
            for ti, (root, tree_arcs, share) in enumerate(trees):
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
                first, last = parts.get(
                    (si, ti), (block * s.chunks, block * s.chunks + s.chunks - 1)
                )
                if s.shares is not None:
                    have_share = s.shares[si][ti] if _has(s.shares, si, ti) else None
                    if have_share is None or abs(have_share - share) > SHARE_TOLERANCE:
                        found.append(
                            Finding(
                                "share-mismatch",
                                f"{label}: the table gives share {have_share}, the packing {share}",
                                set=si,
                                tree=ti,
                            )
                        )
                for e in es:
                    if e.root != root or (e.chunk_first, e.chunk_last) != (first, last):
                        found.append(
                            tree_finding(
                                "chunk-range",
                                e,
                                f"entry {e.id} should carry chunks "
                                f"{first}..{last} of the tree rooted at {root}",
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
