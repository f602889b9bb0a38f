"""Data of the throughput LP: the indexed network with its symmetry orbits, columns, state.

:class:`Network` turns a topology into indexed nodes and arcs in the direction the data flow
(in-trees are out-trees of the reversed network) and, with a group of automorphisms
(:mod:`supermesh.topologies.symmetry`), into orbits of roots and arcs. A :class:`Column` is
one tree at an orbit representative (it stands for all its images); :class:`Progress` is the
state of a column generation (:mod:`supermesh.trees.throughput.lp`), kept across height caps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import networkx as nx

from supermesh.topologies.symmetry import arc_permutation, grid_automorphisms
from supermesh.trees.bounds.throughput import exact_fraction

__all__ = ["Column", "Network", "Progress"]


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
        Diving state (:mod:`supermesh.trees.throughput.parts`): column ``j`` tied to the rate
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
