"""Chunk ranges of a schedule table: each tree one range, covering the data once per phase.

Helpers of :func:`supermesh.verify.schedule.tables.check_schedule`: every tree carries one range of
``chunks`` chunks; per phase the ranges cover the data exactly once; ReduceScatter / AllGather
give the tree of the rank-``r`` root the block ``r``; AllReduce gathers from each root exactly
the chunks it reduced there. In a weighted table (``shares`` set) each root's trees carry the
parts of its block given by :func:`~supermesh.verify.schedule.shares.weighted_ranges`.
Agreement with the tree packings a table claims is :mod:`supermesh.verify.schedule.packings`.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from supermesh.trees.schedule.model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.groups import (
    CAP,
    IN_PHASES,
    PER_RANK,
    PHASES_OF,
    group_entries,
    tree_finding,
    typical_entry,
)
from supermesh.verify.schedule.shares import Ranges, check_shares, weighted_ranges

__all__ = ["check_chunk_ranges"]


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
