"""An AllReduce's order of every transfer: which chunk sizes and ramps a throughput run tries.

A throughput AllReduce runs without its barrier; in one justified order
(:func:`~supermesh.sim.packing.packing_program`, ``order="justified"``) each link interleaves
its reduce transfers with its broadcast ones, so a packing's AllReduce costs its busiest arc's
bytes in both directions at once (:func:`allreduce_load`) and its best chunk size has little to
do with that of rounds of one chunk of every tree, which cannot overlap the two.
:func:`justified_tries` searches it, and :func:`ramped_tries` the chunks that ramp up and down
(:mod:`~supermesh.sim.ramp`), for :func:`~supermesh.sim.chunk_choice.tuned_program`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import networkx as nx
import numpy as np

from supermesh.sim.packing import tree_bytes
from supermesh.sim.presets import SimParams
from supermesh.sim.ramp import RAMP_RATIOS, ramped_sizes
from supermesh.trees.model import TreePacking

__all__ = [
    "BALANCED",
    "JUSTIFIED_SCAN",
    "JUSTIFIED_WORK",
    "NEIGHBOURS",
    "ONE_ROUND_WORK",
    "RAMP_GAIN",
    "REFINE_WITHIN",
    "allreduce_load",
    "chunked_floor",
    "justified_tries",
    "ramped_tries",
    "transfers",
]

ONE_ROUND_WORK = 400_000
"""Transfers up to which one-round tries are made (:func:`~supermesh.sim.chunk_choice.\
tuned_program`); chunks that need more are not tried."""
JUSTIFIED_WORK = 1_200_000
"""Transfers (both kinds, every chunk) up to which an AllReduce's trees are tried in one
justified order (:func:`~supermesh.sim.packing.packing_program`, ``order="justified"``);
chunks that need more are not tried (the schedule costs about 4-8 us a transfer). At 400,000
the cap forced mesh 8x8's 512 MiB AllReduce (booksim) into 188 KiB chunks, 1.0106 of the
bound; at 64 KiB (1,032,192 transfers, 8 s of schedule) it runs at 1.0046."""
REFINE_WITHIN = 0.01
"""A justified scan more than this fraction slower than the fastest run so far is not refined:
the chunks around the best gained at most 0.5% over the scan's best (SMBi 8x8 AllReduce 64 MiB,
paper preset: the scan's best 1.102 of the bound against the rings' 1.0958, each try there
costing seconds of simulation)."""
NEIGHBOURS = (0.5, 0.75, 1.25, 1.5, 2.0)
"""The chunks around the best an AllReduce's justified order is tried at, in whole packets, with
the powers of two of packets on either side of it, until the best is one looked around."""
JUSTIFIED_SCAN = (1, 4, 16, 64, 256)
"""Chunks a typical tree an AllReduce's justified order is first tried at (then the best is
refined around). Mesh 5x5, 512 MiB, paper preset, equal parts: the rounds'
best was one chunk a tree, where the justified order ran at 1.57 of the bound and two chunks
at 1.68, so a search from there stopped; 64 chunks ran at 1.01."""


def justified_tries(
    attempt: Callable[..., float],
    runs: Sequence[tuple[TreePacking, int, float]],
    nbytes: int,
    params: SimParams,
    *,
    ramps: bool,
    beat: float = math.inf,
    floor: Callable[[int], float] | None = None,
) -> None:
    """Try an AllReduce's fastest pipelined packing in one justified order.

    First at :data:`JUSTIFIED_SCAN` chunks a typical tree (while each is faster than the one
    before), then around the best (:data:`NEIGHBOURS`) until the best has been looked around, in
    whole packets and at most :data:`JUSTIFIED_WORK` transfers; with ``ramps``, then chunks that
    ramp up and down (:func:`ramped_tries`) from the best. Where the scan's best is more than
    :data:`REFINE_WITHIN` slower than ``beat``, nothing more is tried.

    Parameters
    ----------
    attempt : callable
        ``attempt(packing, chunk_bytes, one_round, order, ramp)`` builds, simulates and records
        one try and returns its time (:func:`~supermesh.sim.chunk_choice.tuned_program`'s).
    runs : sequence of (TreePacking, int, float)
        The pipelined tries: packing, chunk, time.
    nbytes : int
    params : SimParams
    ramps : bool
        Also try ramped chunks (for packings that are not balanced, :func:`allreduce_load`).
    beat : float
        The fastest run so far.
    floor : callable, optional
        ``floor(chunk)``: no AllReduce in chunks of at most ``chunk`` bytes is faster
        (:func:`chunked_floor`); a chunk whose floor is no faster than the fastest try so far
        is not tried, nor any smaller one.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.collective import throughput_packing
    >>> p, seen = throughput_packing(build("mesh:4x4"), "out"), []
    >>> justified_tries(lambda p, c, *rest: seen.append(c) or abs(c - 8192), [(p, 4096, 1.0)],
    ...                 4 << 20, get_preset("paper"), ramps=False)
    >>> seen  # 1, 4, 16, 64 chunks of a 128 KiB tree, then around the best, 8 KiB
    [131072, 32768, 8192, 4096, 12288, 16384]
    """
    fastest = min(runs, key=lambda r: r[2])[0]
    sizes = tree_bytes(list(fastest.trees), nbytes, "allreduce")
    typical = sorted(sizes)[len(sizes) // 2]

    def jobs(c: int) -> int:
        return transfers(fastest, nbytes, "allreduce", c)

    def hopeless(c: int) -> bool:  # its hop latencies alone lose to a try already made
        return floor is not None and floor(c) >= min(beat, *tried.values(), math.inf)

    # a coarse scan, 1, 4, 16, 64 and 256 chunks a typical tree (the rounds' best chunk says
    # little: they cannot overlap a link's reduce with its broadcast)
    tried: dict[int, float] = {}
    for k in JUSTIFIED_SCAN:
        c = params.whole_packets(typical / k)
        if c in tried or jobs(c) > JUSTIFIED_WORK:
            continue
        if hopeless(c):
            break  # and every smaller chunk: more hops
        tried[c] = attempt(fastest, c, False, "justified")
        if len(tried) > 1 and tried[c] > min(tried.values()):
            break  # past the best: smaller chunks only add hop latencies
    if not tried or min(tried.values()) > beat * (1 + REFINE_WITHIN):
        return
    # then the best's neighbours, until the best has been looked around: the time is not
    # smooth in the chunk (mesh 5x5 64 MiB, paper: 20 KiB 1.0499, 28 KiB 1.0469, 32 KiB 1.0452,
    # 40 KiB 1.0554 of the bound), so powers of two and steps of a half and a quarter
    looked: set[int] = set()
    while (best := min(tried, key=lambda x: tried[x])) not in looked:
        looked.add(best)
        pow2 = params.packet_bytes << max(0, (best // params.packet_bytes).bit_length() - 1)
        for c in sorted({params.whole_packets(best * f) for f in NEIGHBOURS} | {pow2, 2 * pow2}):
            if c not in tried and jobs(c) <= JUSTIFIED_WORK and not hopeless(c):
                tried[c] = attempt(fastest, c, False, "justified")
    if ramps and not params.cut_through:
        ramped_tries(attempt, fastest, best, sizes, params)


def chunked_floor(G: nx.MultiDiGraph, nbytes: int, params: SimParams, chunk: int) -> float:
    """No AllReduce of ``nbytes`` in transfers of at most ``chunk`` bytes is faster (0 where it
    does not apply: routers, an arc of other than unit bandwidth and latency, or cut-through
    packets).

    An AllReduce among ``n`` ranks makes at least ``2 (n - 1)`` transfers of every element
    (one-way gossip: Harary and Schwenk, 1974), so at least ``2 (n - 1) nbytes / chunk``
    transfers, each holding its link for its bytes and one hop latency; the ``A`` links share
    that work::

        floor = 2 (n - 1) (nbytes / rate + nbytes / chunk * hop_latency) / A

    It is the volume bound plus the hop latencies of the fewest transfers: mesh 8x8, 64 MiB,
    paper preset, 8 KiB chunks: 1.061 of the bound (20 ns on 328 ns a transfer).

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> paper = get_preset("paper")  # 25 B/ns, 20 ns a hop
    >>> round(chunked_floor(build("mesh:4x4"), 64 << 20, paper, 32 << 10))  # 30 of each, 48 links
    1703322
    """
    from supermesh.sim.link_costs import arc_costs
    from supermesh.topologies.model import compute_nodes

    n = G.number_of_nodes()
    bandwidth, latency = arc_costs(G, list(G.edges(keys=True)))
    unit = bool(np.all(bandwidth == 1) and np.all(latency == 1))
    if len(compute_nodes(G)) != n or not unit or params.cut_through:
        return 0.0
    work = 2 * (n - 1) * (nbytes / params.link_bandwidth() + nbytes / chunk * params.hop_latency)
    return work / G.number_of_edges()


def transfers(packing: TreePacking, nbytes: int, collective: str, chunk: int) -> int:
    """The transfers of a packing's run in chunks of ``chunk`` bytes (an AllReduce's two
    kinds), each tree's share cut on its own.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.collective import throughput_packing
    >>> p = throughput_packing(build("mesh:4x4"), "out")  # 32 trees of 15 arcs, 2 MiB each
    >>> transfers(p, 64 << 20, "allreduce", 1 << 20)
    1920
    """
    trees = list(packing.trees)
    kinds = 2 if collective == "allreduce" else 1
    sizes = tree_bytes(trees, nbytes, collective)
    return kinds * sum(
        len(t.arcs) * math.ceil(b / chunk) for t, b in zip(trees, sizes, strict=True)
    )


BALANCED = 0.9
"""An AllReduce packing is *balanced* when every arc it uses carries at least this fraction of
the busiest arc's bytes; :func:`tuned_program` then tries no ramped chunks. Where every link is
as busy as the busiest, a pipeline pays its depth in its largest chunks whatever their order
(two links in a row: the chunks' time plus the largest one's, as in a two-machine flow shop),
so ramps only add transfers: mesh 4x4's equal parts, 64 MiB, paper preset, 1.7246 ms in equal
32 KiB chunks, 1.7276 ms ramped; the corner trees (their busiest arcs beside lighter ones) gain
from them, 2.0366 to 2.0218 ms."""


def allreduce_load(
    G: nx.MultiDiGraph, packing: TreePacking, nbytes: int, params: SimParams
) -> tuple[float, bool]:
    """A packing's AllReduce without a barrier: the time its busiest arc needs for its bytes
    (no run of these trees is faster), and whether it is balanced (:data:`BALANCED`).

    Each tree edge carries the tree's bytes twice, the reduce on the arc towards the root and
    the broadcast on the arc away from it.

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.collective import throughput_packing
    >>> G, paper = build("mesh:4x4"), get_preset("paper")
    >>> t, balanced = allreduce_load(G, throughput_packing(G, "out"), 64 << 20, paper)
    >>> round(t), balanced  # 40 MiB on every arc at 25 B/ns
    (1677722, True)
    """
    load: dict[tuple[int, int, int], float] = {}
    trees = list(packing.trees)
    for t, b in zip(trees, tree_bytes(trees, nbytes, "allreduce"), strict=True):
        for u, v, k in t.arcs:  # stored either way: an AllReduce uses both
            for arc in ((u, v, k), (v, u, k)):
                load[arc] = load.get(arc, 0.0) + b
    rate = params.link_bandwidth()
    times = [b / (rate * float(G.edges[a].get("bandwidth", 1.0))) for a, b in load.items()]
    return max(times), min(load.values()) >= BALANCED * max(load.values())


RAMP_GAIN = 1e-4
"""A ramp's plateau doubles while each try is faster by at least this fraction."""


def ramped_tries(
    attempt: Callable[..., float],
    packing: TreePacking,
    chunk: int,
    sizes: Sequence[float],
    params: SimParams,
) -> None:
    """Try ramped chunks (:func:`~supermesh.sim.ramp.ramped_sizes`): for each of
    :data:`~supermesh.sim.ramp.RAMP_RATIOS`, a plateau of ``chunk`` and then twice as much while
    each try is faster by :data:`RAMP_GAIN`, at most :data:`JUSTIFIED_WORK` transfers and the
    largest tree's bytes.

    Parameters
    ----------
    attempt : callable
        As for :func:`justified_tries`.
    packing : TreePacking
    chunk : int
        The first plateau.
    sizes : sequence of float
        Each tree's bytes.
    params : SimParams

    Examples
    --------
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.collective import throughput_packing
    >>> p, seen = throughput_packing(build("mesh:4x4"), "out"), []
    >>> ramped_tries(lambda p, c, o, j, r: seen.append((c, r)) or 1.0 / c, p, 32768,
    ...              [131072.0] * 32, get_preset("paper"))
    >>> seen  # each larger plateau faster, up to the tree's bytes
    [(32768, 0.85), (65536, 0.85), (131072, 0.85), (32768, 0.9), (65536, 0.9), (131072, 0.9)]
    """
    share = max(sizes)
    arcs = [len(t.arcs) for t in packing.trees]

    def jobs(c: int, ratio: float) -> int:
        counts = [len(ramped_sizes(b, c, ratio, params.packet_bytes)) for b in sizes]
        return 2 * sum(a * k for a, k in zip(arcs, counts, strict=True))

    for ratio in RAMP_RATIOS:
        c, previous = chunk, math.inf
        while c <= max(share, chunk) and jobs(c, ratio) <= JUSTIFIED_WORK:
            end = attempt(packing, c, False, "justified", ratio)
            if end >= previous * (1 - RAMP_GAIN):
                break
            previous, c = end, 2 * c
