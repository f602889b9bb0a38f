"""The synthesised schedules a throughput run also tries where its trees do not stream.

At small sizes a tree's share is a few chunks and a run is mostly pipeline fill and hop
latency. A fixed packing, list-scheduled one round at a time, then leaves a slot or two on its
busiest link that a schedule built over time recovers: SMBi 5x5 AllGather at 1 MiB (paper
preset) runs 13,212 ns on the fewest parts, 12,276 ns on TE-CCL's epochs. Such a schedule is
itself one out-tree per chunk, so it is a packing as much as the trees are; only its trees and
FIFO orders come from a search over a time-expanded network rather than from the cut.

:func:`synthesised_choice` simulates two of them beside the trees' best run, where that run is
above :data:`~supermesh.sim.packing_choice.STREAMING` of the bound, on up to
:data:`SYNTHESISED_UP_TO` ranks, where a rank's share is at most :data:`SYNTHESISED_CHUNKS` of
the preset's chunks, and keeps the fastest:

- TE-CCL's epochs (Liu et al., "Rethinking Machine Learning Collective Communication as a
  Multi-Commodity Flow Problem", SIGCOMM 2024): :func:`~supermesh.sim.teccl.teccl_program`;
- TACOS's greedy link-chunk matching (Won et al., "TACOS: Topology-Aware Collective Algorithm
  Synthesizer", MICRO 2024): :func:`~supermesh.sim.baselines.tacos_program`.

Each is the same program ``--algorithm teccl`` / ``--algorithm tacos`` runs (same cache keys,
so a comparison pays for each synthesis once), and its try is in ``meta["tried"]`` with its rule.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import replace
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.sim.chunk_choice import simulated_try
from supermesh.sim.collectives import chunk_count
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.topologies.model import compute_nodes

__all__ = [
    "EPOCH_CHUNKS",
    "SYNTHESISED_CHUNKS",
    "SYNTHESISED_UP_TO",
    "epoch_runs",
    "synthesised_choice",
    "synthesised_runs",
]

SYNTHESISED_UP_TO = 36
"""Ranks up to which the synthesised schedules are tried. On 5x5 they win at small sizes (each
synthesis 0.1-1.5 s); on 8x8 none of the 180 cells of target 1 was won by either, and TE-CCL's
LP there costs 29 s a call (SMBi 8x8 AllReduce at 32 MiB, for a schedule 2.4 times the
trees')."""
SYNTHESISED_CHUNKS = 64
"""Most chunks of the preset's size in a rank's share for which the synthesised schedules are
tried. Above, both only repeat their period, and over the 540 cells of target 1 (4x4, 5x5 and
8x8; 1-512 MiB; both presets) neither beat the trees there; each costs a simulation of every
chunk all the same (SMBi 8x8 AllReduce at 512 MiB: 35 s more, for nothing). The epoch runs
(:func:`epoch_runs`) send each chunk whole and are tried at every size."""
EPOCH_CHUNKS = (1, 2, 3, 4, 6, 8)
"""Chunks a rank :func:`epoch_runs` tries. More chunks let the list schedule fill every epoch
(SMBi 5x5 AllGather: 8 epochs of 6 proven at 1 chunk, 13 of 12 at 2, 18 of 18 at 3), but each
is one more hop latency per link; at 128 MiB, paper preset, 3 chunks run at 1.0005 of the
bound, 4 at 1.0014, 8 at 1.0017."""


def _tried(
    G: nx.MultiDiGraph, program: Program, params: SimParams, chunk: int, trees: int, rule: str
) -> Program:
    for phase in program.meta.get("teccl", {}).values():
        phase.pop("solve_seconds", None)  # wall time: a throughput run's file stays byte-identical
    return simulated_try(G, program, params, chunk, trees, rule)


def synthesised_runs(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    cache: MutableMapping[Any, Any] | None = None,
    time_limit: float = 60.0,
) -> list[tuple[Program, SimParams]]:
    """TE-CCL's and TACOS's programs for the collective, as their own algorithms run them.

    Each program's ``meta["tried"]`` holds its one try: the rule (which synthesiser, how many
    chunks a rank its period has), the chunk bytes and the simulated time. A synthesiser that
    refuses the topology (a one-way arc for TACOS's AllReduce) is left out.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
    params : SimParams
    cache : mutable mapping, optional
        Shared with ``--algorithm teccl`` and ``--algorithm tacos`` runs.
    time_limit : float
        TE-CCL's seconds per solve.

    Returns
    -------
    list of (Program, SimParams)

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> runs = synthesised_runs(build("mesh:3x3"), "allgather", 1 << 20, get_preset("paper"))
    >>> [p.meta["tried"][0]["rule"].split(":")[0] for p, _ in runs]
    ['TE-CCL epochs', 'TACOS greedy']
    """
    from supermesh.sim.baselines.tacos_program import tacos_program
    from supermesh.sim.teccl import teccl_program

    cache = {} if cache is None else cache
    ranks = max(1, len(compute_nodes(G)))
    runs: list[tuple[Program, SimParams]] = []
    for name in ("TE-CCL epochs", "TACOS greedy"):
        try:
            if name == "TACOS greedy":
                program = tacos_program(G, collective, nbytes, params, cache=cache)
                per_rank = program.meta["tacos"]["chunks_per_rank"]
            else:
                program = teccl_program(
                    G, collective, nbytes, params, time_limit=time_limit, cache=cache
                )
                per_rank = max(p["chunks_per_source"] for p in program.meta["teccl"].values())
        except SupermeshError:
            continue  # this synthesiser does not run here: the others still compete
        # both repeat their period until the share is cut into chunks of at most the preset's
        chunks = max(per_rank, chunk_count(nbytes / ranks, params.chunk_bytes))
        plural = "s" * (per_rank != 1)
        rule = f"{name}: a period of {per_rank} chunk{plural} a rank, one tree each"
        chunk = math.ceil(nbytes / ranks / chunks)
        runs.append((_tried(G, program, params, chunk, ranks * per_rank, rule), params))
    return runs


def epoch_runs(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    cache: MutableMapping[Any, Any] | None = None,
    time_limit: float = 60.0,
) -> list[tuple[Program, SimParams]]:
    """Epoch schedules of :data:`EPOCH_CHUNKS` chunks a rank, each chunk one transfer.

    TE-CCL's model (:func:`~supermesh.sim.teccl.solve_teccl`) with its list schedule alone
    (``method="greedy"``: a fraction of a second on 5x5), the rank's share cut into ``K``
    chunks and each sent whole: one period, no preset-sized pieces, so a link pays the hop
    latency ``K (n - 1) / d`` times rather than once per 12 KiB. Where the list schedule meets
    the epoch lower bound (every rank's in-links busy in every epoch) the run is within the hop
    latencies and packet padding of the cut bound: SMBi 5x5 AllGather 64 MiB, paper preset,
    4 chunks a rank in 24 epochs of 24 proven, 1.0017 of the bound (the trees: 1.0040).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
    params : SimParams
    cache : mutable mapping, optional
    time_limit : float

    Returns
    -------
    list of (Program, SimParams)
        One per chunk count, each with the parameters (chunk size) it was built for.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> runs = epoch_runs(build("smbi:5x5"), "allgather", 64 << 20, get_preset("paper"))
    >>> best = min(runs, key=lambda r: r[0].meta["tried"][0]["time"])
    >>> best[0].meta["tried"][0]["rule"].split(": ")[1]
    '4 chunks a rank in 24 epochs (24 proven), one transfer each'
    """
    from supermesh.sim.teccl import teccl_program

    cache = {} if cache is None else cache
    ranks = max(1, len(compute_nodes(G)))
    share = nbytes / ranks
    runs: list[tuple[Program, SimParams]] = []
    for k in EPOCH_CHUNKS:
        q = replace(params, chunk_bytes=max(1, math.ceil(share / k)))
        if chunk_count(share, q.chunk_bytes) != k:
            continue  # too small a share for k chunks
        try:
            program = teccl_program(
                G,
                collective,
                nbytes,
                q,
                chunks=k,
                method="greedy",
                time_limit=time_limit,
                cache=cache,
            )
        except SupermeshError:
            return runs
        solved = list(program.meta["teccl"].values())
        epochs = max(s["epochs"] for s in solved)
        proven = max(s["lower_bound"] for s in solved)
        plural = "s" * (k != 1)
        rule = (
            f"epochs, TE-CCL model and list schedule: {k} chunk{plural} a rank in {epochs} "
            f"epochs ({proven} proven), one transfer each"
        )
        runs.append((_tried(G, program, q, q.chunk_bytes, ranks * k, rule), q))
    return runs


def synthesised_choice(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    best: tuple[Program, SimParams],
    bound: float,
    *,
    cache: MutableMapping[Any, Any] | None = None,
    time_limit: float = 60.0,
) -> tuple[Program, SimParams]:
    """The faster of ``best`` and the synthesised runs (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
    params : SimParams
    best : (Program, SimParams)
        The trees' fastest run so far, with its ``meta["tried"]``.
    bound : float
        The run's lower bound in the preset's time unit: at or below
        :data:`~supermesh.sim.packing_choice.STREAMING` times it, nothing else is tried.
    cache : mutable mapping, optional
    time_limit : float

    Returns
    -------
    (Program, SimParams)
        ``meta["tried"]`` lists every try, those of ``best`` first.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.program import Program
    >>> from supermesh.topologies import build
    >>> slow = Program(arcs=[], phases=[], meta={"tried": [{"time": 1e9}]})
    >>> paper = get_preset("paper")
    >>> p, _ = synthesised_choice(build("mesh:3x3"), "allgather", 1 << 20, paper,
    ...                           (slow, paper), bound=1.0)
    >>> p is slow, len(p.meta["tried"])  # 1 + 6 epoch runs + TE-CCL's and TACOS's own
    (False, 9)
    """
    from supermesh.sim.packing_choice import STREAMING, faster, fastest_try

    ranks = len(compute_nodes(G))
    if ranks > SYNTHESISED_UP_TO or fastest_try(best[0]) <= STREAMING * bound:
        return best
    runs = epoch_runs(G, collective, nbytes, params, cache=cache, time_limit=time_limit)
    if chunk_count(nbytes / max(ranks, 1), params.chunk_bytes) <= SYNTHESISED_CHUNKS:
        runs += synthesised_runs(G, collective, nbytes, params, cache=cache, time_limit=time_limit)
    for run in runs:
        best = faster(best, run)
    return best
