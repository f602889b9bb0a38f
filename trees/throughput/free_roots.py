"""The fastest reduce-then-broadcast AllReduce: a fractional packing of trees with free roots.

An AllReduce may split its vector freely: reduce part ``x_r`` of it into root ``r`` over
in-trees, then broadcast it from ``r`` over out-trees. With every chiplet an equal root this is
ReduceScatter then AllGather (rate ``rho`` per phase, the cut bound of
:mod:`supermesh.trees.bounds.throughput`); letting the parts float can do better. Where a few
nodes are short of links (the mesh's corners, 2 in and 2 out), rooting more data at them spares
their links: on a mesh of any size each phase reaches ``8/3`` links where equal parts reach
``2n / (n - 1)``.

The best free split is the largest fractional packing of spanning arborescences with any roots::

    max  sum_T z_T   s.t.   sum_{T uses a} z_T <= c_a   for every arc a   (duals pi_a >= 0)

solved by column generation: the master LP in GLOP over the trees found so far, and as pricing
a minimum-cost spanning arborescence under the prices ``pi`` (Edmonds' algorithm, networkx), any
root, through a super root joined to every node by an arc dearer than any tree. A tree of price
below 1 improves the master; when none exists the LP is optimal, and in any case
``sum_a c_a pi_a / (cheapest tree)`` bounds every packing from above (LP duality), so the rate
and its bound are both reported and the status says whether they meet.

The master is solved over the grid symmetries
(:func:`~supermesh.topologies.symmetry.grid_automorphisms`, as in
:mod:`supermesh.trees.throughput.lp`): one row per orbit of arcs, a column standing for a
tree and all its images at equal rates. An optimal packing averaged over the group is optimal,
so nothing is lost, and each priced tree brings its up to 8 images at once (measured: SMBi 8x8
in 27 master solves and 4 s where one row per arc took 45 s; mesh 8x8 in 4 solves).

By Frank's theorem (free roots, [1]_, scaled capacities) the optimum is also
``min over subpartitions X1..Xt of sum B_in(Xi) / (t - 1)``: four corners of a mesh, ``8 / 3``.

Every node must be spanned (a Steiner span makes the pricing NP-hard): topologies with router
nodes are refused.

References
----------
.. [1] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
.. [2] J. Edmonds, "Optimum branchings", J. Res. Nat. Bur. Standards 71B, 1967.
.. [3] G. Desaulniers, J. Desrosiers, M. M. Solomon (eds.), "Column Generation", Springer, 2005.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import networkx as nx
from ortools.linear_solver import pywraplp

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.topologies.symmetry import arc_permutation, grid_automorphisms
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.oriented import orient

__all__ = ["FreeRoots", "free_root_packing"]

_TOL = 1e-9
_SUPER = -1  # the super root's id in the pricing graph


@dataclass(frozen=True)
class FreeRoots:
    """A fractional free-root packing and the bound it is held to.

    Attributes
    ----------
    packing : TreePacking
        Method ``free-roots``, one set; ``Tree.share`` is the fraction of the *whole* vector the
        tree carries (the shares of all trees sum to 1), so a root's part is the sum of its
        trees' shares.
    rate : float
        Links: the sum of the tree rates the LP reached (each arc's load within its bandwidth).
    upper : float
        An LP-duality bound: no free-root packing exceeds it.
    iterations : int
        Master LP solves.
    """

    packing: TreePacking
    rate: float
    upper: float
    iterations: int

    @property
    def status(self) -> str:
        """``optimal`` when the rate meets its bound, else ``feasible``."""
        return "optimal" if self.upper <= self.rate * (1 + 1e-7) else "feasible"


def free_root_packing(
    G: nx.MultiDiGraph,
    direction: str = "out",
    *,
    time_limit: float = 60.0,
) -> FreeRoots:
    """The largest fractional packing of spanning trees with free roots (see the module doc).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Every node a compute chiplet; arcs carry ``bandwidth`` (default 1).
    direction : {"out", "in"}
        Out-trees (broadcast), or in-trees stored child -> parent (reduce).
    time_limit : float
        Seconds of column generation; a packing stopped early is ``feasible``.

    Returns
    -------
    FreeRoots

    Raises
    ------
    TopologyError
        ``G`` has router nodes or is not strongly connected.
    SolverError
        GLOP fails to solve the master LP.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> f = free_root_packing(build("mesh:4x4"))
    >>> round(f.rate * 3, 6), f.status, sorted({t.root for t in f.packing.trees})
    (8.0, 'optimal', [0, 3, 12, 15])
    """
    spec = str(G.graph.get("spec", "G"))
    if len(compute_nodes(G)) != G.number_of_nodes():
        raise TopologyError(
            f"{spec} has router nodes; a free-root packing spans every node",
            hint="use -a throughput's ReduceScatter + AllGather packing, which allows relays",
        )
    if not nx.is_strongly_connected(G):
        raise TopologyError(f"{spec} is not strongly connected", hint="check the topology")
    arcs = sorted((int(u), int(v), int(k)) for u, v, k in G.edges(keys=True))
    cap = [float(G.edges[a].get("bandwidth", 1.0)) for a in arcs]
    # the pricing graph is in working orientation (parent -> child): for in-trees, reversed
    work = [(u, v) if direction == "out" else (v, u) for u, v, _ in arcs]
    group = _Group.of(G, arcs)
    lp = pywraplp.Solver.CreateSolver("GLOP")
    if lp is None:  # pragma: no cover - GLOP ships with OR-Tools
        raise SolverError("the GLOP LP solver is not available in this OR-Tools build")
    # one row per arc orbit: a column is a tree and all its images at equal rates, so its load
    # on an orbit is spread evenly over the orbit's arcs
    rows = [lp.Constraint(0.0, cap[arcs_of[0]]) for arcs_of in group.orbits]
    objective = lp.Objective()
    objective.SetMaximization()
    columns: list[tuple[int, tuple[int, ...]]] = []
    variables: list[Any] = []
    seen: set[tuple[int, ...]] = set()

    def add(root: int, used: tuple[int, ...]) -> None:
        for image in group.images(used):
            seen.add(image)
        var = lp.NumVar(0.0, lp.infinity(), f"z{len(variables)}")
        for o, n in Counter(group.orbit[a] for a in used).items():
            rows[o].SetCoefficient(var, n / len(group.orbits[o]))
        objective.SetCoefficient(var, 1.0)
        columns.append((root, used))
        variables.append(var)

    index: dict[tuple[int, int], int] = {}
    for a, (p, c) in enumerate(work):
        index.setdefault((p, c), a)  # the first parallel arc seeds the BFS trees
    H = nx.DiGraph(work)
    for r in sorted(G.nodes):
        used = tuple(sorted(index[e] for e in nx.bfs_edges(H, r)))
        if used not in seen:
            add(int(r), used)
    deadline = time.perf_counter() + time_limit
    iterations, upper = 0, float("inf")
    while True:
        if lp.Solve() != pywraplp.Solver.OPTIMAL:
            raise SolverError("the free-root packing LP did not solve")
        iterations += 1
        rate = objective.Value()
        weights = [v.solution_value() for v in variables]
        prices = [
            max(0.0, rows[group.orbit[a]].dual_value()) / group.size(a) for a in range(len(arcs))
        ]
        root, used, cost = _cheapest_tree(work, prices)
        if cost > _TOL:
            upper = min(upper, sum(c * p for c, p in zip(cap, prices, strict=True)) / cost)
        if cost >= 1 - _TOL or used in seen or time.perf_counter() > deadline:
            break
        add(root, used)
    total = sum(weights)
    shares: dict[tuple[int, tuple[int, ...]], float] = {}
    for (r, chosen), w in zip(columns, weights, strict=True):
        if w > _TOL * total:
            for g, image in zip(group.nodes, group.images(chosen), strict=True):
                key = (g[r], image)
                shares[key] = shares.get(key, 0.0) + w / total / len(group.nodes)
    trees = []
    for (r, chosen), share in sorted(shares.items()):
        mine = tuple(arcs[a] for a in chosen)
        height = orient(Tree(r, mine, 0), direction).height
        trees.append(Tree(r, mine, height, share=share))
    packing = TreePacking(
        topology=spec,
        direction=direction,
        status="feasible",
        sets=(TreeSet(trees=tuple(trees)),),
        objective=max(t.height for t in trees),
        method="free-roots",
    )
    return FreeRoots(packing, rate, upper, iterations)


@dataclass(frozen=True)
class _Group:
    """The grid automorphisms of a topology acting on its sorted arcs, and the arc orbits."""

    nodes: list[dict[int, int]]
    arcs: list[list[int]]
    orbit: list[int]
    orbits: list[list[int]]

    @classmethod
    def of(cls, G: nx.MultiDiGraph, arcs: list[tuple[int, int, int]]) -> _Group:
        maps = grid_automorphisms(G)
        perms = [arc_permutation(G, arcs, g) for g in maps]
        orbit = [-1] * len(arcs)
        orbits: list[list[int]] = []
        for a in range(len(arcs)):
            if orbit[a] < 0:
                members = sorted({p[a] for p in perms})
                for b in members:
                    orbit[b] = len(orbits)
                orbits.append(members)
        return cls(maps, perms, orbit, orbits)

    def size(self, a: int) -> int:
        return len(self.orbits[self.orbit[a]])

    def images(self, used: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The tree's image under each map, in the order of :attr:`nodes`."""
        return [tuple(sorted(p[a] for a in used)) for p in self.arcs]


def _cheapest_tree(
    work: list[tuple[int, int]], prices: list[float]
) -> tuple[int, tuple[int, ...], float]:
    """The spanning arborescence of least price, any root: (root, arc indices, price)."""
    best: dict[tuple[int, int], int] = {}
    for a, e in enumerate(work):
        if e not in best or prices[a] < prices[best[e]]:
            best[e] = a
    D = nx.DiGraph()
    for (p, c), a in best.items():
        D.add_edge(p, c, weight=prices[a], arc=a)
    dearer = 1.0 + sum(prices[a] for a in best.values())  # than any tree: one super arc only
    for v in sorted({c for _, c in work}):
        D.add_edge(_SUPER, v, weight=dearer, arc=-1)
    A = nx.minimum_spanning_arborescence(D, attr="weight", preserve_attrs=True)
    (root,) = [c for p, c in A.edges if p == _SUPER]
    used = tuple(sorted(D[p][c]["arc"] for p, c in A.edges if p != _SUPER))
    return int(root), used, sum(prices[a] for a in used)
