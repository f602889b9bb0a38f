"""Schedule tables of the synthesisers: TACOS, TE-CCL and direct AllToAll routes.

The tree algorithms' tables are built by the trees engine
(:func:`supermesh.trees.schedule.build.build_schedule`); the synthesisers live in the simulator
(they search over timed transfers), so their tables are built here, one function for all three,
which ``supermesh schedule -a tacos|teccl|direct`` calls.
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.schedule.model import CHUNK_BYTES, ROUTE_COLLECTIVES, Schedule

__all__ = ["SYNTHESISERS", "synthesised_schedule"]

SYNTHESISERS = ("tacos", "teccl", "direct")


def synthesised_schedule(
    G: nx.MultiDiGraph,
    collective: str,
    algorithm: str,
    *,
    nbytes: int | None = None,
    chunks: int | None = None,
) -> Schedule:
    """The schedule table a synthesiser writes for ``collective`` on ``G``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : str
        ``allgather``, ``reducescatter``, ``allreduce``; ``alltoall`` for ``teccl`` and
        ``direct``.
    algorithm : {"tacos", "teccl", "direct"}
        TACOS's synthesised trees in its own per-link order
        (:func:`supermesh.sim.baselines.tacos_table.tacos_table`), TE-CCL's loop body
        (:func:`supermesh.sim.teccl.tables.teccl_schedule`) or one dimension-order route per
        AllToAll block (:func:`supermesh.sim.baselines.direct.direct_alltoall_schedule`).
    nbytes : int, optional
        Data size in bytes (sets the chunk count).
    chunks : int, optional
        Chunk count instead of ``nbytes``.

    Returns
    -------
    Schedule
        The tables, as every other schedule (CSV, JSON, MSCCL XML; ``supermesh verify``).

    Raises
    ------
    SpecError
        If the algorithm does not write tables for this collective.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = synthesised_schedule(build("mesh:3x3"), "alltoall", "direct", chunks=1)
    >>> s.collective
    'alltoall'
    """
    if algorithm not in SYNTHESISERS:
        raise SpecError(f"unknown synthesiser {algorithm!r}", hint=", ".join(SYNTHESISERS))
    if algorithm == "direct":
        if collective not in ROUTE_COLLECTIVES:
            raise SpecError("-a direct writes AllToAll tables", hint="use -c alltoall")
        from supermesh.sim.baselines.direct import direct_alltoall_schedule

        return direct_alltoall_schedule(G, nbytes=nbytes, chunks=chunks)
    if algorithm == "tacos":
        if collective in ROUTE_COLLECTIVES:
            raise SpecError(
                "-a tacos synthesises AllGather, ReduceScatter and AllReduce",
                hint="use -a teccl or -a direct for -c alltoall",
            )
        from supermesh.sim.baselines.tacos_table import tacos_table

        return tacos_table(G, collective, nbytes=nbytes, chunks=chunks)
    from supermesh.sim.teccl.collective import teccl_solutions
    from supermesh.sim.teccl.tables import teccl_schedule

    ranks = len(compute_nodes(G))
    basis = nbytes if nbytes is not None else (chunks or 1) * ranks * CHUNK_BYTES
    solutions = teccl_solutions(G, collective, basis, CHUNK_BYTES)
    return teccl_schedule(G, collective, solutions, nbytes=nbytes, chunks=chunks)
