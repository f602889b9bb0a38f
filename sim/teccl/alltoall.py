"""TE-CCL's AllToAll model over ``H`` epochs: integer flows per destination, and its LP.

Chunks heading to the same destination are interchangeable while they travel (TE-CCL's
commodities), so the model has one commodity per destination rank ``d`` instead of one per
source-destination pair (``n`` instead of ``n^2``; the same schedules):

- ``f[d, a, t]`` in ``0 .. cap(a)``: chunks for ``d`` crossing arc ``a = (u, v)`` in epoch ``t``,
  created where they can help: ``u != d``, ``t`` at least the distance from the nearest source
  to ``u`` and at most ``H - 1 - dist(v, d)`` (the chunk must still reach ``d``);
- ``b[d, u, t]`` the chunks for ``d`` buffered at ``u`` at the start of epoch ``t``:
  ``b[d, u, 0]`` = ``K`` at every other rank, ``b[d, u, t + 1] = b[d, u, t] + in - out``,
  ``out(t) <= b[d, u, t]`` (a chiplet forwards only chunks it holds), and ``b[d, u, H] = 0``
  (everything delivered).

Capacity: ``sum_d f[d, a, t] <= cap(a)``. :func:`alltoall_milp` asks CP-SAT whether ``H`` epochs
suffice; :func:`alltoall_lp` solves the relaxation with TE-CCL's early-delivery objective
(``sum (t + 1)`` over the chunks entering their destination). :func:`chunk_paths` turns integer
flows into the route of every chunk (chunk ids as in :mod:`~supermesh.sim.teccl.model`): each
chiplet forwards, per destination, the chunks it has held longest first, and a chunk that
comes back to a chiplet waits there instead (its round trip is cut out).

References
----------
.. [1] X. Liu et al., "Rethinking Machine Learning Collective Communication as a Multi-Commodity
   Flow Problem", ACM SIGCOMM 2024.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from supermesh.sim.teccl.model import Send
from supermesh.sim.teccl.network import Network
from supermesh.sim.teccl.solvers import CpsatAnswer, LpAnswer, new_lp, solve_cpsat

__all__ = ["alltoall_lp", "alltoall_milp", "alltoall_variables", "chunk_paths"]

Key = tuple[int, int, int]  # (destination rank position, arc position, epoch)


def alltoall_variables(net: Network, horizon: int) -> list[Key]:
    """The ``(destination, arc, epoch)`` triples the model has a variable for.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> len(alltoall_variables(network_of(build("mesh:2x2")), 1))  # one epoch: last hops only
    8
    """
    rank_pos = [net.index[r] for r in net.ranks]
    out: list[Key] = []
    for q, d in enumerate(rank_pos):
        sources = [p for p in rank_pos if p != d]
        first = net.dist[sources].min(axis=0)
        for i, a in enumerate(net.arcs):
            u, v = net.index[a[0]], net.index[a[1]]
            if u == d:
                continue
            for t in range(int(first[u]), horizon - int(net.dist[v, d])):
                out.append((q, i, t))
    return out


def _build(
    net: Network,
    chunks: int,
    horizon: int,
    keys: list[Key],
    flow: list[Any],
    new_buffer: Callable[[int], Any],
    add: Callable[[Any], Any],
) -> None:
    """Conservation with buffers and the capacities (module docstring) on ``flow``."""
    rank_pos = [net.index[r] for r in net.ranks]
    moves: dict[tuple[int, int, int], tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    per_arc: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, (q, i, t) in enumerate(keys):
        u, v = net.index[net.arcs[i][0]], net.index[net.arcs[i][1]]
        moves[(q, u, t)][1].append(j)
        moves[(q, v, t)][0].append(j)
        per_arc[(i, t)].append(j)
    total = chunks * (net.size - 1)
    for q, d in enumerate(rank_pos):
        for u in range(len(net.nodes)):
            if u == d:
                continue
            level: Any = chunks if u in rank_pos else 0
            for t in range(horizon):
                ins, outs = moves.get((q, u, t), ([], []))
                if outs:
                    add(sum(flow[j] for j in outs) <= level)
                if ins or outs:
                    nxt = new_buffer(total)
                    add(nxt == level + sum(flow[j] for j in ins) - sum(flow[j] for j in outs))
                    level = nxt
            if isinstance(level, int):
                if level:
                    raise _Infeasible
            else:
                add(level == 0)
    for js in per_arc.values():
        add(sum(flow[j] for j in js) <= int(net.cap[keys[js[0]][1]]))


def alltoall_milp(
    net: Network,
    chunks: int,
    horizon: int,
    *,
    work: float,
    seconds: float,
    hint: Sequence[Send] = (),
) -> tuple[CpsatAnswer, np.ndarray | None]:
    """Is there an AllToAll finishing within ``horizon`` epochs? CP-SAT on integer flows.

    Parameters
    ----------
    net : Network
    chunks : int
        Chunks per source-destination block.
    horizon : int
    work, seconds : float
        CP-SAT's deterministic work budget and wall-clock limit.
    hint : sequence of Send, optional
        A schedule to start from (its flows; sends outside the model are ignored).

    Returns
    -------
    (CpsatAnswer, numpy.ndarray or None)
        The answer and, if feasible, the flows ``f[destination, arc, epoch]``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> net = network_of(build("mesh:2x2"))
    >>> alltoall_milp(net, 1, 2, work=1, seconds=5)[0].outcome  # 16 hops on 8 arcs
    'feasible'
    """
    keys = alltoall_variables(net, horizon)
    model = cp_model.CpModel()
    flow = [model.new_int_var(0, int(net.cap[i]), "") for _, i, _ in keys]
    try:
        _build(net, chunks, horizon, keys, flow, lambda ub: model.new_int_var(0, ub, ""), model.add)
    except _Infeasible:
        return CpsatAnswer("infeasible", "INFEASIBLE", 0.0, 0.0, len(keys)), None
    if hint:
        arc_pos = {a: i for i, a in enumerate(net.arcs)}
        counts: dict[Key, int] = defaultdict(int)
        for s in hint:
            counts[(s.chunk // chunks % net.size, arc_pos[s.arc], s.epoch)] += 1
        for var, key in zip(flow, keys, strict=True):
            model.add_hint(var, counts.get(key, 0))
    answer = solve_cpsat(model, work=work, seconds=seconds, size=len(keys))
    if answer.outcome != "feasible":
        return answer, None
    return answer, _dense(net, horizon, keys, answer.values(flow))


def alltoall_lp(
    net: Network, chunks: int, horizon: int, *, kind: str = "exact"
) -> tuple[LpAnswer, np.ndarray | None]:
    """The LP relaxation of the AllToAll model, minimising the early-delivery cost.

    Returns
    -------
    (LpAnswer, numpy.ndarray or None)
        The answer and the fractional flows ``f[destination, arc, epoch]`` (``None`` unless
        optimal).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> answer, f = alltoall_lp(network_of(build("mesh:2x2")), 1, 2)
    >>> answer.outcome, round(float(f.sum()), 6)  # 16 hops
    ('optimal', 16.0)
    """
    keys = alltoall_variables(net, horizon)
    lp = new_lp(kind)
    flow = [lp.NumVar(0.0, float(net.cap[i]), "") for _, i, _ in keys]
    try:
        _build(net, chunks, horizon, keys, flow, lambda ub: lp.NumVar(0.0, float(ub), ""), lp.Add)
    except _Infeasible:
        return LpAnswer("infeasible", float("nan"), 0.0, len(keys)), None
    rank_pos = [net.index[r] for r in net.ranks]
    objective = lp.Objective()
    for var, (q, i, t) in zip(flow, keys, strict=True):
        if net.index[net.arcs[i][1]] == rank_pos[q]:
            objective.SetCoefficient(var, float(t + 1))
    objective.SetMinimization()
    answer = LpAnswer.of(lp, size=len(keys))
    if answer.outcome != "optimal":
        return answer, None
    return answer, _dense(net, horizon, keys, [v.solution_value() for v in flow])


class _Infeasible(Exception):
    """A source cannot send its chunks at all within the horizon."""


def _dense(net: Network, horizon: int, keys: list[Key], values: Sequence[float]) -> np.ndarray:
    out = np.zeros((net.size, len(net.arcs), horizon))
    for (q, i, t), value in zip(keys, values, strict=True):
        out[q, i, t] = value
    return out


def chunk_paths(net: Network, chunks: int, flows: np.ndarray) -> list[Send]:
    """Every chunk's route from integer flows ``f[destination, arc, epoch]`` (module docstring).

    Parameters
    ----------
    net : Network
    chunks : int
    flows : numpy.ndarray
        Integer-valued flows that satisfy the model's constraints.

    Returns
    -------
    list of Send
        Sorted.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> net = network_of(build("mesh:2x2"))
    >>> _, flows = alltoall_milp(net, 1, 2, work=1, seconds=5)
    >>> paths = chunk_paths(net, 1, flows)
    >>> len(paths), sorted({s.epoch for s in paths})  # 8 one-hop and 4 two-hop blocks
    (16, [0, 1])
    """
    n = net.size
    queues: dict[tuple[int, int], deque[int]] = defaultdict(deque)
    for r, s in enumerate(net.ranks):
        for q in range(n):
            if q != r:
                queues[(net.index[s], q)].extend((r * n + q) * chunks + j for j in range(chunks))
    sends: list[Send] = []
    rank_pos = [net.index[r] for r in net.ranks]
    for t in range(flows.shape[2]):
        arrivals = []
        for q in range(n):
            for i in np.flatnonzero(flows[q, :, t] > 0.5):
                arc = net.arcs[i]
                u, v = net.index[arc[0]], net.index[arc[1]]
                for _ in range(round(float(flows[q, i, t]))):
                    c = queues[(u, q)].popleft()
                    sends.append(Send(t, c, arc))
                    if v != rank_pos[q]:
                        arrivals.append(((v, q), c))
        for key, c in arrivals:
            queues[key].append(c)
    return sorted(s for path in _paths(sends).values() for s in _without_cycles(path))


def _paths(sends: list[Send]) -> dict[int, list[Send]]:
    out: dict[int, list[Send]] = defaultdict(list)
    for s in sorted(sends):
        out[s.chunk].append(s)
    return out


def _without_cycles(path: list[Send]) -> list[Send]:
    """A chunk's hops with every round trip cut out: it waits where it first was instead.

    Waiting in a buffer is always allowed, and the hops removed only free capacity, so the
    schedule stays valid; and no chunk crosses an arc twice.
    """
    out: list[Send] = []
    seen: dict[int, int] = {}  # node -> position in ``out`` of the hop leaving it
    for s in path:
        u = s.arc[0]
        if u in seen:
            del out[seen[u] :]
            seen = {k: i for k, i in seen.items() if i < len(out)}
        seen[u] = len(out)
        out.append(s)
    return out
