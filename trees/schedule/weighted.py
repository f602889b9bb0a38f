"""Weighted tables: several trees per rank, each carrying a share of its root's block.

Throughput packings (:mod:`supermesh.trees.throughput.pack`) give every rank several trees in one
set, all running at once and sharing links. :func:`split_block` divides each rank's block of chunks
among its trees (largest remainder), :func:`weighted_ranges` gives every tree its chunk range,
and :func:`shared_link_order` each shared link's FIFO order (:func:`fifo_slots`, the order the
simulator's :func:`supermesh.sim.packing.packing_program` uses). :func:`build_schedule
<supermesh.trees.schedule.build.build_schedule>` puts them together.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

from supermesh.errors import SpecError
from supermesh.trees.model import Tree
from supermesh.trees.oriented import orient
from supermesh.trees.schedule.fifo import fifo_slots

__all__ = ["shared_link_order", "shares_links", "split_block", "weighted_ranges"]


def shares_links(trees: Sequence[Tree]) -> bool:
    """Whether two trees of a set use the same link."""
    used = [a for t in trees for a in t.arcs]
    return len(used) != len(set(used))


def split_block(chunks: int, shares: Sequence[float]) -> list[int]:
    """Split a root's block of ``chunks`` chunks among its trees in proportion to their shares.

    Largest remainder: tree ``i`` first gets ``floor(chunks * share_i / total)`` (exact rational
    arithmetic on the float shares), the chunks left over go one each to the trees with the
    largest fractional parts (ties: the earlier tree), then, while a tree has no chunk, it takes
    one from the tree with the most (ties: the earlier one). Every tree gets at least one chunk
    and the counts add up to ``chunks``.

    Parameters
    ----------
    chunks : int
        Chunks in the block (at least ``len(shares)``).
    shares : sequence of float
        Positive shares of the root's trees, in set-major tree order.

    Returns
    -------
    list of int
        Chunks per tree, in the order of ``shares``.

    Raises
    ------
    SpecError
        If there are fewer chunks than trees, or a share is not positive.

    Examples
    --------
    >>> split_block(8, [0.25, 0.25, 0.25, 0.25])
    [2, 2, 2, 2]
    >>> split_block(10, [0.5, 0.3, 0.2]), split_block(3, [0.98, 0.01, 0.01])
    ([5, 3, 2], [1, 1, 1])
    """
    fr = [Fraction(x) for x in shares]
    if not fr or any(f <= 0 for f in fr):
        raise SpecError(f"shares {list(shares)} must be positive", hint="drop empty trees")
    if chunks < len(fr):
        raise SpecError(
            f"{chunks} chunk(s) cannot be split among {len(fr)} trees of one root: "
            "every tree needs a chunk",
            hint=f"use chunks >= {len(fr)}",
        )
    total = sum(fr)
    quota = [chunks * f / total for f in fr]
    counts = [math.floor(q) for q in quota]
    by_rest = sorted(range(len(fr)), key=lambda i: (-(quota[i] - counts[i]), i))
    for i in by_rest[: chunks - sum(counts)]:
        counts[i] += 1
    while 0 in counts:
        donor = max(range(len(counts)), key=lambda i: (counts[i], -i))
        counts[donor] -= 1
        counts[counts.index(0)] += 1
    return counts


def weighted_ranges(
    sets: list[list[Tree]],
    ranks: Sequence[int],
    chunks: int | None,
    nbytes: int | None,
    chunk_bytes: int,
) -> tuple[int, dict[tuple[int, int], tuple[int, int]]]:
    """Chunks per block and each tree's chunk range in a weighted table (module docstring)."""
    rank_of = {v: i for i, v in enumerate(ranks)}
    mine: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for si, trees in enumerate(sets):
        for ti, t in enumerate(trees):
            mine[t.root].append((si, ti))
    roots = sorted(mine, key=rank_of.__getitem__)
    most = max(len(v) for v in mine.values())
    if chunks is None:
        chunks = 1
        if nbytes is not None:
            chunks = max(1, math.ceil(nbytes / (len(roots) * chunk_bytes)))
        chunks = max(chunks, most)
    ranges: dict[tuple[int, int], tuple[int, int]] = {}
    for b, r in enumerate(roots):
        first = b * chunks
        counts = split_block(chunks, [sets[si][ti].share for si, ti in mine[r]])
        for (si, ti), n in zip(mine[r], counts, strict=True):
            ranges[(si, ti)] = (first, first + n - 1)
            first += n
    return chunks, ranges


def shared_link_order(
    trees: Sequence[Tree], direction: str, rounds: int
) -> dict[tuple[int, int], int] | None:
    """``fifo_slots`` of a set whose trees share a link (``None`` for arc-disjoint trees)."""
    if not shares_links(trees):
        return None
    kind = "forward" if direction == "out" else "reduce"
    return fifo_slots([orient(t, direction) for t in trees], kind, rounds=rounds)
