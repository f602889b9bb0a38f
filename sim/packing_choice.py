"""Other packings for a throughput run whose fewest-parts packing does not stream.

:func:`~supermesh.sim.chunk_choice.tuned_program` finds the fastest chunk size for one packing.
On small grids the packing itself can be what holds a run back from the cut bound: the link
FIFO orders of a list schedule (:mod:`supermesh.trees.schedule.fifo`) keep some packings
streaming and leave others waiting. :func:`other_packings` names the packings worth one more
search there:

- twice the parts (SMAlter 4x4, AllGather 512 MiB, paper preset: 4 parts run no closer than
  1.007 of the bound at any chunk size, 1.041 at the 12 KiB chosen before; 8 parts with one
  chunk per tree run at 1.0001);
- the other direction's packing reversed arc by arc, where every arc has its reverse: a
  ReduceScatter's in-trees reversed are AllGather out-trees at the same rate, and their list
  schedule can stream where the out-trees' does not (SMAlter 5x5, AllGather 16 MiB, paper
  preset: 1.112 -> 1.035 of the bound).

Where a tree's share is only a few chunks the run is latency-bound and the part count itself is
the lever: every tree's share is sent as whole packets, so a share just over a packet pays for
two. :func:`packet_parts` names the part count whose shares fill their packets best
(SMBi 5x5, AllGather 1 MiB, paper preset: the fewest parts, 8, give 5,243-byte shares of 2
packets each and run at 1.69 of the bound; 6 parts, 1.31).

Each is built once and kept in the caller's per-direction memo; the caller simulates them with
the first packing and keeps the fastest.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import replace
from typing import Any

import networkx as nx

from supermesh.sim.presets import SimParams
from supermesh.sim.program import Program
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule import reverse_packing

__all__ = [
    "HELD_RULE",
    "LONG_SHARE",
    "MORE_PARTS_SLACK",
    "OTHER_DIRECTION_UP_TO",
    "OTHER_PACKINGS_UP_TO",
    "STREAMING",
    "faster",
    "fastest_try",
    "free_share_choice",
    "held_rate_packings",
    "other_packings",
    "packet_parts",
]

HELD_RULE = "throughput, parts auto, packed on the held wires' rates (b / l)"
"""The rule of a packing of :func:`held_rate_packings`."""

OTHER_PACKINGS_UP_TO = 36
"""Ranks up to which :func:`other_packings` offers packings (each built in about a second there;
at 8x8 twice the parts take 7 s and do not reach the bound on SMBi or SMAlter)."""
OTHER_DIRECTION_UP_TO = 64
"""Ranks up to which :func:`other_packings` offers the other direction's fewest-parts packing
reversed, the one packing that pays at 8x8 (SMBi 8x8 ReduceScatter 512 MiB, paper preset: its
in-trees at 1.0084 of the bound, the AllGather's out-trees reversed at 1.0019; the call takes
2.9x as long, 8.8 -> 27 s side by side on a loaded machine)."""
STREAMING = 1.002
"""A run within this factor of the cut bound streams: no other packing is tried."""
MORE_PARTS_SLACK = 1.01
""":func:`free_share_choice` tries more copies of the free-share trees unless the last were
slower than the fastest so far by more than this factor: runs of one round land within a few
cycles of each other where more parts still pay (mesh 4x4 AllReduce 1 MiB, booksim: 1, 2 and 4
copies at 74,125, 74,128 and 73,391 cycles), and far apart where they do not (SMAlter 5x5:
1.01 of the bound, then 2.8)."""
LONG_SHARE = 4
"""Other packings are tried only where a tree's share is at least this many chunks; below, the
run is mostly latency (fill and hop costs), which the packing changes little (SMAlter 5x5
AllGather 4 MiB, 3.4 chunks a tree: every packing at 1.12 of the bound in the paper preset), and
:func:`packet_parts` weighs the part count instead. At 16 MiB (7-14 chunks a tree on 5x5) they
pay: SMAlter 5x5 AllGather 235,810 -> 221,481 ns (paper) and ReduceScatter 460,456 -> 447,522
cycles (booksim), SMBi 5x5 ReduceScatter 342,642 -> 337,186 and AllReduce 685,260 -> 674,342
cycles (booksim), each then faster than TACOS, for seconds of CP-SAT part splits a call."""


def other_packings(
    G: nx.MultiDiGraph,
    packing: TreePacking,
    program: Program,
    collective: str,
    params: SimParams,
    memos: MutableMapping[str, MutableMapping[int, TreePacking]],
    time_limit: float = 60.0,
) -> list[TreePacking]:
    """Packings to try besides ``packing``, when its fastest run is short of the bound.

    Empty on more than :data:`OTHER_DIRECTION_UP_TO` ranks; on more than
    :data:`OTHER_PACKINGS_UP_TO`, only the other direction's packing reversed, and not at
    latency-bound sizes. Where a tree's share is fewer than :data:`LONG_SHARE` chunks
    (latency-bound), the packing of :func:`packet_parts`'s part
    count, if it proposes one. Otherwise empty when the best of ``program``'s tries is within
    :data:`STREAMING` of the packing's own bound (an AllReduce's: ReduceScatter then
    AllGather, which its equal-root trees run, not the free-share rate they cannot reach;
    up to :data:`OTHER_PACKINGS_UP_TO` ranks, by its rounds of one chunk of every tree alone,
    not its one-round tries),
    else twice the parts and the other direction's fewest-parts packing reversed, if the
    topology is symmetric (see the module docstring). Only packings at ``packing``'s rate are
    returned.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
        The fewest-parts packing the run used (``stats["parts"]["parts"]`` parts).
    program : Program
        Its fastest run, from :func:`~supermesh.sim.chunk_choice.tuned_program` (every try
        with its time in ``meta["tried"]``).
    collective : {"allgather", "reducescatter", "allreduce"}
    params : SimParams
    memos : mutable mapping
        ``"out"`` / ``"in"`` -> packings of that direction by part count (``0``: the fewest),
        read and filled.
    time_limit : float
        Seconds for each new packing's part split and height proof.

    Returns
    -------
    list of TreePacking
        In ``packing``'s direction, ``stats["rule"]`` naming each.

    Examples
    --------
    >>> from supermesh.sim.chunk_choice import tuned_program
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G, paper = build("smalter:4x4"), get_preset("paper")
    >>> p = pack_throughput(G, parts="auto")
    >>> prog, _ = tuned_program(G, [p], "allgather", 512 << 20, paper)
    >>> [len(q.trees) for q in other_packings(G, p, prog, "allgather", paper, {})]
    [128, 64, 128]
    """
    from supermesh.sim.link_costs import serial_capacity_network
    from supermesh.sim.packing import tree_bytes
    from supermesh.topologies.model import compute_nodes
    from supermesh.trees.bounds.throughput import throughput_bound
    from supermesh.trees.schedule.collective import reversible
    from supermesh.trees.throughput import memoised_packing

    count = _parts(packing)
    timed = [t for t in program.meta.get("tried", []) if t.get("time")]
    # the fill is judged on the rounds of one chunk of every tree: one round of several chunks
    # a tree (``one_round``) removes a different loss, and other packings may still remove this
    tries = [t for t in timed if not t.get("one_round")]
    nbytes = program.meta.get("bytes")
    ranks = len(compute_nodes(G))
    if not tries or not isinstance(nbytes, int) or ranks > OTHER_DIRECTION_UP_TO:
        return []
    few = ranks <= OTHER_PACKINGS_UP_TO

    def built(direction: str, parts: int | str) -> TreePacking:
        memo = memos.setdefault(direction, {})
        return memoised_packing(G, memo, direction=direction, parts=parts, time_limit=time_limit)

    rate = packing.stats.get("algbw_links")
    own, other = packing.direction, "in" if packing.direction == "out" else "out"
    wanted: list[tuple[str, int | str]] = []
    share = min(tree_bytes(packing.trees, nbytes, collective))
    if share < LONG_SHARE * params.chunk_bytes:
        if not few:
            return []  # past OTHER_PACKINGS_UP_TO only the reversed packing, which is not this
        # latency-bound: not the packing but its part count, whose shares fill whole packets
        fits = packet_parts(packing, ranks, nbytes, params)
        wanted = [(own, fits)] if fits is not None else []
        why = "whole packets at this size"
    else:
        net = serial_capacity_network(G, params)
        bound = float(throughput_bound(net, collective).value)
        if not bound:
            return []
        bound_time = nbytes / (bound * params.link_bandwidth())
        # where other packings cost a second (few ranks), a one-round run within STREAMING
        # may still lose to one (SMAlter 4x4 ReduceScatter 64 MiB, paper: 1.0019 of the bound
        # on its own trees, 1.0010 on twice the parts): only the rounds count there
        if min(t["time"] for t in (tries if few else timed)) <= STREAMING * bound_time:
            return []
        first = min(tries, key=lambda t: t["time"])
        if first["time"] - bound_time <= _fill(packing, first["chunk_bytes"], collective, params):
            return []  # what is left is the pipeline's fill, which no other packing removes
        why = "the fewest did not stream"
        wanted = [(own, 2 * count)] if isinstance(count, int) and few else []
        if reversible(G):
            wanted.append((other, "auto"))
            other_count = _parts(built(other, "auto")) if few else None
            if other_count is not None:
                wanted.append((other, 2 * other_count))
    out: list[TreePacking] = []
    for direction, parts in wanted:
        p = built(direction, parts)
        if not p.sets or p.stats.get("algbw_links") != rate:
            continue  # twice the parts may fall below the bound's rate: not a candidate
        parts_text = "the fewest parts" if parts == "auto" else f"{parts} parts"
        if direction == own:
            p.stats["rule"] = f"throughput, {parts_text} ({why})"
            out.append(p)
        else:
            rule = f"throughput, the {direction}-tree packing of {parts_text} reversed"
            out.append(_reversed(p, packing, f"{rule} ({why})"))
    return out


def held_rate_packings(
    G: nx.MultiDiGraph,
    net: nx.MultiDiGraph,
    direction: str,
    memos: MutableMapping[str, Any],
    time_limit: float = 60.0,
) -> list[TreePacking]:
    """Packings of ``net``, the rates a preset that holds long wires gives ``G``'s links.

    :func:`~supermesh.sim.link_costs.serial_capacity_network` counts a wire of latency ``l`` at
    ``b / l``, and so does the bound; trees packed on the raw bandwidth load the long wires as
    if they were short (Double Butterfly 4x4 AllGather 64 MiB, booksim: 1.618 of the bound,
    1.030 packed here). The fewest parts in ``direction``, then, on a network with every
    arc's reverse, the other direction's reversed (Kite-medium 4x4 ReduceScatter 64 MiB: 1.026
    on in-trees, 1.006 on the out-trees reversed; Folded Torus 1.316 and 1.213).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    net : networkx.MultiDiGraph
        ``G`` with the held rates as bandwidths.
    direction : {"out", "in"}
    memos : mutable mapping
        Packings by direction (``"out"``, ``"in"``) of ``net``, read and filled.
    time_limit : float
        CP-SAT seconds per part split.

    Returns
    -------
    list of TreePacking
        Their rules :data:`HELD_RULE`, and the same with the reversal named.

    Raises
    ------
    TopologyError
        Ranks that cannot reach each other (as
        :func:`~supermesh.trees.schedule.collective.throughput_packing`).

    Examples
    --------
    >>> from supermesh.sim.link_costs import serial_capacity_network
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> G = build("kite-small:4x4")
    >>> net = serial_capacity_network(G, get_preset("booksim"))
    >>> [p.direction for p in held_rate_packings(G, net, "in", {})]
    ['in', 'in']
    """
    from supermesh.trees.schedule.collective import reversible, throughput_packing

    def built(d: str) -> TreePacking:
        memo = memos.setdefault(d, {})
        return throughput_packing(net, d, time_limit=time_limit, memo=memo)

    own = built(direction)
    own.stats["rule"] = HELD_RULE
    out = [own]
    if reversible(G):
        other = built("in" if direction == "out" else "out")
        out.append(_reversed(other, own, f"{HELD_RULE}, the {other.direction}-trees reversed"))
    return out


def _fill(packing: TreePacking, chunk: int, collective: str, params: SimParams) -> float:
    """One chunk's transfer plus the tallest tree's hops, per phase: the part of a run above
    the cut bound that is the pipeline filling and draining, not the packing's FIFO orders.

    Measured over 96 AllGather / ReduceScatter cells (mesh, SMBi and SMAlter at 4x4 and 5x5,
    4-32 MiB, both presets): every cell whose excess over the bound is at most this (mesh and
    SMBi 4x4, mesh 5x5: 0.00-0.72 of it) gained nothing from other packings; every cell they
    sped up was above it (1.02-54 of it)."""
    tallest = max((t.height for t in packing.trees), default=0)
    hop = params.hop_latency + params.link_release
    phases = 2 if collective == "allreduce" else 1
    return phases * (float(chunk) / params.link_bandwidth() + tallest * hop)


PART_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16)
"""The part counts :func:`packet_parts` weighs."""


def packet_parts(packing: TreePacking, ranks: int, nbytes: int, params: SimParams) -> int | None:
    """A part count that suits a latency-bound size better than ``packing``'s, or None.

    Only where a tree's share is fewer than :data:`LONG_SHARE` chunks, so that each tree sends
    its share as one chunk and the run is a list schedule of one round. ``K`` parts put ``L_K``
    shares on the busiest link (``packing``'s ``max_load`` for its own count, ``ceil(K n /
    rho)`` for another), each as long as its whole packets
    (:meth:`~supermesh.sim.presets.SimParams.serialisation`) and a hop; a list schedule takes
    ``L_K`` rounds at best and about ``L_K + 2`` in practice (SMBi 5x5, 1 MiB, paper preset: 26,
    38 and 49 rounds for 4, 6 and 8 parts, the simulated times to the cycle). A count of
    :data:`PART_COUNTS` is proposed only if its usual time beats ``packing``'s best (each
    proposal costs a part split and a simulation); the least such estimate wins.

    Parameters
    ----------
    packing : TreePacking
        The fewest-parts equal-part packing (``stats["parts"]`` with ``parts`` and
        ``max_load``; ``stats["algbw_links"]`` its rate).
    ranks : int
    nbytes : int
        The collective's size (each rank's shard ``nbytes / ranks`` is split into parts).
    params : SimParams

    Returns
    -------
    int or None

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> p = pack_throughput(build("smbi:5x5"), parts="auto")
    >>> p.stats["parts"]["parts"], packet_parts(p, 25, 1 << 20, get_preset("paper"))
    (8, 6)
    >>> packet_parts(p, 25, 512 << 20, get_preset("paper")) is None  # not latency-bound
    True
    """
    from fractions import Fraction

    info = packing.stats.get("parts")
    rate = packing.stats.get("algbw_links")
    if not isinstance(info, dict) or not isinstance(rate, str) or ranks < 1:
        return None
    own, load = info.get("parts"), info.get("max_load")
    if not isinstance(own, int) or load is None:
        return None
    if nbytes / (ranks * own) >= LONG_SHARE * params.chunk_bytes:
        return None
    rho = Fraction(rate)
    hop = params.hop_latency + params.link_release

    def estimate(k: int, rounds: int) -> float:
        return rounds * (params.serialisation(math.ceil(nbytes / (ranks * k))) + hop)

    best_own = estimate(own, math.ceil(Fraction(load)))
    usual = {k: estimate(k, math.ceil(k * ranks / rho) + 2) for k in PART_COUNTS if k != own}
    best = min(usual, key=lambda k: (usual[k], k))
    return best if usual[best] < best_own else None


def _parts(p: TreePacking) -> int | None:
    parts = p.stats.get("parts")
    count = parts.get("parts") if isinstance(parts, dict) else None
    return count if isinstance(count, int) else None


def _reversed(p: TreePacking, like: TreePacking, rule: str) -> TreePacking:
    """``p`` reversed (:func:`~supermesh.trees.schedule.phases.reverse_packing`) into
    ``like``'s direction.

    What depends on the direction (the collective, the bound's cut, which is entered rather than
    left) is ``like``'s: the rate is the same, so is its proof.
    """
    keys: tuple[str, ...] = ("collective", "bound_certificate")
    own: dict[str, Any] = {k: like.stats[k] for k in keys if k in like.stats}
    return replace(reverse_packing(p), stats={**p.stats, **own, "rule": rule})


def fastest_try(program: Program) -> float:
    """The time of the fastest of a tuned program's tries (``meta["tried"]``; inf if none).

    Examples
    --------
    >>> from supermesh.sim.program import Program
    >>> fastest_try(Program(arcs=[], phases=[], meta={"tried": [{"time": 5.0}, {"time": 4.0}]}))
    4.0
    """
    return min(t.get("time", math.inf) for t in program.meta.get("tried", [{}]))


def faster(
    first: tuple[Program, SimParams], second: tuple[Program, SimParams]
) -> tuple[Program, SimParams]:
    """The faster of two :func:`~supermesh.sim.chunk_choice.tuned_program` answers (the first
    on a tie), its ``meta["tried"]`` listing the tries of both.

    Examples
    --------
    >>> from supermesh.sim.program import Program
    >>> from supermesh.sim.presets import get_preset
    >>> a = Program(arcs=[], phases=[], meta={"tried": [{"chunk_bytes": 1, "time": 5.0}]})
    >>> b = Program(arcs=[], phases=[], meta={"tried": [{"chunk_bytes": 2, "time": 4.0}]})
    >>> p, _ = faster((a, get_preset()), (b, get_preset()))
    >>> [t["chunk_bytes"] for t in p.meta["tried"]], p is b
    ([1, 2], True)
    """

    winner = second if fastest_try(second[0]) < fastest_try(first[0]) else first
    winner[0].meta["tried"] = [*first[0].meta.get("tried", []), *second[0].meta.get("tried", [])]
    return winner


def free_share_choice(
    G: nx.MultiDiGraph,
    nbytes: int,
    params: SimParams,
    best: tuple[Program, SimParams],
    memo: MutableMapping[Any, Any],
    time_limit: float = 60.0,
    *,
    beat: float = math.inf,
) -> tuple[Program, SimParams]:
    """``best``, or a free-root AllReduce that runs faster.

    Parts of the vector that float may beat equal parts (the mesh's corners):
    :func:`~supermesh.trees.schedule.free_share_packing`'s multiples are tried in turn until
    one runs within :data:`STREAMING` of the free-share bound or slower than the fastest
    before it by more than :data:`MORE_PARTS_SLACK` (each takes CP-SAT seconds). Where
    floating parts gain no rate, :func:`~supermesh.trees.schedule.whole_tree_packing`'s few
    whole trees are tried instead.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    nbytes : int
        The AllReduce's size.
    params : SimParams
    best : (Program, SimParams)
        The fastest run so far (:func:`~supermesh.sim.chunk_choice.tuned_program`).
    memo : mutable mapping
        The free-share memo of ``G``, read and filled.
    time_limit : float
        Seconds for the free-root LP (CP-SAT gets at most 10).
    beat : float
        A run outside ``best`` to beat (the rings', the undirected trees'), which the
        justified tries are held to (:func:`~supermesh.sim.chunk_choice.tuned_program`).

    Returns
    -------
    (Program, SimParams)
        The fastest, ``meta["tried"]`` listing every try.

    Examples
    --------
    >>> from supermesh.sim.chunk_choice import tuned_program
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G, paper = build("mesh:4x4"), get_preset("paper")
    >>> first = tuned_program(G, [pack_throughput(G, parts="auto")], "allreduce", 64 << 20, paper)
    >>> before = fastest_try(first[0])
    >>> prog, _ = free_share_choice(G, 64 << 20, paper, first, {})
    >>> [t["rule"] for t in prog.meta["tried"] if t["rule"].startswith("free")][:1]
    ['free-roots x1']
    >>> fastest_try(prog) <= before  # the corner trees' own tries lose to the equal parts'
    True
    """
    from supermesh.sim.chunk_choice import tuned_program
    from supermesh.trees.schedule import (
        FREE_SHARE_MULTIPLES,
        free_share_packing,
        free_share_rate,
        whole_tree_packing,
    )

    found = free_share_rate(G, memo, time_limit=time_limit)
    if found is None:  # no rate to gain: a few whole trees may still stream better
        whole = whole_tree_packing(G, memo, time_limit=min(time_limit, 10.0))
        if whole is not None:
            beat = min(beat, fastest_try(best[0]))
            mine = tuned_program(G, [whole], "allreduce", nbytes, params, beat=beat)
            best = faster(best, mine)
        return best
    enough = STREAMING * 2 * nbytes / (found.upper * params.link_bandwidth())
    before = math.inf
    for m in FREE_SHARE_MULTIPLES:
        p = free_share_packing(G, m, memo, time_limit=min(time_limit, 10.0))
        if p is None:
            break
        mine = tuned_program(
            G, [p], "allreduce", nbytes, params, beat=min(beat, fastest_try(best[0]))
        )
        now = fastest_try(mine[0])
        best = faster(best, mine)
        if now <= enough or now > MORE_PARTS_SLACK * before:
            break  # near the bound, or more parts stream worse (SMAlter 5x5: 1.01, then 2.8)
        before = min(before, now)
    return best
