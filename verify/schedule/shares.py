"""Weighted schedule tables: the shares of each root, and the chunk ranges they give its trees.

In a weighted table (``shares`` set: throughput packings, several trees per root) each root's
trees carry the parts of its block that the documented largest-remainder rule of
:mod:`supermesh.trees.schedule.build` gives; the rule is recomputed here by
:func:`weighted_ranges`, not taken from the builder, and :func:`check_shares` checks the shares
themselves. :mod:`supermesh.verify.schedule.ranges` and :mod:`supermesh.verify.schedule.packings`
hold the entries against these ranges.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from supermesh.trees.schedule.model import Schedule
from supermesh.verify.findings import Finding
from supermesh.verify.schedule.groups import PER_RANK

__all__ = ["SHARE_TOLERANCE", "Ranges", "check_shares", "split_parts", "weighted_ranges"]

SHARE_TOLERANCE = 1e-9
"""How far the shares of one root may be from adding up to 1 (as documented for the tables)."""
Ranges = dict[tuple[int, int], tuple[int, int]]


def split_parts(chunks: int, shares: list[float]) -> list[int] | None:
    """Largest-remainder split of ``chunks`` by ``shares`` (None if it cannot give each one).

    Parameters
    ----------
    chunks : int
        The chunks of one block.
    shares : list of float
        The trees' (or routes') shares of it, in their order.

    Returns
    -------
    list of int or None
        Chunks per tree, each at least 1, in order; ``None`` when there are fewer chunks than
        trees or a share is not positive.

    Examples
    --------
    >>> split_parts(5, [0.5, 0.3, 0.2]), split_parts(1, [0.5, 0.5])
    ([3, 1, 1], None)
    """
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
        counts = split_parts(chunks, [shares[si][ti] for si, ti in mine])
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

    Parameters
    ----------
    s : Schedule
        The table.
    ranks : list of int
        The ranks, in rank order (they number the root blocks).

    Examples
    --------
    >>> import dataclasses
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> a = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2, share=0.5)
    >>> b = Tree(0, ((0, 2, 0), (0, 1, 0), (2, 3, 0)), 2, share=0.5)
    >>> s = dataclasses.replace(build_schedule(build("mesh:2x2"), "broadcast",
    ...     TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a,)),)), chunks=2),
    ...     shares=((0.5, 0.25),), roots=((0, 0),))
    >>> [f.code for f in check_shares(s, [0, 1, 2, 3])]
    ['share-mismatch']
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
