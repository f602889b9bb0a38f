"""The fastest AllReduce over trees: spanning trees of the undirected network, both ways at once.

An AllReduce that reduces part of its vector into a root over a spanning tree and broadcasts it
back over the same tree loads each tree edge once in each direction: the reduce on the arc
towards the root, the broadcast on the arc away from it. Run without a barrier, the two use
opposite arcs and overlap, so the tree costs one unit of each undirected edge it uses, and the
best split of the vector is the largest fractional packing of spanning trees of the undirected
network (Blink, [1]_)::

    max  sum_T x_T   s.t.   sum_{T uses e} x_T <= c_e   for every edge e   (duals y_e >= 0)

with ``c_e`` the smaller bandwidth of its two arcs. Column generation solves it: the master LP
in GLOP over the trees found so far, and as pricing a minimum spanning tree under the duals
(Kruskal); a tree of weight below 1 improves the master, and ``sum_e c_e y_e / (lightest tree)``
bounds every packing (LP duality).

No AllReduce at all is faster than the best partition allows (:mod:`~supermesh.trees.bounds.\
allreduce`): a partition of the nodes into ``k`` parts, each holding a rank, needs ``2 (k - 1)``
transfers between parts per element. By Nash-Williams and Tutte [2]_ [3]_ (fractional form) the
packing's optimum is ``min over partitions of c(crossing edges) / (k - 1)``, the same value: the
trees are an optimal AllReduce, not only an optimal tree AllReduce. The partitions come from the
final duals (the components of the edges lighter than each threshold), so the answer carries its
proof: ``status`` is ``optimal`` when the rate meets that partition's bound.

A mesh's optimum is its singleton partition, ``|E| / (n - 1)`` edges: mesh 4x4 ``8/5`` links,
where a reduce-then-broadcast that waits between the phases (or runs them on the same arcs)
reaches ``4/3`` at best.

References
----------
.. [1] G. Wang et al., "Blink: Fast and Generic Collectives for Distributed ML", MLSys 2020.
.. [2] C. St. J. A. Nash-Williams, "Edge-disjoint spanning trees of finite graphs",
   J. London Math. Soc. 36, 1961.
.. [3] W. T. Tutte, "On the problem of decomposing a graph into n connected factors",
   J. London Math. Soc. 36, 1961.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import networkx as nx
from ortools.linear_solver import pywraplp

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.allreduce import partition_bound
from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["UndirectedPacking", "undirected_packing"]

_TOL = 1e-9


@dataclass(frozen=True)
class UndirectedPacking:
    """A fractional packing of undirected spanning trees and the partition that bounds it.

    Attributes
    ----------
    packing : TreePacking
        Method ``undirected``, one set of out-trees, each rooted at its centre; ``Tree.share``
        is the fraction of the whole vector the tree reduces and broadcasts (they sum to 1).
    rate : float
        Links: the sum of the tree rates the LP reached.
    bound : fractions.Fraction
        The best partition's bound (:func:`~supermesh.trees.bounds.allreduce.partition_bound`):
        no AllReduce beats it.
    parts : tuple of tuple of int
        That partition.
    iterations : int
        Master LP solves.
    """

    packing: TreePacking
    rate: float
    bound: Fraction
    parts: tuple[tuple[int, ...], ...]
    iterations: int

    @property
    def status(self) -> str:
        """``optimal`` when the rate meets the partition's bound, else ``feasible``."""
        return "optimal" if float(self.bound) <= self.rate * (1 + 1e-7) else "feasible"


def _edges(G: nx.MultiDiGraph) -> list[tuple[int, int, int, float]]:
    """Undirected edges ``(u, v, key, capacity)``, ``u < v``: arc pairs ``(u, v, k)`` and
    ``(v, u, k)``, at the smaller bandwidth of the two."""
    out = []
    for u, v, k, b in sorted(G.edges(keys=True, data="bandwidth", default=1.0)):
        if not G.has_edge(v, u, key=k):
            raise TopologyError(
                f"arc {u}->{v} (key {k}) has no reverse: an AllReduce over undirected trees "
                "broadcasts over the arcs its reduce uses backwards",
                hint="use --algorithm pipeline, whose reduce runs on in-trees of its own",
            )
        if u < v:
            back = float(G.edges[v, u, k].get("bandwidth", 1.0))
            out.append((int(u), int(v), int(k), min(float(b), back)))
    return out


def _lightest_tree(
    nodes: list[int], edges: list[tuple[int, int, int, float]], weight: list[float]
) -> tuple[tuple[int, ...], float]:
    """The minimum spanning tree under ``weight``: (edge indices, weight); Kruskal, ties by
    edge index."""
    parent = {v: v for v in nodes}

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    used = []
    for e in sorted(range(len(edges)), key=lambda i: (weight[i], i)):
        a, b = find(edges[e][0]), find(edges[e][1])
        if a != b:
            parent[a] = b
            used.append(e)
    return tuple(sorted(used)), sum(weight[e] for e in used)


def _partitions(
    nodes: list[int], edges: list[tuple[int, int, int, float]], weight: list[float]
) -> list[tuple[tuple[int, ...], ...]]:
    """The partitions into components of the edges lighter than each distinct weight."""
    out = []
    for limit in sorted(set(weight)):
        H = nx.Graph()
        H.add_nodes_from(nodes)
        H.add_edges_from((u, v) for (u, v, _, _), w in zip(edges, weight, strict=True) if w < limit)
        parts = tuple(sorted(tuple(sorted(c)) for c in nx.connected_components(H)))
        if len(parts) > 1:
            out.append(parts)
    return out


def _rooted(edges: list[tuple[int, int, int]], nodes: list[int]) -> Tree:
    """The undirected tree as an out-tree from its centre (least height, then lowest id)."""
    T = nx.Graph()
    T.add_nodes_from(nodes)
    key = {}
    for u, v, k in edges:
        T.add_edge(u, v)
        key[(u, v)] = key[(v, u)] = k
    ecc = nx.eccentricity(T)
    root = min(nodes, key=lambda v: (ecc[v], v))
    arcs = tuple(sorted((p, c, key[(p, c)]) for p, c in nx.bfs_edges(T, root)))
    return Tree(root, arcs, ecc[root])


def undirected_packing(G: nx.MultiDiGraph, *, time_limit: float = 60.0) -> UndirectedPacking:
    """The largest fractional packing of undirected spanning trees (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        Every node a compute chiplet, every arc with its reverse (same key); arcs carry
        ``bandwidth`` (default 1).
    time_limit : float
        Seconds of column generation; a packing stopped early is ``feasible``.

    Returns
    -------
    UndirectedPacking

    Raises
    ------
    TopologyError
        ``G`` has router nodes, an arc without its reverse, or is not connected.
    SolverError
        GLOP fails to solve the master LP.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> u = undirected_packing(build("mesh:4x4"))  # 24 edges, 16 nodes: 24 / 15 = 8/5
    >>> u.bound, u.status, len(u.parts)
    (Fraction(8, 5), 'optimal', 16)
    >>> round(sum(t.share for t in u.packing.trees), 9)
    1.0
    """
    spec = str(G.graph.get("spec", "G"))
    if len(compute_nodes(G)) != G.number_of_nodes():
        raise TopologyError(
            f"{spec} has router nodes; an undirected tree packing spans every node",
            hint="use -a throughput's ReduceScatter + AllGather packing, which allows relays",
        )
    if G.number_of_nodes() < 2 or not nx.is_strongly_connected(G):
        raise TopologyError(f"{spec} is not connected", hint="check the topology")
    nodes = sorted(int(v) for v in G.nodes)
    edges = _edges(G)
    lp = pywraplp.Solver.CreateSolver("GLOP")
    if lp is None:  # pragma: no cover - GLOP ships with OR-Tools
        raise SolverError("the GLOP LP solver is not available in this OR-Tools build")
    rows = [lp.Constraint(0.0, c) for *_, c in edges]
    objective = lp.Objective()
    objective.SetMaximization()
    columns: list[tuple[int, ...]] = []
    variables: list[Any] = []

    def add(used: tuple[int, ...]) -> None:
        var = lp.NumVar(0.0, lp.infinity(), f"x{len(variables)}")
        for e in used:
            rows[e].SetCoefficient(var, 1.0)
        objective.SetCoefficient(var, 1.0)
        columns.append(used)
        variables.append(var)

    add(_lightest_tree(nodes, edges, [0.0] * len(edges))[0])
    deadline = time.perf_counter() + time_limit
    iterations, duals = 0, [0.0] * len(edges)
    while True:
        if lp.Solve() != pywraplp.Solver.OPTIMAL:
            raise SolverError("the undirected tree packing LP did not solve")
        iterations += 1
        duals = [max(0.0, r.dual_value()) for r in rows]
        used, weight = _lightest_tree(nodes, edges, duals)
        if weight >= 1 - _TOL or used in columns or time.perf_counter() > deadline:
            break
        add(used)
    rate = objective.Value()
    candidates = [tuple((v,) for v in nodes), *_partitions(nodes, edges, duals)]
    bound, parts = min((partition_bound(G, p), p) for p in candidates)
    weights = [v.solution_value() for v in variables]
    total = sum(weights)
    trees = [
        dataclasses.replace(_rooted([edges[e][:3] for e in used], nodes), share=w / total)
        for used, w in zip(columns, weights, strict=True)
        if w > _TOL * total
    ]
    packing = TreePacking(
        topology=spec,
        direction="out",
        status="feasible",
        sets=(TreeSet(trees=tuple(trees)),),
        objective=max(t.height for t in trees),
        method="undirected",
        # the AllReduce's rate (links of algorithm bandwidth), exact where it meets the bound
        stats={"algbw_links": str(bound) if rate >= float(bound) * (1 - 1e-7) else f"{rate:.9g}"},
    )
    return UndirectedPacking(packing, rate, bound, parts, iterations)
