"""Equal-part packings: every rank splits its data into ``K`` equal parts, one tree per part.

The exact LP shares (:mod:`supermesh.trees.throughput.exact`) have large denominators, and a
pipelined schedule with unequal shares gives its trees unequal chunk counts: a link serving the
chunks of several trees in chunk order then runs them at equal chunk rates, not in proportion to
their shares, and loses throughput (the reference's FIFO discipline, which the simulator copies).
With ``K`` equal parts per rank every tree carries the same number of chunks, so per-chunk round
robin is exactly the rate split the LP asked for.

Scaled by ``K``, the question is an integral one: choose ``K`` trees per rank (repeats allowed)
so that the most loaded arc carries as few trees ``L`` as possible per unit of bandwidth; the rate
is then ``n K / L`` links. With ``rho* / n = k / U`` in lowest terms, ``K = k`` and ``L = U``
reach the optimum exactly, and such trees exist without a height cap (Edmonds' branching theorem
on the network with every arc repeated ``U`` times, the argument of ForestColl). With a height
cap they are searched in two steps:

1. :func:`dive_parts`: from the LP optimum, fix column multiplicities a round at a time and
   re-optimise the rest by column generation (a price-and-dive heuristic; fast, greedy).
2. :func:`supermesh.trees.throughput.polish.polish_parts`: CP-SAT over all trees of height at
   most ``H``, hinted with the dive, minimising ``L`` (proved optimal when ``L = n K / rho*``).

Both work over the symmetry orbits when ``K`` splits evenly over them (:func:`fits`), else on the
plain network (:func:`unfold` carries the columns over).

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import SolverError, SpecError
from supermesh.trees.model import Tree
from supermesh.trees.throughput.lp import column_generation
from supermesh.trees.throughput.model import Column, Network, Progress
from supermesh.trees.throughput.polish import polish_parts

__all__ = [
    "AUTO_PARTS_MOST",
    "AUTO_PARTS_NEAR",
    "dive_parts",
    "expand_parts",
    "fits",
    "natural_parts",
    "split_parts",
    "unfold",
]

Choice = list[tuple[Column, int]]


AUTO_PARTS_MOST = 64
"""Most parts a rank ``"auto"`` asks for. The grid families need 1-16 (SMBi 8x8: 4, mesh 5x5:
8); a user's bandwidth of ``1 / sqrt(2)``, as a fraction, would need ~10^16 (``sim -a
throughput`` on such a file ran out of memory)."""
AUTO_PARTS_NEAR = Fraction(99, 100)
"""Where the exact count is past :data:`AUTO_PARTS_MOST`, ``"auto"`` doubles the count from 4
and stops at the first within this fraction of the bound: booksim's held long wires (rates
``1 / sqrt 2``, ``1 / sqrt 5``) reach 0.994-0.999 at 8 parts in 0.3-0.4 s, where 64 parts took
5-7 s and, on Kite-medium 4x4, only 0.879 (the dive does worse with more slots)."""


def natural_parts(net: Network, optimum: Fraction) -> int:
    """The smallest ``K`` with ``K`` parts per rank fitting the optimum and the orbits.

    ``K`` is a multiple of the numerator of ``rho* / n`` and makes ``K |orbit(r)| / |group|``
    an integer for every root orbit (a symmetric choice gives every image the same count).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.throughput import throughput_bound
    >>> G = build("smbi:4x4")
    >>> net = Network.build(G, list(range(16)), "out", True)
    >>> natural_parts(net, throughput_bound(G).value)  # 64/15 / 16 = 4/15
    4
    """
    k = (optimum / len(net.ranks)).numerator
    step = 1
    for r in net.reps:
        step = math.lcm(step, Fraction(net.order, net.root_orbit[r]).numerator)
    return math.lcm(k, step)


def fits(net: Network, parts: int) -> bool:
    """Whether ``parts`` splits evenly over every root orbit (a symmetric choice needs it).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("smbi:4x4"), list(range(16)), "out", True)
    >>> fits(net, 1), fits(net, 2)  # the corners' orbit has 4 of the group's 8 maps
    (False, True)
    """
    return all(Fraction(parts * net.root_orbit[r], net.order).denominator == 1 for r in net.reps)


def unfold(net: Network, plain: Network, progress: Progress) -> Progress:
    """The column pool of a symmetric solve, as columns (every image) of a plain network.

    ``plain`` is the same topology built without symmetry (same node and arc indices).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:3x3")
    >>> net = Network.build(G, list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> len(progress.columns), len(unfold(net, Network.build(G, list(range(9)), "out", False),
    ...                                   progress).columns)
    (3, 16)
    """
    out = Progress()
    for col in progress.columns:
        for g, perm in zip(net.group, net.arc_group, strict=True):
            labels = [0] * len(col.labels)
            for v, level in enumerate(col.labels):
                labels[g[v]] = level
            image = Column(
                g[col.root], tuple(sorted(perm[a] for a in col.arcs)), col.height, tuple(labels)
            )
            key = (image.root, image.arcs)
            if key not in out.keys:
                out.keys.add(key)
                out.columns.append(image)
                out.last_labels[image.root] = image.labels
    for r, cap in progress.caps.items():
        for g in net.group:
            out.caps[g[r]] = cap
    if plain.order != 1:
        raise ValueError("unfold needs a network built without symmetry")
    return out


def dive_parts(
    net: Network, progress: Progress, height: int, parts: int, *, deadline: float
) -> Choice:
    """``parts`` trees per rank by diving: fix column multiplicities a round at a time.

    Starting from the LP optimum, each round fixes the multiplicity ``m_j`` of the columns
    whose scaled value ``y_j = K w_j / (|group| lambda)`` is at least 1 (to its floor), or, if
    none is, rounds the largest ``y_j`` up to 1; a fixed column is tied to the rate
    (``w_j = |group| m_j lambda / K``), a root whose fixed multiplicities reach its quota takes
    no other tree, and column generation re-optimises the rest (new trees may enter). The rate
    only falls; the last LP is the integral packing.

    Parameters
    ----------
    net : Network
        Symmetric or not; ``parts`` must fit its orbits (:func:`fits`).
    progress : Progress
        The LP at its optimum for ``height`` (copied, not changed).
    height, parts : int
    deadline : float
        ``time.perf_counter()`` value limiting each re-optimisation.

    Returns
    -------
    list of (Column, int)
        Columns at representatives and their multiplicities (``K |orbit(r)| / |group|`` per
        representative ``r``).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> choice = dive_parts(net, progress, 4, 8, deadline=float("inf"))
    >>> sum(m for _, m in choice)  # 8 parts x orbit / 8 maps: corners 4, sides 4, centre 1
    9
    """
    if not fits(net, parts):
        raise ValueError(f"{parts} parts do not split evenly over the symmetry orbits")
    need = {r: int(Fraction(parts * net.root_orbit[r], net.order)) for r in net.reps}
    work = Progress()
    for col in progress.columns:
        if col.height <= height:
            work.columns.append(col)
            work.keys.add((col.root, col.arcs))
    work.last_labels = {r: v for r, v in progress.last_labels.items() if max(v) <= height}
    work.caps = dict(progress.caps)
    count: dict[int, int] = {}
    left = dict(need)
    column_generation(net, height, float("inf"), work, deadline=deadline)
    while len(work.closed) < len(net.reps):
        y = {
            j: parts * w / (net.order * work.lam) if work.lam > 0 else 0.0
            for j, w in enumerate(work.weights)
            if j not in count and work.columns[j].root not in work.closed and w > 0
        }
        fix = {j: min(left[work.columns[j].root], math.floor(v + 1e-6)) for j, v in y.items()}
        fix = {j: m for j, m in fix.items() if m >= 1}
        if not fix and y:
            fix = {max(y, key=lambda i: (y[i], -i)): 1}
        elif not fix:  # the LP left every open root at rate 0: give one a tree it already has
            fix = {_fallback_column(work, left, count): 1}
        for j, m in sorted(fix.items()):
            r = work.columns[j].root
            if m > left[r]:
                continue
            count[j] = count.get(j, 0) + m
            left[r] -= m
            work.fixed[j] = net.order * count[j] / parts
            if left[r] == 0:
                work.closed.add(r)
        column_generation(net, height, work.lam, work, deadline=deadline)
    return [(work.columns[j], m) for j, m in sorted(count.items())]


def _fallback_column(work: Progress, left: dict[int, int], count: dict[int, int]) -> int:
    """A column for the open root with the most trees left: its heaviest, else its most used.

    Used when the re-optimised LP gives no open root a positive rate (the fixed trees already
    fill its cut); the tree chosen may repeat one already fixed, which equal parts allow.
    """
    root = max((r for r, k in left.items() if k > 0), key=lambda r: (left[r], -r))
    mine = [j for j, c in enumerate(work.columns) if c.root == root]
    if not mine:
        raise SolverError(
            f"no tree of the allowed height rooted at {root} was found",
            hint="raise the height cap (max_height) or use another part count",
        )
    weights = work.weights
    return max(mine, key=lambda j: (count.get(j, 0), weights[j] if j < len(weights) else 0.0, -j))


def expand_parts(net: Network, choice: Choice, parts: int) -> tuple[list[Tree], Fraction]:
    """Every image of every chosen column, each ``m`` times, as trees of share ``1 / K``.

    Returns
    -------
    (list of Tree, Fraction)
        The trees and the load ``L``: trees per unit of bandwidth on the most loaded arc
        (the rate is ``n K / L`` links).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> trees, load = expand_parts(net, dive_parts(net, progress, 4, 8, deadline=1e9), 8)
    >>> len(trees), load  # 9 ranks x 8 parts; 9 x 8 / 32 = 9/4 links
    (72, Fraction(32, 1))
    """
    trees: list[Tree] = []
    load: dict[int, int] = {}
    for col, m in choice:
        for g, perm in zip(net.group, net.arc_group, strict=True):
            arcs = [perm[a] for a in col.arcs]
            for a in arcs:
                load[a] = load.get(a, 0) + m
            root = net.nodes[g[col.root]]
            tree = Tree(root, tuple(net.topo_arcs[a] for a in arcs), col.height, 1.0 / parts)
            trees += [tree] * m
    trees.sort(key=lambda t: (t.root, t.arcs))
    return trees, max(Fraction(x) / net.cap_exact[a] for a, x in load.items())


def split_parts(
    G: nx.MultiDiGraph,
    net: Network,
    progress: Progress,
    height: int,
    parts: int | str,
    optimum: Fraction,
    *,
    time_limit: float,
    workers: int = 1,
) -> tuple[list[Tree], dict[str, Any]]:
    """Equal-part trees: dive then polish, for one part count or ``"auto"``.

    ``"auto"`` tries the natural count (:func:`natural_parts`) and its double and triple,
    stopping at the first that reaches ``optimum``, and keeps the best; where the natural count
    is above :data:`AUTO_PARTS_MOST` (an irrational bandwidth), 4, 8, 16, ... parts up to it,
    stopping at the first within :data:`AUTO_PARTS_NEAR` of the bound (below it).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology ``net`` was built from (for a plain network when the count does not fit
        the orbits).
    net : Network
    progress : Progress
        The LP at its optimum for ``height``.
    height : int
    parts : int or "auto"
    optimum : Fraction
        The cut bound (links).
    time_limit : float
        Seconds per part count (dive and polish).
    workers : int
        CP-SAT workers.

    Returns
    -------
    (list of Tree, dict)
        ``n K`` trees of share ``1 / K`` (a tree may repeat) and ``{"parts", "max_load",
        "algbw_links", "load_bound", "proved", "method"}``; ``load_bound`` is ``n K / rho*``
        (rounded up with unit bandwidths: whole trees), ``proved`` that the load reached it.

    Raises
    ------
    SpecError
        A part count that is not a positive integer or ``"auto"``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:3x3")
    >>> net = Network.build(G, list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> trees, info = split_parts(G, net, progress, 4, "auto", Fraction(9, 4), time_limit=10)
    >>> info["parts"], info["algbw_links"], len(trees)  # the centre's orbit needs 8 parts
    (8, '9/4', 72)
    """
    if parts == "auto":
        base = natural_parts(net, optimum)
        # a bandwidth such as 1 / sqrt 2 makes the exact count astronomical (its numerator):
        # a few parts come within a percent of the bound, where many leave the dive lost
        counts = [base, 2 * base, 3 * base]
        near = None
        if base > AUTO_PARTS_MOST:
            counts = [k for k in (4, 8, 16, 32, 64) if k <= AUTO_PARTS_MOST]
            near = AUTO_PARTS_NEAR * optimum
    elif isinstance(parts, int) and not isinstance(parts, bool) and parts >= 1:
        counts, near = [parts], None
    else:
        raise SpecError(f"parts must be a positive integer or 'auto', got {parts!r}")
    n = len(net.ranks)
    best: tuple[list[Tree], dict[str, Any]] | None = None
    plain: tuple[Network, Progress] | None = None
    for count in counts:
        start = time.perf_counter()
        work_net, work = net, progress
        if not fits(net, count):
            if plain is None:
                flat = Network.build(
                    G, [net.nodes[r] for r in net.ranks], net.direction, symmetry=False
                )
                pool = unfold(net, flat, progress)
                column_generation(flat, height, progress.lam, pool, deadline=start + time_limit)
                plain = (flat, pool)
            work_net, work = plain
        choice = dive_parts(work_net, work, height, count, deadline=start + time_limit)
        trees, load = expand_parts(work_net, choice, count)
        method = "dive"
        lower = Fraction(n * count) / optimum
        if all(c == 1 for c in work_net.cap_exact):  # whole trees per arc: round the bound up
            lower = Fraction(math.ceil(lower))
        if load > lower:
            polished = polish_parts(
                work_net,
                height,
                count,
                optimum,
                choice,
                caps=work.caps,
                time_limit=time_limit,  # fixed, not what the dive left: repeatable
                workers=workers,
            )
            if polished is not None and polished[1] < load:
                choice = [(col, 1) for col in polished[0]]
                trees, load = expand_parts(work_net, choice, count)
                method = "dive+cpsat"
        rate = Fraction(n * count) / load
        info = {
            "parts": count,
            "max_load": str(load),
            "algbw_links": str(rate),
            "load_bound": str(lower),
            "proved": load == lower,
            "method": method,
        }
        if best is None or rate > Fraction(best[1]["algbw_links"]):
            best = (trees, info)
        if rate == optimum or (near is not None and rate >= near):
            break
    if best is None:  # pragma: no cover - counts is never empty
        raise SpecError("no part count to try")
    return best
