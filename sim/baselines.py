"""Baseline algorithms users compare against, as FIFO programs for the same engine.

- ``ring``: the unidirectional ring (Patarasuk and Yuan, JPDC 2009): ``n - 1`` reduce-scatter steps
  then ``n - 1`` all-gather steps, each node sending one block of ``M / n`` per step to the next
  node of a Hamiltonian cycle. Grids with an even side have one (:func:`grid_cycle`); an odd x
  odd grid has none, so the ring takes the cycle through all chiplets but a corner and visits the
  corner between two of them, the hop out of it routed over 2 links (store and forward); other
  topologies use a DFS order with routed hops.
- ``bidir-ring``: two rings in opposite directions, half the data each (NCCL 2; on an odd x odd
  grid the two rings share one link). On an odd x odd grid the AllReduce is the TTO deck's
  RingBiOdd (Laskar et al., HPCA 2024): the rings cover every
  chiplet but one corner, the data are cut into ``n - 1`` blocks, and the corner hands its blocks
  to its two ring neighbours and gets the results back from them.
- ``direct``: one-shot exchange: every source sends its data straight to every destination that
  needs them (AllReduce: the whole vector to every rank, then each rank adds), over
  dimension-order routes, one-hop flows first (the order the TPU note found fastest).
- ``multitree``: MultiTree (Huang et al., ISCA 2021): one spanning tree per rank, all grown one
  level per time step, a link used by at most one tree per step; each tree edge sends its root's
  ``M / n`` in one piece, steps in order.

Every step sends whole blocks (no chunk pipelining inside a step), as these algorithms do.

This module holds the dispatcher :func:`baseline_program` and re-exports the pieces it is built
from: routes and grid cycles (:mod:`supermesh.sim.baselines_routes`), the rings
(:mod:`supermesh.sim.baselines_ring`), the one-shot exchange
(:mod:`supermesh.sim.baselines_direct`) and MultiTree (:mod:`supermesh.sim.baselines_multitree`).
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.baselines_direct import direct_program
from supermesh.sim.baselines_multitree import multitree_program, multitree_trees
from supermesh.sim.baselines_ring import ring_program
from supermesh.sim.baselines_routes import grid_cycle, grid_cycle_but_corner, route
from supermesh.sim.collectives import check_collective
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program

__all__ = [
    "BASELINES",
    "baseline_program",
    "grid_cycle",
    "grid_cycle_but_corner",
    "multitree_trees",
    "route",
]

BASELINES = ("ring", "bidir-ring", "direct", "multitree")


def baseline_program(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    root: int | None = None,
) -> Program:
    """The FIFO program of a baseline algorithm.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    algorithm : {"ring", "bidir-ring", "direct", "multitree"}
    collective : str
    nbytes : int
    params : SimParams
    root : int, optional
        Root of a broadcast or reduce (default: the lowest compute chiplet).

    Returns
    -------
    Program

    Raises
    ------
    SpecError
        Unknown algorithm, or a collective the algorithm does not implement.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = baseline_program(build("mesh:2x2"), "ring", "allreduce", 4096, get_preset())
    >>> prog.transfers  # 2 (n - 1) steps of 4 transfers
    24
    """
    collective = check_collective(collective)
    if algorithm == "ring":
        return ring_program(G, collective, nbytes, params, bidirectional=False)
    if algorithm == "bidir-ring":
        return ring_program(G, collective, nbytes, params, bidirectional=True)
    if algorithm == "direct":
        return direct_program(G, collective, nbytes, params, root)
    if algorithm == "multitree":
        return multitree_program(G, collective, nbytes, params, root)
    raise SpecError(f"unknown baseline {algorithm!r}", hint=f"use one of: {', '.join(BASELINES)}")
