"""Schedule tables: the per-chiplet rows a network interface loads to run a pipelined collective.

A :class:`Schedule` is pure data built from tree packings by :func:`build_schedule`. It has one
:class:`ScheduleEntry` per (phase, tree, arc): the entry covers every chunk that tree carries on
that arc (chunks are pipelined, so the rows do not repeat per chunk). Each chiplet's table is the
list of entry ids where it is the source or the destination.

Entry fields (JSON / CSV names; Python attribute in brackets where it differs)
    ``id``            position in ``entries`` (global order, below)
    ``collective``    ``allreduce``, ``reducescatter``, ``allgather``, ``broadcast`` or ``reduce``
    ``phase``         ``rs`` (reduce-scatter part, in-trees), ``ag`` (all-gather part, out-trees),
                      ``bcast`` (out-trees) or ``reduce`` (in-trees)
    ``set`` [set_index], ``tree`` [tree_index]   the tree set and the tree within it
    ``root``          the tree's root
    ``chunk_first``, ``chunk_last``   global chunk ids the tree carries (inclusive): AllReduce,
                      Broadcast, Reduce number trees set-major ``g = 0..k-1`` and tree ``g``
                      carries ``[g*C, g*C + C - 1]``; ReduceScatter / AllGather give the tree of
                      the root with rank ``r`` (position among the compute chiplets) the block
                      ``[r*C, r*C + C - 1]``. ``C`` is ``Schedule.chunks``.
    ``src``, ``dst``, ``key``   the arc the data use (``key`` tells parallel links apart)
    ``step``          position of this entry in the FIFO of its arc ``(src, dst, key)``
    ``depth``         depth of the arc's child end in its tree (1 for arcs touching the root)
    ``deps``          ids of the entries whose delivery of the *same chunk* this entry waits for:
                      ``rs``/``reduce``: the entries of the same tree into ``src`` (its children);
                      ``ag``/``bcast``: the entry of the same tree into ``src`` (its parent);
                      AllReduce ``ag`` entries leaving the root: the ``rs`` entries of the same
                      tree into the root (the root's reduction of that chunk)
    ``op``            what ``src`` does: ``send`` (its own data: an in-tree leaf, an out-tree
                      root), ``recv-reduce-send`` (add what its children sent to its own data and
                      send), ``recv-send`` (forward what it received)
    ``on_recv``       what ``dst`` does with a chunk: ``reduce`` (add it into its accumulator) or
                      ``store`` (keep it and forward it)

Order. Entries are sorted by (phase: ``rs`` before ``ag``; set; leaves first for in-tree phases
(depth descending), root first for out-tree phases (depth ascending); tree; src; dst; key) and
``id`` is the position in that order, so every dependency points to a smaller id. The FIFO of a
link holds (entry, chunk) pairs ordered by (phase, set, chunk, step): all sets share one FIFO per
link in set order, and inside a set chunk ``c`` of every entry goes before chunk ``c + 1`` (with
arc-disjoint trees a set has at most one entry per link, so a FIFO is its entries one after the
other in step order). AllReduce has ``barrier = True``: no ``ag`` chunk moves until every root
holds every reduced chunk (the simulator's global barrier); the ``deps`` give only the data
dependency.

The data types and their JSON form are in :mod:`supermesh.trees.schedule_model`.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import replace

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking
from supermesh.trees.schedule_model import (
    CHUNK_BYTES,
    COLLECTIVES,
    PHASES,
    Schedule,
    ScheduleEntry,
)

__all__ = [
    "CHUNK_BYTES",
    "COLLECTIVES",
    "PHASES",
    "Schedule",
    "ScheduleEntry",
    "build_schedule",
    "chunks_for",
]

# collective -> its phases in order, each with the tree direction it runs on
_PHASES: dict[str, tuple[tuple[str, str], ...]] = {
    "allreduce": (("rs", "in"), ("ag", "out")),
    "reducescatter": (("rs", "in"),),
    "allgather": (("ag", "out"),),
    "broadcast": (("bcast", "out"),),
    "reduce": (("reduce", "in"),),
}


def chunks_for(collective: str, nbytes: int, ntrees: int, nranks: int, chunk_bytes: int) -> int:
    """Chunks per tree for ``nbytes`` of data (BRIEF section 4).

    AllReduce, Broadcast, Reduce over ``k`` trees: ``ceil(nbytes / (k * chunk_bytes))``;
    ReduceScatter / AllGather, where each of the ``n`` roots owns ``nbytes / n``:
    ``ceil(nbytes / (n * chunk_bytes))``; at least 1.

    Examples
    --------
    >>> chunks_for("allreduce", 4 * 2**20, 4, 16, 12288)
    86
    >>> chunks_for("allgather", 4 * 2**20, 16, 16, 12288)
    22
    """
    share = nranks if collective in ("reducescatter", "allgather") else ntrees
    return max(1, math.ceil(nbytes / (share * chunk_bytes)))


def _reverse(tree: Tree) -> Tree:
    return Tree(tree.root, tuple((v, u, k) for u, v, k in tree.arcs), tree.height, tree.share)


def _phase_sets(
    G: nx.MultiDiGraph, collective: str, packings: Sequence[TreePacking]
) -> dict[str, list[list[Tree]]]:
    """Tree sets per phase in data direction, reversing a packing where the phase needs it."""
    by_dir: dict[str, TreePacking] = {}
    for p in packings:
        if p.direction in by_dir:
            raise SpecError(
                f"two {p.direction}-tree packings given", hint="give at most one per direction"
            )
        if not p.sets or p.status == "infeasible":
            raise TopologyError(f"the {p.direction}-tree packing has no trees ({p.status})")
        by_dir[p.direction] = p
    out: dict[str, list[list[Tree]]] = {}
    for phase, direction in _PHASES[collective]:
        if direction in by_dir:
            out[phase] = [list(s.trees) for s in by_dir[direction].sets]
            continue
        other = by_dir["in" if direction == "out" else "out"]
        for t in other.trees:
            _check_arcs(G, t, f"a tree rooted at {t.root}")
            for u, v, k in t.arcs:
                if not G.has_edge(v, u, k):
                    raise TopologyError(
                        f"cannot reverse the {other.direction}-trees: arc {v}->{u} key {k} "
                        "does not exist (the network is not symmetric)",
                        hint=f"pass a {direction}-tree packing as well",
                    )
        out[phase] = [[_reverse(t) for t in s.trees] for s in other.sets]
    return out


def _check_arcs(G: nx.MultiDiGraph, tree: Tree, where: str) -> None:
    for u, v, k in tree.arcs:
        if not G.has_edge(u, v, k):
            raise TopologyError(
                f"{where} uses arc {u}->{v} key {k}, which the topology does not have",
                hint="were the trees computed for another topology?",
            )


def _tree_shape(
    G: nx.MultiDiGraph, tree: Tree, direction: str, span: Sequence[int], where: str
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Check one tree (data direction) and return (depth per node, children per node)."""
    parent: dict[int, int] = {}
    children: dict[int, list[int]] = defaultdict(list)
    _check_arcs(G, tree, where)
    for u, v, _ in tree.arcs:
        p, c = (u, v) if direction == "out" else (v, u)
        if c in parent or c == tree.root:
            raise TopologyError(f"{where} is not a tree: node {c} has two parents or is the root")
        parent[c] = p
        children[p].append(c)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        p = queue.popleft()
        for c in children.get(p, ()):
            depth[c] = depth[p] + 1
            queue.append(c)
    unreached = sorted(set(parent) - set(depth))
    missing = sorted(set(span) - set(depth))
    if unreached or missing:
        bad = (unreached or missing)[0]
        raise TopologyError(
            f"{where} (root {tree.root}) does not reach node {bad}",
            hint="every tree must span every compute chiplet",
        )
    return depth, children


def _check_roots(G: nx.MultiDiGraph, collective: str, sets: list[list[Tree]]) -> None:
    roots = [t.root for s in sets for t in s]
    shares = {t.share for s in sets for t in s}
    if len(shares) > 1:
        raise SpecError("trees with different shares are not supported", hint="use equal shares")
    if collective in ("reducescatter", "allgather"):
        ranks = compute_nodes(G)
        if sorted(roots) != ranks:
            raise TopologyError(
                f"{collective} needs one tree rooted at each of the {len(ranks)} compute "
                f"chiplets; the trees have roots {sorted(roots)}",
                hint="give one root set per group of chiplets covering every chiplet once",
            )
    elif collective in ("broadcast", "reduce") and len(set(roots)) != 1:
        raise TopologyError(
            f"{collective} needs every tree rooted at the same chiplet, not {roots}",
            hint="pack the trees with the same root repeated",
        )


def build_schedule(
    G: nx.MultiDiGraph,
    collective: str,
    packings: TreePacking | Sequence[TreePacking],
    *,
    chunks: int | None = None,
    nbytes: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
) -> Schedule:
    """Build the schedule table of a pipelined collective from its trees.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
        AllReduce runs ``rs`` on in-trees into the roots, a global barrier, then ``ag`` on
        out-trees from the same roots (tree ``t`` of both phases carries the same chunks).
        ReduceScatter / AllGather use every set of the packing (one tree per chiplet, sets
        sharing each link's FIFO in set order); Broadcast / Reduce use trees with one root.
    packings : TreePacking or sequence of TreePacking
        At most one packing per direction. A phase whose direction is missing uses the other
        packing's trees with every arc reversed, which needs a symmetric network (every arc
        ``u -> v`` key ``k`` has ``v -> u`` key ``k``); AllReduce with two packings needs the
        same roots in the same order in both.
    chunks : int, optional
        Chunks per tree ``C``. Default: derived from ``nbytes`` (see :func:`chunks_for`), else 1.
    nbytes : int, optional
        Data size in bytes (recorded in the schedule).
    chunk_bytes : int
        Bytes per chunk (default 12288).

    Returns
    -------
    Schedule

    Raises
    ------
    SpecError
        On an unknown collective, a chunk count below 1, or two packings of one direction.
    TopologyError
        If a tree uses an arc the topology lacks, is not an arborescence, misses a chiplet it
        must span, the roots do not fit the collective, or a needed reversal is impossible.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> s = build_schedule(G, "allreduce", p, chunks=4)
    >>> [(e.src, e.dst, e.deps) for e in s.entries]  # rs leaves first, then ag root first
    [(3, 1, ()), (1, 0, (0,)), (2, 0, ()), (0, 1, (1, 2)), (0, 2, (1, 2)), (1, 3, (3,))]
    >>> s.tables[3], s.entries[1].op
    ((0, 5), 'recv-reduce-send')
    """
    if collective not in COLLECTIVES:
        raise SpecError(f"unknown collective {collective!r}", hint=f"use one of {COLLECTIVES}")
    packs = [packings] if isinstance(packings, TreePacking) else list(packings)
    if not packs:
        raise SpecError("no tree packing given", hint="compute trees with `supermesh trees`")
    phase_sets = _phase_sets(G, collective, packs)
    if collective == "allreduce" and len(phase_sets) == 2:
        rs_roots = [[t.root for t in s] for s in phase_sets["rs"]]
        ag_roots = [[t.root for t in s] for s in phase_sets["ag"]]
        if rs_roots != ag_roots:
            raise TopologyError(
                f"AllReduce in-tree roots {rs_roots} differ from out-tree roots {ag_roots}",
                hint="tree t of both packings must have the same root",
            )
    first_sets = next(iter(phase_sets.values()))
    _check_roots(G, collective, first_sets)
    span = packs[0].span
    # the ranks are the chiplets taking part: a packing that spans fewer (TTO leaves one corner
    # out of the computation) makes the others pure relays
    ranks = sorted(span) if span is not None else compute_nodes(G)
    if chunks is None and nbytes is not None:
        ntrees = sum(len(s) for s in first_sets)
        chunks = chunks_for(collective, nbytes, ntrees, len(ranks), chunk_bytes)
    chunks = 1 if chunks is None else chunks
    if chunks < 1 or chunk_bytes < 1 or (nbytes is not None and nbytes < 1):
        raise SpecError(f"chunks={chunks}, chunk_bytes={chunk_bytes}, nbytes={nbytes}: need >= 1")
    span_nodes = ranks
    rank_of = {v: i for i, v in enumerate(ranks)}
    rows: list[ScheduleEntry] = []
    for phase, direction in _PHASES[collective]:
        g = 0
        for si, trees in enumerate(phase_sets[phase]):
            for ti, tree in enumerate(trees):
                depth, kids = _tree_shape(
                    G, tree, direction, span_nodes, f"{phase} set {si} tree {ti}"
                )
                block = rank_of[tree.root] if collective in ("reducescatter", "allgather") else g
                g += 1
                for u, v, k in tree.arcs:
                    rows.append(ScheduleEntry(
                        -1, collective, phase, si, ti, tree.root, block * chunks,
                        block * chunks + chunks - 1, u, v, k, -1,
                        depth[v if direction == "out" else u], (),
                        _op(direction, tree.root, u, len(kids.get(u, ())), u in rank_of),
                        "store" if direction == "out" else "reduce",
                    ))  # fmt: skip
    entries = _number(rows, collective)
    tables: dict[int, list[int]] = {int(n): [] for n in G.nodes}
    for e in entries:
        tables[e.src].append(e.id)
        tables[e.dst].append(e.id)
    return Schedule(
        topology=str(G.graph.get("spec", "")),
        collective=collective,
        chunks=chunks,
        chunk_bytes=chunk_bytes,
        nbytes=nbytes,
        barrier=collective == "allreduce",
        roots=tuple(tuple(t.root for t in s) for s in first_sets),
        ranks=tuple(ranks),
        entries=tuple(entries),
        tables={n: tuple(ids) for n, ids in sorted(tables.items())},
    )


def _op(direction: str, root: int, src: int, nkids: int, is_rank: bool) -> str:
    """What the sender of an arc does (see the ``op`` field)."""
    if direction == "out":
        return "send" if src == root else "recv-send"
    if nkids == 0:
        return "send"
    return "recv-send" if nkids == 1 and not is_rank else "recv-reduce-send"


def _order(e: ScheduleEntry) -> tuple[int, ...]:
    """Global entry order: phase, set, leaves first (in-trees) / root first (out-trees), ..."""
    depth_key = -e.depth if e.phase in ("rs", "reduce") else e.depth
    return (PHASES.index(e.phase), e.set_index, depth_key, e.tree_index, e.src, e.dst, e.key)


def _number(rows: list[ScheduleEntry], collective: str) -> list[ScheduleEntry]:
    """Sort rows into the global order and fill in ids, FIFO steps and dependencies."""
    rows = sorted(rows, key=_order)
    into: dict[tuple[str, int, int, int], list[int]] = defaultdict(list)
    for i, e in enumerate(rows):
        into[(e.phase, e.set_index, e.tree_index, e.dst)].append(i)
    fifo_len: dict[tuple[int, int, int], int] = defaultdict(int)
    out = []
    for i, e in enumerate(rows):
        phase = "rs" if collective == "allreduce" and e.src == e.root else e.phase
        deps = tuple(into.get((phase, e.set_index, e.tree_index, e.src), ()))
        out.append(replace(e, id=i, step=fifo_len[e.arc], deps=deps))
        fifo_len[e.arc] += 1
    return out
