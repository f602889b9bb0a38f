"""Agreement of a schedule table with the tree packings it claims: each tree's entries, its arcs.

Helper of :func:`supermesh.verify.schedule.tables.check_schedule` when packings are given: every
tree arc appears once, in its tree, with the documented chunk range (in a weighted table the
range :func:`~supermesh.verify.schedule.shares.weighted_ranges` gives, and the packing's share).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.model import Schedule
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.groups import (
    CAP,
    IN_PHASES,
    PER_RANK,
    PHASES_OF,
    group_entries,
    tree_finding,
    where,
)
from supermesh.verify.schedule.shares import SHARE_TOLERANCE, Ranges, weighted_ranges

__all__ = ["check_packings"]


def _has(table: Sequence[Sequence[float]], si: int, ti: int) -> bool:
    return si < len(table) and ti < len(table[si])


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
