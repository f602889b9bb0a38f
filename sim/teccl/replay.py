"""TE-CCL schedules as simulator programs: the loop body run over the whole buffer.

A solution (:class:`~supermesh.sim.teccl.model.TecclSolution`) moves ``K`` chunks per source.
The data are ``C`` simulator chunks per source (AllGather, ReduceScatter, AllReduce: ``C =
ceil((bytes / n) / chunk_bytes)``; AllToAll: per block of ``bytes / n``), at least ``K``; TE-CCL
chunk ``j`` of a source carries its share of them (:func:`~supermesh.trees.schedule.weighted
.split_block`, ``C / K`` each when ``K`` divides ``C``). As an MSCCL runtime loops over the
buffer, the body runs again and again: each link serves its transfers loop by loop and, inside
a loop, in the order of the epochs of the solution, and a transfer starts when its link is free
and its chunk has arrived (the same per-link FIFOs, timing and dependencies as every other
algorithm, :mod:`supermesh.sim.program`). Consecutive loops overlap, so the finish time is
about the first loop's plus one busiest-link load per further loop.

- AllGather (``ag``): chunk ``c``'s sends form an out-tree from its origin; each forward waits
  for the delivery into its sender.
- ReduceScatter (``rs``): the AllGather of the reversed network run backwards: its send
  ``u -> v`` in epoch ``t`` (on the reversed network) is the topology's arc ``v -> u`` in epoch
  ``T - 1 - t``, where ``v`` sends its partial sum once every send into ``v`` has arrived.
- AllReduce: ReduceScatter, the global barrier, then AllGather.
- AllToAll (``a2a``): each chunk follows its path; a hop waits for the previous one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.sim.collectives import chunk_count, tree_phases
from supermesh.sim.presets import SimParams
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.sim.teccl.model import Send, TecclSolution
from supermesh.topologies.model import Arc
from supermesh.trees.schedule.weighted import split_block

__all__ = ["chunk_height", "phase_sends", "replay_program", "simulator_chunks"]


def simulator_chunks(solution: TecclSolution, nbytes: int, chunk_bytes: int) -> dict[int, int]:
    """Simulator chunks each TE-CCL chunk carries over the whole buffer (module docstring).

    Examples
    --------
    >>> s = TecclSolution("mesh:1x2", "allgather", (0, 1), 2, (), 1, 1, "optimal", "milp")
    >>> simulator_chunks(s, 2 * 5 * 12288, 12288)  # 5 chunks per rank over 2 TE-CCL chunks
    {0: 3, 1: 2, 2: 3, 3: 2}
    """
    k = solution.chunks
    per = max(chunk_count(nbytes / len(solution.ranks), chunk_bytes), k)
    parts = split_block(per, [1.0 / k] * k)
    return {c: parts[c % k] for c in solution.chunk_ids()}


def chunk_height(solution: TecclSolution) -> int:
    """Most hops any chunk's tree (or path) has from its origin.

    Examples
    --------
    >>> s = TecclSolution("mesh:1x3", "allgather", (0, 1, 2), 1,
    ...                   (Send(0, 0, (0, 1, 0)), Send(1, 0, (1, 2, 0))), 2, 2, "optimal", "milp")
    >>> chunk_height(s)
    2
    """
    depth: dict[tuple[int, int], int] = {}
    for s in solution.sends:  # epoch order: a sender's depth is known before it sends
        depth[(s.chunk, s.arc[1])] = depth.get((s.chunk, s.arc[0]), 0) + 1
    return max(depth.values(), default=0)


def phase_sends(solution: TecclSolution, phase: str) -> list[tuple[int, Send, list[Send]]]:
    """The sends of one phase on the topology, in FIFO order, each with what it waits for.

    Parameters
    ----------
    solution : TecclSolution
    phase : {"ag", "rs", "a2a"}
        ``rs`` reads the solution (solved on the reversed network) backwards.

    Returns
    -------
    list of (int, Send, list of Send)
        ``(epoch in the phase, send on the topology's arcs, the sends it waits for)``, sorted by
        epoch, chunk and arc.

    Examples
    --------
    Chunk 0 gathered along 0 -> 1 -> 2 on the reversed network is reduced along 2 -> 1 -> 0:

    >>> s = TecclSolution("mesh:1x3", "allgather", (0, 1, 2), 1,
    ...                   (Send(0, 0, (0, 1, 0)), Send(1, 0, (1, 2, 0))), 2, 2, "optimal", "milp")
    >>> [(t, x.arc, [d.arc for d in w]) for t, x, w in phase_sends(s, "rs")]
    [(0, (2, 1, 0), []), (1, (1, 0, 0), [(2, 1, 0)])]
    """
    into: dict[tuple[int, int], Send] = {}
    out_of: dict[tuple[int, int], list[Send]] = {}
    for s in solution.sends:
        into[(s.chunk, s.arc[1])] = s
        out_of.setdefault((s.chunk, s.arc[0]), []).append(s)
    rows: list[tuple[int, Send, list[Send]]] = []
    if phase == "rs":
        last = solution.epochs - 1
        for s in solution.sends:
            u, v, k = s.arc
            mine = Send(last - s.epoch, s.chunk, (v, u, k))
            waits = [
                Send(last - d.epoch, d.chunk, (d.arc[1], d.arc[0], d.arc[2]))
                for d in out_of.get((s.chunk, v), [])
            ]
            rows.append((mine.epoch, mine, waits))
    else:
        for s in solution.sends:
            before = into.get((s.chunk, s.arc[0]))
            rows.append((s.epoch, s, [before] if before is not None else []))
    rows.sort(key=lambda r: (r[0], r[1].chunk, r[1].arc))
    return rows


def _phase(
    G: nx.MultiDiGraph,
    solution: TecclSolution,
    phase: str,
    counts: Mapping[int, int],
    params: SimParams,
    arc_index: dict[Arc, int],
) -> PhaseBuilder:
    cut = params.cut_through
    unit = params.packet_bytes if cut else params.chunk_bytes
    per_chunk = math.ceil(params.chunk_bytes / params.packet_bytes) if cut else 1
    duration = params.serialisation(unit) + params.hop_latency
    delay = params.reduce_delay if phase == "rs" else params.forward_delay
    pb = PhaseBuilder(arc_index)
    block: dict[tuple[int, Arc], int] = {}
    rows = phase_sends(solution, phase)
    for _, s, _ in rows:
        if not G.has_edge(s.arc[0], s.arc[1], key=s.arc[2]):
            raise TopologyError(
                f"the TE-CCL schedule uses arc {s.arc[0]}->{s.arc[1]} key {s.arc[2]}, which "
                "the topology does not have",
                hint="solve it on this topology",
            )
        block[(s.chunk, s.arc)] = pb.add(
            s.arc, count=counts[s.chunk] * per_chunk, duration=duration, payload=unit, delay=delay
        )
    for _, s, waits in rows:
        pb.set_deps(block[(s.chunk, s.arc)], [block[(w.chunk, w.arc)] for w in waits])
    return pb


def replay_program(
    G: nx.MultiDiGraph,
    collective: str,
    nbytes: int,
    params: SimParams,
    solutions: Mapping[str, TecclSolution],
) -> Program:
    """The FIFO program of a TE-CCL collective (module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allgather", "reducescatter", "allreduce", "alltoall"}
    nbytes : int
        AllGather / ReduceScatter / AllReduce: the whole vector; AllToAll: each chiplet's buffer
        (a block of ``nbytes / n`` to every rank).
    params : SimParams
    solutions : mapping
        ``"ag"`` and/or ``"rs"`` (AllToAll: ``"a2a"``) -> the solution of that phase.

    Returns
    -------
    Program

    Raises
    ------
    TopologyError
        A send on an arc the topology lacks.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.teccl.solve import solve_teccl
    >>> G = build("mesh:2x2")
    >>> s = solve_teccl(G, "allgather")
    >>> prog = replay_program(G, "allgather", 4 * 2 * 12288, get_preset(), {"ag": s})
    >>> len(s.sends), prog.transfers  # 12 receipts of a loop body of 1 chunk, run twice
    (12, 24)
    """
    arc_index: dict[Arc, int] = {}
    meta_of = {
        p: {
            "epochs": s.epochs,
            "lower_bound": s.lower_bound,
            "status": s.status,
            "method": s.method,
            "chunks_per_source": s.chunks,
            **{k: s.stats[k] for k in ("stopped", "solve_seconds") if k in s.stats},
        }
        for p, s in solutions.items()
    }
    first = next(iter(solutions.values()))
    counts = simulator_chunks(first, nbytes, params.chunk_bytes)
    meta = {
        "collective": collective,
        "bytes": int(nbytes),
        "sets": 1,
        "trees": len(counts),
        "roots": list(first.ranks),
        "chunks": [max(counts.values())],
        "heights": [max(chunk_height(s) for s in solutions.values())],
        "teccl": meta_of,
    }
    if collective == "alltoall":
        pb = _phase(G, solutions["a2a"], "a2a", counts, params, arc_index)
        return Program(
            arcs=list(arc_index),
            phases=[pb.build(start=params.forward_start, label="forward")],
            release=params.link_release,
            barrier=params.barrier_delay,
            drain=params.drain,
            meta=meta,
        )
    return tree_phases(
        collective,
        params,
        arc_index,
        lambda kind: _phase(
            G,
            solutions["rs" if kind == "reduce" else "ag"],
            "rs" if kind == "reduce" else "ag",
            counts,
            params,
            arc_index,
        ),
        meta,
    )
