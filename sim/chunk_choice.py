"""The chunk size of a throughput run: which sizes to try, and the fastest of them.

A weighted packing's run (:func:`supermesh.sim.packing.packing_program`) depends on the chunk size
as a tree pipeline does: smaller chunks fill the trees sooner, larger ones pay the hop latency
less often. :func:`chunk_candidates` names the sizes worth a simulation and
:func:`tuned_program` simulates each and keeps the fastest, recording the choice in the program's
``meta`` (shown by ``sim --json``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.sim.engine.timing import run_program
from supermesh.sim.justified_choice import (
    JUSTIFIED_WORK,
    ONE_ROUND_WORK,
    allreduce_load,
    chunked_floor,
    justified_tries,
    transfers,
)
from supermesh.sim.link_costs import apply_link_costs
from supermesh.sim.packing import packing_program, tree_bytes
from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.trees.model import Tree, TreePacking

__all__ = [
    "EVEN_CHUNKS",
    "JUSTIFIED_WORK",
    "ONE_ROUND_CHUNKS",
    "ONE_ROUND_WORK",
    "SEARCH_UP_TO",
    "chunk_candidates",
    "ring_program",
    "simulated_try",
    "tuned_program",
]

EVEN_CHUNKS = 2
"""Chunk sizes that cut a tree's share exactly (:func:`_even_chunks`) an AllReduce also tries."""
SEARCH_UP_TO = 100
"""Ranks up to which :func:`chunk_candidates` offers three chunk sizes (above: one)."""
ONE_ROUND_CHUNKS = (2, 4, 8)
"""Chunks a tree that :func:`tuned_program` also tries as one list-scheduled round (up to
:data:`SEARCH_UP_TO` ranks): SMBi 8x8, AllGather 512 MiB, paper preset, runs at 1.016, 1.0084,
1.0010 and 1.0019 of the bound with 1, 2, 4 and 8."""


def chunk_candidates(
    packing: TreePacking | Sequence[Tree],
    nbytes: int,
    params: SimParams,
    collective: str = "allgather",
) -> list[int]:
    """The chunk sizes :func:`tuned_program` tries, largest first.

    One chunk per tree (the smallest share's bytes), two chunks per tree, the chunk that
    balances pipeline fill against hop costs (:func:`_balanced_chunk`, in whole packets, where
    it lies between those and the preset's), for AllReduce the :data:`EVEN_CHUNKS` whole-packet
    chunks nearest it that cut the share exactly (:func:`_even_chunks`), and the preset's
    ``chunk_bytes``, none twice (a chunk's last packet may be short, so the first two are not
    rounded to packets).
    Above :data:`SEARCH_UP_TO` ranks only one chunk per tree (the fastest of the three on SMBi
    16x16 at 512 MiB: 1.0003 of the cut bound, against 1.0006 and 1.0225), since each
    candidate is a whole simulation.

    A chunk pays the hop latency once per link, and a pipeline fills and drains over its
    tallest tree, chunk by chunk. With one chunk per tree nothing is pipelined: every tree's
    data crosses each of its arcs once, as a bidirectional ring's blocks do, and the link FIFO
    order (:func:`~supermesh.trees.schedule.fifo.fifo_slots`, a list schedule of that one round)
    decides the rest. Measured (booksim, AllGather): within 0.02% of the cut bound at 512 MiB
    on mesh 4x4 and 5x5 and SMBi 4x4, where 12 KiB chunks run 0.4-1.2% above it.

    Parameters
    ----------
    packing : TreePacking or sequence of Tree
    nbytes : int
        Collective size.
    params : SimParams
    collective : str
        How the vector is split among the roots (:func:`~supermesh.sim.packing.tree_bytes`).

    Returns
    -------
    list of int

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> p = pack_throughput(build("mesh:4x4"))  # 2 trees per root
    >>> chunk_candidates(p, 512 << 20, get_preset("booksim"))  # 16 MiB per tree
    [16777216, 8388608, 77824, 12288]
    """
    trees = list(packing.trees) if isinstance(packing, TreePacking) else list(packing)
    roots = {t.root for t in trees}
    smallest = min(tree_bytes(trees, nbytes, collective))
    out: list[int] = []
    if len(roots) > SEARCH_UP_TO:
        return [max(1, math.ceil(smallest))]
    sizes = [math.ceil(smallest), math.ceil(smallest / 2)]
    balanced = _balanced_chunk(packing, trees, nbytes, params)
    if balanced is not None and params.chunk_bytes < balanced < sizes[-1]:
        sizes.append(balanced)
        if collective == "allreduce":
            sizes += _even_chunks(smallest, balanced, params.packet_bytes)
    for c in (*sizes, params.chunk_bytes):
        if c >= 1 and c not in out:
            out.append(c)
    return out


def _even_chunks(share: float, balanced: int, packet: int) -> list[int]:
    """Whole-packet chunks within a factor 2 of ``balanced`` that cut ``share`` exactly, the
    :data:`EVEN_CHUNKS` nearest to it (in ratio), largest first.

    A share cut unevenly ends in a short chunk that still pays a hop latency and a FIFO turn on
    every link; an AllReduce pays it in both phases. Mesh 4x4, AllReduce 64 MiB, paper preset,
    free shares (4 MiB a tree): 44 KiB chunks (the balanced rule) run at 1.0210 of the bound,
    64 KiB (64 chunks a tree) at 1.0155, 32 KiB at 1.0192.
    """
    if share <= 0 or share % packet:
        return []
    packets = int(share // packet)
    fits = [
        d * packet
        for d in range(max(1, balanced // (2 * packet)), 2 * balanced // packet + 1)
        if packets % d == 0
    ]
    near = sorted(fits, key=lambda c: abs(math.log(c / balanced)))[:EVEN_CHUNKS]
    return sorted(near, reverse=True)


def _balanced_chunk(
    packing: TreePacking | Sequence[Tree], trees: Sequence[Tree], nbytes: int, params: SimParams
) -> int | None:
    """The chunk whose pipeline fill equals its hop overheads, in whole packets.

    A run of ``T`` at the bound ``rho`` (bytes ``nbytes / rho`` per busiest link) streamed in
    chunks of ``c`` loses about ``h c / (nbytes / rho)`` filling its tallest tree (``h`` hops)
    and ``hop b / c`` on each chunk's hop cost (``hop`` time units at ``b`` bytes per unit): the
    sum is least at ``c = sqrt(hop b nbytes / (rho h))``. Measured on 8x8 SMAlter, AllGather 512
    MiB, paper preset: the rule's 68 KiB at 1.026 of the bound where 12 KiB ran 1.044.
    """
    from fractions import Fraction

    rate = packing.stats.get("algbw_links") if isinstance(packing, TreePacking) else None
    tallest = max((t.height for t in trees), default=0)
    if not isinstance(rate, str) or tallest < 1:
        return None
    rho = float(Fraction(rate))
    hop = (params.hop_latency + params.link_release) * params.link_bandwidth()
    return params.whole_packets(math.sqrt(hop * nbytes / (rho * tallest)))


def tuned_program(
    G: nx.MultiDiGraph,
    packings: Sequence[TreePacking],
    collective: str,
    nbytes: int,
    params: SimParams,
    *,
    beat: float = math.inf,
) -> tuple[Program, SimParams]:
    """The fastest packing program over packings and their :func:`chunk_candidates`.

    Each is built by :func:`~supermesh.sim.packing.packing_program`. Where there is more than
    one candidate, the fastest packing is then tried at :data:`ONE_ROUND_CHUNKS` chunks a tree
    as one round (``one_round``: every chunk its own stream in one repaired list schedule),
    more chunks while each try is no slower than the one before it (the first: one chunk a
    tree, which is one round too); such a ``tried`` entry says
    ``"one_round": true``, and so does the program's ``meta`` when it is kept.
    Every candidate is simulated (link costs applied, as :func:`~supermesh.sim.run.evaluate`
    does); the first of the fastest is kept (larger chunks first: fewer transfers).
    An AllReduce then runs the fastest pipelined try's packing in one justified order
    (``order="justified"`` of :func:`~supermesh.sim.packing.packing_program`, entries
    ``"order": "justified"``, and ``"ramp"`` for ramped chunks), searched by
    :func:`~supermesh.sim.justified_choice.justified_tries`, unless its busiest arc alone needs
    ``beat`` or longer (:func:`~supermesh.sim.justified_choice.allreduce_load`).
    ``meta["chunk_bytes"]`` and ``meta["tried"]`` (chunk bytes, trees, time of every
    candidate) record the choice. A single candidate (one packing above
    :data:`SEARCH_UP_TO` ranks) is not simulated here: its entry has no time, the result's is
    its time (a 32x32 packing's run is 4 million transfers, which the caller runs anyway).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packings : sequence of TreePacking
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
    params : SimParams
    beat : float
        The fastest run found elsewhere: an AllReduce's justified tries are skipped for a
        packing whose busiest arc alone needs this long.

    Returns
    -------
    Program, SimParams
        The program and the parameters it was built for (``chunk_bytes`` the chosen one).

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("mesh:4x4")
    >>> booksim = get_preset("booksim")
    >>> prog, q = tuned_program(G, [pack_throughput(G)], "allgather", 1 << 20, booksim)
    >>> q.chunk_bytes, [t["chunk_bytes"] for t in prog.meta["tried"]]
    (32768, [32768, 16384, 12288, 16384])
    """
    options = [(p, c) for p in packings for c in chunk_candidates(p, nbytes, params, collective)]
    if not options:
        raise SpecError("no packing to simulate")
    best: tuple[float, Program, SimParams, TreePacking] | None = None
    tried: list[dict[str, Any]] = []
    runs: list[tuple[TreePacking, int, float]] = []  # rounds of one chunk of every tree

    def attempt(
        p: TreePacking,
        c: int,
        one_round: bool,
        order: str = "schedule",
        ramp: float | None = None,
    ) -> float:
        nonlocal best
        q = dataclasses.replace(params, chunk_bytes=c)
        program = packing_program(
            G, p, collective, nbytes, q, one_round=one_round, barrier=False, order=order, ramp=ramp
        )
        tried.append(
            {"chunk_bytes": c, "trees": len(p.trees), "rule": p.stats.get("rule", "given")}
        )
        if one_round:
            tried[-1]["one_round"] = True
        if order != "schedule":
            tried[-1]["order"] = order
        if ramp is not None:
            tried[-1]["ramp"] = ramp
        if len(options) == 1:
            best = (0.0, program, q, p)  # nothing to choose: the caller's run is the only one
            return 0.0
        end = run_program(apply_link_costs(G, program, q)).end
        tried[-1]["time"] = end
        if not one_round:
            runs.append((p, c, end))
        if best is None or end < best[0]:
            best = (end, program, q, p)
        return end

    for p, c in options:
        if p.method == "undirected" and collective == "allreduce" and len(options) > 1:
            # rounds never overlap a link's reduce with its broadcast, which is what these
            # trees are for, and their unequal shares make thousands of streams (SMBi 8x8:
            # 36 s a simulation): a justified order only
            runs.append((p, c, math.inf))
            continue
        attempt(p, c, False)
    if len(options) > 1 and best is not None:
        fastest = best[3]
        smallest = min(tree_bytes(list(fastest.trees), nbytes, collective))
        # one chunk a tree is one round too: each try is held to the one before it, not to
        # the best, which a pipelined try may hold (SMBi 8x8 ReduceScatter 512 MiB, booksim:
        # 2 chunks a tree a hair slower than the best, 4 at 1.0003 of the bound)
        previous = min(
            (end for p, c, end in runs if p is fastest and c >= smallest), default=math.inf
        )
        for k in ONE_ROUND_CHUNKS:
            c = math.ceil(smallest / k)
            if smallest < k or transfers(fastest, nbytes, collective, c) > ONE_ROUND_WORK:
                break  # more than a one-round try may take: a tree of a tiny share
            end = attempt(fastest, c, True)
            if end > previous:
                break  # slower than one chunk fewer: more chunks only pay more hop costs
            previous = end
    if collective == "allreduce" and runs:
        fastest = min(runs, key=lambda r: r[2])[0]
        floor, balanced = allreduce_load(G, fastest, nbytes, params)
        fastest_so_far = min(beat, best[0] if best is not None else math.inf)
        if floor < fastest_so_far:
            justified_tries(
                attempt,
                runs,
                nbytes,
                params,
                ramps=not balanced,
                beat=fastest_so_far,
                floor=lambda c: chunked_floor(G, nbytes, params, c),
            )
    if best is None:
        # an undirected packing that cannot beat ``beat``: its rounds, not simulated (their
        # time is the caller's to find; they lose to any timed try)
        p, c = options[0]
        q = dataclasses.replace(params, chunk_bytes=c)
        program = packing_program(G, p, collective, nbytes, q, barrier=False)
        tried.append(
            {"chunk_bytes": c, "trees": len(p.trees), "rule": p.stats.get("rule", "given")}
        )
        best = (math.inf, program, q, p)
    _, program, q, _ = best
    program.meta["chunk_bytes"] = q.chunk_bytes
    program.meta["tried"] = tried
    return program, q


def ring_program(
    G: nx.MultiDiGraph,
    packing: TreePacking,
    collective: str,
    nbytes: int,
    params: SimParams,
) -> tuple[Program, SimParams]:
    """The program of a ring packing (:func:`~supermesh.trees.throughput.rings.ring_packing`)
    at one chunk a tree, simulated.

    One chunk a tree is the ring's best chunk: every arc is busy from the first slot to the
    last, so more chunks only pay the hop latency more often. Its time is in the one
    ``meta["tried"]`` entry, as :func:`tuned_program` records a try.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
        The rings, in the collective's direction (AllReduce: out-trees).
    collective : {"allgather", "reducescatter", "allreduce"}
    nbytes : int
    params : SimParams

    Returns
    -------
    Program, SimParams
        The program and the parameters it was built for.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.rings import ring_packing
    >>> G, paper = build("smalter:8x8"), get_preset("paper")
    >>> prog, q = ring_program(G, ring_packing(G), "allgather", 512 << 20, paper)
    >>> q.chunk_bytes  # 512 MiB over 64 ranks x 4 rings
    2097152
    >>> round(prog.meta["tried"][0]["time"], 6)  # 63 transfers of 2 MiB at 25 B/ns, 20 ns a hop
    5286083.04
    """
    smallest = min(tree_bytes(list(packing.trees), nbytes, collective))
    q = dataclasses.replace(params, chunk_bytes=max(1, math.ceil(smallest)))
    program = packing_program(G, packing, collective, nbytes, q, barrier=False)
    rule = packing.stats.get("rule", packing.method)
    return simulated_try(G, program, q, q.chunk_bytes, len(packing.trees), rule), q


def simulated_try(
    G: nx.MultiDiGraph, program: Program, params: SimParams, chunk_bytes: int, trees: int, rule: str
) -> Program:
    """Simulate ``program`` and record it as a search's one try, as :func:`tuned_program` does.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    program : Program
    params : SimParams
        The parameters it was built for.
    chunk_bytes : int
        The chunk it sends (``meta["chunk_bytes"]``).
    trees : int
        How many trees it runs.
    rule : str
        What it is, for ``meta["tried"]``.

    Returns
    -------
    Program
        ``program``, its ``meta["tried"]`` the one entry with the simulated ``time``.

    Examples
    --------
    >>> from supermesh.sim.baselines import baseline_program
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> G, paper = build("mesh:2x2"), get_preset("paper")
    >>> prog = baseline_program(G, "ring", "allgather", 4 * 4096, paper)
    >>> tried = simulated_try(G, prog, paper, 4096, 4, "a ring").meta["tried"]
    >>> round(tried[0]["time"], 6)  # 3 steps of a 4 KiB share at 25 B/ns, 20 ns a hop
    551.52
    """
    end = run_program(apply_link_costs(G, program, params)).end
    program.meta["chunk_bytes"] = chunk_bytes
    program.meta["tried"] = [
        {"chunk_bytes": chunk_bytes, "trees": trees, "rule": rule, "time": end}
    ]
    return program
