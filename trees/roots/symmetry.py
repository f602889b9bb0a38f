"""Grid symmetries for root sets: orbit sets packed as one tree, and mirror images reused.

Most grid topologies look the same after a quarter or half turn or a mirror (SMBi, even SMAlter,
the mesh; odd SMAlter only after turns). :func:`grid_symmetries` finds which of the eight square
symmetries (four for a rectangle) map every arc onto an arc with the same multiplicity.

Orbit sets. A root set ``{r, s(r), s^2(r), ...}`` made by a symmetry ``s`` of order ``k`` can use
the trees ``T, s(T), s^2(T), ...``: they are pairwise arc-disjoint iff, for every arc ``a``, at most
``capacity(a)`` of ``a, s^-1(a), s^-2(a), ...`` lie in ``T``. :func:`orbit_parents` solves that
for one tree, a model ``k`` times smaller than the full packing (the CP-SAT model of
:func:`supermesh.trees.packing.model.build_model` for one tree, plus those orbit capacities). A
symmetric packing at the eccentricity bound is optimal; above it, it is only as good as the proof
of the bound, which :func:`supermesh.trees.packing.search.pack_trees` gives.

Images. A set that is the image of an already packed set under a symmetry reuses its trees,
mapped (:func:`map_packing`).

Determinism: :func:`orbit_solve` takes a CP-SAT work budget (``deterministic_time``, see
:mod:`supermesh.trees.cpsat`) and reports the work it spent and what cut it, so a caller can
stop on work rather than on the clock; its ``time_limit`` is only the wall-clock bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import networkx as nx

from supermesh.topologies.symmetry import grid_automorphisms
from supermesh.trees.bounds.heights import WorkingNetwork, bfs_distances, tree_depths
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing.model import PackingProblem, build_model, solve

__all__ = [
    "OrbitSolve",
    "grid_symmetries",
    "map_packing",
    "orbit_of",
    "orbit_parents",
    "orbit_solve",
]

Perm = dict[int, int]
Parents = dict[int, int]


_ORDER = (
    "half turn",
    "mirror left-right",
    "mirror top-bottom",
    "quarter turn clockwise",
    "quarter turn anticlockwise",
    "transpose",
    "anti-transpose",
)
"""The order symmetries are tried in (the first that fits a root set is used)."""


def grid_symmetries(G: nx.MultiDiGraph, net: WorkingNetwork) -> list[Perm]:
    """Node permutations (other than the identity) of a grid that preserve every arc.

    Only a topology whose nodes are exactly a full grid of compute chiplets has them here (no
    memory or I/O chiplets); anything else gets ``[]``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.heights import working_network
    >>> G = build("smalter:5x5")
    >>> len(grid_symmetries(G, working_network(G)))  # odd SMAlter: turns only, no mirrors
    3
    >>> G = build("smbi:4x4")
    >>> len(grid_symmetries(G, working_network(G)))
    7
    """
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if rows is None or cols is None or G.graph.get("family") == "hexamesh":
        return []
    where = {(d.get("row"), d.get("col")): int(n) for n, d in G.nodes(data=True)}
    if len(where) != G.number_of_nodes() or set(where) != {
        (r, c) for r in range(rows) for c in range(cols)
    }:
        return []
    if any(d.get("kind") != "compute" for _, d in G.nodes(data=True)):
        return []
    # arc-disjointness counts arcs, so the symmetries need only keep multiplicities
    return grid_automorphisms(G, weighted=False, order=_ORDER)[1:]


def _power(perm: Perm, times: int) -> Perm:
    out = {v: v for v in perm}
    for _ in range(times):
        out = {v: perm[w] for v, w in out.items()}
    return out


def orbit_of(roots: Sequence[int], symmetries: Sequence[Perm]) -> Perm | None:
    """A symmetry whose powers map ``roots[0]`` onto exactly the set ``roots``, if any.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.heights import working_network
    >>> G = build("smbi:4x4")
    >>> syms = grid_symmetries(G, working_network(G))
    >>> orbit_of([1, 7, 14, 8], syms) is not None, orbit_of([1, 7, 13, 8], syms)
    (True, None)
    """
    k = len(roots)
    if k < 2 or len(set(roots)) != k:
        return None
    for perm in symmetries:
        orbit = [roots[0]]
        while len(orbit) <= k and perm[orbit[-1]] != roots[0]:
            orbit.append(perm[orbit[-1]])
        if len(orbit) == k and set(orbit) == set(roots):
            return perm
    return None


class OrbitSolve(NamedTuple):
    """What :func:`orbit_solve` found and spent.

    Attributes
    ----------
    parents : list of dict or None
        The trees ``T, s(T), ...`` as child -> parent maps, or ``None``.
    work : float
        CP-SAT deterministic time spent (0 when no model was solved; repeatable).
    cut : {None, "work budget", "time limit"}
        The limit that stopped the solve without an answer (``None``: trees or a proof that
        there are no symmetric ones). Only ``"time limit"`` depends on the machine.
    """

    parents: list[Parents] | None
    work: float
    cut: str | None


def orbit_solve(
    net: WorkingNetwork,
    root: int,
    perm: Perm,
    k: int,
    height: int,
    *,
    time_limit: float,
    workers: int = 2,
    seed: int = 0,
    deterministic_time: float | None = None,
) -> OrbitSolve:
    """Trees ``T, s(T), ..., s^(k-1)(T)`` of height ``<= height``, arc-disjoint, with the work.

    ``T`` is rooted at ``root`` and spans every node of ``net``; ``s = perm`` must have order
    ``k`` on the root's orbit. No trees (``parents`` is ``None``) proves nothing about
    non-symmetric packings.

    Parameters
    ----------
    net : WorkingNetwork
    root : int
    perm : dict
        The symmetry, node -> node.
    k : int
        Trees (the size of the root's orbit).
    height : int
        The largest tree height allowed.
    time_limit : float
        Seconds: the wall-clock bound of the solve.
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    deterministic_time : float, optional
        CP-SAT work budget (default derived from ``time_limit``, see
        :func:`~supermesh.trees.cpsat.new_solver`): a solve cut by it repeats exactly.

    Returns
    -------
    OrbitSolve

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.heights import working_network
    >>> G = build("smbi:4x4")
    >>> net = working_network(G)
    >>> turn = orbit_of([5, 6, 10, 9], grid_symmetries(G, net))
    >>> found = orbit_solve(net, 5, turn, 4, 5, time_limit=60, deterministic_time=1.0)
    >>> len(found.parents), found.cut, 0 < found.work < 1.0
    (4, None, True)
    """
    dist = bfs_distances(net, root)
    if len(dist) != len(net.nodes) or max(dist.values()) > height:
        return OrbitSolve(None, 0.0, None)
    problem = PackingProblem(net, (root,), frozenset(net.nodes), (dist,), height)
    model, var = build_model(problem)
    powers = [_power(perm, i) for i in range(k)]
    inverse = [{w: v for v, w in p.items()} for p in powers]
    done: set[tuple[int, int]] = set()
    for (u, v), cap in net.capacity.items():
        if (u, v) in done:
            continue
        done.update((p[u], p[v]) for p in powers)
        terms = [var.x[0].get((inv[u], inv[v])) for inv in inverse]
        used = [t for t in terms if t is not None]
        if len(used) > cap:
            model.add(sum(used) <= cap)
    result = solve(
        model, var, problem, time_limit=time_limit, workers=workers, seed=seed,
        deterministic_time=deterministic_time,
    )  # fmt: skip
    if result.parents is None:
        return OrbitSolve(None, result.work, result.cut)
    tree = result.parents[0]
    return OrbitSolve([{p[c]: p[q] for c, q in tree.items()} for p in powers], result.work, None)


def orbit_parents(
    net: WorkingNetwork,
    root: int,
    perm: Perm,
    k: int,
    height: int,
    *,
    time_limit: float,
    workers: int = 2,
    seed: int = 0,
    deterministic_time: float | None = None,
) -> list[Parents] | None:
    """Trees ``T, s(T), ..., s^(k-1)(T)`` of height ``<= height``, arc-disjoint, or ``None``.

    :func:`orbit_solve` without the work report. ``None`` when CP-SAT finds no such ``T``
    within its limits (which proves nothing about non-symmetric packings).

    Parameters
    ----------
    net, root, perm, k, height, time_limit, workers, seed, deterministic_time
        As for :func:`orbit_solve`.

    Returns
    -------
    list of dict or None
        One child -> parent map per tree, in orbit order from ``root``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.heights import working_network
    >>> G = build("smbi:4x4")
    >>> net = working_network(G)
    >>> turn = orbit_of([5, 6, 10, 9], grid_symmetries(G, net))
    >>> orbit_parents(net, 5, turn, 4, 4, time_limit=5) is None  # the bound 4 is out of reach
    True
    >>> trees = orbit_parents(net, 5, turn, 4, 5, time_limit=5)
    >>> [max(tree_depths(r, p).values()) for r, p in zip([5, 6, 10, 9], trees)]
    [5, 5, 5, 5]
    """
    return orbit_solve(
        net, root, perm, k, height, time_limit=time_limit, workers=workers, seed=seed,
        deterministic_time=deterministic_time,
    ).parents  # fmt: skip


def _parents(tree: Tree, direction: str) -> Parents:
    """The tree as child -> parent in the working orientation."""
    if direction == "out":
        return {v: u for u, v, _ in tree.arcs}
    return {u: v for u, v, _ in tree.arcs}


def map_packing(
    packing: TreePacking, perm: Perm, net: WorkingNetwork, roots: Sequence[int]
) -> TreePacking:
    """The packing's (one) tree set mapped by a symmetry, trees in the order of ``roots``.

    Heights, bounds and status carry over: a symmetry preserves distances and disjointness.
    """
    old = packing.sets[0]
    by_root = {perm[t.root]: _parents(t, packing.direction) for t in old.trees}
    parents = [{perm[c]: perm[p] for c, p in by_root[r].items()} for r in roots]
    for r, par in zip(roots, parents, strict=True):
        tree_depths(r, par)  # raises if the map is not a tree (it always is for a symmetry)
    trees = net.trees(roots, parents)
    return TreePacking(
        packing.topology,
        packing.direction,
        packing.status,
        (TreeSet(trees, old.lower_bound),),
        lower_bound=packing.lower_bound,
        objective=packing.objective,
        method=packing.method,
        span=packing.span,
        stats={**packing.stats, "mapped_by_symmetry": True},
    )
