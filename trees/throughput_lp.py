"""Column generation for weighted tree packings of bounded height (the throughput LP).

Every rank ``r`` roots trees ``T`` of height at most ``H`` that carry its data at rates
``z_T``; all trees run at once. The master LP (GLOP, OR-Tools' simplex) is::

    max lambda   s.t.   sum_{T rooted at r} z_T >= lambda      for every rank r   (duals mu_r)
                        sum_{T uses a} z_T      <= c_a         for every arc a    (duals pi_a)

``n lambda`` is the algorithm bandwidth in links. Parallel arcs are separate rows, so every tree
names the link it uses and a link's load is exactly what the simulator puts on it. A tree rooted
at ``r`` improves the master iff its price ``sum_{a in T} pi_a`` is below ``mu_r``: the pricing
problem is a minimum-cost arborescence of height at most ``H``
(:mod:`supermesh.trees.throughput_pricing`).

Symmetry: with a group of automorphisms (:mod:`supermesh.trees.throughput_symmetry`) the LP is
solved over orbits (one row per orbit of roots and of arcs; a column is a tree and all its images
at equal rate), which loses nothing (an optimal packing averaged over the group is optimal and
symmetric) and divides the work by up to 8.

A bound for any prices (Lagrangian / LP duality): if every tree of height at most ``H`` rooted in
the orbit of ``r`` costs at least ``delta_r`` under prices ``pi``, then
``lambda(H) <= sum_a c_a pi_a / sum_r |orbit(r)| delta_r``. With exact lower bounds on
``delta_r`` (:func:`supermesh.trees.throughput_pricing.exact_price`) this proves that a height
cap cannot reach a rate (:func:`height_upper_bound`).

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024 (fractional tree packings reach the cut bound).
.. [2] G. Desaulniers, J. Desrosiers, M. M. Solomon (eds.), "Column Generation", Springer, 2005.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import networkx as nx
from ortools.linear_solver import pywraplp

from supermesh.errors import SolverError
from supermesh.trees.throughput_bound import exact_fraction
from supermesh.trees.throughput_pricing import (
    ABSENT,
    PricedTree,
    Pricing,
    bfs_labels,
    exact_price,
    label_search,
)
from supermesh.trees.throughput_symmetry import arc_permutation, grid_automorphisms

__all__ = ["Column", "Network", "Progress", "column_generation", "height_upper_bound"]

_TOL = 1e-9


@dataclass
class Network:
    """A topology prepared for the LP: indexed nodes, arcs in data direction, orbits.

    Attributes
    ----------
    nodes : list of int
        Topology node id of each index.
    arcs : list of (parent, child)
        Arc ends by index, in the direction the data flow (out-trees of the working network).
    topo_arcs : list of (src, dst, key)
        The topology arc of each arc (reversed back for in-trees).
    cap : list of float
        Bandwidth of each arc; ``cap_exact`` the same as Fractions.
    ranks : list of int
        Indices of the ranks (roots and span).
    relay : list of bool
        Nodes that need not be reached.
    group : list of list of int
        Node permutations (index -> index) of the symmetry group, identity first.
    arc_group : list of list of int
        The same as arc permutations.
    direction : {"out", "in"}
        ``"in"``: the topology's arcs were reversed (in-trees).
    reps : list of int
        One root per orbit of ranks; ``root_orbit`` its orbit size.
    arc_orbit : list of int
        Orbit id of each arc; ``orbit_size`` per orbit; ``orbit_cap`` its bandwidth.
    """

    nodes: list[int]
    arcs: list[tuple[int, int]]
    topo_arcs: list[tuple[int, int, int]]
    cap: list[float]
    cap_exact: list[Fraction]
    ranks: list[int]
    relay: list[bool]
    group: list[list[int]]
    arc_group: list[list[int]]
    direction: str = "out"
    reps: list[int] = field(default_factory=list)
    root_orbit: dict[int, int] = field(default_factory=dict)
    arc_orbit: list[int] = field(default_factory=list)
    orbit_size: list[int] = field(default_factory=list)
    orbit_cap: list[float] = field(default_factory=list)

    @classmethod
    def build(
        cls, G: nx.MultiDiGraph, ranks: Sequence[int], direction: str, symmetry: bool
    ) -> Network:
        """Index ``G`` for ``direction`` (``"in"`` reverses every arc) and find the orbits.

        Examples
        --------
        >>> from supermesh.topologies import build
        >>> net = Network.build(build("smbi:4x4"), list(range(16)), "out", True)
        >>> net.order, net.reps, [net.root_orbit[r] for r in net.reps]
        (8, [0, 1, 5], [4, 8, 4])
        """
        nodes = sorted(int(v) for v in G.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        topo = sorted((int(u), int(v), int(k)) for u, v, k in G.edges(keys=True))
        arcs = [
            (index[v], index[u]) if direction == "in" else (index[u], index[v]) for u, v, _ in topo
        ]
        bws = [G.edges[a].get("bandwidth", 1.0) for a in topo]
        rank_idx = sorted(index[r] for r in ranks)
        inside = set(rank_idx)
        maps = grid_automorphisms(G) if symmetry else [{v: v for v in nodes}]
        maps = [g for g in maps if all(g[nodes[r]] in set(ranks) for r in rank_idx)]
        group = [[index[g[v]] for v in nodes] for g in maps]
        arc_group = [arc_permutation(G, topo, g) for g in maps]
        net = cls(
            nodes,
            arcs,
            topo,
            [float(b) for b in bws],
            [exact_fraction(b) for b in bws],
            rank_idx,
            [i not in inside for i in range(len(nodes))],
            group,
            arc_group,
            direction,
        )
        net._orbits()
        return net

    def _orbits(self) -> None:
        seen: set[int] = set()
        for r in self.ranks:
            if r in seen:
                continue
            orbit = {g[r] for g in self.group}
            seen |= orbit
            self.reps.append(r)
            self.root_orbit[r] = len(orbit)
        self.arc_orbit = [-1] * len(self.arcs)
        for a in range(len(self.arcs)):
            if self.arc_orbit[a] >= 0:
                continue
            orbit = {p[a] for p in self.arc_group}
            for b in orbit:
                self.arc_orbit[b] = len(self.orbit_size)
            self.orbit_size.append(len(orbit))
            self.orbit_cap.append(self.cap[a])

    @property
    def order(self) -> int:
        """Size of the symmetry group."""
        return len(self.group)


@dataclass(frozen=True)
class Column:
    """A tree rooted at an orbit representative (it stands for all its images)."""

    root: int
    arcs: tuple[int, ...]
    height: int
    labels: tuple[int, ...]


@dataclass
class Progress:
    """State of a column generation, kept across height caps (columns stay valid when H grows).

    Attributes
    ----------
    columns : list of Column
    weights : list of float
        LP value of each column (per-orbit rate ``w``; every image carries ``w / |group|``).
    lam : float
        Best per-rank rate of the last solve.
    prices : list of float
        Arc prices (``pi_o / |o|`` per arc) of the last solve.
    mu : dict
        Root-row duals per representative (``mu_r / |orbit(r)|``).
    iterations : int
        LP solves so far.
    basic, tight : list
        The last optimal basis: basic variables (``-1`` for lambda, else a column index) and
        the rows whose slack is not basic (``("root", r)`` or ``("arc", orbit)``).
    caps : dict
        Per-representative height caps below the global one (``root_slack``).
    fixed, closed
        Diving state (:mod:`supermesh.trees.throughput_parts`): column ``j`` tied to the rate
        by ``w_j = fixed[j] * lambda``; roots in ``closed`` take no other trees.
    """

    columns: list[Column] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    lam: float = 0.0
    prices: list[float] = field(default_factory=list)
    mu: dict[int, float] = field(default_factory=dict)
    iterations: int = 0
    basic: list[int] = field(default_factory=list)
    tight: list[tuple[str, int]] = field(default_factory=list)
    fixed: dict[int, float] = field(default_factory=dict)
    closed: set[int] = field(default_factory=set)
    caps: dict[int, int] = field(default_factory=dict)
    keys: set[tuple[int, tuple[int, ...]]] = field(default_factory=set)
    last_labels: dict[int, tuple[int, ...]] = field(default_factory=dict)


class _Master:
    """The master LP in GLOP, rebuilt from the columns (GLOP warm-starts new columns)."""

    def __init__(self, net: Network, progress: Progress | None = None) -> None:
        self.net = net
        self.solver = pywraplp.Solver.CreateSolver("GLOP")
        if self.solver is None:  # pragma: no cover - GLOP ships with OR-Tools
            raise SolverError("the GLOP LP solver is not available in this OR-Tools build")
        inf = self.solver.infinity()
        self.lam = self.solver.NumVar(0.0, inf, "lambda")
        self.root_row = {}
        for r in net.reps:
            row = self.solver.Constraint(-inf, 0.0)
            row.SetCoefficient(self.lam, 1.0)
            self.root_row[r] = row
        self.arc_row = [self.solver.Constraint(-inf, c) for c in net.orbit_cap]
        objective = self.solver.Objective()
        objective.SetCoefficient(self.lam, 1.0)
        objective.SetMaximization()
        self.vars: list[Any] = []
        self.roots: list[int] = []
        if progress is not None:
            for col in progress.columns:
                self.add(col)
            for j, ratio in progress.fixed.items():
                self.fix(j, ratio)
            for r in progress.closed:
                self.close(r, progress.fixed)

    def add(self, col: Column) -> None:
        net = self.net
        var = self.solver.NumVar(0.0, self.solver.infinity(), f"w{len(self.vars)}")
        self.root_row[col.root].SetCoefficient(var, -1.0 / net.root_orbit[col.root])
        count: dict[int, int] = {}
        for a in col.arcs:
            o = net.arc_orbit[a]
            count[o] = count.get(o, 0) + 1
        for o, k in count.items():
            self.arc_row[o].SetCoefficient(var, k / net.orbit_size[o])
        self.vars.append(var)
        self.roots.append(col.root)

    def fix(self, j: int, ratio: float) -> None:
        """Tie column ``j`` to the rate: ``w_j = ratio * lambda``."""
        row = self.solver.Constraint(0.0, 0.0)
        row.SetCoefficient(self.vars[j], 1.0)
        row.SetCoefficient(self.lam, -ratio)

    def close(self, root: int, fixed: dict[int, float]) -> None:
        """No more trees for ``root`` beyond the ``fixed`` columns (the others are set to 0)."""
        for j, (var, r) in enumerate(zip(self.vars, self.roots, strict=True)):
            if r == root and j not in fixed:
                var.SetUb(0.0)

    def solve(self, progress: Progress) -> _Master:
        """Solve and copy the answer into ``progress``; returns the master to keep using.

        GLOP's incremental re-solve occasionally ends ABNORMAL after columns were added; the
        same model built afresh then solves, so that is the fallback.
        """
        master = self
        if self.solver.Solve() != pywraplp.Solver.OPTIMAL:
            master = _Master(self.net, progress)
            status = master.solver.Solve()
            if status != pywraplp.Solver.OPTIMAL:
                raise SolverError(f"the throughput LP did not solve (GLOP status {status})")
        master._read(progress)
        return master

    def _read(self, progress: Progress) -> None:
        net = self.net
        progress.lam = self.lam.solution_value()
        progress.weights = [v.solution_value() for v in self.vars]
        pi = [max(0.0, row.dual_value()) for row in self.arc_row]
        progress.prices = [
            pi[net.arc_orbit[a]] / net.orbit_size[net.arc_orbit[a]] for a in range(len(net.arcs))
        ]
        progress.mu = {
            r: max(0.0, self.root_row[r].dual_value()) / net.root_orbit[r] for r in net.reps
        }
        progress.iterations += 1
        basic = pywraplp.Solver.BASIC
        progress.basic = [-1] if self.lam.basis_status() == basic else []
        progress.basic += [j for j, v in enumerate(self.vars) if v.basis_status() == basic]
        progress.tight = [("root", r) for r in net.reps if self.root_row[r].basis_status() != basic]
        progress.tight += [
            ("arc", o) for o, row in enumerate(self.arc_row) if row.basis_status() != basic
        ]


def _seeds(net: Network, root: int, height: int, progress: Progress) -> list[list[int]]:
    """Starting labellings for ``root``: BFS, and its last column's; none if no tree fits."""
    dist = bfs_labels(len(net.nodes), net.arcs, root)
    if any(not (0 <= dist[v] <= height) for v in net.ranks):
        return []  # some rank is farther than the cap (or unreachable): no tree at all
    bfs = [d if 0 <= d <= height else ABSENT for d in dist]
    seeds = [bfs]
    warm = progress.last_labels.get(root)
    if warm is not None and max(warm) <= height and list(warm) != bfs:
        seeds.append(list(warm))
    return seeds


def _add(progress: Progress, master: _Master, col: Column) -> bool:
    key = (col.root, col.arcs)
    if key in progress.keys:
        return False
    progress.keys.add(key)
    progress.columns.append(col)
    master.add(col)
    return True


def column_generation(
    net: Network,
    height: int,
    target: float,
    progress: Progress,
    *,
    deadline: float,
    max_iterations: int = 100_000,
) -> bool:
    """Run column generation with height cap ``height`` until the rate reaches ``target``.

    Parameters
    ----------
    net : Network
    height : int
        Height cap ``H``.
    target : float
        Per-rank rate ``lambda`` to stop at.
    progress : Progress
        Columns so far (all must have height at most ``height``); updated in place.
    deadline : float
        ``time.perf_counter()`` value to stop at.
    max_iterations : int
        LP solves at most.

    Returns
    -------
    bool
        True if the rate reached ``target``; False when the heuristic pricing found no
        improving tree (or the time ran out) below it.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))  # 9/4 links / 9
    True
    >>> round(progress.lam * 9, 9)
    2.25
    """
    master = _Master(net, progress)
    n = len(net.nodes)
    cap = {r: min(height, progress.caps.get(r, height)) for r in net.reps}
    if not progress.columns:
        for r in net.reps:
            seeds = _seeds(net, r, cap[r], progress)
            if not seeds:
                continue
            seed = seeds[0]
            tree = label_search(
                Pricing(n, net.arcs, [0.0] * len(net.arcs)), r, cap[r], seed, net.relay
            )
            _add(progress, master, Column(r, tree.arcs, tree.height, tree.labels))
    for _ in range(max_iterations):
        master = master.solve(progress)
        if progress.lam >= target * (1 - _TOL):
            return True
        if time.perf_counter() > deadline:
            return False
        pricing = Pricing(n, net.arcs, progress.prices)
        added = 0
        for r in net.reps:
            if r in progress.closed:
                continue
            threshold = progress.mu[r] - _TOL * max(1.0, progress.mu[r])
            for seed in _seeds(net, r, cap[r], progress):
                tree = label_search(pricing, r, cap[r], seed, net.relay)
                if tree.cost < threshold:
                    col = Column(r, tree.arcs, tree.height, tree.labels)
                    if _add(progress, master, col):
                        added += 1
                        progress.last_labels[r] = tree.labels
        if not added:
            return False
    return False


def height_upper_bound(
    net: Network,
    height: int,
    progress: Progress,
    *,
    time_limit: float,
    workers: int = 1,
) -> tuple[float, bool, list[PricedTree]]:
    """Upper bound on the per-rank rate of any packing of height at most ``height``.

    Uses the last prices of ``progress`` and CP-SAT lower bounds on every root's cheapest tree
    (see the module docstring).

    Returns
    -------
    (float, bool, list of PricedTree)
        The bound, whether every pricing proved optimality, and the improving trees met (add
        them as columns and re-solve to tighten the bound).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> net = Network.build(build("mesh:3x3"), list(range(9)), "out", True)
    >>> progress = Progress()
    >>> column_generation(net, 4, 0.25, progress, deadline=float("inf"))
    True
    >>> height_upper_bound(net, 3, progress, time_limit=5)[0]  # a corner is 4 hops away
    0.0
    """
    n = len(net.nodes)
    pricing = Pricing(n, net.arcs, progress.prices)
    per_root = time_limit / max(1, len(net.reps))
    total = 0.0
    proved = True
    better: list[PricedTree] = []
    for r in net.reps:
        dist = bfs_labels(n, net.arcs, r)
        tree, bound, ok = exact_price(
            pricing,
            r,
            height,
            dist,
            net.relay,
            time_limit=per_root,
            workers=workers,
            hint=progress.last_labels.get(r),
        )
        proved &= ok
        if math.isinf(bound):
            return 0.0, proved, []
        total += net.root_orbit[r] * max(0.0, bound)
        if tree is not None and tree.cost < progress.mu[r] * (1 - _TOL):
            better.append(tree)
    numerator = sum(
        net.orbit_cap[net.arc_orbit[a]] * progress.prices[a] for a in range(len(net.arcs))
    )
    if total <= 0:
        return math.inf, proved, better
    return numerator / total, proved, better
