"""Start partitions for :func:`supermesh.trees.roots.sets.root_sets`, and their repair.

:func:`eccentricity_groups` deals the chiplets into sets of ``k`` by decreasing eccentricity,
spread round the clock (:func:`clock_angles`); :func:`paper_start` is the paper's partition as an
alternative start on grids; :func:`repair` makes every set feasible by swaps guided by Edmonds
certificates; :func:`ring_order` is the paper's running order, a start for the order search. See
:mod:`supermesh.trees.roots.sets` for the objective and the search.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import networkx as nx

from supermesh.errors import TopologyError

if TYPE_CHECKING:
    from supermesh.trees.roots.search import SetPacker

__all__ = ["clock_angles", "eccentricity_groups", "paper_start", "repair", "ring_order"]

Roots = tuple[int, ...]


def clock_angles(G: nx.MultiDiGraph, nodes: Sequence[int]) -> dict[int, float]:
    """Degrees clockwise from north around the centre of ``nodes`` (by their ``pos``).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Nodes with a ``pos`` (x, y) attribute, y up; without it every angle is 0.
    nodes : sequence of int

    Returns
    -------
    dict
        Node -> angle in ``[0, 360)``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> clock_angles(build("mesh:3x3"), [1, 5, 7, 3])  # north, east, south, west of the centre
    {1: 0.0, 5: 90.0, 7: 180.0, 3: 270.0}
    """
    pos = {v: G.nodes[v].get("pos") for v in nodes}
    if any(p is None for p in pos.values()):
        return dict.fromkeys(nodes, 0.0)
    cx = sum(p[0] for p in pos.values()) / len(pos)
    cy = sum(p[1] for p in pos.values()) / len(pos)
    return {
        v: round((90.0 - math.degrees(math.atan2(p[1] - cy, p[0] - cx))) % 360.0, 6)
        for v, p in pos.items()
    }


def _spread(chosen: list[int], pool: list[int], need: int, clock: dict[int, float]) -> list[int]:
    """``need`` nodes of ``pool`` picked one by one, each farthest round the clock from the set."""
    picks: list[int] = []
    for _ in range(need):

        def gap(v: int) -> float:
            ds = [abs(clock[v] - clock[w]) % 360.0 for w in chosen + picks]
            return min((min(d, 360.0 - d) for d in ds), default=0.0)

        picks.append(
            max((v for v in pool if v not in picks), key=lambda v: (gap(v), -pool.index(v)))
        )
    return picks


def eccentricity_groups(ecc: dict[int, int], clock: dict[int, float], k: int) -> list[Roots]:
    """Sets of ``k`` that meet the partition lower bound, spread round the clock.

    Chiplets in decreasing eccentricity; those of equal eccentricity sorted clockwise and dealt
    out every ``m``-th, so the sum over the sets of their largest eccentricity is
    :func:`~supermesh.trees.roots.size.partition_lower_bound` (without ``set_bound``).

    Parameters
    ----------
    ecc : dict
        Chiplet -> eccentricity.
    clock : dict
        Chiplet -> angle (:func:`clock_angles`).
    k : int
        Roots per set.

    Returns
    -------
    list of tuple
        The sets, each sorted; the last may be smaller.

    Examples
    --------
    >>> ecc = {0: 2, 1: 2, 2: 1, 3: 1, 4: 0}
    >>> eccentricity_groups(ecc, {0: 0.0, 1: 180.0, 2: 90.0, 3: 270.0, 4: 0.0}, 2)
    [(0, 1), (2, 3), (4,)]
    """
    sets: list[Roots] = []
    carry: list[int] = []
    for e in sorted(set(ecc.values()), reverse=True):
        block = sorted((v for v in ecc if ecc[v] == e), key=lambda v: (clock[v], v))
        if carry:
            need = k - len(carry)
            if len(block) < need:
                carry += block
                continue
            picks = _spread(carry, block, need, clock)
            sets.append(tuple(sorted(carry + picks)))
            block = [v for v in block if v not in picks]
            carry = []
        q, r = divmod(len(block), k)
        if r:
            leave = {block[(i * len(block)) // r] for i in range(r)}
            carry = [v for v in block if v in leave]
            block = [v for v in block if v not in leave]
        sets += [tuple(sorted(block[j::q])) for j in range(q)]
    if carry:
        sets.append(tuple(sorted(carry)))
    return sets


def repair(ev: SetPacker, sets: list[Roots]) -> list[Roots] | None:
    """Make every set feasible by swaps guided by Edmonds certificates.

    A set whose roots fail Edmonds' condition has a certificate: a node set ``X`` that too few
    arcs enter for the trees rooted outside it. Swapping one of its roots outside ``X`` with a
    chiplet inside ``X`` (from another set that stays feasible) removes that shortage.

    Parameters
    ----------
    ev : SetPacker
    sets : list of tuple

    Returns
    -------
    list of tuple or None
        The repaired partition, or ``None`` when no such swap is left.
    """
    sets = list(sets)
    for _ in range(4 * len(sets) + 4):
        bad = [i for i, s in enumerate(sets) if ev.certificate(s) is not None]
        if not bad:
            return sets
        i = bad[0]
        cert = ev.certificate(sets[i]) or {}
        inside = set(cert.get("set", ()))
        options = []
        for j, other in enumerate(sets):
            for b in other if j != i else ():
                for a in sets[i]:
                    if b in inside and a not in inside:
                        A = tuple(sorted({*sets[i], b} - {a}))
                        B = tuple(sorted({*other, a} - {b}))
                        options.append((ev.bound(A) + ev.bound(B), j, a, b, A, B))
        for _, j, _a, _b, A, B in sorted(options):
            if ev.certificate(A) is None and ev.certificate(B) is None:
                sets[i], sets[j] = A, B
                break
        else:
            return None
    return None


def paper_start(G: nx.MultiDiGraph, ev: SetPacker, k: int) -> list[Roots] | None:
    """The paper's partition as a start, if the topology is a grid and every set is feasible.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ev : SetPacker
        Gives the Edmonds certificates of the sets (cached).
    k : int
        Roots per set.

    Returns
    -------
    list of tuple or None
        The sets of :func:`~supermesh.trees.roots.paper.paper_root_sets` (each sorted), or
        ``None`` if ``G`` is not a grid or a set admits no arc-disjoint trees.
    """
    from supermesh.trees.roots.paper import paper_root_sets

    try:
        sets = [tuple(sorted(s)) for s in paper_root_sets(G, k=k)]
    except TopologyError:
        return None
    return sets if all(ev.certificate(s) is None for s in sets) else None


def ring_order(G: nx.MultiDiGraph, sets: list[Roots]) -> list[list[int]]:
    """The paper's running order for these sets (by their first chiplet on the ring walk).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    sets : list of tuple

    Returns
    -------
    list of list of int
        One order of the set indices (``[]`` if ``G`` is not a grid), as ``starts`` for
        :func:`~supermesh.trees.roots.order.order_sets`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> ring_order(build("mesh:3x3"), [(4,), (1, 3), (0, 2)])  # centre last, corners first
    [[2, 1, 0]]
    """
    from supermesh.topologies.model import grid_positions
    from supermesh.trees.roots.paper import ring_walk

    try:
        rows, cols, where = grid_positions(G)
    except TopologyError:
        return []
    place = {where[p]: i for i, p in enumerate(ring_walk(rows, cols))}
    return [sorted(range(len(sets)), key=lambda i: min(place[v] for v in sets[i]))]
