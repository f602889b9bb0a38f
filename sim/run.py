"""Entry points: simulate a tree collective or a baseline and get a :class:`SimResult`."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.sim.baselines.dispatch import baseline_program
from supermesh.sim.bounds import ThroughputBound, collective_bound
from supermesh.sim.collectives import check_collective, tree_program
from supermesh.sim.engine.timing import run_program
from supermesh.sim.link_costs import apply_link_costs, serial_capacity_network
from supermesh.sim.presets import SimParams, get_preset
from supermesh.sim.program import Program
from supermesh.sim.result import SimResult, assemble
from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["evaluate", "simulate", "simulate_baseline"]


def evaluate(
    G: nx.MultiDiGraph,
    program: Program,
    params: SimParams,
    *,
    collective: str,
    algorithm: str,
    nbytes: int,
    bound: bool | ThroughputBound | None = True,
    bins: int = 100,
) -> SimResult:
    """Run a program on the fast engine and assemble the result.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    program : Program
    params : SimParams
    collective, algorithm : str
    nbytes : int
    bound : bool or ThroughputBound or None
        ``True`` computes the cut bound, a :class:`ThroughputBound` is used as given (cache it
        across sizes), ``False``/``None`` skips it.
    bins : int
        Time-series bins.

    Returns
    -------
    SimResult

    Notes
    -----
    ``program`` is built for unit arcs; each transfer is timed with its own arc's ``bandwidth``
    and ``latency`` here (:func:`supermesh.sim.link_costs.apply_link_costs`).
    """
    program = apply_link_costs(G, program, params)
    timing = run_program(program)
    if bound is True:
        roots = program.meta.get("roots") if collective in ("broadcast", "reduce") else None
        capacity = serial_capacity_network(G, params)
        bound_value: ThroughputBound | None = collective_bound(capacity, collective, roots=roots)
    elif isinstance(bound, ThroughputBound):
        bound_value = bound
    else:
        bound_value = None
    return assemble(
        G,
        program,
        timing,
        params,
        collective=collective,
        algorithm=algorithm,
        nbytes=nbytes,
        bound=bound_value,
        bins=bins,
    )


def simulate(
    G: nx.MultiDiGraph,
    trees: TreePacking | Sequence[TreeSet] | Sequence[Sequence[Tree]],
    collective: str = "allreduce",
    nbytes: int = 1 << 20,
    *,
    params: SimParams | None = None,
    algorithm: str = "pipeline",
    direction: str = "out",
    bound: bool | ThroughputBound | None = True,
    bins: int = 100,
) -> SimResult:
    """Simulate a pipelined tree collective.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    trees : TreePacking or sequence of TreeSet / lists of Tree
        The tree sets (see :func:`supermesh.sim.collectives.tree_program`).
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
    nbytes : int
        Collective size in bytes.
    params : SimParams, optional
        Default: the ``booksim`` preset.
    algorithm : str
        Name recorded in the result.
    direction : {"out", "in"}
        Orientation of the trees when not given as a TreePacking.
    bound, bins
        See :func:`evaluate`.

    Returns
    -------
    SimResult

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> r = simulate(G, [[t]], "broadcast", 2 * 12288)  # 2 chunks over 2 hops
    >>> r.time  # chunk 1 leaves at 1032, then 2 hops of 1031 with a 0.5 forward, 19 drain
    3113.5
    """
    params = params or get_preset("booksim")
    collective = check_collective(collective)
    program = tree_program(G, trees, collective, nbytes, params, direction=direction)
    return evaluate(
        G,
        program,
        params,
        collective=collective,
        algorithm=algorithm,
        nbytes=nbytes,
        bound=bound,
        bins=bins,
    )


def simulate_baseline(
    G: nx.MultiDiGraph,
    algorithm: str,
    collective: str = "allreduce",
    nbytes: int = 1 << 20,
    *,
    params: SimParams | None = None,
    root: int | None = None,
    bound: bool | ThroughputBound | None = True,
    bins: int = 100,
) -> SimResult:
    """Simulate a baseline algorithm (``ring``, ``bidir-ring``, ``direct``, ``multitree``).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> r = simulate_baseline(build("mesh:2x2"), "ring", "allreduce", 4 * 4096)
    >>> r.meta["ring"], r.time > 6 * 340
    (4, True)
    """
    params = params or get_preset("booksim")
    collective = check_collective(collective)
    program = baseline_program(G, algorithm, collective, nbytes, params, root=root)
    return evaluate(
        G,
        program,
        params,
        collective=collective,
        algorithm=algorithm,
        nbytes=nbytes,
        bound=bound,
        bins=bins,
    )
