"""TE-CCL for a collective and a size: which loop bodies to solve, and the program that runs them.

- AllGather: one AllGather solution; ReduceScatter: one on the reversed network (run
  backwards); AllReduce: both, ReduceScatter then AllGather. On a symmetric network (every arc
  has its reverse with the same key and bandwidth) the reversed network is the network itself,
  so ReduceScatter reuses the AllGather solve.
- AllToAll: one AllToAll solution.

Chunks per source ``K`` (the loop body's size): by default the largest divisor of ``C`` up to
``DEFAULT_CHUNKS[...]``, with ``C`` the simulator chunks per source (or per AllToAll block) of
the size. More chunks per loop let the body balance the links better (the per-loop load
approaches the cut bound) but make the models larger; a divisor of ``C`` gives every TE-CCL
chunk the same number of simulator chunks, so the loop repeats exactly (an MSCCL export needs
that). Solutions are cached per topology, problem, direction, ``K``, method
and time limit.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import replace
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.collectives import chunk_count
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.sim.teccl.model import TecclSolution
from supermesh.sim.teccl.replay import replay_program
from supermesh.sim.teccl.solve import solve_teccl

__all__ = [
    "DEFAULT_CHUNKS",
    "TECCL_COLLECTIVES",
    "loop_chunks",
    "teccl_program",
    "teccl_solutions",
]

TECCL_COLLECTIVES = ("allgather", "reducescatter", "allreduce", "alltoall")
DEFAULT_CHUNKS = {"allgather": 4, "alltoall": 2}
"""Largest default chunks per source (AllGather family) and per block (AllToAll)."""


def loop_chunks(per_source: int, most: int) -> int:
    """The largest divisor of ``per_source`` up to ``most`` (TE-CCL chunks per loop body).

    Examples
    --------
    >>> loop_chunks(22, 4), loop_chunks(24, 4), loop_chunks(23, 4), loop_chunks(3, 4)
    (2, 4, 1, 3)
    """
    return max(k for k in range(1, max(1, min(per_source, most)) + 1) if per_source % k == 0)


def _symmetric(G: nx.MultiDiGraph) -> bool:
    bw = {(u, v, k): d.get("bandwidth", 1.0) for u, v, k, d in G.edges(keys=True, data=True)}
    return all(bw.get((v, u, k)) == b for (u, v, k), b in bw.items())


def teccl_solutions(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    chunk_bytes: int,
    *,
    chunks: int | None = None,
    time_limit: float = 60.0,
    method: str = "auto",
    cache: MutableMapping[Any, Any] | None = None,
) -> dict[str, TecclSolution]:
    """The solutions a TE-CCL collective runs: phase (``rs``, ``ag``, ``a2a``) -> solution.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce", "alltoall"}
    nbytes : int
        The size (AllToAll: each chiplet's buffer), which sets the default ``chunks``.
    chunk_bytes : int
        The simulator's chunk.
    chunks : int, optional
        Chunks per source (or block) of the loop body; default in the module docstring.
    time_limit : float
        Seconds per solve.
    method : {"auto", "milp", "lp-rounding", "greedy"}
        See :func:`~supermesh.sim.teccl.solve.solve_teccl`.
    cache : dict, optional
        Reused across calls.

    Returns
    -------
    dict

    Raises
    ------
    SpecError
        A collective TE-CCL is not offered for here.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> sols = teccl_solutions(build("mesh:2x2"), "allreduce", 4 * 12288, 12288, time_limit=5)
    >>> sorted(sols), sols["rs"].reversed, sols["ag"].epochs
    (['ag', 'rs'], True, 2)
    """
    if collective not in TECCL_COLLECTIVES:
        raise SpecError(
            f"TE-CCL is offered for {', '.join(TECCL_COLLECTIVES)}, not {collective}",
            hint="use --algorithm pipeline for broadcast and reduce",
        )
    problem = "alltoall" if collective == "alltoall" else "allgather"
    n = sum(1 for _, k in G.nodes(data="kind") if k == "compute")
    per_source = chunk_count(nbytes / max(n, 1), chunk_bytes)
    k = chunks if chunks is not None else loop_chunks(per_source, DEFAULT_CHUNKS[problem])
    spec = G.graph.get("spec", id(G))
    memo: MutableMapping[Any, Any] = cache if cache is not None else {}

    def solve(reverse: bool) -> TecclSolution:
        key = ("teccl", spec, problem, reverse, k, method, time_limit)
        if key not in memo:
            memo[key] = solve_teccl(
                G, problem, k, reverse=reverse, time_limit=time_limit, method=method
            )
        return memo[key]

    if problem == "alltoall":
        return {"a2a": solve(False)}
    out: dict[str, TecclSolution] = {}
    if collective in ("reducescatter", "allreduce"):
        if _symmetric(G):
            out["rs"] = replace(solve(False), reversed=True)
        else:
            out["rs"] = solve(True)
    if collective in ("allgather", "allreduce"):
        out["ag"] = solve(False)
    return out


def teccl_program(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    **options: Any,
) -> Program:
    """The simulator program of a TE-CCL collective (:func:`teccl_solutions`, then
    :func:`~supermesh.sim.teccl.replay.replay_program`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = teccl_program(build("mesh:2x2"), "alltoall", 4 * 12288, get_preset())
    >>> prog.meta["teccl"]["a2a"]["status"], prog.transfers  # 16 block-hops of 1 chunk
    ('optimal', 16)
    """
    sols = teccl_solutions(G, collective, nbytes, params.chunk_bytes, **options)
    return replay_program(G, collective, nbytes, params, sols)
