"""Root sets for ReduceScatter / AllGather: every chiplet roots a tree, ``k`` disjoint trees a set.

In a pipelined ReduceScatter or AllGather each compute chiplet owns ``D / n`` of the data and roots
one tree. The trees run in ``ceil(n / k)`` sets of ``k`` pairwise arc-disjoint trees, one set
after another in the same link FIFOs. :func:`root_sets` chooses ``k`` and the partition and packs
every set with :func:`~supermesh.trees.packing.search.pack_trees` (proven-optimal heights per set).
This module holds that entry point; its parts live in

- :mod:`supermesh.trees.roots.size`: the set size ``k`` (:func:`root_set_size`, :class:`SetSize`)
  and :func:`partition_lower_bound` (both re-exported here);
- :mod:`supermesh.trees.roots.start`: the start partitions and their repair;
- :mod:`supermesh.trees.roots.search`: :class:`~supermesh.trees.roots.search.SetPacker`, which
  packs every set once within the work budget;
- :mod:`supermesh.trees.roots.swaps`: the local search;
- :mod:`supermesh.trees.roots.order`: the running order;
- :mod:`supermesh.trees.roots.stats`: the packing, statistics and paper comparison returned.

Set size ``k`` (:func:`~supermesh.trees.roots.size.root_set_size`)
    The largest ``k`` such that the chiplets split into sets of ``k`` (the last one smaller) that
    each admit ``k`` arc-disjoint spanning trees, by Frank's free-root maximum and Edmonds'
    condition for single chiplets (details in :mod:`supermesh.trees.roots.size`). That rules out 4
    on odd SMAlter and on partial SuperMesh, leaving 3.

Objective
    The time of the whole pipeline. Two parts of it are in our hands and are optimised in turn.
    (1) The partition: the sum over sets of the set's maximum tree height, then the largest set
    height. Each set streams ``C`` chunks down trees of height ``h``; run alone it takes
    ``C + h - 1`` chunk steps, so with a barrier between sets the total is ``sum_s (C + h_s - 1)``
    and the sum of the set heights is all a partition changes. (2) The running order: the
    reference simulator has no barrier (all sets share the link FIFOs in set order), so a set's
    fill overlaps the previous set's drain where their links differ, and the order changes the
    total by as much as the heights do (8x8 SMBi, 1 MiB AllGather: 93 to 136 steps for one
    partition). The order is chosen with the exact step count of that FIFO model
    (:mod:`supermesh.trees.roots.order`, one chunk per tree; the differences it finds stay the
    same for any number of chunks), reported as ``stats["pipeline_steps"]``, by a local search
    that stops on a work budget, not on the clock (the same order on any machine).

Lower bound
    A tree is at least as tall as its root's eccentricity, so the total is at least
    ``e_1 + e_(k+1) + e_(2k+1) + ...`` for the eccentricities sorted in decreasing order
    (:func:`~supermesh.trees.roots.size.partition_lower_bound`). A partition that reaches it
    is optimal.

Search (the partition is heuristic; the heights of each set are optimal)
    1. Eccentricity groups: chiplets in decreasing eccentricity; chiplets of equal eccentricity
       sorted clockwise around the centre and dealt out every ``m``-th (so a set spreads over the
       four sides, as the paper's one-root-per-side does; on a square grid with a quarter-turn
       symmetry each set is a symmetry orbit). This meets the lower bound on eccentricities.
    2. The paper's partition (:func:`~supermesh.trees.roots.paper.paper_root_sets`) is also
       evaluated on grids; the better one is the start.
    3. A set that Edmonds' condition rules out is repaired by swapping a root into its violating
       node set (the certificate says where roots are missing).
    4. Local search: swap one root of a set above its eccentricity bound with one root of another
       set, when the proven bounds leave room for a smaller total; each candidate set is checked
       with :func:`~supermesh.trees.bounds.counts.check_roots`, then packed at its proven bound
       only, so a hopeless swap costs two quick proofs that raise the bounds. The search spends a
       work budget (CP-SAT deterministic time plus a fixed charge per probe), not seconds.

    Every set is packed once (cached by sorted roots, mirror and turned images reused) by
    :class:`~supermesh.trees.roots.search.SetPacker`: a set that is a symmetry orbit is packed as
    one tree turned round (:mod:`supermesh.trees.roots.symmetry`), any other with
    :func:`~supermesh.trees.packing.search.pack_trees`.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] A. Frank, "On disjoint trees and arborescences", Algebraic Methods in Graph Theory, 1978.
.. [3] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (section 4.2: pipelined ReduceScatter / AllGather root sets).
"""

from __future__ import annotations

import time
from typing import Any

import networkx as nx

from supermesh.errors import SolverError, SpecError, TopologyError
from supermesh.trees.bounds.heights import (
    check_direction,
    eccentricities,
    resolve_span,
    working_network,
)
from supermesh.trees.cpsat import work_of
from supermesh.trees.model import TreePacking
from supermesh.trees.roots.order import ORDER_WORK, order_sets, pipeline_steps
from supermesh.trees.roots.search import SetPacker, check_search_size, safety_seconds
from supermesh.trees.roots.size import (
    partition_lower_bound,
    root_set_size,
    size_certificate,
)
from supermesh.trees.roots.start import (
    clock_angles,
    eccentricity_groups,
    paper_start,
    repair,
    ring_order,
)
from supermesh.trees.roots.stats import assemble, compare_with_paper
from supermesh.trees.roots.swaps import improve, total_height

__all__ = ["root_sets"]

Roots = tuple[int, ...]
METHODS = ("optimise", "paper")
FAST_ORDER_WORK = 5_000_000  # the order search's budget in the fast mode (sweeps), link entries
FAST_SEARCH_SECONDS = 5.0  # the local search after the start partition, in the fast mode
"""Seconds (turned into work by :func:`~supermesh.trees.roots.search.work_of`) for the search
after the start partition in the fast mode."""


def root_sets(
    G: nx.MultiDiGraph,
    *,
    k: int | None = None,
    method: str = "optimise",
    time_limit: float = 60.0,
    direction: str = "out",
    set_time_limit: float = 10.0,
    workers: int = 2,
    seed: int = 0,
    tries: int = 8,
    order: bool = True,
    order_budget: int | None = None,
    compare: bool = True,
    fast: bool = False,
) -> TreePacking:
    """Partition the compute chiplets into root sets of ``k`` and pack each set's trees.

    See the module docstring for ``k``, the objective (sum of the set heights, then the largest)
    and the search.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology; every compute chiplet roots one tree, every tree spans the compute chiplets
        (other chiplets may relay).
    k : int, optional
        Roots per set (default: :func:`~supermesh.trees.roots.size.root_set_size`, lowered if no
        partition is found).
    method : {"optimise", "paper"}
        ``optimise``: the search of the module docstring. ``paper``: the paper's rule
        (:func:`~supermesh.trees.roots.paper.paper_root_sets`), packed the same way.
    time_limit : float
        The search's budget, in seconds of CP-SAT at the reference rate: the work
        ``DTIME_PER_WORKER_SECOND * workers * time_limit`` (:mod:`supermesh.trees.cpsat`; 3.6 units
        for 60 s and 2 workers), spent by every solve and a fixed charge per probe
        (:data:`~supermesh.trees.roots.search.PROBE_WORK` per node); the local search and the
        re-solving of unproven sets stop when it is spent. The start partitions (ours and, on grids,
        the paper's) are always packed in full, each set with the work of ``set_time_limit``
        (charged to the budget too). The wall clock only bounds the call, at ``max(600, 10 *
        time_limit)`` seconds (a safety net; see Notes).
    direction : {"out", "in"}
        Out-trees (AllGather) or in-trees (ReduceScatter).
    set_time_limit : float
        One set's probe, in seconds of CP-SAT turned into work as for ``time_limit`` (the
        ``work_limit`` of its :func:`~supermesh.trees.packing.search.pack_trees` call); its
        wall-clock safety net is ``max(600, 10 * set_time_limit)`` seconds.
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    tries : int
        Swaps tried per set above its bound in one round of the local search.
    order : bool
        Order the sets to shorten the pipeline (:func:`~supermesh.trees.roots.order.order_sets`,
        one chunk per tree) instead of tallest first.
    order_budget : int, optional
        Work budget of the order search, in link entries simulated (default
        :data:`~supermesh.trees.roots.order.ORDER_WORK`, 50 million, 5 to 15 s; fast mode
        ``FAST_ORDER_WORK``, 5 million). A budget, not seconds: the order does not depend on the
        machine or its load. ``stats["order_search"]`` says how the search ended.
    compare : bool
        Also evaluate the paper's rule (grids only): ``stats["paper"]`` has its sets, their
        heights with the same packer (``heights``, ``total``) and with the paper's Algorithm 1
        (``algorithm1``; ``None`` where it gets stuck), and ``no_set_taller``: whether our
        ``j``-th tallest set is no taller than the paper's ``j``-th tallest, for every ``j``.
    fast : bool
        Sweep mode: once the start partition is packed (in full, as without it), the paper's
        alternative start, the local search and re-solving get at most the work of
        ``FAST_SEARCH_SECONDS`` (5 s) out of ``time_limit``'s, and the order search a budget of
        ``FAST_ORDER_WORK`` (about 1 to 2 s). Status and bounds are proven the same way
        (``optimal`` only when shown); the partition may be less improved and the running order
        a few pipeline steps longer (``stats["total"]`` and ``stats["pipeline_steps"]`` say).

    Returns
    -------
    TreePacking
        One :class:`~supermesh.trees.model.TreeSet` per root set, in running order (the
        searched order; tallest first without ``order``; method ``paper``: the paper's order).
        ``objective`` is the largest tree height, ``lower_bound`` the largest proven set bound.
        Status ``optimal`` only when every set's heights are proven optimal *and* the total
        meets :func:`~supermesh.trees.roots.size.partition_lower_bound`; otherwise
        ``feasible``, with ``stats["partition"]`` saying ``heuristic`` and ``stats["heights"]``
        whether every set is optimal. ``infeasible`` (a given ``k`` that cannot work) carries
        the certificate of :class:`~supermesh.trees.roots.size.SetSize`. ``stats`` also has
        ``total``, ``total_lower_bound``, ``k``,
        ``k_certificate`` (no sets of ``k + 1``), per-set ``set_*`` lists, ``start``, ``swaps``,
        ``pipeline_steps``, ``order_search`` (``budget``, ``work``, ``trials``, ``stopped``:
        ``converged``, ``budget`` or ``time limit``, the last only if the wall-clock safety net
        fired), ``partition_search`` (``budget`` and ``work`` used, in CP-SAT units,
        ``probes``, and ``stopped``: ``done``, ``work budget`` or ``time limit``),
        ``undecided_probes`` (swap probes with neither trees nor a proof within their work),
        ``paper`` (see ``compare``), ``fast``, and ``time_limit_hit``: whether a wall-clock
        safety net fired (the partition search's, a solve's or the order search's; see Notes).

    Raises
    ------
    SpecError
        Unknown method or direction, ``k`` out of range, a negative ``order_budget``.
    SolverError
        No partition into feasible sets was found, or a set of the start could not be packed
        within its work.
    TopologyError
        The chiplets are not strongly connected.

    Notes
    -----
    Determinism. Every search here stops on work, not on the clock: the partition search on
    CP-SAT deterministic time (each solve's, as CP-SAT reports it) plus a fixed charge per
    probe, each set's solves on the work of ``set_time_limit``, and the running order on link
    entries simulated. So the same inputs (with the same ``workers`` and ``seed``) give the same
    partition, trees, statistics (but ``wall_time``) and order under any load, also when a
    budget cuts the search short (``partition_search["stopped"]`` says ``work budget``). The
    wall clock is only a safety net far above the budgets; on a machine so loaded that it fires
    first, ``time_limit_hit`` is true (``partition_search["stopped"]`` or
    ``order_search["stopped"]`` says ``time limit``) and that answer may differ from run to run.
    Results across OR-Tools versions or CPUs: :mod:`supermesh.trees.cpsat`.

    References
    ----------
    .. [1] S. Laskar et al., "SuperMesh", MICRO 2025, section 4.2.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = root_sets(build("smbi:4x4"))
    >>> p.status, sorted(p.stats["set_heights"]), p.stats["total"], p.stats["paper"]["algorithm1"]
    ('optimal', [5, 5, 5, 6], 21, [6, 5, 6, 6])
    """
    start = time.perf_counter()
    check_direction(direction)
    if method not in METHODS:
        raise SpecError(f"unknown root-set method {method!r}", hint=f"use one of {METHODS}")
    if order_budget is not None and order_budget < 0:
        raise SpecError(
            f"order budget = {order_budget} must not be negative", hint=f"e.g. {ORDER_WORK}"
        )
    check_search_size(G, time_limit)
    span = resolve_span(G, None)
    ecc_of = eccentricities(working_network(G, direction), span, span)
    if any(e is None for e in ecc_of):
        raise TopologyError(
            f"{G.graph.get('spec', 'this topology')}: some chiplet cannot reach another",
            hint="check the topology's links",
        )
    ecc = {v: int(e) for v, e in zip(span, ecc_of, strict=True) if e is not None}
    size = root_set_size(G, direction=direction)
    spec = str(G.graph.get("spec", ""))
    name = f"root-sets:{method}"
    if k is not None:
        if not 1 <= k <= len(span):
            raise SpecError(
                f"--k {k} is out of range for {len(span)} chiplets",
                hint=f"use a value from 1 to {len(span)} (default: {size.k})",
            )
        cert = size_certificate(G, direction, k) if k > size.k else None
        if cert is not None:
            return TreePacking(spec, direction, "infeasible", method=name, certificate=cert)
    ev = SetPacker(
        G,
        direction,
        ecc,
        per_set=work_of(set_time_limit, workers),
        work=work_of(time_limit, workers),
        deadline=start + safety_seconds(time_limit),
        set_seconds=safety_seconds(set_time_limit),
        workers=workers,
        seed=seed,
    )
    clock = clock_angles(G, span)
    notes: list[str] = []
    sets: list[Roots] | None = None
    for kk in [k] if k is not None else range(size.k, 0, -1):
        if method == "paper":
            from supermesh.trees.roots.paper import paper_root_sets

            found = [tuple(sorted(s)) for s in paper_root_sets(G, k=kk)]
            sets = found if all(ev.certificate(s) is None for s in found) else None
        else:
            sets = repair(ev, eccentricity_groups(ecc, clock, kk))
        if sets is not None:
            break
        notes.append(f"no partition into feasible sets of {kk} found")
    if sets is None:
        raise SolverError(
            f"no partition of the chiplets of {spec or 'this topology'} into feasible root sets "
            f"({method}) was found",
            hint="try a smaller --k or method optimise",
        )
    kk = max(len(s) for s in sets)
    if total_height(ev, sets) is None:
        raise SolverError(
            "a root set could not be packed within its work budget",
            hint="raise the set time limit",
        )
    lower = partition_lower_bound(ecc, kk, ev.bound)
    if fast:  # the start is packed: cap what is left for the search
        ev.work = min(ev.work, ev.used + work_of(FAST_SEARCH_SECONDS, workers))
    origin, swaps = "paper" if method == "paper" else "eccentricity groups", 0
    if method == "optimise" and sum(ev.height(s) for s in sets) > lower:
        alternative = paper_start(G, ev, kk)
        if alternative is not None:
            a, b = total_height(ev, alternative), total_height(ev, sets)
            if a is not None and b is not None and a < b:
                sets, origin = alternative, "paper"
        swaps = improve(ev, sets, lower, tries)
    for s in sets:
        if ev.packs[s].status != "optimal" and ev.room():
            ev.solve(s, limit=ev.left(), again=True)
    if ev.stopped == "time limit":
        notes.append(
            "the partition search hit its wall-clock safety net before its work budget: "
            "the partition may differ from run to run"
        )
    steps = pipeline_steps([ev.packs[s].sets[0] for s in sets], chunks=1, direction=direction)
    search: dict[str, Any] | None = None
    if method == "optimise":
        sets.sort(key=lambda s: (-ev.height(s), -ev.bound(s), s))
        if order:
            budget = order_budget if order_budget is not None else ORDER_WORK
            budget = FAST_ORDER_WORK if fast and order_budget is None else budget
            trees = [ev.packs[s].sets[0] for s in sets]
            ranked = order_sets(
                trees, chunks=1, direction=direction, budget=budget, starts=ring_order(G, sets)
            )
            sets, steps = [sets[i] for i in ranked.order], ranked.steps
            search = {
                "budget": budget,
                "work": ranked.work,
                "trials": ranked.trials,
                "stopped": ranked.stopped,
            }
            if ranked.stopped == "time limit":
                notes.append(
                    "the order search hit its wall-clock safety net before its budget: "
                    "the running order may differ from run to run"
                )
    packing = assemble(G, ev, sets, partition_lower_bound(ecc, kk, ev.bound), method, direction)
    packing.stats.update(
        {
            "k_certificate": size.certificate if kk == size.k else None,
            "start": origin,
            "swaps": swaps,
            "order": "searched (pipeline steps)" if method == "optimise" and order else "given",
            "pipeline_steps": steps,
            "order_search": search,
            "partition_search": {
                "budget": round(ev.work, 6),
                "work": round(ev.used, 6),
                "probes": ev.solves,
                "stopped": ev.stopped,
            },
            "time_limit_hit": ev.stopped == "time limit"
            or (search is not None and search["stopped"] == "time limit"),
            "undecided_probes": ev.undecided,
            "notes": notes,
            "fast": fast,
        }
    )
    if compare:
        heights = packing.stats["set_heights"]
        packing.stats["paper"] = compare_with_paper(G, ev, kk, direction, heights)
    packing.stats["wall_time"] = round(time.perf_counter() - start, 3)
    return packing
