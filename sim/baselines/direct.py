"""The ``direct`` baseline, as a FIFO program: one-shot exchange over dimension-order routes.

Every source sends its data straight to every destination that needs them (AllReduce: the whole
vector to every rank, then each rank adds), over :func:`~supermesh.sim.baselines.routes.route`,
one-hop flows first (the order the TPU note found fastest). Each flow is one whole block, stored
and forwarded hop by hop.
"""

from __future__ import annotations

import networkx as nx

from supermesh.sim.baselines.routes import grid_shape, route
from supermesh.sim.presets import SimParams
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies.model import Arc, compute_nodes
from supermesh.trees.schedule import Route, Schedule, route_schedule

__all__ = ["direct_alltoall_schedule", "direct_program"]


def direct_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, root: int | None
) -> Program:
    """The FIFO program of the one-shot exchange.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall"}
        Already normalised (:func:`~supermesh.sim.collectives.check_collective`).
    nbytes : int
        Size of the data vector ``M``: AllReduce, Broadcast and Reduce flows carry all of it,
        ReduceScatter, AllGather and AllToAll flows ``M / n`` (AllToAll: ``M`` is each
        chiplet's buffer, one block per destination).
    params : SimParams
    root : int or None
        Root of a broadcast or reduce (``None``: the lowest compute chiplet).

    Returns
    -------
    Program
        One phase; ``meta["flows"]`` is the number of source-destination flows.

    Raises
    ------
    TopologyError
        A destination cannot be reached from its source.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = direct_program(build("mesh:2x2"), "broadcast", 4096, get_preset(), None)
    >>> prog.meta["flows"], prog.transfers  # 1 + 1 + 2 hops
    (3, 4)
    """
    ranks = compute_nodes(G)
    n = len(ranks)
    root = ranks[0] if root is None else root
    if collective == "allreduce":
        flows = [(u, v, nbytes) for u in ranks for v in ranks if u != v]
    elif collective in ("reducescatter", "allgather", "alltoall"):
        # an AllToAll block differs per destination, but the traffic is the AllGather's
        flows = [(u, v, -(-nbytes // n)) for u in ranks for v in ranks if u != v]
    elif collective == "broadcast":
        flows = [(root, v, nbytes) for v in ranks if v != root]
    else:
        flows = [(u, root, nbytes) for u in ranks if u != root]
    arc_index: dict[Arc, int] = {}
    pb = PhaseBuilder(arc_index)
    grid = grid_shape(G)
    for f, (u, v, size) in enumerate(flows):
        duration = params.serialisation(size) + params.hop_latency
        last = -1
        for h, arc in enumerate(route(G, u, v, salt=f, grid=grid)):
            last = pb.add(
                arc,
                count=1,
                duration=duration,
                payload=size,
                group=h,
                deps=[last] if h else [],
                delay=params.forward_delay,
            )
    reducing = collective in ("allreduce", "reducescatter", "reduce")
    phase = pb.build(
        start=params.reduce_start if reducing else params.forward_start,
        final_delay=params.reduce_delay if reducing else 0.0,
        label="mixed",
    )
    return Program(
        arcs=list(arc_index),
        phases=[phase],
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={"collective": collective, "bytes": int(nbytes), "flows": len(flows)},
    )


def direct_alltoall_schedule(
    G: nx.MultiDiGraph, *, nbytes: int | None = None, chunks: int | None = None
) -> Schedule:
    """The one-shot AllToAll as a schedule table: one dimension-order route per block.

    Each link serves its hops in the order the program above runs them: first hops before
    second hops, and so on (ties by route). See
    :func:`~supermesh.trees.schedule.routes.route_schedule` for the table.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    nbytes : int, optional
        Each chiplet's buffer (a block of ``nbytes / n`` per destination).
    chunks : int, optional
        Chunks per block (default from ``nbytes``, else 1).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> t = direct_alltoall_schedule(build("mesh:3x3"), chunks=1)
    >>> len(t.entries)  # the hops of the 72 routes: the sum of the distances
    144
    """
    ranks = compute_nodes(G)
    grid = grid_shape(G)
    routes = []
    for f, (u, v) in enumerate((u, v) for u in ranks for v in ranks if u != v):
        path = tuple(route(G, u, v, salt=f, grid=grid))
        routes.append(Route(u, v, path, tuple(range(len(path)))))
    return route_schedule(G, routes, chunks=chunks, nbytes=nbytes)
