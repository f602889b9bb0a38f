"""The design tool: the cheapest link additions that reach a target tree count, with proof.

Given a base topology, a family of candidate links, per-chiplet port budgets, link costs and a
target (``k`` arc-disjoint spanning trees for every choice of ``k`` roots, for one root list, or
for each of several root sets; optionally within a maximum tree height), :func:`design` returns
the cheapest set of candidates whose addition reaches the target, and why nothing cheaper does.

Method (a cutting-plane loop)
    A CP-SAT master problem (:mod:`supermesh.trees.design.master`) picks candidates within the port
    budgets at least cost, subject to the cut conditions known so far. The one-node conditions
    (every span chiplet entered, and left, by enough arcs) go in up front. The chosen design is
    then checked by max-flow (:mod:`supermesh.trees.design.cuts`, Edmonds' branching theorem and
    Menger's theorem); each node set entered by too few arcs becomes a new constraint, "base arcs
    entering X plus chosen candidates crossing X >= required", and the master is solved again,
    until the check passes. Every constraint is necessary for the trees, so the master is a
    relaxation: when CP-SAT proves its optimum and the check passes, that design is the cheapest
    (status ``optimal``, lower bound = cost). A time limit gives ``feasible`` with the gap. If the
    master has no solution the target is ``infeasible``;
    :mod:`supermesh.trees.design.infeasible` then looks for a reason a person can check (a port
    budget, a set no candidate can enter often enough, a parity argument) besides the solver's
    proof. The counting bounds of :mod:`supermesh.trees.design.proof` (link ends each chiplet
    lacks, per bipartite group of candidates) are added to the master as redundant constraints:
    they are proven, and they let CP-SAT close the gap at once on grids.

    Targets cuts cannot decide are checked by packing the trees
    (:func:`supermesh.trees.packing.search.pack_trees`): a maximum height, and a Steiner span
    (memory chiplets relay, only compute chiplets must be reached) with given roots. A failed
    packing forbids that design and every subset of it (fewer links cannot help), and the loop goes
    on.

What is exact
    With the span every node, the flow check is exact (Edmonds). On a Steiner span it is a
    necessary condition: the minimum cost is still a proven lower bound, and the design is proven
    to carry the trees only when a packing was exhibited (``exact`` true; always false for
    "any roots" on a Steiner span, where not every root choice can be packed).

Determinism: the solves (master problems and packings) spend a work budget, CP-SAT's
deterministic time (by default ``DTIME_PER_WORKER_SECOND * workers * time_limit``), and the loop
stops on the work left, never on the clock: the same call gives the same design, status and
statistics (but wall times) under any load. ``time_limit`` stays the wall-clock bound of the
call; ``stats["stopped"]`` says ``"time limit"`` if it fired first.

Ports: ``max_links`` counts die-to-die links per chiplet (as
:func:`supermesh.topologies.metrics.links_per_node`); the router radix is that plus one local port.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for Accelerators",
   MICRO 2025 (the hand-made designs SMBi and SMAlter that the tool rediscovers).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

from supermesh.errors import SolverError, SpecError, TopologyError
from supermesh.topologies.metrics import arc_connectivity, links_per_node
from supermesh.topologies.model import check_nodes, compute_nodes
from supermesh.trees.cpsat import work_of
from supermesh.trees.design.candidates import candidate_links, port_budgets
from supermesh.trees.design.cuts import (
    Requirement,
    degree_cuts,
    link_ends_needed,
    violated_cuts,
    with_links,
)
from supermesh.trees.design.infeasible import height_reason, infeasibility_reason
from supermesh.trees.design.master import (
    add_bounds,
    add_cut,
    add_nogood,
    build_master,
    check_design_size,
    solve_master,
)
from supermesh.trees.design.proof import counting_bound, counting_groups
from supermesh.trees.design.result import DesignResult, ResultBuilder
from supermesh.trees.design.search import greedy_design, known_designs, packing_check, passes
from supermesh.trees.design.text import solver_reason
from supermesh.trees.packing.model import Budget
from supermesh.units import plural

__all__ = ["design", "design_gap"]


def _requirements(
    G: nx.MultiDiGraph,
    trees: int,
    roots: Sequence[int] | None,
    root_sets: Sequence[Sequence[int]] | None,
    direction: str,
    max_height: int | None,
) -> tuple[list[Requirement], dict[str, Any]]:
    if isinstance(trees, bool) or not isinstance(trees, int) or trees < 1:
        raise SpecError(f"target of {trees!r} trees is not an integer >= 1", hint="e.g. 4")
    if direction not in ("out", "in", "both"):
        raise SpecError(f"direction {direction!r} is not out, in or both", hint="use both")
    if roots is not None and root_sets is not None:
        raise SpecError("give roots or root_sets, not both", hint="one root list is one set")
    if max_height is not None and (not isinstance(max_height, int) or max_height < 1):
        raise SpecError(f"max height {max_height!r} is not an integer >= 1", hint="e.g. 8")
    target: dict[str, Any] = {"trees": trees, "roots": "any", "direction": direction}
    target["max_height"] = max_height
    if roots is not None:
        if len(roots) != trees:
            raise SpecError(
                f"{plural(len(roots), 'root')} given for a target of {plural(trees, 'tree')}",
                hint="give one root per tree (repeats allowed)",
            )
        root_sets = [roots]
    if root_sets is None:
        if max_height is not None:
            raise SpecError(
                "a maximum tree height needs the roots",
                hint="pass roots (e.g. the corners) or root sets with max_height",
            )
        return [Requirement(trees)], target
    sets = [tuple(check_nodes(G, s, what="root")) for s in root_sets]
    for s in sets:
        if not s or len(s) > trees:
            raise SpecError(
                f"root set {list(s)} does not have 1 to {trees} roots",
                hint=f"each root set holds at most {trees} roots (one per tree)",
            )
    target["roots"] = list(sets[0]) if roots is not None else [list(s) for s in sets]
    dirs = ("out", "in") if direction == "both" else (direction,)
    return [Requirement(len(s), s, d) for s in sets for d in dirs], target


def _span(G: nx.MultiDiGraph, span: Iterable[int] | None) -> list[int]:
    nodes = sorted(set(compute_nodes(G) if span is None else check_nodes(G, span, what="span")))
    if len(nodes) < 2:
        raise TopologyError(
            "the span has fewer than two nodes: any number of trees reach it",
            hint="span at least two chiplets (default: the compute chiplets)",
        )
    return nodes


def design(
    G: nx.MultiDiGraph,
    *,
    trees: int,
    add: str | Sequence[str | tuple[int, int]] = "perimeter-parallel",
    roots: Sequence[int] | None = None,
    root_sets: Sequence[Sequence[int]] | None = None,
    direction: str = "both",
    span: Iterable[int] | None = None,
    max_links: int | Mapping[int, int] | None = None,
    costs: Mapping[Any, int] | None = None,
    max_height: int | None = None,
    time_limit: float = 60.0,
    workers: int = 1,
    seed: int = 0,
    warm_start: bool = True,
    work_limit: float | None = None,
) -> DesignResult:
    """The cheapest candidate links to add so that ``G`` carries the target trees.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The base topology (not changed).
    trees : int
        Number of arc-disjoint spanning trees ``k``.
    add : str or sequence
        Candidate family (``perimeter-parallel``, ``any-parallel``, ``diagonal``), an explicit
        list ``"u-v,..."``, or a sequence of family names and ``(u, v)`` pairs
        (:func:`~supermesh.trees.design.candidates.candidate_links`).
    roots : sequence of int, optional
        One root per tree. Default: every choice of ``k`` roots in the span (the design is
        ``k``-arc-connected over the span).
    root_sets : sequence of sequences, optional
        Several root sets (RS/AG), each of at most ``k`` roots, each needing its own trees.
    direction : {"both", "out", "in"}
        Out-trees (AllGather), in-trees (ReduceScatter) or both (AllReduce); with ``roots``.
    span : iterable of int, optional
        Nodes every tree must reach (default: compute chiplets; others may relay).
    max_links : int or mapping, optional
        Port budget: most links per chiplet (router radix = that + 1). Default: the base's
        largest link count (:func:`~supermesh.trees.design.candidates.port_budgets`).
    costs : mapping, optional
        Link costs by family name or ``(u, v)`` (default 1 each).
    max_height : int, optional
        Also require a packing with every tree at most this tall (needs roots).
    time_limit : float
        Seconds for the whole search: an upper bound on the wall clock. The solves spend a
        work budget (``work_limit``), so the answer does not depend on the machine's load.
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed`` (fixed: the result is deterministic).
    warm_start : bool
        Hint the solver with known designs (SMAlter, SMBi on a mesh) or a greedy design.
    work_limit : float, optional
        CP-SAT deterministic time for every solve together, master problems and packings
        (default ``DTIME_PER_WORKER_SECOND * workers * time_limit``, see
        :mod:`supermesh.trees.cpsat`).

    Returns
    -------
    DesignResult
        ``stats["stopped"]`` says what ended the search: ``"done"``, ``"work budget"`` (the
        same on every run) or ``"time limit"`` (the wall clock ran out first on an overloaded
        machine; that answer may differ from run to run); ``stats["work_used"]`` the work spent.

    Raises
    ------
    SpecError
        A bad target, family, cost, budget or a negative ``work_limit``.
    TopologyError
        A node id not in ``G``; a span of fewer than two nodes.
    SolverError
        The time ran out before any design was found.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> r = design(build("mesh:4x4"), trees=4, max_links=4)
    >>> r.status, r.cost, r.proof["counting"]["tight"]  # SMAlter's 2N links, proven minimal
    ('optimal', 8, True)
    >>> design(build("mesh:5x5"), trees=4, max_links=4).reason["alternating_sum"]
    4
    """
    start = time.perf_counter()
    check_design_size(G)
    reqs, target = _requirements(G, trees, roots, root_sets, direction, max_height)
    span_nodes = _span(G, span)
    target["span"] = "compute" if span is None else span_nodes
    if time_limit <= 0 or workers < 1:
        raise SpecError("time_limit must be > 0 and workers >= 1", hint="e.g. 60 s, 1 worker")
    if work_limit is None:
        work_limit = work_of(time_limit, workers)
    if not work_limit >= 0:
        raise SpecError(f"work_limit = {work_limit} must be >= 0", hint="e.g. 2, or leave it out")
    limit = Budget.start(work_limit, seconds=time_limit)  # decisions rest on the work only
    cands = candidate_links(G, add, costs=costs)
    budget = port_budgets(G, max_links)
    ports = links_per_node(G)
    base_max = max(ports.values())
    room = {v: max(0, budget[v] - ports[v]) for v in ports}
    master = build_master(cands, room, {v: max(0, base_max - ports[v]) for v in ports})
    cuts0 = degree_cuts(G, reqs, span_nodes)
    for cut in cuts0:
        add_cut(master, G, cands, cut)
    need = link_ends_needed(G, cuts0, cands)
    counting = counting_bound(need, cands, room)
    add_bounds(master, cands, counting_groups(need, cands, room), counting["cost"])
    steiner = len(span_nodes) < G.number_of_nodes()
    packs = max_height is not None or (steiner and reqs[0].roots is not None)
    ctx = ResultBuilder(
        G, cands, reqs, span_nodes, budget, base_max, target, counting, start, limit
    )  # fmt: skip

    if max_height is not None:
        far = height_reason(G, cands, room, reqs, span_nodes, max_height)
        if far is not None:
            return ctx.infeasible(far, master, 0, None)
    hint, incumbent, warm = _warm(G, cands, room, reqs, span_nodes, packs, warm_start)
    best_bound, tainted, rounds, packed = counting["cost"], False, 0, None
    while limit.room():
        sol = solve_master(
            master, cands, hint=incumbent or hint, time_limit=max(limit.seconds(), 0.01),
            workers=workers, seed=seed, deterministic_time=limit.work_left(),
        )  # fmt: skip
        limit.spend(sol.work, sol.cut)
        rounds += 1
        if sol.status == "infeasible":
            if tainted:
                break
            reason = infeasibility_reason(G, cands, budget, room, need, reqs, span_nodes)
            return ctx.infeasible(reason or solver_reason(master), master, rounds, warm)
        if sol.bound is not None and not tainted:
            best_bound = max(best_bound, sol.bound)
        if sol.selection is None:
            break
        H = with_links(G, (cands[i].pair for i in sol.selection))
        violated = violated_cuts(H, reqs, span_nodes)
        if violated:
            if not [c for c in violated if add_cut(master, G, cands, c)]:
                break  # cannot happen (a model cut holds for its solution); stop, do not loop
            continue
        if packs:
            verdict, packed = packing_check(
                H, reqs, span_nodes, max_height=max_height, workers=workers, seed=seed,
                time_limit=max(limit.seconds(), 1.0),
                work_limit=max(limit.work_left(), work_of(1.0, workers)),
            )  # fmt: skip
            limit.spend(sum(row["work"] for row in packed))
            if any(row.get("stopped") == "time limit" for row in packed):
                limit.stop("time limit")
            if verdict != "ok":
                add_nogood(master, sol.selection)
                tainted = tainted or verdict == "unknown"
                packed = None
                continue
        cost = sol.cost or 0
        if incumbent is None or cost <= sum(cands[i].cost for i in incumbent):
            incumbent = sol.selection
        if sol.status == "optimal" and not tainted:
            best_bound = cost
        break
    if incumbent is None:
        raise SolverError(
            f"no design found within the time limit of {time_limit:g} s "
            f"(work budget {work_limit:g})",
            hint="raise --time-limit, or allow more candidates or a larger port budget",
        )
    exact = not steiner or (packed is not None and reqs[0].roots is not None)
    return ctx.found(incumbent, best_bound, exact, master, rounds, warm, packed)


def _warm(
    G: nx.MultiDiGraph,
    cands: Sequence[Any],
    room: Mapping[int, int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
    packs: bool,
    enabled: bool,
) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None, str | None]:
    """(hint, incumbent, name): a known design or a greedy one that meets every cut."""
    if not enabled:
        return None, None, None
    fits = [
        (name, sel)
        for name, sel in known_designs(G, cands)
        if all(sum(v in cands[i].pair for i in sel) <= room[v] for v in room)
    ]
    for name, sel in sorted(fits, key=lambda t: sum(cands[i].cost for i in t[1])):
        if passes(G, cands, sel, reqs, span):
            return sel, None if packs else sel, name
    greedy = greedy_design(G, cands, room, reqs, span)
    if greedy is None:
        return None, None, None
    return greedy, None if packs else greedy, "greedy"


def design_gap(
    G: nx.MultiDiGraph,
    k: int | None = None,
    *,
    add: str | Sequence[str | tuple[int, int]] | None = None,
    time_limit: float = 30.0,
) -> dict[str, Any]:
    """How far a topology is from the cheapest design that reaches its tree count.

    The base is ``G`` without its ``"added"`` arcs; ``k`` defaults to ``G``'s arc connectivity
    over the compute chiplets (the trees it carries for any roots). By default the cheapest
    design may only use links ``G`` itself added (so the answer reads "this many of its added
    links would do"), with ``G``'s own largest link count as the port budget.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    k : int, optional
        Tree count to reach (default: what ``G`` reaches for any roots).
    add : str or sequence, optional
        Candidates instead of ``G``'s own added links (as for :func:`design`); when ``G`` has
        no added links, perimeter-parallel.
    time_limit : float
        Seconds for the design search.

    Returns
    -------
    dict
        ``topology``, ``trees``, ``added_links`` (``G``'s, a one-way arc counting as a link),
        ``minimum_links`` (the cheapest design's), ``gap``, ``status`` (of the minimum), and
        ``design`` (the links of a cheapest design).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> g = design_gap(build("smbi:4x4"))
    >>> g["trees"], g["added_links"], g["minimum_links"], g["gap"]
    (4, 12, 8, 4)
    """
    spec = str(G.graph.get("spec", ""))
    added = [(u, v) for u, v, c in G.edges(data="cls") if c == "added"]
    pairs: dict[tuple[int, int], list[int]] = {}
    for u, v in added:
        pairs.setdefault((min(u, v), max(u, v)), [0, 0])[u > v] += 1
    n_added = sum(max(c) for c in pairs.values())
    trees = arc_connectivity(G) if k is None else k
    out: dict[str, Any] = {"topology": spec, "trees": trees, "added_links": n_added}
    base = G.copy()
    base.remove_edges_from([(u, v, key) for u, v, key, c in G.edges(keys=True, data="cls")
                            if c == "added"])  # fmt: skip
    if trees < 1 or (not pairs and arc_connectivity(base) >= trees):
        return out | {"minimum_links": 0, "gap": 0, "status": "optimal", "design": []}
    family = add if add is not None else (list(pairs) or "perimeter-parallel")
    r = design(base, trees=trees, add=family, max_links=max(links_per_node(G).values()),
               time_limit=time_limit)  # fmt: skip
    if r.cost is None:
        return out | {"minimum_links": None, "gap": None, "status": r.status, "design": []}
    return out | {
        "minimum_links": len(r.additions),
        "gap": n_added - len(r.additions),
        "status": r.status,
        "design": [list(p) for p in r.additions],
    }
