"""Pricing for the throughput LP: cheapest spanning tree of bounded height under arc prices.

Column generation (:mod:`supermesh.trees.throughput.lp`) needs, for a root ``r``, arc prices
``c`` and a height cap ``H``, an out-tree of height at most ``H`` with a small total price (a
minimum-cost arborescence with a hop limit, NP-hard in general). Two oracles:

:func:`label_search` (heuristic, fast)
    A tree of height at most ``H`` is a labelling ``depth(v)`` with a parent one label lower for
    every node; for fixed labels the cheapest tree takes each node's cheapest in-arc from the
    layer above, independently (any such choice is a tree). The search starts from a labelling
    (BFS distances: the cheapest shortest-path tree; or the labels of this root's last column)
    and moves one node at a time to the label that most lowers the price of itself and its
    children, until no move helps. Relays (nodes outside the span) may also leave the tree.
:func:`exact_price` (CP-SAT)
    The same problem as a model (a parent per node, integer depths, ``depth(child) =
    depth(parent) + 1`` on chosen arcs), solved to optimality or to a time limit; its best bound
    is a valid lower bound on the cheapest price, which is what a proof of height-minimality
    needs (:func:`supermesh.trees.throughput.lp.height_upper_bound`).

Both work on node indices ``0 .. n-1`` and arcs given as ``(parent, child)`` index pairs in the
orientation the data flow (out-trees).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from supermesh.trees.cpsat import new_solver

__all__ = ["PricedTree", "Pricing", "bfs_labels", "exact_price", "label_search"]

ABSENT = -1
_EPS = 1e-12
_SCALE = 1_000_000  # price units per 1.0 in the CP-SAT model


@dataclass(frozen=True)
class PricedTree:
    """A tree found by a pricing oracle.

    Attributes
    ----------
    arcs : tuple of int
        Arc ids (sorted).
    cost : float
        Total price.
    height : int
        Largest depth.
    labels : tuple of int
        Depth of every node (``-1`` for a relay left out).
    """

    arcs: tuple[int, ...]
    cost: float
    height: int
    labels: tuple[int, ...]


class Pricing:
    """Arc prices turned into per-node adjacency (cheapest parallel arc per node pair).

    Parameters
    ----------
    n : int
        Number of nodes.
    arcs : sequence of (parent, child)
        Arc ends by index.
    cost : sequence of float
        Price of each arc.
    """

    def __init__(self, n: int, arcs: Sequence[tuple[int, int]], cost: Sequence[float]) -> None:
        best: dict[tuple[int, int], int] = {}
        for i, (u, v) in enumerate(arcs):
            j = best.get((u, v))
            if j is None or cost[i] < cost[j]:
                best[(u, v)] = i
        self.n = n
        self.into: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        self.out: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for (u, v), i in sorted(best.items()):
            self.into[v].append((u, float(cost[i]), i))
            self.out[u].append((v, float(cost[i])))


def bfs_labels(n: int, arcs: Sequence[tuple[int, int]], root: int) -> list[int]:
    """Hop distance from ``root`` to every node (``-1`` where unreachable).

    Examples
    --------
    >>> bfs_labels(3, [(0, 1), (1, 2)], 0)
    [0, 1, 2]
    """
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in arcs:
        succ[u].append(v)
    dist = [ABSENT] * n
    dist[root] = 0
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in succ[u]:
            if dist[v] == ABSENT:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def _node_cost(p: Pricing, lab: list[int], v: int) -> float:
    level = lab[v]
    if level <= 0:
        return 0.0
    best = math.inf
    for u, c, _ in p.into[v]:
        if lab[u] == level - 1 and c < best:
            best = c
    return best


def label_search(
    p: Pricing,
    root: int,
    height: int,
    seed: Sequence[int],
    relay: Sequence[bool],
    *,
    sweeps: int = 12,
) -> PricedTree:
    """Local search over depth labellings for a cheap tree of height at most ``height``.

    Parameters
    ----------
    p : Pricing
        Prices and adjacency.
    root : int
        Root index.
    height : int
        Height cap ``H``.
    seed : sequence of int
        A feasible labelling to start from (depths; ``-1`` for relays left out): every present
        node but the root has an in-neighbour one label lower, and labels are at most ``H``.
    relay : sequence of bool
        Nodes that may be left out.
    sweeps : int
        Maximum passes over the nodes.

    Returns
    -------
    PricedTree

    Examples
    --------
    >>> p = Pricing(3, [(0, 1), (0, 2), (1, 2)], [1.0, 5.0, 1.0])
    >>> label_search(p, 0, 2, [0, 1, 1], [False] * 3).arcs  # node 2 moves under node 1
    (0, 2)
    >>> label_search(p, 0, 1, [0, 1, 1], [False] * 3).arcs  # height 1: the direct arc
    (0, 1)
    """
    n = p.n
    lab = list(seed)
    cost = [_node_cost(p, lab, v) for v in range(n)]
    order = sorted(range(n), key=lambda v: (lab[v], v))
    for sweep in range(sweeps):
        changed = False
        for v in order if sweep % 2 == 0 else reversed(order):
            if v == root:
                continue
            cur = lab[v]
            succ = [(w, c) for w, c in p.out[v] if w != root and lab[w] > 0]
            best_total = cost[v] + sum(cost[w] for w, _ in succ)
            best_label = cur
            cands = {lab[u] + 1 for u, _, _ in p.into[v] if 0 <= lab[u] < height}
            if relay[v]:
                cands.add(ABSENT)
            cands.discard(cur)
            for level in sorted(cands):
                total = (
                    0.0
                    if level == ABSENT
                    else min(c for u, c, _ in p.into[v] if lab[u] == level - 1)
                )
                for w, cw in succ:
                    above = lab[w] - 1
                    if above == cur:  # w loses v as a parent candidate
                        alt = math.inf
                        for u, c, _ in p.into[w]:
                            if u != v and lab[u] == above and c < alt:
                                alt = c
                        total += alt
                    elif above == level:
                        total += min(cost[w], cw)
                    else:
                        total += cost[w]
                    if total >= best_total:
                        break
                if total < best_total - _EPS:
                    best_total, best_label = total, level
            if best_label != cur:
                lab[v] = best_label
                cost[v] = _node_cost(p, lab, v)
                for w, _ in succ:
                    cost[w] = _node_cost(p, lab, w)
                changed = True
        if not changed:
            break
    return _extract(p, root, lab, relay)


def _extract(
    p: Pricing, root: int, lab: list[int], relay: Sequence[bool] | None = None
) -> PricedTree:
    """The cheapest tree for the labels; relays left as leaves are dropped (they carry nothing)."""
    parent: dict[int, tuple[float, int, int]] = {}
    for v in range(p.n):
        if v == root or lab[v] <= 0:
            continue
        best = min(
            ((c, u, i) for u, c, i in p.into[v] if lab[u] == lab[v] - 1),
            default=None,
        )
        if best is None:
            raise ValueError(f"label {lab[v]} of node {v} has no parent one level up")
        parent[v] = best
    if relay is not None:
        kids = [0] * p.n
        for _, u, _ in parent.values():
            kids[u] += 1
        leaves = [v for v in parent if relay[v] and kids[v] == 0]
        while leaves:
            v = leaves.pop()
            u = parent.pop(v)[1]
            lab[v] = ABSENT
            kids[u] -= 1
            if u != root and relay[u] and kids[u] == 0:
                leaves.append(u)
    arcs = tuple(sorted(i for _, _, i in parent.values()))
    total = sum(c for c, _, _ in parent.values())
    return PricedTree(arcs, total, max(lab), tuple(lab))


def exact_price(
    p: Pricing,
    root: int,
    height: int,
    dist: Sequence[int],
    relay: Sequence[bool],
    *,
    time_limit: float = 10.0,
    workers: int = 1,
    seed: int = 0,
    hint: Sequence[int] | None = None,
) -> tuple[PricedTree | None, float, bool]:
    """The cheapest tree of height at most ``height`` by CP-SAT, with a proven lower bound.

    Prices are rounded down to multiples of ``1e-6`` in the model, so the bound returned (the
    model's best bound over ``1e6``) is a valid lower bound on the true cheapest price.

    Parameters
    ----------
    p : Pricing
    root, height : int
    dist : sequence of int
        BFS distances from the root (lower bounds on the depths; ``-1`` unreachable).
    relay : sequence of bool
        Nodes that may be left out.
    time_limit : float
    workers, seed : int
        CP-SAT settings.
    hint : sequence of int, optional
        A labelling to start from.

    Returns
    -------
    (PricedTree or None, float, bool)
        The best tree found (None if none), a lower bound on the cheapest price, and whether the
        search proved optimality.

    Examples
    --------
    >>> p = Pricing(3, [(0, 1), (0, 2), (1, 2)], [1.0, 5.0, 1.0])
    >>> tree, bound, proved = exact_price(p, 0, 1, [0, 1, 1], [False] * 3)
    >>> tree.arcs, bound, proved
    ((0, 1), 6.0, True)
    """
    n = p.n
    model = cp_model.CpModel()
    present = []
    depth = []
    for v in range(n):
        if v == root:
            present.append(model.new_constant(1))
            depth.append(model.new_constant(0))
            continue
        if dist[v] == ABSENT or dist[v] > height:
            if not relay[v]:
                return None, math.inf, True  # a span node out of reach
            present.append(model.new_constant(0))
            depth.append(model.new_constant(0))
            continue
        present.append(model.new_constant(1) if not relay[v] else model.new_bool_var(f"in{v}"))
        depth.append(model.new_int_var(dist[v], height, f"d{v}"))
    choose: dict[int, cp_model.IntVar] = {}
    objective = []
    for v in range(n):
        if v == root:
            continue
        lits = []
        for u, c, i in p.into[v]:
            if dist[u] == ABSENT or dist[u] >= height or dist[v] == ABSENT or dist[v] > height:
                continue
            x = model.new_bool_var(f"x{i}")
            choose[i] = x
            lits.append(x)
            model.add(depth[v] == depth[u] + 1).only_enforce_if(x)
            model.add_implication(x, present[u])
            objective.append(math.floor(c * _SCALE) * x)
        model.add(sum(lits) == present[v])
    model.minimize(sum(objective))
    if hint is not None:
        for v in range(n):
            if v != root and dist[v] != ABSENT and dist[v] <= hint[v] <= height:
                model.add_hint(depth[v], hint[v])
    solver = new_solver(time_limit=time_limit, workers=workers, seed=seed)
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return None, math.inf, True
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, float(solver.best_objective_bound) / _SCALE, False
    lab = [ABSENT] * n
    for v in range(n):
        if solver.value(present[v]):
            lab[v] = int(solver.value(depth[v]))
    tree = _extract(p, root, lab, relay)
    return tree, float(solver.best_objective_bound) / _SCALE, status == cp_model.OPTIMAL
