"""TACOS: greedy link-chunk matching over a time-expanded network (Won et al., MICRO 2024).

The synthesiser of AllGather. Every rank's data is cut into ``k`` chunks; a chunk is at its
origin at time 0. Time advances from event to event (a link becomes free, a chunk arrives). At
each event time every free link ``u -> v`` whose source holds a chunk its destination neither
holds nor is already being sent takes one such chunk, chosen uniformly at random (seeded); the
links of one event time are matched in a random (seeded) order, so two links into one chiplet
never carry the same chunk. The link is then busy for one store-and-forward transfer, and the
chunk is usable at ``v`` once it has fully arrived. This repeats until every rank holds every
chunk. Parallel links (a doubled perimeter link) are separate links: two chunks cross a doubled
link at once.

Two defects of the public implementation are avoided by construction (and tested):

- no echo: a chunk's origin holds it from the start, so no link ever sends a chunk back home (the
  public code lists each origin among its chunk's destinations, costing ``N / (N - 1)`` at the
  bottleneck);
- causality: a link may take only a chunk that has *arrived* at its source (arrival plus the
  forwarding delay), so with unequal link delays nothing is sent before it is there.

Every transfer starts at the later of the link being free and the chunk being there, which is
exactly when the simulator's FIFO engine starts it: replaying the schedule (each link's FIFO in
the synthesised order, each transfer waiting for its chunk's arrival) reproduces the synthesised
times (tests check it). Relays (routers, memory chiplets) may receive and forward chunks; a chunk
a relay got but passed to nobody is dropped from its tree.

The result is one spanning out-tree per chunk (every rank receives every chunk exactly once)
plus each link's order of transfers: :class:`TacosSchedule`, which the simulator
(:mod:`supermesh.sim.baselines.tacos_program`) and the schedule tables use.

References
----------
W. Won, M. Elavazhagan, S. Srinivasan, S. Gupta, T. Krishna, "TACOS: Topology-Aware Collective
Algorithm Synthesizer for Distributed Machine Learning", MICRO 2024.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import networkx as nx

from supermesh.errors import InputFileError, SpecError, TopologyError
from supermesh.topologies.model import Arc, compute_nodes
from supermesh.trees.model import Tree

__all__ = ["FORMAT", "TacosSchedule", "Transfer", "synthesize_allgather"]

FORMAT = "supermesh-tacos"


class Transfer(NamedTuple):
    """One chunk over one arc: chunk ``chunk`` (the index of its tree) from ``src`` to ``dst``.

    ``start`` and ``finish`` are in the time unit of the link times given to the synthesiser.
    (A named tuple: a synthesis makes tens of thousands of them.)
    """

    chunk: int
    src: int
    dst: int
    key: int
    start: float
    finish: float

    @property
    def arc(self) -> Arc:
        """The arc ``(src, dst, key)``."""
        return (self.src, self.dst, self.key)


@dataclass(frozen=True)
class TacosSchedule:
    """A synthesised AllGather: every transfer, in the order the links were matched.

    Chunk ``c`` belongs to rank ``ranks[c // chunks_per_rank]``; its transfers form a spanning
    out-tree from that rank (:meth:`trees`). Each link serves its transfers in start order
    (:meth:`fifo_positions`).

    Attributes
    ----------
    topology : str
        Spec of the network it was synthesised on.
    ranks : tuple of int
        The compute chiplets, in rank order.
    chunks_per_rank : int
        ``k``: chunks each rank's data is cut into.
    seed : int
        Seed of the random choices.
    transfers : tuple of Transfer
        In matching order (start times ascending).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = synthesize_allgather(build("mesh:2x2"))
    >>> len(s.transfers), s.makespan  # 4 x 3 chunk deliveries in 2 rounds
    (12, 2.0)
    >>> TacosSchedule.from_json(s.to_json()) == s
    True
    """

    topology: str
    ranks: tuple[int, ...]
    chunks_per_rank: int
    seed: int
    transfers: tuple[Transfer, ...]

    @property
    def chunks(self) -> int:
        """Number of chunks (``len(ranks) * chunks_per_rank``)."""
        return len(self.ranks) * self.chunks_per_rank

    @property
    def makespan(self) -> float:
        """When the last chunk arrives."""
        return max((t.finish for t in self.transfers), default=0.0)

    def origin(self, chunk: int) -> int:
        """The rank chunk ``chunk`` starts at."""
        return self.ranks[chunk // self.chunks_per_rank]

    def trees(self) -> list[Tree]:
        """One out-tree per chunk (share ``1 / chunks_per_rank`` of its origin's data)."""
        arcs: list[list[Arc]] = [[] for _ in range(self.chunks)]
        for t in self.transfers:
            arcs[t.chunk].append(t.arc)
        out = []
        for c, tree_arcs in enumerate(arcs):
            depth = {self.origin(c): 0}
            for u, v, _ in tree_arcs:  # in matching order: a parent before its children
                depth[v] = depth[u] + 1
            out.append(
                Tree(
                    root=self.origin(c),
                    arcs=tuple(tree_arcs),
                    height=max(depth.values()),
                    share=1.0 / self.chunks_per_rank,
                )
            )
        return out

    def fifo_positions(self) -> dict[tuple[int, int], int]:
        """``(chunk, dst) -> position`` of that transfer in the FIFO of its arc (start order)."""
        seen: dict[Arc, int] = {}
        out: dict[tuple[int, int], int] = {}
        for t in self.transfers:  # matching order: start times ascending
            arc = (t.src, t.dst, t.key)
            pos = seen.get(arc, 0)
            out[(t.chunk, t.dst)] = pos
            seen[arc] = pos + 1
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: transfers as ``[chunk, src, dst, key, start, finish]``."""
        return {
            "format": FORMAT,
            "version": 1,
            "topology": self.topology,
            "ranks": list(self.ranks),
            "chunks_per_rank": self.chunks_per_rank,
            "seed": self.seed,
            "transfers": [
                [t.chunk, t.src, t.dst, t.key, t.start, t.finish] for t in self.transfers
            ],
        }

    @classmethod
    def from_json(cls, doc: Any, *, source: str = "TACOS schedule") -> TacosSchedule:
        """Read what :meth:`to_json` wrote; raises InputFileError if malformed."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputFileError(f"{source} is not a TACOS schedule (format {FORMAT!r})")
        try:
            transfers = tuple(
                Transfer(int(c), int(u), int(v), int(k), float(s), float(f))
                for c, u, v, k, s, f in doc["transfers"]
            )
            return cls(
                topology=str(doc["topology"]),
                ranks=tuple(int(r) for r in doc["ranks"]),
                chunks_per_rank=int(doc["chunks_per_rank"]),
                seed=int(doc["seed"]),
                transfers=transfers,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(f"{source} is malformed: {exc}") from None


def synthesize_allgather(
    G: nx.MultiDiGraph,
    chunks_per_rank: int = 1,
    *,
    link_time: Mapping[Arc, float] | None = None,
    release: float = 0.0,
    ready_delay: float = 0.0,
    seed: int = 0,
    ranks: Sequence[int] | None = None,
) -> TacosSchedule:
    """Synthesise an AllGather with TACOS's greedy link-chunk matching (module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The network; every arc is a separate link.
    chunks_per_rank : int
        ``k``: chunks per rank.
    link_time : mapping, optional
        Arc -> time one chunk holds it, start to full arrival (default 1.0 for every arc).
    release : float
        Gap after an arrival before the link can start its next transfer.
    ready_delay : float
        Gap after an arrival before the receiver can forward the chunk.
    seed : int
        Seed of the random choices (same seed, same schedule).
    ranks : sequence of int, optional
        The chiplets that need every chunk and own data (default: the compute chiplets);
        other nodes only relay.

    Returns
    -------
    TacosSchedule

    Raises
    ------
    SpecError
        ``chunks_per_rank`` below 1, or a link time that is not positive.
    TopologyError
        Some rank cannot be reached from some other rank.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> s = synthesize_allgather(build("mesh:3x3"), seed=1)
    >>> s.makespan >= 4  # a corner receives 8 chunks over 2 links
    True
    >>> any(t.dst == s.origin(t.chunk) for t in s.transfers)  # no echo
    False
    """
    if chunks_per_rank < 1:
        raise SpecError(f"chunks_per_rank={chunks_per_rank} must be at least 1")
    ranks = list(compute_nodes(G) if ranks is None else ranks)
    arcs: list[Arc] = sorted(G.edges(keys=True))
    times = [1.0 if link_time is None else float(link_time[a]) for a in arcs]
    if any(not t > 0 for t in times):
        raise SpecError("every link time must be positive", hint="check the link costs")
    k = chunks_per_rank
    n_chunks = len(ranks) * k
    index = {v: i for i, v in enumerate(sorted(G.nodes))}
    out_links: list[list[int]] = [[] for _ in index]
    in_links: list[list[int]] = [[] for _ in index]
    src = [index[u] for u, _, _ in arcs]
    dst = [index[v] for _, v, _ in arcs]
    for i in range(len(arcs)):
        out_links[src[i]].append(i)
        in_links[dst[i]].append(i)
    is_rank = [False] * len(index)
    for r in ranks:
        is_rank[index[r]] = True
    # pending[v]: chunks v holds or is being sent to it. Each link's candidates (chunks usable
    # at its source that its destination lacks) are a list with positions, for O(1) add,
    # removal and uniform choice.
    pending: list[set[int]] = [set() for _ in index]
    items: list[list[int]] = [[] for _ in arcs]
    where: list[dict[int, int]] = [{} for _ in arcs]
    rng = random.Random(seed)
    draw = rng.random
    missing = len(ranks) * (n_chunks - k)
    events: list[tuple[float, int, int, int]] = []  # (time, kind 0 avail / 1 free, x, y)
    for ri, r in enumerate(ranks):
        for c in range(ri * k, ri * k + k):
            pending[index[r]].add(c)
            events.append((0.0, 0, index[r], c))
    idle = [False] * len(arcs)
    for i in range(len(arcs)):
        events.append((0.0, 1, i, 0))
    heapq.heapify(events)
    push, pop = heapq.heappush, heapq.heappop
    chosen: list[tuple[int, int, float, float]] = []  # (chunk, arc, start, finish)
    while events and missing:
        now = events[0][0]
        active: set[int] = set()
        while events and events[0][0] == now:
            _, kind, x, y = pop(events)
            if kind == 0:  # chunk y usable at node x
                for i in out_links[x]:
                    if y not in pending[dst[i]] and y not in where[i]:
                        where[i][y] = len(items[i])
                        items[i].append(y)
                        if idle[i]:
                            active.add(i)
            else:  # link x free
                idle[x] = True
                if items[x]:
                    active.add(x)
        order = sorted(active)
        rng.shuffle(order)
        for i in order:
            mine = items[i]
            if not mine:
                continue
            c = mine[int(draw() * len(mine))]
            v = dst[i]
            pending[v].add(c)
            for j in in_links[v]:  # no other link into v may take c now
                pos = where[j].pop(c, None)
                if pos is not None:
                    last = items[j].pop()
                    if pos < len(items[j]):
                        items[j][pos] = last
                        where[j][last] = pos
            idle[i] = False
            finish = now + times[i]
            chosen.append((c, i, now, finish))
            push(events, (finish + release, 1, i, 0))
            push(events, (finish + ready_delay, 0, v, c))
            if is_rank[v]:
                missing -= 1
    if missing:
        raise TopologyError(
            "TACOS cannot deliver every chunk: some rank is unreachable from another",
            hint="check that the topology is strongly connected over its compute chiplets",
        )
    transfers = _prune_relays(chosen, arcs, is_rank, index)
    return TacosSchedule(
        topology=str(G.graph.get("spec", "")),
        ranks=tuple(ranks),
        chunks_per_rank=k,
        seed=seed,
        transfers=transfers,
    )


def _prune_relays(
    chosen: list[tuple[int, int, float, float]],
    arcs: list[Arc],
    is_rank: list[bool],
    index: dict[int, int],
) -> tuple[Transfer, ...]:
    """Drop transfers into relays that forwarded the chunk to nobody (repeatedly)."""
    feeds: dict[tuple[int, int], int] = {}  # (chunk, node) -> transfers out of it
    for c, i, _, _ in chosen:
        u = index[arcs[i][0]]
        feeds[(c, u)] = feeds.get((c, u), 0) + 1
    keep = [True] * len(chosen)
    for pos in range(len(chosen) - 1, -1, -1):  # children come after their parents
        c, i, _, _ = chosen[pos]
        u, v = index[arcs[i][0]], index[arcs[i][1]]
        if not is_rank[v] and feeds.get((c, v), 0) == 0:
            keep[pos] = False
            feeds[(c, u)] -= 1
    return tuple(
        Transfer(c, *arcs[i], start=s, finish=f)
        for (c, i, s, f), kept in zip(chosen, keep, strict=True)
        if kept
    )
