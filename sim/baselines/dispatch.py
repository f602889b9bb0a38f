"""The dispatcher of the baselines: a baseline name and a collective -> a FIFO program."""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.baselines.direct import direct_program
from supermesh.sim.baselines.multitree import multitree_program
from supermesh.sim.baselines.ring import ring_program
from supermesh.sim.collectives import check_collective
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program

__all__ = ["BASELINES", "baseline_program"]

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
