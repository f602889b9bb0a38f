"""CP-SAT polish of an equal-part packing: ``K`` trees per rank, fewest trees on any arc.

The dive of :func:`supermesh.trees.throughput.parts.dive_parts` is fast but greedy. This model
takes its trees as a hint and searches all trees of height at most ``H`` at once: one tree per
*slot* (``K |orbit(r)| / |group|`` slots per root orbit representative ``r``; every image of a
slot's tree under the group is used too), a parent per node and slot, integer depths with
``depth(child) = depth(parent) + 1`` on chosen arcs (the height cap), and per arc orbit
``sum over slots of (trees on each arc of the orbit) <= L * bandwidth``. It minimises ``L``;
``L >= n K / rho*`` (the cut bound) proves optimality when reached, and then the packing reaches
the optimal rate exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ortools.sat.python import cp_model

from supermesh.trees.cpsat import new_solver
from supermesh.trees.throughput.model import Column, Network
from supermesh.trees.throughput.pricing import ABSENT, bfs_labels

__all__ = ["POLISH_GRID", "polish_parts"]

POLISH_GRID = 1 << 12
"""The finest capacity step the CP-SAT model holds exactly: capacities whose common
denominator is larger (a topology file's ``bandwidth: 0.7071``, 7071/10000; booksim's held long
wires, ``b / l`` floats with denominators near 2^52, whose scaled loads overflowed the model's
64-bit integers) are rounded down to multiples of ``1 / POLISH_GRID``. Steps of 2^-12 lose at
most 0.05% of a half-rate wire; at 2^-16 CP-SAT took 7 s on Kite-medium 4x4's held in-links
for the trees it finds in 0.65 s at 2^-12."""


def _slot(
    model: cp_model.CpModel,
    net: Network,
    root: int,
    height: int,
    hint: Column | None,
) -> dict[int, cp_model.IntVar]:
    """Variables of one slot's tree: arc -> chosen literal (depth and parent constraints)."""
    n = len(net.nodes)
    dist = bfs_labels(n, net.arcs, root)
    depth: list[Any] = []
    present: list[Any] = []
    for v in range(n):
        reach = 0 <= dist[v] <= height
        if v == root:
            depth.append(model.new_constant(0))
            present.append(model.new_constant(1))
        elif not reach:
            depth.append(model.new_constant(0))
            present.append(model.new_constant(0))
        else:
            depth.append(model.new_int_var(dist[v], height, ""))
            present.append(model.new_bool_var("") if net.relay[v] else model.new_constant(1))
    into: list[list[Any]] = [[] for _ in range(n)]
    chosen: dict[int, cp_model.IntVar] = {}
    used = set(hint.arcs) if hint is not None else set()
    for a, (u, v) in enumerate(net.arcs):
        if v == root or not (0 <= dist[u] < height) or not (0 <= dist[v] <= height):
            continue
        x = model.new_bool_var("")
        chosen[a] = x
        into[v].append(x)
        model.add(depth[v] == depth[u] + 1).only_enforce_if(x)
        model.add_implication(x, present[u])
        if hint is not None:
            model.add_hint(x, a in used)
    for v in range(n):
        if v != root:
            model.add(sum(into[v]) == present[v])
            if hint is not None and hint.labels[v] != ABSENT and dist[v] >= 0 and v != root:
                model.add_hint(depth[v], hint.labels[v])
    return chosen


def _prune(net: Network, arcs: list[int]) -> tuple[int, ...]:
    """Drop relays left as leaves (their arcs carry data nobody needs)."""
    kids = [0] * len(net.nodes)
    into = {}
    for a in arcs:
        u, v = net.arcs[a]
        kids[u] += 1
        into[v] = a
    leaves = [v for v in into if net.relay[v] and kids[v] == 0]
    while leaves:
        v = leaves.pop()
        u = net.arcs[into.pop(v)][0]
        kids[u] -= 1
        if u in into and net.relay[u] and kids[u] == 0:
            leaves.append(u)
    return tuple(sorted(into.values()))


def polish_parts(
    net: Network,
    height: int,
    parts: int,
    optimum: Fraction,
    hint: Sequence[tuple[Column, int]],
    *,
    caps: Mapping[int, int] | None = None,
    time_limit: float,
    workers: int = 1,
    seed: int = 0,
) -> tuple[list[Column], Fraction, bool] | None:
    """Re-choose the slot trees to minimise the most loaded arc (see the module docstring).

    Parameters
    ----------
    net : Network
        ``parts`` must fit its orbits.
    height : int
        Height cap.
    parts : int
        ``K``.
    optimum : Fraction
        The cut bound (links).
    hint : sequence of (Column, int)
        A starting choice (columns at representatives with multiplicities).
    caps : mapping, optional
        Per-representative height caps below ``height``.
    time_limit : float
    workers, seed : int

    Returns
    -------
    (list of Column, Fraction, bool) or None
        One column per slot, the load ``L`` reached (trees per unit of bandwidth on the most
        loaded arc) and whether it is proven minimal; None if nothing was found in time.
    """
    n = len(net.ranks)
    slots: list[tuple[int, Column | None]] = []
    given: dict[int, list[Column]] = {}
    for col, m in hint:
        given.setdefault(col.root, []).extend([col] * m)
    for r in net.reps:
        need = int(Fraction(parts * net.root_orbit[r], net.order))
        mine = given.get(r, [])
        slots += [(r, mine[i] if i < len(mine) else None) for i in range(need)]
    bandwidth: dict[int, Fraction] = {}
    for a, o in enumerate(net.arc_orbit):
        bandwidth.setdefault(o, net.cap_exact[a])
    scale = math.lcm(*(c.denominator for c in bandwidth.values()))
    exact = scale <= POLISH_GRID
    if not exact:
        # capacities from measured wires (a sqrt length, 0.7071 typed in a file) have
        # denominators past CP-SAT's 64-bit integers: rounded down, the model is stricter than
        # the network, so what it finds fits, but its optimum proves nothing
        bandwidth = {
            o: max(Fraction(1, POLISH_GRID), Fraction(math.floor(b * POLISH_GRID), POLISH_GRID))
            for o, b in bandwidth.items()
        }
        scale = POLISH_GRID
    lower = Fraction(n * parts) / optimum
    model = cp_model.CpModel()
    top = math.ceil(n * parts / min(bandwidth.values())) * scale
    load = model.new_int_var(math.ceil(lower * scale), max(top, math.ceil(lower * scale)), "L")
    terms: dict[int, list[tuple[Any, int]]] = {}
    chosen = []
    for r, start in slots:
        x = _slot(model, net, r, min(height, (caps or {}).get(r, height)), start)
        chosen.append(x)
        for a, lit in x.items():
            o = net.arc_orbit[a]
            terms.setdefault(o, []).append((lit, net.order // net.orbit_size[o]))
    for o, row in terms.items():
        # trees on an arc of o <= L * cap  (L = load / scale)
        model.add(
            sum(c * lit for lit, c in row) * scale * scale <= load * int(bandwidth[o] * scale)
        )
    model.minimize(load)
    solver = new_solver(time_limit=time_limit, workers=workers, seed=seed)
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    columns = []
    for (r, _), x in zip(slots, chosen, strict=True):
        arcs = _prune(net, [a for a, lit in x.items() if solver.value(lit)])
        labels = [ABSENT] * len(net.nodes)
        labels[r] = 0
        parent = {net.arcs[a][1]: net.arcs[a][0] for a in arcs}
        for v in parent:
            chain = [v]
            while chain[-1] in parent and labels[chain[-1]] == ABSENT:
                chain.append(parent[chain[-1]])
            base = labels[chain[-1]]
            for depth, w in enumerate(reversed(chain[:-1]), start=1):
                labels[w] = base + depth
        columns.append(Column(r, arcs, max(labels), tuple(labels)))
    reached = Fraction(int(solver.value(load)), scale)
    proved = (exact and status == cp_model.OPTIMAL) or reached <= lower
    return columns, reached, proved
