"""TE-CCL's AllGather model over a horizon of ``H`` epochs: the integer program and its LP.

Variables (Liu et al. 2024, section 4, written here for chunks that may be copied):

- ``x[c, a, t]``: chunk ``c`` crosses arc ``a = (u, v)`` in epoch ``t``; created only where it can
  help: ``v`` is not the chunk's origin ``o`` and ``t >= dist(o, u)`` (the chunk cannot be at
  ``u`` earlier), and a relay ``v`` (not a rank) only where it can still forward, ``t <= H - 2``;
- ``h[c, v, t]``: ``v`` holds ``c`` at the start of epoch ``t`` (its buffer), with
  ``h[c, v, t + 1] = h[c, v, t] + sum_{a into v} x[c, a, t]`` and ``h[c, o, t] = 1``.

Constraints: ``x[c, (u, v), t] <= h[c, u, t]`` (a chiplet sends only what it holds, and may send
it on several arcs at once: the copy of an AllGather); ``sum_c x[c, a, t] <= cap(a)``; every
rank other than the origin receives every chunk exactly once (``h[c, v, H] = 1``; receiving a
chunk twice never helps, so the model forbids it), a relay at most once.

The integer program is solved by CP-SAT (:func:`gather_milp`) as a feasibility question for a
given ``H``; its LP relaxation (:func:`gather_lp`, GLOP) minimises TE-CCL's early-delivery
objective ``sum (t + 1) x`` over the deliveries to ranks and guides the repair of
:func:`~supermesh.sim.teccl.rounding.round_gather`.

References
----------
.. [1] X. Liu et al., "Rethinking Machine Learning Collective Communication as a Multi-Commodity
   Flow Problem", ACM SIGCOMM 2024.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from supermesh.sim.teccl.model import Send
from supermesh.sim.teccl.network import Network
from supermesh.sim.teccl.solvers import CpsatAnswer, LpAnswer, new_lp, solve_cpsat

__all__ = ["gather_lp", "gather_milp", "gather_variables"]

Key = tuple[int, int, int]  # (chunk, arc position, epoch)


def gather_variables(net: Network, chunks: int, horizon: int) -> list[Key]:
    """The ``(chunk, arc, epoch)`` triples the model has a variable for (module docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> len(gather_variables(network_of(build("mesh:2x2")), 1, 1))  # epoch 0: out of origins
    8
    """
    out: list[Key] = []
    rank_pos = [net.index[r] for r in net.ranks]
    relay = [net.index[a[1]] not in set(rank_pos) for a in net.arcs]
    ends = [(net.index[a[0]], net.index[a[1]]) for a in net.arcs]
    for c in range(net.size * chunks):
        o = rank_pos[c // chunks]
        for i, (u, v) in enumerate(ends):
            if v == o:
                continue
            last = horizon - 2 if relay[i] else horizon - 1
            for t in range(int(net.dist[o, u]), last + 1):
                out.append((c, i, t))
    return out


def _structure(
    net: Network, chunks: int, keys: list[Key]
) -> tuple[dict[tuple[int, int], list[int]], dict[tuple[int, int], list[int]], list[int]]:
    """Variable positions by (chunk, receiving node), by (arc, epoch), and each chunk's origin."""
    into: dict[tuple[int, int], list[int]] = defaultdict(list)
    on_arc: dict[tuple[int, int], list[int]] = defaultdict(list)
    for j, (c, i, t) in enumerate(keys):
        into[(c, net.index[net.arcs[i][1]])].append(j)
        on_arc[(i, t)].append(j)
    origin = [net.index[net.ranks[c // chunks]] for c in range(net.size * chunks)]
    return into, on_arc, origin


def _holdings(
    net: Network,
    chunks: int,
    horizon: int,
    keys: list[Key],
    origin: list[int],
    x: list,
    new_var: Callable[[str], Any],
    add: Callable[[Any], Any],
) -> dict[tuple[int, int, int], Any]:
    """``h[c, v, t]`` (receipts of ``c`` at ``v`` before epoch ``t``), one variable per epoch.

    ``h[c, v, t + 1] = h[c, v, t] + sum_{a into v} x[c, a, t]``; created from the first epoch
    that can have a receipt on (earlier ones are 0 and absent from the map).
    """
    recv: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for j, (c, i, t) in enumerate(keys):
        recv[(c, net.index[net.arcs[i][1]], t)].append(j)
    hold: dict[tuple[int, int, int], Any] = {}
    for c in range(net.size * chunks):
        for v in range(len(net.nodes)):
            if v == origin[c]:
                continue
            level = None
            for t in range(1, horizon + 1):
                got = recv.get((c, v, t - 1), [])
                if not got and level is None:
                    continue
                h = new_var(f"h{c}_{v}_{t}")
                constraint = h == sum((x[j] for j in got), level if level is not None else 0)
                add(constraint)
                hold[(c, v, t)] = level = h
    return hold


def gather_milp(
    net: Network,
    chunks: int,
    horizon: int,
    *,
    work: float,
    seconds: float,
    hint: list[Send] | None = None,
) -> tuple[CpsatAnswer, list[Send]]:
    """Is there an AllGather finishing within ``horizon`` epochs? CP-SAT on the integer model.

    Parameters
    ----------
    net : Network
    chunks : int
        Chunks per rank.
    horizon : int
        ``H``: every delivery in epochs ``0 .. H - 1``.
    work, seconds : float
        CP-SAT's deterministic work budget and wall-clock limit.
    hint : list of Send, optional
        A schedule to start the search from (ignored where it does not fit).

    Returns
    -------
    (CpsatAnswer, list of Send)
        The answer (``feasible``, ``infeasible`` or ``unknown``) and, if feasible, the sends.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> net = network_of(build("mesh:2x2"))
    >>> gather_milp(net, 1, 1, work=1, seconds=5)[0].outcome  # the diagonal needs 2 hops
    'infeasible'
    >>> answer, sends = gather_milp(net, 1, 2, work=1, seconds=5)
    >>> answer.outcome, len(sends)
    ('feasible', 12)
    """
    keys = gather_variables(net, chunks, horizon)
    into, on_arc, origin = _structure(net, chunks, keys)
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{j}") for j in range(len(keys))]
    rank_pos = {net.index[r] for r in net.ranks}
    for c in range(net.size * chunks):
        for v in range(len(net.nodes)):
            if v == origin[c]:
                continue
            got = [x[j] for j in into.get((c, v), [])]
            if v in rank_pos:
                model.add(sum(got) == 1)
            elif got:
                model.add(sum(got) <= 1)
    for js in on_arc.values():
        i = keys[js[0]][1]
        model.add(sum(x[j] for j in js) <= int(net.cap[i]))
    # causality: a send from u in epoch t needs u to hold the chunk (h: receipts before t)
    hold = _holdings(net, chunks, horizon, keys, origin, x, model.new_bool_var, model.add)
    for j, (c, i, t) in enumerate(keys):
        u = net.index[net.arcs[i][0]]
        if u == origin[c]:
            continue
        h = hold.get((c, u, t))
        if h is None:
            model.add(x[j] == 0)
        else:
            model.add(x[j] <= h)
    if hint:
        position = {k: j for j, k in enumerate(keys)}
        arc_pos = {a: i for i, a in enumerate(net.arcs)}
        for s in hint:
            found = position.get((s.chunk, arc_pos[s.arc], s.epoch))
            if found is not None:
                model.add_hint(x[found], True)
    answer = solve_cpsat(model, work=work, seconds=seconds, size=len(keys))
    sends = []
    if answer.outcome == "feasible":
        values = answer.values(x)
        sends = [Send(t, c, net.arcs[i]) for (c, i, t), b in zip(keys, values, strict=True) if b]
    return answer, sorted(sends)


def gather_lp(
    net: Network, chunks: int, horizon: int, *, kind: str = "exact"
) -> tuple[LpAnswer, np.ndarray | None]:
    """The LP relaxation of the AllGather model, minimising ``sum (t + 1) x`` into ranks.

    Parameters
    ----------
    net : Network
    chunks : int
    horizon : int

    Returns
    -------
    (LpAnswer, numpy.ndarray or None)
        The answer and the flows ``x[chunk, arc, epoch]`` (``None`` unless optimal).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> answer, x = gather_lp(network_of(build("mesh:2x2")), 1, 2)
    >>> answer.outcome, round(float(x.sum()), 6)  # 12 receipts
    ('optimal', 12.0)
    """
    keys = gather_variables(net, chunks, horizon)
    into, on_arc, origin = _structure(net, chunks, keys)
    lp = new_lp(kind)
    x = [lp.NumVar(0.0, 1.0, "") for _ in keys]
    rank_pos = {net.index[r] for r in net.ranks}
    nc, m = net.size * chunks, len(net.nodes)
    hold = _holdings(
        net, chunks, horizon, keys, origin, x, lambda name: lp.NumVar(0.0, 1.0, name), lp.Add
    )
    for c in range(nc):
        for v in range(m):
            if v == origin[c]:
                continue
            got = lp.Sum([x[j] for j in into.get((c, v), [])])
            lp.Add(got >= (1.0 if v in rank_pos else 0.0))
            lp.Add(got <= 1.0)
    for js in on_arc.values():
        i = keys[js[0]][1]
        lp.Add(lp.Sum([x[j] for j in js]) <= float(net.cap[i]))
    for j, (c, i, t) in enumerate(keys):
        u = net.index[net.arcs[i][0]]
        if u == origin[c]:
            continue
        h = hold.get((c, u, t))
        if h is None:
            x[j].SetUb(0.0)
        else:
            lp.Add(x[j] <= h)
    objective = lp.Objective()
    for j, (_, i, t) in enumerate(keys):
        if net.index[net.arcs[i][1]] in rank_pos:
            objective.SetCoefficient(x[j], float(t + 1))
    objective.SetMinimization()
    answer = LpAnswer.of(lp, size=len(keys))
    if answer.outcome != "optimal":
        return answer, None
    flows = np.zeros((nc, len(net.arcs), horizon))
    for (c, i, t), var in zip(keys, x, strict=True):
        flows[c, i, t] = var.solution_value()
    return answer, flows
