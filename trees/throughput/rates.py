"""Exact checks and helpers for weighted packings: the rate they reach, the rate view, parts.

Independent of how a packing was made: :func:`packing_rate` recounts, in rational arithmetic,
the load every arc carries; :func:`rate_view` rewrites shares as fractions of a link's rate
(the form :func:`supermesh.verify.trees.packing.check_rates` checks); :func:`choose_parts` picks how
many equal parts suit a collective size (every tree costs whole chunks).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

import networkx as nx

from supermesh.errors import SpecError, SupermeshError
from supermesh.trees.bounds.throughput import exact_fraction
from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["choose_parts", "estimated_load", "packing_rate", "rate_view", "root_shares"]


def root_shares(packing: TreePacking) -> list[Fraction]:
    """Each tree's share of its root's data, exact, normalised so a root's shares sum to 1.

    Exact shares come from ``stats["shares"]`` when it lists one per tree, else from
    ``Tree.share`` (read as written: 0.1 is 1/10).

    Raises
    ------
    SpecError
        A share that is not a positive number.

    Examples
    --------
    >>> t = Tree(0, ((0, 1, 0),), 1, share=0.3)
    >>> root_shares(TreePacking("x", "out", "feasible", sets=(TreeSet((t, t)),)))
    [Fraction(1, 2), Fraction(1, 2)]
    """
    trees = packing.trees
    given = packing.stats.get("shares")
    try:
        if isinstance(given, list) and len(given) == len(trees):
            raw = [Fraction(str(x)) for x in given]
        else:
            raw = [exact_fraction(t.share) for t in trees]
    except (ValueError, ZeroDivisionError, SupermeshError):
        raise SpecError(
            "the packing's shares are not numbers", hint="shares are fractions such as 1/4"
        ) from None
    for t, x in zip(trees, raw, strict=True):
        if x <= 0:
            raise SpecError(
                f"tree rooted at {t.root} has share {x}, which is not positive",
                hint="every tree carries a positive share of its root's data",
            )
    total: dict[int, Fraction] = {}
    for t, x in zip(trees, raw, strict=True):
        total[t.root] = total.get(t.root, Fraction(0)) + x
    return [x / total[t.root] for t, x in zip(trees, raw, strict=True)]


def packing_rate(G: nx.MultiDiGraph, packing: TreePacking) -> Fraction:
    """The algorithm bandwidth (links) a weighted packing reaches, exactly.

    Each root sends its data over its trees in proportion to their shares; the rate is limited
    by the most loaded arc: ``rho = min_a n * bandwidth(a) / (sum of shares on a)``, where the
    shares of a root are first normalised to sum to 1. Shares are taken from
    ``stats["shares"]`` when present (exact), else from ``Tree.share``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("mesh:3x3")
    >>> packing_rate(G, pack_throughput(G))
    Fraction(9, 4)
    """
    trees = packing.trees
    load: dict[tuple[int, int, int], Fraction] = {}
    for t, x in zip(trees, root_shares(packing), strict=True):
        for a in t.arcs:
            load[a] = load.get(a, Fraction(0)) + x
    n = len({t.root for t in trees})
    return min(
        n * exact_fraction(G.edges[a].get("bandwidth", 1.0)) / x for a, x in load.items() if x
    )


def rate_view(packing: TreePacking, rate: Fraction | float | None = None) -> TreeSet:
    """The trees with each share rescaled to the fraction of a link's rate it uses.

    At algorithm bandwidth ``rate`` (default ``stats["algbw_links"]``) a tree of data share
    ``s`` sends ``s * rate / n`` link units, which is the share
    :func:`supermesh.verify.trees.packing.check_rates` expects (its test: per node pair, at most the
    number of parallel arcs, each of bandwidth 1).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> p = pack_throughput(build("mesh:3x3"))
    >>> round(sum(t.share for t in rate_view(p).trees if t.root == 0), 6)  # 9/4 / 9
    0.25
    """
    if rate is None:
        rate = Fraction(str(packing.stats.get("algbw_links", "1")))
    n = len({t.root for t in packing.trees})
    scale = float(rate) / n
    return TreeSet(
        tuple(Tree(t.root, t.arcs, t.height, t.share * scale) for t in packing.trees),
        packing.lower_bound,
    )


def estimated_load(optimum: Fraction, nranks: int, parts: int) -> Fraction:
    """Trees on the busiest link (per unit of bandwidth) expected with ``parts`` trees per rank.

    ``parts * nranks / optimum`` rounded up, plus one when ``parts`` is not a multiple of the
    natural count ``k`` (the numerator of ``optimum / nranks``): multiples of ``k`` reach the
    optimum exactly, other counts usually lose a tree to rounding.

    Examples
    --------
    >>> estimated_load(Fraction(256, 63), 64, 4), estimated_load(Fraction(256, 63), 64, 1)
    (Fraction(63, 1), Fraction(17, 1))
    """
    natural = (optimum / nranks).numerator
    return Fraction(math.ceil(parts * nranks / optimum) + (0 if parts % natural == 0 else 1))


def choose_parts(
    optimum: Fraction | float,
    nranks: int,
    nbytes: int,
    chunk_bytes: int = 12288,
    *,
    candidates: Iterable[int] = (1, 2, 3, 4, 6, 8, 12),
    loads: Mapping[int, Fraction] | None = None,
) -> int:
    """How many equal parts per rank suit a collective of ``nbytes``.

    With ``K`` parts every tree carries ``ceil(nbytes / (n K chunk))`` chunks and the busiest
    link carries ``L_K`` trees (per unit of bandwidth), so it works for about
    ``L_K * ceil(nbytes / (n K chunk))`` chunk times. ``L_K`` is taken from ``loads`` (the
    ``max_load`` of packings already made) or estimated: ``K n / rho*`` rounded up, plus one
    when ``K`` is not a multiple of the natural count ``k`` (the numerator of ``rho* / n``; for
    those the exact optimum ``K n / rho*`` is reachable, for others rounding usually costs a
    tree). The count with the least work is returned (the smaller on ties: fewer trees per
    link, and a multiple of ``k`` reaches the optimum exactly, which a larger count's packing
    may miss by a tree).

    Parameters
    ----------
    optimum : Fraction or float
        The cut bound ``rho*`` in links.
    nranks : int
    nbytes : int
        Collective size.
    chunk_bytes : int
        Pipelining unit (the ``booksim`` and ``paper`` presets: 12288).
    candidates : iterable of int
        Part counts to consider (ignored when ``loads`` is given).
    loads : mapping, optional
        Part count -> the load its packing reached (``stats["parts"]["max_load"]``).

    Returns
    -------
    int

    Raises
    ------
    SpecError
        Non-positive sizes or no candidate.

    Examples
    --------
    >>> choose_parts(Fraction(256, 63), 64, 1 << 20)  # 1.33 chunks per rank: 2 trees of 1 chunk
    2
    >>> choose_parts(Fraction(256, 63), 64, 512 << 20)  # 682.7 chunks: 4 trees of 171
    4
    >>> choose_parts(Fraction(256, 63), 64, 32 << 20, loads={1: Fraction(17), 4: Fraction(63)})
    4
    """
    if nranks < 1 or nbytes < 1 or chunk_bytes < 1:
        raise SpecError("choose_parts needs positive nranks, nbytes and chunk_bytes")
    rho = Fraction(str(optimum)) if isinstance(optimum, float) else Fraction(optimum)
    counts = sorted(loads) if loads is not None else sorted(set(candidates))
    best: tuple[Fraction, int] | None = None
    for k in counts:
        if k < 1:
            continue
        load = Fraction(loads[k]) if loads is not None else estimated_load(rho, nranks, k)
        work = load * math.ceil(nbytes / (nranks * k * chunk_bytes))
        if best is None or work < best[0]:
            best = (work, k)
    if best is None:
        raise SpecError("choose_parts needs at least one positive candidate")
    return best[1]
