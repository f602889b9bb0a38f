"""AllToAll schedule tables: point-to-point routes with an explicit order on every link.

An AllToAll moves a distinct block from every rank to every other; a schedule for it is a set
of :class:`Route` objects, each carrying a share of one source-destination block over a path of
arcs, and an order on every link. :func:`route_schedule` writes them as a
:class:`~supermesh.trees.schedule.model.Schedule` (the table layout for routes is in
:mod:`supermesh.trees.schedule.model`):

- routes are the "trees" of one set, in the order given; a pair's routes split its block of
  ``C`` chunks by :func:`~supermesh.trees.schedule.weighted.split_block` of their shares (the
  rule the simulator uses, so a table runs as simulated);
- entry order: (hop number, route, src, dst, key), so a hop's dependency (the previous hop of
  its route) has a smaller id;
- ``step`` on each link: the routes' hop ``rank`` (a TE-CCL epoch, or the hop number of the
  one-shot exchange), ties by route: the link serves chunk ``c`` of every entry in step order,
  then chunk ``c + 1`` (the documented FIFO order of every table).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import Arc, compute_nodes
from supermesh.trees.schedule.model import CHUNK_BYTES, Schedule, ScheduleEntry
from supermesh.trees.schedule.weighted import split_block

__all__ = ["Route", "route_schedule"]


@dataclass(frozen=True)
class Route:
    """A share of one source-destination block over a path, with each hop's rank on its link.

    Attributes
    ----------
    source, dest : int
        The two ranks.
    arcs : tuple of Arc
        The path, first hop first.
    ranks : tuple of int
        Per hop: its place in the link's order (smaller first).
    share : float
        The part of the block this route carries (a pair's shares add up to 1).
    """

    source: int
    dest: int
    arcs: tuple[Arc, ...]
    ranks: tuple[int, ...]
    share: float = 1.0


def _check(G: nx.MultiDiGraph, routes: Sequence[Route], ranks: list[int]) -> None:
    pairs: dict[tuple[int, int], float] = defaultdict(float)
    for i, r in enumerate(routes):
        if r.source not in ranks or r.dest not in ranks or r.source == r.dest:
            raise SpecError(f"route {i} goes from {r.source} to {r.dest}: not two distinct ranks")
        if not r.arcs or len(r.ranks) != len(r.arcs) or not r.share > 0:
            raise SpecError(f"route {i} needs arcs, one rank per hop and a positive share")
        at = r.source
        for u, v, k in r.arcs:
            if u != at or not G.has_edge(u, v, key=k):
                raise TopologyError(
                    f"route {i} ({r.source} -> {r.dest}) has hop {u}->{v} key {k}, which does "
                    "not continue its path over an arc of the topology"
                )
            at = v
        if at != r.dest:
            raise TopologyError(f"route {i} ends at {at}, not at its destination {r.dest}")
        pairs[(r.source, r.dest)] += r.share
    missing = [(s, d) for s in ranks for d in ranks if s != d and (s, d) not in pairs]
    if missing:
        raise SpecError(f"no route carries the block from {missing[0][0]} to {missing[0][1]}")
    off = [p for p, total in pairs.items() if abs(total - 1.0) > 1e-9]
    if off:
        raise SpecError(
            f"the shares of the routes from {off[0][0]} to {off[0][1]} add up to "
            f"{pairs[off[0]]}, not 1"
        )


def route_schedule(
    G: nx.MultiDiGraph,
    routes: Sequence[Route],
    *,
    chunks: int | None = None,
    nbytes: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Schedule:
    """The AllToAll table of ``routes`` (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    routes : sequence of Route
        Every ordered pair of distinct ranks needs routes whose shares add up to 1.
    chunks : int, optional
        Chunks per block ``C`` (at least the most routes of one pair). Default: from
        ``nbytes`` (each chiplet's buffer; a block is ``nbytes / n``), else the most routes of
        one pair.
    nbytes : int, optional
        Each chiplet's buffer in bytes (recorded).
    chunk_bytes : int

    Returns
    -------
    Schedule

    Raises
    ------
    SpecError
        A pair without routes, shares that do not add up to 1, too few chunks.
    TopologyError
        A route that is not a path over the topology's arcs from its source to its destination.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule.routes import Route
    >>> G = build("mesh:2x2")  # the diagonal blocks take 2 hops (row first), the others 1
    >>> def path(s, d):
    ...     via = (s // 2) * 2 + d % 2
    ...     return ((s, d, 0),) if via in (s, d) else ((s, via, 0), (via, d, 0))
    >>> routes = [Route(s, d, path(s, d), tuple(range(len(path(s, d)))))
    ...           for s in range(4) for d in range(4) if s != d]
    >>> t = route_schedule(G, routes, chunks=2)
    >>> len(t.entries), t.dests[0][:3], [(e.src, e.dst, e.deps) for e in t.entries[-1:]]
    (16, (1, 2, 3), [(2, 0, (9,))])
    """
    ranks = compute_nodes(G)
    n = len(ranks)
    _check(G, routes, ranks)
    per_pair: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, r in enumerate(routes):
        per_pair[(r.source, r.dest)].append(i)
    most = max(len(v) for v in per_pair.values())
    if chunks is None:
        chunks = most
        if nbytes is not None:
            chunks = max(most, -(-int(nbytes) // (n * chunk_bytes)))
    if chunks < most:
        raise SpecError(f"{chunks} chunks per block cannot be split among {most} routes of a pair")
    pos = {r: i for i, r in enumerate(ranks)}
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for (s, d), idx in per_pair.items():
        base = (pos[s] * n + pos[d]) * chunks
        for i, count in zip(idx, split_block(chunks, [routes[i].share for i in idx]), strict=True):
            first[i], last[i] = base, base + count - 1
            base += count
    hops = sorted((h + 1, i, arc) for i, r in enumerate(routes) for h, arc in enumerate(r.arcs))
    ids = {(i, h): e for e, (h, i, _) in enumerate(hops)}
    steps: dict[tuple[int, int], int] = {}
    by_link: dict[Arc, list[tuple[int, int, int]]] = defaultdict(list)
    for h, i, arc in hops:
        by_link[arc].append((routes[i].ranks[h - 1], i, h))
    for items in by_link.values():
        for step, (_, i, h) in enumerate(sorted(items)):
            steps[(i, h)] = step
    entries = []
    tables: dict[int, list[int]] = {v: [] for v in G.nodes}
    for e, (h, i, (u, v, k)) in enumerate(hops):
        r = routes[i]
        entries.append(
            ScheduleEntry(
                id=e,
                collective="alltoall",
                phase="a2a",
                set_index=0,
                tree_index=i,
                root=r.source,
                chunk_first=first[i],
                chunk_last=last[i],
                src=u,
                dst=v,
                key=k,
                step=steps[(i, h)],
                depth=h,
                deps=(ids[(i, h - 1)],) if h > 1 else (),
                op="send" if h == 1 else "recv-send",
                on_recv="store",
            )
        )
        tables[u].append(e)
        tables[v].append(e)
    return Schedule(
        topology=str(G.graph.get("spec", "")),
        collective="alltoall",
        chunks=int(chunks),
        chunk_bytes=int(chunk_bytes),
        nbytes=None if nbytes is None else int(nbytes),
        barrier=False,
        roots=(tuple(r.source for r in routes),),
        ranks=tuple(ranks),
        entries=tuple(entries),
        tables={v: tuple(sorted(ids_)) for v, ids_ in tables.items()},
        shares=(tuple(r.share for r in routes),),
        dests=(tuple(r.dest for r in routes),),
    )
