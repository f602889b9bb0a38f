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

import numpy as np

from supermesh.errors import SpecError
from supermesh.trees.model import Tree
from supermesh.trees.oriented import orient
from supermesh.trees.schedule.fifo import fifo_slots

__all__ = [
    "least_loaded_counts",
    "shared_link_order",
    "shares_links",
    "split_block",
    "weighted_ranges",
]


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


def least_loaded_counts(
    quota: Sequence[float],
    uses: Sequence[Sequence[int]],
    total: int,
    capacity: Sequence[float] | np.ndarray | None = None,
) -> list[int]:
    """Whole chunks near each tree's quota, adding up to ``total``, the busiest link least busy.

    Where a vector may be split among trees at will (an AllReduce), rounding each tree's quota
    up sends more chunks than the vector holds and loads a link with every tree's rounding at
    once. Each tree instead takes its quota rounded down, and the chunks still missing go one
    at a time to a tree not yet rounded up that leaves the busiest link least busy (then the
    links it uses least loaded, then the largest fraction left over, then the earlier tree).
    Mesh 8x8's undirected trees, 64 MiB in 32 KiB chunks: 2,048 chunks with the busiest link at
    1,154 of them, where rounding up each root's part took 2,064 and 1,167 (the quotas: 1,152).

    Parameters
    ----------
    quota : sequence of float
        Each tree's chunks, not rounded (non-negative).
    uses : sequence of sequence of int
        Each tree's links, as indices (a link a tree loads twice listed twice).
    total : int
        Chunks in all: between the quotas rounded down and rounded up, added up.
    capacity : sequence of float, optional
        Each link's relative bandwidth (all 1 when omitted): a link's load is its chunks over it.

    Returns
    -------
    list of int
        Per tree, its quota rounded down or up; a tree may get none.

    Raises
    ------
    SpecError
        ``total`` out of reach of the quotas, a negative quota, or lengths that differ.

    Examples
    --------
    Three trees of 1.5 chunks each, 5 in all, two trees on link 0 and one on link 1: of the two
    chunks the rounding down left over, one goes to the tree alone on its link, the other to
    the earlier of the two sharing one.

    >>> least_loaded_counts([1.5, 1.5, 1.5], [[0], [0], [1]], 5)
    [2, 1, 2]
    """
    q = np.asarray(quota, dtype=np.float64)
    if len(uses) != len(q) or (len(q) and q.min() < 0):
        raise SpecError(f"{len(q)} non-negative quotas need as many link lists, not {len(uses)}")
    counts = np.floor(q).astype(np.int64)
    left = total - int(counts.sum())
    if left < 0 or left > int((np.ceil(q) > counts).sum()):
        raise SpecError(
            f"{total} chunks cannot be had by rounding quotas adding up to {q.sum():g}",
            hint="ask for the quotas' sum rounded up",
        )
    links = max((max(u) for u in uses if len(u)), default=-1) + 1
    cap = np.ones(links) if capacity is None else np.asarray(capacity, dtype=np.float64)
    # (tree, link) pairs with their multiplicity: a tree on a link twice loads it twice
    owner = np.repeat(np.arange(len(q)), [len(u) for u in uses])
    flat = np.concatenate([np.asarray(u, dtype=np.int64) for u in uses] + [np.zeros(0, np.int64)])
    pair, times = np.unique(owner * max(links, 1) + flat, return_counts=True)
    tree, link = pair // max(links, 1), pair % max(links, 1)
    load = np.bincount(link, weights=times * counts[tree], minlength=links)
    open_ = np.ceil(q) > counts
    rest = q - counts
    for _ in range(left):
        # each tree's busiest link after one chunk more, and its links' load now
        after = np.zeros(len(q))
        np.maximum.at(after, tree, (load[link] + times) / cap[link])
        now = np.bincount(tree, weights=load[link] / cap[link], minlength=len(q))
        pick = np.flatnonzero(open_)
        j = pick[np.lexsort((pick, -rest[pick], now[pick], after[pick]))[0]]
        counts[j] += 1
        open_[j] = False
        mine = tree == j
        load[link[mine]] += times[mine]
    return counts.tolist()


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
