"""Column generation for weighted tree packings of bounded height (the throughput LP).

Every rank ``r`` roots trees ``T`` of height at most ``H`` that carry its data at rates
``z_T``; all trees run at once. The master LP (GLOP, OR-Tools' simplex) is::

    max lambda   s.t.   sum_{T rooted at r} z_T >= lambda      for every rank r   (duals mu_r)
                        sum_{T uses a} z_T      <= c_a         for every arc a    (duals pi_a)

``n lambda`` is the algorithm bandwidth in links. Parallel arcs are separate rows, so every tree
names the link it uses and a link's load is exactly what the simulator puts on it. A tree rooted
at ``r`` improves the master iff its price ``sum_{a in T} pi_a`` is below ``mu_r``: the pricing
problem is a minimum-cost arborescence of height at most ``H``
(:mod:`supermesh.trees.throughput.pricing`).

Symmetry: with a group of automorphisms (:mod:`supermesh.topologies.symmetry`) the LP is
solved over orbits (one row per orbit of roots and of arcs; a column is a tree and all its images
at equal rate), which loses nothing (an optimal packing averaged over the group is optimal and
symmetric) and divides the work by up to 8.

The data (:class:`Network`, :class:`Column`, :class:`Progress`) are in
:mod:`supermesh.trees.throughput.model`, the master LP in :mod:`supermesh.trees.throughput.master`,
the LP-duality proof that a height cap cannot reach a rate in
:mod:`supermesh.trees.throughput.exact`.

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024 (fractional tree packings reach the cut bound).
.. [2] G. Desaulniers, J. Desrosiers, M. M. Solomon (eds.), "Column Generation", Springer, 2005.
"""

from __future__ import annotations

import time

from supermesh.trees.throughput.master import Master
from supermesh.trees.throughput.model import Column, Network, Progress
from supermesh.trees.throughput.pricing import ABSENT, Pricing, bfs_labels, label_search

__all__ = ["column_generation"]

_TOL = 1e-9


def _seeds(net: Network, root: int, height: int, progress: Progress) -> list[list[int]]:
    """Starting labellings for ``root``: BFS, and its last column's; none if no tree fits."""
    dist = bfs_labels(len(net.nodes), net.arcs, root)
    if any(not (0 <= dist[v] <= height) for v in net.ranks):
        return []  # some rank is farther than the cap (or unreachable): no tree at all
    bfs = [d if 0 <= d <= height else ABSENT for d in dist]
    seeds = [bfs]
    warm = progress.last_labels.get(root)
    if warm is not None and max(warm) <= height and list(warm) != bfs:
        seeds.append(list(warm))
    return seeds


def _add(progress: Progress, master: Master, col: Column) -> bool:
    key = (col.root, col.arcs)
    if key in progress.keys:
        return False
    progress.keys.add(key)
    progress.columns.append(col)
    master.add(col)
    return True


def column_generation(
    net: Network,
    height: int,
    target: float,
    progress: Progress,
    *,
    deadline: float,
    max_iterations: int = 100_000,
) -> bool:
    """Run column generation with height cap ``height`` until the rate reaches ``target``.

    Parameters
    ----------
    net : Network
    height : int
        Height cap ``H``.
    target : float
        Per-rank rate ``lambda`` to stop at.
    progress : Progress
        Columns so far (all must have height at most ``height``); updated in place.
    deadline : float
        ``time.perf_counter()`` value to stop at.
    max_iterations : int
        LP solves at most.

    Returns
    -------
    bool
        True if the rate reached ``target``; False when the heuristic pricing found no
        improving tree (or the time ran out) below it.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))  # 9/4 links / 9
    True
    >>> round(progress.lam * 9, 9)
    2.25
    """
    master = Master(net, progress)
    n = len(net.nodes)
    cap = {r: min(height, progress.caps.get(r, height)) for r in net.reps}
    if not progress.columns:
        for r in net.reps:
            seeds = _seeds(net, r, cap[r], progress)
            if not seeds:
                continue
            seed = seeds[0]
            tree = label_search(
                Pricing(n, net.arcs, [0.0] * len(net.arcs)), r, cap[r], seed, net.relay
            )
            _add(progress, master, Column(r, tree.arcs, tree.height, tree.labels))
    for _ in range(max_iterations):
        master = master.solve(progress)
        if progress.lam >= target * (1 - _TOL):
            return True
        if time.perf_counter() > deadline:
            return False
        pricing = Pricing(n, net.arcs, progress.prices)
        added = 0
        for r in net.reps:
            if r in progress.closed:
                continue
            threshold = progress.mu[r] - _TOL * max(1.0, progress.mu[r])
            for seed in _seeds(net, r, cap[r], progress):
                tree = label_search(pricing, r, cap[r], seed, net.relay)
                if tree.cost < threshold:
                    col = Column(r, tree.arcs, tree.height, tree.labels)
                    if _add(progress, master, col):
                        added += 1
                        progress.last_labels[r] = tree.labels
        if not added:
            return False
    return False
