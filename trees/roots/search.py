"""The root-set packer behind :func:`supermesh.trees.roots.sets.root_sets`: cache, symmetry, budget.

:class:`SetPacker` packs root sets, each once (cached by sorted roots), within a work budget: a
set that is the mirror or turn of a packed set reuses its trees; a set that is one symmetry orbit
is first packed as one tree turned round (:func:`~supermesh.trees.roots.symmetry.orbit_solve`),
with :func:`~supermesh.trees.packing.search.pack_trees` proving the bound it needs; any other set
goes to :func:`~supermesh.trees.packing.search.pack_trees`. :func:`work_of` and
:func:`safety_seconds` turn seconds into the budget and its safety net. The search that uses it
lives in :mod:`supermesh.trees.roots.start` (start partitions, :func:`eccentricity_groups`,
:func:`repair`) and :mod:`supermesh.trees.roots.swaps` (:func:`total_height`, the local search
:func:`improve`); :func:`paper_stats` is in :mod:`supermesh.trees.roots.stats`. Those names are
re-exported here. See :mod:`supermesh.trees.roots.sets` for the objective and the bound.

Determinism. The search's budget and each set's limit are CP-SAT *work* (deterministic time,
:mod:`supermesh.trees.cpsat`), not seconds: every probe is charged the work its solves report plus a
fixed charge, :data:`PROBE_WORK` per node (so probes the fast constructions answer without a solver
cost something too, and every loop has a bound that does not depend on the machine), and each solve
gets the work the set or the search has left. Every decision rests on that count, so the same inputs
give the same probes, partition and trees under any load. A wall-clock deadline far above the budget
(:data:`SAFETY_SECONDS`, :data:`SAFETY_FACTOR`) stays as a safety net; if it fires,
:attr:`SetPacker.stopped` says ``"time limit"``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from supermesh.errors import SolverError
from supermesh.trees.bounds.heights import WorkingNetwork, working_network
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.packing.construct import construct_trees, roots_certificate
from supermesh.trees.packing.model import WORK_FLOOR
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.roots.symmetry import grid_symmetries, map_packing, orbit_of, orbit_solve

__all__ = [
    "PROBE_WORK",
    "SAFETY_FACTOR",
    "SAFETY_SECONDS",
    "SetPacker",
    "check_search_size",
    "safety_seconds",
    "start_seconds",
]

Roots = tuple[int, ...]
ORBIT_ROUNDS = 3  # heights an orbit set tries above its proven bound before the full packer
PROBE_WORK = 2e-4
"""Work charged to every probe per node of the topology, besides its CP-SAT work (0.0128 on an
8x8 grid, 0.0288 on 12x12): about what CP-SAT counts in the wall time a probe spends outside the
solver (construction, certificates, building the model: 0.2 s on 8x8, 0.5 s on 12x12 here), at
the reference rate of :mod:`supermesh.trees.cpsat`. So probes that need no solver use up the
budget too, and a budget ``W`` allows at most ``W / (PROBE_WORK * nodes)`` probes."""
MIN_SOLVE_WORK = 0.003  # the least work a probe's solves get (a set with no work left, say)
SAFETY_SECONDS = 600.0  # wall-clock safety net: at least this many seconds ...
SAFETY_FACTOR = 10.0  # ... or this many times the seconds the work budget was derived from


START_SECONDS = 100.0
"""Seconds the start partition and the search take on a 16x16 SuperMesh (256 nodes) with a
5-second limit, measured on the 2-core reference machine (the whole ``trees --root-sets`` call;
8x8 about 9 s, 12x12 about 35 s)."""
START_NODES = 256
START_EXPONENT = 1.75
"""How that time grows with the nodes: every set of the start is packed in full, with one
Edmonds check (a max-flow per node) and one construction each, and there are ``nodes / k``
sets, of which a symmetry leaves a share to pack: the measured 8x8 to 16x16 runs grow as
nodes ** 1.75."""


def start_seconds(nodes: int) -> float:
    """Estimated seconds of the part of a root-set search that no limit shortens.

    Every set of the start partition is packed in full whatever the time limit; this is what
    that costs on the reference machine, from :data:`START_SECONDS` scaled by
    :data:`START_EXPONENT` (an estimate: within a factor of about 2 on 6x6 to 16x16).

    Examples
    --------
    >>> round(start_seconds(256)), round(start_seconds(1024)), round(start_seconds(4096))
    (100, 1131, 12800)
    """
    return START_SECONDS * (max(int(nodes), 1) / START_NODES) ** START_EXPONENT


def check_search_size(G: nx.MultiDiGraph, time_limit: float) -> None:
    """Refuse a root-set search whose unshortened part would outlast its own safety net.

    The start partition is always packed in full (see :mod:`supermesh.trees.roots.sets`), so
    ``time_limit`` cannot hold below :func:`start_seconds`; a search whose estimate is above
    :func:`safety_seconds` of ``time_limit`` (10 minutes, or 10 times the limit) is refused
    before any work, with the estimate and the limit that would let it run.

    Raises
    ------
    ResourceError
        Above the safety net.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> check_search_size(build("smbi:16x16"), 5.0)  # about 100 s: runs
    >>> check_search_size(build("smbi:64x64"), 5.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: a root-set search on smbi:64x64 (4,096 nodes), whatever ...
    """
    from supermesh.budget import check_seconds

    nodes = G.number_of_nodes()
    spec = G.graph.get("spec", "this topology")
    check_seconds(
        start_seconds(nodes),
        f"a root-set search on {spec} ({nodes:,} nodes), whatever --time-limit "
        "(every set of its start partition is packed in full),",
        hint=f"give --time-limit {math.ceil(start_seconds(nodes) / SAFETY_FACTOR)} or more to "
        "run it anyway; at this size the throughput packing (trees --throughput, sim -a "
        "throughput) reaches the exact bound without this search",
        cap=safety_seconds(time_limit),
    )


def safety_seconds(seconds: float) -> float:
    """The wall-clock safety net for a budget derived from ``seconds``.

    Examples
    --------
    >>> safety_seconds(10), safety_seconds(120)
    (600.0, 1200.0)
    """
    return max(SAFETY_SECONDS, SAFETY_FACTOR * float(seconds))


@dataclass
class SetPacker:
    """Packs root sets once each (cache by sorted roots) within a work budget.

    Attributes
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
    ecc : dict
        Chiplet -> eccentricity.
    per_set : float
        CP-SAT work (deterministic time) for one set's probe.
    work : float
        Work for the whole search; once :attr:`used` reaches it, :meth:`room` is false.
    deadline : float
        ``time.perf_counter()`` value of the wall-clock safety net of the search.
    set_seconds : float
        The wall-clock safety net of one set's solve.
    workers, seed : int
        CP-SAT settings.
    used : float
        Work spent: the CP-SAT work of every solve plus :attr:`probe_work` per probe.
    probe_work : float
        The fixed charge per probe, :data:`PROBE_WORK` times the nodes of the topology.
    stopped : {"done", "work budget", "time limit"}
        What cut the search short (:meth:`room` said no), ``"done"`` if nothing did;
        ``"time limit"`` when a wall-clock safety net fired (the search's or a solve's), and
        only then may the answer differ from run to run.
    packs : dict
        Sorted roots -> best packing found.
    beyond : dict
        Sorted roots -> a height proven out of reach (no packing that low).
    undecided : int
        Probes of the local search that got neither trees nor a proof within their work.
    """

    G: nx.MultiDiGraph
    direction: str
    ecc: dict[int, int]
    per_set: float
    work: float
    deadline: float
    set_seconds: float
    workers: int = 2
    seed: int = 0
    used: float = 0.0
    stopped: str = "done"
    packs: dict[Roots, TreePacking] = field(default_factory=dict)
    beyond: dict[Roots, int] = field(default_factory=dict)
    certs: dict[Roots, dict[str, Any] | None] = field(default_factory=dict)
    solves: int = 0
    undecided: int = 0
    net: WorkingNetwork = field(init=False)
    symmetries: list[dict[int, int]] = field(init=False)
    probe_work: float = field(init=False)

    def __post_init__(self) -> None:
        self.net = working_network(self.G, self.direction)
        self.symmetries = grid_symmetries(self.G, self.net)
        self.probe_work = PROBE_WORK * len(self.net.nodes)

    def left(self) -> float:
        """Work left in the search's budget (negative once overspent)."""
        return self.work - self.used

    def stop(self, why: str) -> None:
        """Record a limit that cut the search (``"time limit"`` overrides ``"work budget"``)."""
        if self.stopped != "time limit":
            self.stopped = why

    def room(self) -> bool:
        """Whether the search may go on: work left, then the wall-clock safety net."""
        if self.left() < self.probe_work:
            self.stop("work budget")
            return False
        if time.perf_counter() >= self.deadline:
            self.stop("time limit")
            return False
        return True

    def _seconds(self, within: bool) -> float:
        """A solve's wall-clock bound: the set's safety net, cut at the search's if ``within``."""
        if not within:
            return self.set_seconds
        return max(min(self.set_seconds, self.deadline - time.perf_counter()), 0.05)

    def _charge(self, work: float, cut: str | None) -> None:
        self.used += work
        if cut == "time limit":
            self.stop("time limit")

    def bound(self, s: Roots) -> int:
        """Proven lower bound on the set's height: eccentricities, failed caps, solver bounds."""
        known = self.packs.get(s)
        solved = known.lower_bound if known is not None and known.lower_bound is not None else 0
        return max(max(self.ecc[v] for v in s), self.beyond.get(s, -1) + 1, solved)

    def certificate(self, s: Roots) -> dict[str, Any] | None:
        """Edmonds' certificate that the roots ``s`` admit no arc-disjoint trees, or ``None``."""
        if s not in self.certs:
            self.certs[s] = roots_certificate(self.G, s, self.direction, None)
        return self.certs[s]

    def height(self, s: Roots) -> int:
        """The height of the packed set ``s`` (its tallest tree)."""
        p = self.packs[s]
        assert p.objective is not None
        return p.objective

    def _image(self, s: Roots) -> None:
        """Take over what is known of a mirror or turn of ``s``."""
        for perm in self.symmetries:
            q = tuple(sorted(perm[v] for v in s))
            if q == s:
                continue
            if q in self.beyond:
                self.beyond[s] = max(self.beyond.get(s, -1), self.beyond[q])
            if q in self.packs and s not in self.packs:
                back = {w: v for v, w in perm.items()}
                self.packs[s] = map_packing(self.packs[q], back, self.net, s)

    def solve(
        self,
        s: Roots,
        cap: int | None = None,
        limit: float | None = None,
        again: bool = False,
        within: bool = True,
    ) -> int | None:
        """The set's height (packing it if needed), or ``None`` if above ``cap`` or unknown.

        A set packed before is not packed again unless ``again`` (and it is not proven optimal).
        ``limit`` (work) replaces the per-set work and the work left in the search.
        ``within``: the solves also stop at the search's wall-clock safety net (not so for the
        start partition, which is always packed in full).
        """
        if s not in self.packs:
            self._image(s)
        known = self.packs.get(s)
        if known is not None and (known.status == "optimal" or not again):
            return self.height(s) if cap is None or self.height(s) <= cap else None
        if cap is not None and self.bound(s) > cap:
            return None
        budget = min(self.per_set, self.left()) if limit is None else limit
        self.solves += 1
        self.used += self.probe_work
        until = self.used + max(budget, MIN_SOLVE_WORK)
        if self._construct(s):
            return self.height(s) if cap is None or self.height(s) <= cap else None
        perm = orbit_of(s, self.symmetries)
        if perm is not None and self._orbit(s, perm, cap, until, within):
            return self.height(s)
        p = self._pack(s, cap, until, within)
        if p is None or p.objective is None:
            return None
        if known is None or p.objective < self.height(s) or p.status == "optimal":
            self.packs[s] = p
        return self.height(s)

    def _construct(self, s: Roots) -> bool:
        """Keep the fast construction (closed form or greedy) if it meets the eccentricity bound.

        The same trees :func:`pack_trees` would return at once, without a solver.
        """
        try:
            p = construct_trees(self.G, s, direction=self.direction)
        except SolverError:
            return False
        if p.status != "optimal":
            return False
        self.packs[s] = p
        return True

    def _pack(self, s: Roots, cap: int | None, until: float, within: bool) -> TreePacking | None:
        """:func:`pack_trees` with a height cap and the work up to ``until``; record a proven
        cap; ``None`` without trees."""
        seconds = self._seconds(within)
        began = time.perf_counter()
        try:
            p = pack_trees(
                self.G,
                s,
                direction=self.direction,
                max_height=cap,
                time_limit=seconds,
                work_limit=max(until - self.used, MIN_SOLVE_WORK),
                workers=self.workers,
                seed=self.seed,
            )
        except SolverError:  # no trees at all within the limits
            if time.perf_counter() - began >= seconds:
                self.stop("time limit")
            return None
        self._charge(float(p.stats.get("work_used", 0.0)), p.stats.get("stopped"))
        if p.status == "infeasible":
            if cap is not None and (p.certificate or {}).get("kind") in ("solver", "eccentricity"):
                self.beyond[s] = max(self.beyond.get(s, -1), cap)
            return None
        return p

    def _orbit(
        self, s: Roots, perm: dict[int, int], cap: int | None, until: float, within: bool
    ) -> bool:
        """Pack an orbit set symmetrically at its proven bound, raising the bound by proofs.

        Each round's symmetric solve gets half the set's work left (up to ``until``).
        """
        for _ in range(ORBIT_ROUNDS):
            h = self.bound(s)
            left = until - self.used
            if (cap is not None and h > cap) or left < WORK_FLOOR:
                return False
            orbit = [s[0]]
            while len(orbit) < len(s):
                orbit.append(perm[orbit[-1]])
            found = orbit_solve(
                self.net, s[0], perm, len(s), h, time_limit=self._seconds(within),
                workers=self.workers, seed=self.seed,
                deterministic_time=max(left / 2, MIN_SOLVE_WORK),
            )  # fmt: skip
            self._charge(found.work, found.cut)
            if found.parents is not None:
                by_root = dict(zip(orbit, found.parents, strict=True))
                trees = self.net.trees(s, [by_root[r] for r in s])
                top = max(t.height for t in trees)
                self.packs[s] = TreePacking(
                    str(self.G.graph.get("spec", "")), self.direction, "optimal",
                    (TreeSet(trees, h),), lower_bound=h, objective=top, method="cpsat-orbit",
                    stats={"symmetric": True},
                )  # fmt: skip
                return True
            p = self._pack(s, h, until, within)
            if p is not None:
                self.packs[s] = p
                return True
            if self.beyond.get(s, -1) < h:
                return False  # no proof either way: leave it to the full packer
        return False
