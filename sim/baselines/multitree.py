"""The ``multitree`` baseline: MultiTree's trees and their FIFO program.

MultiTree (Huang et al., ISCA 2021): one spanning tree per rank, all grown one level per time
step, a link used by at most one tree per step (:func:`multitree_trees`); each tree edge sends its
root's ``M / n`` in one piece, steps in order (:func:`multitree_program`).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.errors import TopologyError
from supermesh.sim.baselines.routes import link_arc
from supermesh.sim.presets import SimParams
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies.model import Arc, compute_nodes

__all__ = ["multitree_program", "multitree_trees"]


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


def multitree_program(
    G: nx.MultiDiGraph, collective: str, nbytes: int, params: SimParams, root: int | None
) -> Program:
    """The FIFO program of MultiTree.

    A reduce phase sends up the trees (deepest level first, each node waiting for its children),
    a forward phase down them (level by level), AllReduce doing both in turn. Broadcast and
    Reduce use the one tree of the root, with the whole vector; the other collectives one tree per
    rank with ``M / n`` each.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
        Already normalised (:func:`~supermesh.sim.collectives.check_collective`).
    nbytes : int
        Size of the data vector ``M``.
    params : SimParams
    root : int or None
        Root of a broadcast or reduce (``None``: the lowest compute chiplet).

    Returns
    -------
    Program
        ``meta["steps"]`` is the number of steps the trees took to grow.

    Raises
    ------
    TopologyError
        Some chiplet cannot be reached from some root.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.presets import get_preset
    >>> prog = multitree_program(build("mesh:2x2"), "allreduce", 4096, get_preset(), None)
    >>> prog.meta["steps"], prog.transfers  # 4 trees of 3 edges, up then down
    (2, 24)
    """
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
                key = k if G.has_edge(v, u, key=k) else link_arc(G, v, u)[2]
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
