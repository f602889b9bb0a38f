"""From the LP's floating-point answer to exact shares, and the proof that a height is minimal.

:func:`exact_shares` turns the column weights into rational shares (continued-fraction rounding
at growing denominators), recomputes the rate they reach in exact arithmetic (the most loaded
arc decides) and expands every column into its images under the symmetry group. Nothing is
claimed from the floats: the rate reported is the exact one of the shares returned.

:func:`prove_height` tries to show that a height cap ``H`` cannot reach a rate: column
generation at ``H`` with exact (CP-SAT) pricing until the LP-duality bound of
:func:`height_upper_bound` falls below the rate, or the time runs out. The bound holds for any
arc prices ``pi >= 0`` (Lagrangian / LP duality): if every tree of height at most ``H`` rooted in
the orbit of ``r`` costs at least ``delta_r``, then
``lambda(H) <= sum_a c_a pi_a / sum_r |orbit(r)| delta_r``; CP-SAT's bound on the cheapest tree
is a valid ``delta_r``.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

from supermesh.trees.model import Tree
from supermesh.trees.throughput.lp import column_generation
from supermesh.trees.throughput.model import Column, Network, Progress
from supermesh.trees.throughput.pricing import PricedTree, Pricing, bfs_labels, exact_price

__all__ = ["exact_shares", "height_upper_bound", "prove_height"]

_TOL = 1e-9

_DENOMINATORS = (10**3, 10**4, 10**5, 10**6, 10**8, 10**12)
_MARGIN = 1e-6  # relative margin between a float upper bound and the rate it excludes
_PROOF_ROUNDS = 12  # pricing rounds a height proof may take
_PROOF_SLICES = 4  # each round's exact pricing gets this fraction of the proof's seconds


def _rate(
    net: Network, support: list[tuple[Column, Fraction]]
) -> tuple[Fraction, dict[int, Fraction]]:
    """Exact rate (links) of rational column weights, and each representative's total."""
    total: dict[int, Fraction] = {}
    for col, x in support:
        total[col.root] = total.get(col.root, Fraction(0)) + x / net.root_orbit[col.root]
    load: dict[int, Fraction] = {}
    for col, x in support:
        part = x / total[col.root]
        for a in col.arcs:
            o = net.arc_orbit[a]
            load[o] = load.get(o, Fraction(0)) + part / net.orbit_size[o]
    cap: dict[int, Fraction] = {}
    for a, o in enumerate(net.arc_orbit):
        cap.setdefault(o, net.cap_exact[a])
    n = len(net.ranks)
    return min(n * cap[o] / x for o, x in load.items() if x), total


def _solve(
    rows: list[dict[int, Fraction]], rhs: list[Fraction], unknowns: list[int]
) -> dict[int, Fraction] | None:
    """Solve a square linear system exactly (Gauss-Jordan over Fractions); None if singular."""
    eqs = [(dict(r), b) for r, b in zip(rows, rhs, strict=True)]
    solution: dict[int, Fraction] = {}
    pivots: list[tuple[int, dict[int, Fraction], Fraction]] = []
    for var in unknowns:
        k = next((i for i, (r, _) in enumerate(eqs) if r.get(var)), None)
        if k is None:
            return None
        row, b = eqs.pop(k)
        p = row[var]
        row = {v: c / p for v, c in row.items()}
        b = b / p
        for i, (r, bi) in enumerate(eqs):
            f = r.get(var)
            if f:
                for v, c in row.items():
                    r[v] = r.get(v, Fraction(0)) - f * c
                    if not r[v]:
                        del r[v]
                eqs[i] = (r, bi - f * b)
        pivots.append((var, row, b))
    for var, row, b in reversed(pivots):
        solution[var] = b - sum(c * solution[v] for v, c in row.items() if v != var)
    return solution


def _basis_weights(net: Network, progress: Progress) -> list[Fraction] | None:
    """Column weights ``w / lambda`` of the last optimal basis, in exact arithmetic."""
    if -1 not in progress.basic or len(progress.basic) != len(progress.tight):
        return None
    rows: list[dict[int, Fraction]] = []
    rhs: list[Fraction] = []
    cap: dict[int, Fraction] = {}
    for a, o in enumerate(net.arc_orbit):
        cap.setdefault(o, net.cap_exact[a])
    basic = set(progress.basic)
    for kind, key in progress.tight:
        row: dict[int, Fraction] = {}
        if kind == "root":
            row[-1] = Fraction(1)
            for j, col in enumerate(progress.columns):
                if j in basic and col.root == key:
                    row[j] = Fraction(-1, net.root_orbit[key])
            rhs.append(Fraction(0))
        else:
            for j, col in enumerate(progress.columns):
                if j in basic:
                    k = sum(1 for a in col.arcs if net.arc_orbit[a] == key)
                    if k:
                        row[j] = Fraction(k, net.orbit_size[key])
            rhs.append(cap[key])
        rows.append(row)
    sol = _solve(rows, rhs, progress.basic)
    if sol is None or sol[-1] <= 0 or any(x < 0 for x in sol.values()):
        return None
    lam = sol[-1]
    return [sol.get(j, Fraction(0)) / lam for j in range(len(progress.columns))]


def exact_shares(
    net: Network, progress: Progress, height: int
) -> tuple[list[Tree], list[Fraction], Fraction]:
    """Rational shares from the last LP solve, expanded over the group.

    Parameters
    ----------
    net : Network
    progress : Progress
        After a solve: ``columns``, ``weights`` and ``lam``.
    height : int
        Only columns of height at most this are used.

    Returns
    -------
    (list of Tree, list of Fraction, Fraction)
        The trees (topology arcs, float shares), their exact shares (summing to 1 per root)
        and the exact rate in links.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> trees, shares, rate = exact_shares(net, progress, 4)
    >>> rate, sum(s for t, s in zip(trees, shares) if t.root == 4)
    (Fraction(9, 4), Fraction(1, 1))
    """
    lam = progress.lam
    cols = [
        (c, w / lam)
        for c, w in zip(progress.columns, progress.weights, strict=False)
        if w > 0 and c.height <= height
    ]
    best: tuple[Fraction, list[tuple[Column, Fraction]], dict[int, Fraction]] | None = None
    exact = _basis_weights(net, progress)
    candidates = []
    if exact is not None:
        candidates.append(
            [(c, x) for c, x in zip(progress.columns, exact, strict=True) if c.height <= height]
        )
    for d in _DENOMINATORS:
        candidates.append([(c, Fraction(x).limit_denominator(d)) for c, x in cols])
    for candidate in candidates:
        support = [(c, x) for c, x in candidate if x > 0]
        if {c.root for c, _ in support} != set(net.reps):
            continue
        rate, total = _rate(net, support)
        if best is None or rate > best[0]:
            best = (rate, support, total)
    if best is None:
        raise ValueError("the LP solution leaves some rank without a tree")
    rate, support, total = best
    merged: dict[tuple[int, tuple[int, ...]], Fraction] = {}
    heights: dict[tuple[int, tuple[int, ...]], int] = {}
    order = net.order
    for col, x in support:
        share = x / (order * total[col.root])  # |group| / |orbit| images reach each root
        for g, perm in zip(net.group, net.arc_group, strict=True):
            key = (g[col.root], tuple(sorted(perm[a] for a in col.arcs)))
            merged[key] = merged.get(key, Fraction(0)) + share
            heights[key] = col.height
    items = sorted(merged.items(), key=lambda kv: (net.nodes[kv[0][0]], -kv[1], kv[0][1]))
    trees = [
        Tree(
            net.nodes[root],
            tuple(net.topo_arcs[a] for a in arcs),
            heights[(root, arcs)],
            float(share),
        )
        for (root, arcs), share in items
    ]
    return trees, [s for _, s in items], rate


def prove_height(
    net: Network,
    progress: Progress,
    height: int,
    target: float,
    *,
    time_limit: float,
    workers: int = 1,
) -> dict[str, Any]:
    """Try to prove that no packing of height at most ``height`` reaches per-rank rate ``target``.

    Returns
    -------
    dict
        ``proved`` (bool), ``height``, ``upper_bound_links`` (the best bound on ``n lambda`` at
        that cap), ``target_links``, ``rounds``, ``method``; ``reachable`` when exact pricing
        found trees that do reach the target at this cap (``progress_at_cap`` then holds them).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> prove_height(net, progress, 3, 0.25, time_limit=5)["proved"]  # corners need 4
    True
    """
    start = time.perf_counter()
    n = len(net.ranks)
    sub = Progress()
    for col in progress.columns:
        if col.height <= height:
            sub.columns.append(col)
            sub.keys.add((col.root, col.arcs))
    for r, labels in progress.last_labels.items():
        if max(labels) <= height:
            sub.last_labels[r] = labels
    out: dict[str, Any] = {
        "proved": False,
        "height": height,
        "target_links": target * n,
        "method": "LP duality with CP-SAT pricing",
        "rounds": 0,
    }
    best_ub = float("inf")
    # fixed slices, not the time left: every round's solves get the same limits (and CP-SAT
    # work caps) on any machine, so the verdict repeats; the clock is only a safety net
    slice_limit = max(1.0, time_limit / _PROOF_SLICES)
    out["stopped"] = "rounds"
    while out["rounds"] < _PROOF_ROUNDS:
        if time.perf_counter() - start > time_limit:
            out["stopped"] = "time limit"
            break
        if column_generation(net, height, target, sub, deadline=start + time_limit):
            out["reachable"] = True
            out["progress_at_cap"] = sub
            return out
        ub, _, better = height_upper_bound(
            net, height, sub, time_limit=slice_limit, workers=workers
        )
        out["rounds"] += 1
        best_ub = min(best_ub, ub)
        if best_ub < target * (1 - _MARGIN):
            out["proved"] = True
            out["stopped"] = "proved"
            break
        added = 0
        for tree in better:
            root = next(r for r in net.reps if tree.labels[r] == 0)
            col = Column(root, tree.arcs, tree.height, tree.labels)
            if (root, col.arcs) not in sub.keys:
                sub.columns.append(col)
                sub.keys.add((root, col.arcs))
                sub.last_labels[root] = tree.labels
                added += 1
        if not added:
            out["stopped"] = "no better tree"
            break
    out["upper_bound_links"] = best_ub * n
    out["lp_rate_links"] = sub.lam * n
    return out


def height_upper_bound(
    net: Network,
    height: int,
    progress: Progress,
    *,
    time_limit: float,
    workers: int = 1,
) -> tuple[float, bool, list[PricedTree]]:
    """Upper bound on the per-rank rate of any packing of height at most ``height``.

    Uses the last prices of ``progress`` and CP-SAT lower bounds on every root's cheapest tree
    (see the module docstring).

    Returns
    -------
    (float, bool, list of PricedTree)
        The bound, whether every pricing proved optimality, and the improving trees met (add
        them as columns and re-solve to tighten the bound).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> height_upper_bound(net, 3, progress, time_limit=5)[0]  # a corner is 4 hops away
    0.0
    """
    n = len(net.nodes)
    pricing = Pricing(n, net.arcs, progress.prices)
    per_root = time_limit / max(1, len(net.reps))
    total = 0.0
    proved = True
    better: list[PricedTree] = []
    for r in net.reps:
        dist = bfs_labels(n, net.arcs, r)
        tree, bound, ok = exact_price(
            pricing,
            r,
            height,
            dist,
            net.relay,
            time_limit=per_root,
            workers=workers,
            hint=progress.last_labels.get(r),
        )
        proved &= ok
        if math.isinf(bound):
            return 0.0, proved, []
        total += net.root_orbit[r] * max(0.0, bound)
        if tree is not None and tree.cost < progress.mu[r] * (1 - _TOL):
            better.append(tree)
    numerator = sum(
        net.orbit_cap[net.arc_orbit[a]] * progress.prices[a] for a in range(len(net.arcs))
    )
    if total <= 0:
        return math.inf, proved, better
    return numerator / total, proved, better
