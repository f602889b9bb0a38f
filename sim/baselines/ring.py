"""The ring baselines, as FIFO programs: unidirectional ring, bidirectional ring, RingBiOdd.

- ``ring``: the unidirectional ring (Patarasuk and Yuan, JPDC 2009): ``n - 1`` reduce-scatter steps
  then ``n - 1`` all-gather steps, each node sending one block of ``M / n`` per step to the next
  node of :func:`~supermesh.sim.baselines.routes.ring_order` (hops between non-neighbours routed
  over several links, store and forward).
- ``bidir-ring``: two rings in opposite directions, half the data each (NCCL 2). On an odd x odd
  grid the AllReduce is the TTO deck's RingBiOdd (Laskar et al., HPCA 2024): the rings cover every
  chiplet but one corner, the data are cut into ``n - 1`` blocks, and the corner hands its blocks
  to its two ring neighbours and gets the results back from them.

Every step sends whole blocks (no chunk pipelining inside a step), as these algorithms do.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.baselines.routes import (
    grid_cycle,
    grid_cycle_but_corner,
    grid_shape,
    link_arc,
    ring_order,
    route,
)
from supermesh.sim.presets import SimParams
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies.model import Arc, compute_nodes

__all__ = ["ring_program"]


class _Hop:
    """Send a block along a route: one block per arc, each hop waiting for the previous one."""

    def __init__(self, pb: PhaseBuilder, params: SimParams) -> None:
        self.pb = pb
        self.params = params

    def send(
        self, arcs: Sequence[Arc], nbytes: int, group: int, deps: Sequence[int], delay: float
    ) -> int:
        duration = self.params.serialisation(nbytes) + self.params.hop_latency
        last = -1
        for i, arc in enumerate(arcs):
            last = self.pb.add(
                arc,
                count=1,
                duration=duration,
                payload=nbytes,
                group=group,
                deps=deps if i == 0 else [last],
                delay=delay if i == 0 else self.params.forward_delay,
            )
        return last


def _ring_blocks(
    G: nx.MultiDiGraph,
    hop: _Hop,
    order: list[int],
    collective: str,
    block_bytes: int,
    corner: tuple[int, int] | None = None,
) -> dict[tuple[int, int], int]:
    """Add the steps of one ring; return (step, position) -> the block delivering there.

    ``corner = (position, first)``: the node at ``position`` also waits, at reduce step ``k``, for
    block ``first + k`` (a corner's contribution, RingBiOdd).
    """
    m = len(order)
    routes = [route(G, order[i], order[(i + 1) % m]) for i in range(m)]
    p = hop.params
    rs = m - 1 if collective in ("allreduce", "reducescatter") else 0
    ag = m - 1 if collective in ("allreduce", "allgather") else 0
    delivered: dict[tuple[int, int], int] = {}
    for k in range(rs + ag):
        delay = p.reduce_delay if (rs and k <= rs) else p.forward_delay
        for i in range(m):
            deps = [delivered[(k - 1, i)]] if k > 0 else []
            if corner is not None and i == corner[0] and k <= rs:
                deps.append(corner[1] + k)
            delivered[(k, (i + 1) % m)] = hop.send(routes[i], block_bytes, k, deps, delay)
    return delivered


def ring_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, bidirectional: bool
) -> Program:
    """The FIFO program of the ring (``bidirectional=False``) or the bidirectional ring.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allreduce", "reducescatter", "allgather"}
        Already normalised (:func:`~supermesh.sim.collectives.check_collective`).
    nbytes : int
        Size of the data vector ``M``.
    params : SimParams
    bidirectional : bool
        Two rings in opposite directions with half the data each (RingBiOdd for an AllReduce on
        an odd x odd grid).

    Returns
    -------
    Program
        One phase; ``meta["ring"]`` is the number of nodes on the ring.

    Raises
    ------
    SpecError
        A collective other than AllReduce, ReduceScatter or AllGather.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = ring_program(build("mesh:2x2"), "allgather", 4096, get_preset(), False)
    >>> prog.transfers  # n - 1 steps of 4 transfers
    12
    """
    if collective not in ("allreduce", "reducescatter", "allgather"):
        raise SpecError(
            f"the ring algorithms do not implement {collective!r}",
            hint="use --collective allreduce, reducescatter or allgather",
        )
    arc_index: dict[Arc, int] = {}
    pb = PhaseBuilder(arc_index)
    hop = _Hop(pb, params)
    n = len(compute_nodes(G))
    grid = grid_shape(G)
    rings = 2 if bidirectional else 1
    if (
        bidirectional
        and grid is not None
        and grid_cycle(*grid) is None
        and collective == "allreduce"
    ):
        rows, cols = grid
        order = grid_cycle_but_corner(rows, cols)
        corner = rows * cols - 1
        m = len(order)
        rs = m - 1
        block = -(-nbytes // (2 * m))
        for direction, nb in ((order, corner - cols), (order[::-1], corner - 1)):
            pos = direction.index(nb)
            up = link_arc(G, corner, nb)
            first = hop.send([up], block, 0, [], params.forward_delay)
            for k in range(1, m):
                hop.send([up], block, k, [], params.forward_delay)
            delivered = _ring_blocks(G, hop, direction, "allreduce", block, (pos, first))
            down = link_arc(G, nb, corner)
            hop.send(
                [down], block, 2 * m, [delivered[(rs - 1, pos)], first + rs], params.reduce_delay
            )
            for k in range(rs, 2 * rs):
                hop.send([down], block, 2 * m, [delivered[(k, pos)]], params.forward_delay)
    else:
        order = ring_order(G)
        block = -(-nbytes // (n * rings))
        for r in range(rings):
            _ring_blocks(G, hop, order if r == 0 else order[::-1], collective, block)
    start = params.forward_start if collective == "allgather" else params.reduce_start
    final = params.forward_delay if collective == "allgather" else params.reduce_delay
    return Program(
        arcs=list(arc_index),
        phases=[pb.build(start=start, final_delay=final, label="mixed")],
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={"collective": collective, "bytes": int(nbytes), "ring": len(order)},
    )
