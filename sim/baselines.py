"""Baseline algorithms users compare against, as FIFO programs for the same engine.

- ``ring``: the unidirectional ring (Patarasuk and Yuan, JPDC 2009): ``n - 1`` reduce-scatter steps
  then ``n - 1`` all-gather steps, each node sending one block of ``M / n`` per step to the next
  node of a Hamiltonian cycle. Grids with an even side have one (built here); an odd x odd grid
  has none, so the ring takes the cycle through all chiplets but a corner and visits the corner
  between two of them, the hop out of it routed over 2 links (store and forward); other
  topologies use a DFS order with routed hops.
- ``bidir-ring``: two rings in opposite directions, half the data each (NCCL 2; on an odd x odd
  grid the two rings share one link). On an odd x odd grid the AllReduce is the TTO deck's
  RingBiOdd (Laskar et al., HPCA 2024): the rings cover every
  chiplet but one corner, the data are cut into ``n - 1`` blocks, and the corner hands its blocks
  to its two ring neighbours and gets the results back from them.
- ``direct``: one-shot exchange: every source sends its data straight to every destination that
  needs them (AllReduce: the whole vector to every rank, then each rank adds), over
  dimension-order routes, one-hop flows first (the order the TPU note found fastest).
- ``multitree``: MultiTree (Huang et al., ISCA 2021): one spanning tree per rank, all grown one
  level per time step, a link used by at most one tree per step; each tree edge sends its root's
  ``M / n`` in one piece, steps in order.

Every step sends whole blocks (no chunk pipelining inside a step), as these algorithms do.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.sim.collectives import check_collective
from supermesh.sim.presets import SimParams
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies.model import Arc, compute_nodes

__all__ = [
    "BASELINES",
    "baseline_program",
    "grid_cycle",
    "multitree_trees",
    "route",
]

BASELINES = ("ring", "bidir-ring", "direct", "multitree")


# ---------------------------------------------------------------------------- geometry helpers
def _grid(G: nx.MultiDiGraph) -> tuple[int, int] | None:
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if not rows or not cols or G.graph.get("family") == "hexamesh":
        return None
    ranks = compute_nodes(G)
    if len(ranks) != rows * cols or ranks != list(range(rows * cols)):
        return None
    return int(rows), int(cols)


def _arc(G: nx.MultiDiGraph, u: int, v: int, salt: int = 0) -> Arc:
    keys = sorted(G[u][v]) if G.has_edge(u, v) else []
    if not keys:
        raise TopologyError(f"no link from {u} to {v}")
    return (u, v, keys[salt % len(keys)])


def route(
    G: nx.MultiDiGraph, u: int, v: int, *, salt: int = 0, grid: tuple[int, int] | None = None
) -> list[Arc]:
    """Arcs of a shortest route from ``u`` to ``v``.

    Grids use dimension-order routing (along the row first, then the column) when those links
    exist; other topologies a BFS shortest path. ``salt`` picks among parallel arcs; ``grid``
    (rows, cols) saves working out whether ``G`` is a full grid on every call.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> route(build("mesh:3x3"), 0, 8)
    [(0, 1, 0), (1, 2, 0), (2, 5, 0), (5, 8, 0)]
    """
    if u == v:
        return []
    path: list[int] | None = None
    grid = grid if grid is not None else _grid(G)
    if grid is not None:
        cols = grid[1]
        (r0, c0), (r1, c1) = divmod(u, cols), divmod(v, cols)
        nodes = [u]
        c, r = c0, r0
        while c != c1:
            c += 1 if c1 > c else -1
            nodes.append(r * cols + c)
        while r != r1:
            r += 1 if r1 > r else -1
            nodes.append(r * cols + c)
        if all(G.has_edge(a, b) for a, b in itertools.pairwise(nodes)):
            path = nodes
    if path is None:
        try:
            path = nx.shortest_path(nx.DiGraph(G), u, v)
        except nx.NetworkXNoPath:
            raise TopologyError(f"node {v} cannot be reached from node {u}") from None
    return [_arc(G, a, b, salt) for a, b in itertools.pairwise(path)]


def grid_cycle(rows: int, cols: int) -> list[int] | None:
    """A Hamiltonian cycle of a ``rows x cols`` grid (node ids row-major), or ``None``.

    With an even number of rows: row 0 left to right, a snake over columns ``1..cols-1`` of the
    other rows, back up column 0 (transposed when only the columns are even). An odd x odd grid
    has none (it is bipartite with one colour larger); :func:`grid_cycle_but_corner` covers all
    but its bottom-right corner.

    Examples
    --------
    >>> grid_cycle(2, 3)
    [0, 1, 2, 5, 4, 3]
    >>> grid_cycle(3, 3) is None
    True
    """
    if rows % 2 == 1 and cols % 2 == 1:
        return None
    if rows % 2 == 1:
        cycle_t = grid_cycle(cols, rows)
        assert cycle_t is not None
        return [(x % rows) * cols + x // rows for x in cycle_t]
    seq = [(0, c) for c in range(cols)]
    for r in range(1, rows):
        cs = range(cols - 1, 0, -1) if r % 2 == 1 else range(1, cols)
        seq += [(r, c) for c in cs]
    seq += [(r, 0) for r in range(rows - 1, 0, -1)]
    return [r * cols + c for r, c in seq]


def grid_cycle_but_corner(rows: int, cols: int) -> list[int]:
    """A cycle through every node of an odd x odd grid except its bottom-right corner.

    Examples
    --------
    >>> grid_cycle_but_corner(3, 3)
    [0, 1, 2, 5, 4, 7, 6, 3]
    """
    seq = [(0, c) for c in range(cols)]
    for r in range(1, rows - 2):
        cs = range(cols - 1, 0, -1) if r % 2 == 1 else range(1, cols)
        seq += [(r, c) for c in cs]
    r = rows - 2
    seq.append((r, cols - 1))
    for p, c in enumerate(range(cols - 2, 0, -1)):
        seq += [(r, c), (r + 1, c)] if p % 2 == 0 else [(r + 1, c), (r, c)]
    seq += [(rows - 1, 0), (rows - 2, 0)]
    seq += [(x, 0) for x in range(rows - 3, 0, -1)]
    return [a * cols + b for a, b in seq]


def _ring_order(G: nx.MultiDiGraph) -> list[int]:
    grid = _grid(G)
    ranks = compute_nodes(G)
    if grid is not None:
        cycle = grid_cycle(*grid)
        if cycle is not None:
            return cycle
        rows, cols = grid
        # odd x odd: the cycle that skips the bottom-right corner, with the corner visited
        # between its upper neighbour and that neighbour's successor (a 2-hop link back)
        order = grid_cycle_but_corner(rows, cols)
        corner = rows * cols - 1
        order.insert(order.index(corner - cols) + 1, corner)
        return order
    # DFS preorder over the compute chiplets: neighbours mostly follow each other
    und = nx.Graph(G.subgraph(ranks))
    if not nx.is_connected(und):
        return ranks
    return list(nx.dfs_preorder_nodes(und, ranks[0]))


# ---------------------------------------------------------------------------- ring programs
class _Hop:
    """Send a block along a route: one block per arc, each hop waiting for the previous one."""

    def __init__(self, pb: PhaseBuilder, params: SimParams) -> None:
        self.pb = pb
        self.params = params

    def send(
        self, arcs: Sequence[Arc], nbytes: int, group: int, deps: Sequence[int], delay: float
    ) -> int:
        duration = self.params.serialisation(nbytes) + self.params.hop_latency
        last = -1
        for i, arc in enumerate(arcs):
            last = self.pb.add(
                arc,
                count=1,
                duration=duration,
                payload=nbytes,
                group=group,
                deps=deps if i == 0 else [last],
                delay=delay if i == 0 else self.params.forward_delay,
            )
        return last


def _ring_blocks(
    G: nx.MultiDiGraph,
    hop: _Hop,
    order: list[int],
    collective: str,
    block_bytes: int,
    corner: tuple[int, int] | None = None,
) -> dict[tuple[int, int], int]:
    """Add the steps of one ring; return (step, position) -> the block delivering there.

    ``corner = (position, first)``: the node at ``position`` also waits, at reduce step ``k``, for
    block ``first + k`` (a corner's contribution, RingBiOdd).
    """
    m = len(order)
    routes = [route(G, order[i], order[(i + 1) % m]) for i in range(m)]
    p = hop.params
    rs = m - 1 if collective in ("allreduce", "reducescatter") else 0
    ag = m - 1 if collective in ("allreduce", "allgather") else 0
    delivered: dict[tuple[int, int], int] = {}
    for k in range(rs + ag):
        delay = p.reduce_delay if (rs and k <= rs) else p.forward_delay
        for i in range(m):
            deps = [delivered[(k - 1, i)]] if k > 0 else []
            if corner is not None and i == corner[0] and k <= rs:
                deps.append(corner[1] + k)
            delivered[(k, (i + 1) % m)] = hop.send(routes[i], block_bytes, k, deps, delay)
    return delivered


def _ring_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, bidirectional: bool
) -> Program:
    if collective not in ("allreduce", "reducescatter", "allgather"):
        raise SpecError(
            f"the ring algorithms do not implement {collective!r}",
            hint="use --collective allreduce, reducescatter or allgather",
        )
    arc_index: dict[Arc, int] = {}
    pb = PhaseBuilder(arc_index)
    hop = _Hop(pb, params)
    n = len(compute_nodes(G))
    grid = _grid(G)
    rings = 2 if bidirectional else 1
    if (
        bidirectional
        and grid is not None
        and grid_cycle(*grid) is None
        and collective == "allreduce"
    ):
        rows, cols = grid
        order = grid_cycle_but_corner(rows, cols)
        corner = rows * cols - 1
        m = len(order)
        rs = m - 1
        block = -(-nbytes // (2 * m))
        for direction, nb in ((order, corner - cols), (order[::-1], corner - 1)):
            pos = direction.index(nb)
            up = _arc(G, corner, nb)
            first = hop.send([up], block, 0, [], params.forward_delay)
            for k in range(1, m):
                hop.send([up], block, k, [], params.forward_delay)
            delivered = _ring_blocks(G, hop, direction, "allreduce", block, (pos, first))
            down = _arc(G, nb, corner)
            hop.send(
                [down], block, 2 * m, [delivered[(rs - 1, pos)], first + rs], params.reduce_delay
            )
            for k in range(rs, 2 * rs):
                hop.send([down], block, 2 * m, [delivered[(k, pos)]], params.forward_delay)
    else:
        order = _ring_order(G)
        block = -(-nbytes // (n * rings))
        for r in range(rings):
            _ring_blocks(G, hop, order if r == 0 else order[::-1], collective, block)
    start = params.forward_start if collective == "allgather" else params.reduce_start
    final = params.forward_delay if collective == "allgather" else params.reduce_delay
    return Program(
        arcs=list(arc_index),
        phases=[pb.build(start=start, final_delay=final, label="mixed")],
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={"collective": collective, "bytes": int(nbytes), "ring": len(order)},
    )


# ---------------------------------------------------------------------------- one-shot exchange
def _direct_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, root: int | None
) -> Program:
    ranks = compute_nodes(G)
    n = len(ranks)
    root = ranks[0] if root is None else root
    if collective == "allreduce":
        flows = [(u, v, nbytes) for u in ranks for v in ranks if u != v]
    elif collective in ("reducescatter", "allgather"):
        flows = [(u, v, -(-nbytes // n)) for u in ranks for v in ranks if u != v]
    elif collective == "broadcast":
        flows = [(root, v, nbytes) for v in ranks if v != root]
    else:
        flows = [(u, root, nbytes) for u in ranks if u != root]
    arc_index: dict[Arc, int] = {}
    pb = PhaseBuilder(arc_index)
    grid = _grid(G)
    for f, (u, v, size) in enumerate(flows):
        duration = params.serialisation(size) + params.hop_latency
        last = -1
        for h, arc in enumerate(route(G, u, v, salt=f, grid=grid)):
            last = pb.add(
                arc,
                count=1,
                duration=duration,
                payload=size,
                group=h,
                deps=[last] if h else [],
                delay=params.forward_delay,
            )
    reducing = collective in ("allreduce", "reducescatter", "reduce")
    phase = pb.build(
        start=params.reduce_start if reducing else params.forward_start,
        final_delay=params.reduce_delay if reducing else 0.0,
        label="mixed",
    )
    return Program(
        arcs=list(arc_index),
        phases=[phase],
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={"collective": collective, "bytes": int(nbytes), "flows": len(flows)},
    )


# ---------------------------------------------------------------------------- MultiTree
def multitree_trees(
    G: nx.MultiDiGraph, roots: Sequence[int] | None = None
) -> dict[int, list[tuple[int, int, int, int]]]:
    """MultiTree's trees: all grown together, one level per step, each arc once per step.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    roots : sequence of int, optional
        Default: every compute chiplet.

    Returns
    -------
    dict
        Root -> list of ``(parent, child, key, step)`` (steps from 1).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> trees = multitree_trees(build("mesh:2x2"))
    >>> sorted(trees[0])
    [(0, 1, 0, 1), (0, 2, 0, 1), (1, 3, 0, 2)]
    """
    ranks = compute_nodes(G)
    roots = list(ranks if roots is None else roots)
    targets = set(ranks)
    reached = {r: {r: 0} for r in roots}
    edges: dict[int, list[tuple[int, int, int, int]]] = {r: [] for r in roots}
    out = {u: sorted((v, k) for _, v, k in G.out_edges(u, keys=True)) for u in G.nodes}
    step = 0
    while any(not targets <= set(reached[r]) for r in roots):
        step += 1
        used: set[Arc] = set()
        progress = False
        for j in range(len(roots)):
            r = roots[(j + step - 1) % len(roots)]
            tree = reached[r]
            if targets <= set(tree):
                continue
            frontier = sorted((d, u) for u, d in tree.items() if d < step)
            for _, u in frontier:
                for v, k in out[u]:
                    if v in tree or (u, v, k) in used:
                        continue
                    tree[v] = step
                    used.add((u, v, k))
                    edges[r].append((u, v, k, step))
                    progress = True
        if not progress:
            raise TopologyError("MultiTree cannot reach every chiplet from every root")
    return edges


def _multitree_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, root: int | None
) -> Program:
    ranks = compute_nodes(G)
    n = len(ranks)
    if collective in ("broadcast", "reduce"):
        roots = [ranks[0] if root is None else root]
        size = nbytes
    else:
        roots = ranks
        size = -(-nbytes // n)
    trees = multitree_trees(G, roots)
    last_step = max((e[3] for es in trees.values() for e in es), default=0)
    duration = params.serialisation(size) + params.hop_latency
    arc_index: dict[Arc, int] = {}
    phases = []
    if collective in ("allreduce", "reducescatter", "reduce"):
        pb = PhaseBuilder(arc_index)
        for r in roots:
            block_of: dict[int, int] = {}
            children: dict[int, list[int]] = {}
            for u, v, _, _ in trees[r]:
                children.setdefault(u, []).append(v)
            for u, v, k, t in sorted(trees[r], key=lambda e: -e[3]):
                key = k if G.has_edge(v, u, key=k) else _arc(G, v, u)[2]
                block_of[v] = pb.add(
                    (v, u, key),
                    count=1,
                    duration=duration,
                    payload=size,
                    group=last_step + 1 - t,
                    deps=[block_of[c] for c in children.get(v, [])],
                    delay=params.reduce_delay,
                )
        phases.append(
            pb.build(start=params.reduce_start, final_delay=params.reduce_delay, label="reduce")
        )
    if collective in ("allreduce", "allgather", "broadcast"):
        pb = PhaseBuilder(arc_index)
        for r in roots:
            block_of = {}
            for u, v, k, t in sorted(trees[r], key=lambda e: e[3]):
                block_of[v] = pb.add(
                    (u, v, k),
                    count=1,
                    duration=duration,
                    payload=size,
                    group=t,
                    deps=[block_of[u]] if u != r else [],
                    delay=params.forward_delay,
                )
        start = None if collective == "allreduce" else params.forward_start
        phases.append(pb.build(start=start, label="forward"))
    return Program(
        arcs=list(arc_index),
        phases=phases,
        release=params.link_release,
        barrier=params.barrier_delay,
        drain=params.drain,
        meta={"collective": collective, "bytes": int(nbytes), "steps": last_step},
    )


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
        return _ring_program(G, collective, nbytes, params, bidirectional=False)
    if algorithm == "bidir-ring":
        return _ring_program(G, collective, nbytes, params, bidirectional=True)
    if algorithm == "direct":
        return _direct_program(G, collective, nbytes, params, root)
    if algorithm == "multitree":
        return _multitree_program(G, collective, nbytes, params, root)
    raise SpecError(f"unknown baseline {algorithm!r}", hint=f"use one of: {', '.join(BASELINES)}")
