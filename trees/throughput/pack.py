"""Throughput-optimal ReduceScatter / AllGather packings with the smallest tree heights.

:func:`pack_throughput` gives every rank several trees, each carrying a weighted share of that
rank's data, all running at once, so that the algorithm bandwidth equals the cut bound
(:func:`~supermesh.trees.bounds.throughput.throughput_bound`) while the tallest tree is as low as
possible. ForestColl (Zhao et al., 2024) reaches the bound but does not look at heights (height 11
on a 4x4 mesh of diameter 6); the paper's root sets (4 arc-disjoint trees per set, sets one after
another) keep heights low but reach 4.0 of 64/15 links on a 4x4 SuperMesh.

Method: column generation over trees (:mod:`supermesh.trees.throughput.lp`): an LP master over the
trees found so far, and a pricing problem that is a minimum-cost arborescence of height at most
``H`` (:mod:`supermesh.trees.throughput.pricing`). Chosen because it keeps the whole
rate-height trade-off in one model: the height cap is a restriction of the pricing problem, so
the same LP answers "what rate does cap ``H`` allow" for every ``H``, and LP duality turns exact
pricing into a proof that a cap cannot reach a rate. The search raises ``H`` from the
eccentricity bound (every rank roots a tree, so the tallest tree is at least the diameter over the
ranks) until the LP rate reaches the target. A height-aware variant of the Edmonds / Lovász
construction would give integral trees per rank but no handle on the rate-height trade-off;
a CP-SAT model over all trees at once does not scale past a few dozen nodes.

Constructions first (``method="auto"``): on the mesh and on SMBi every size has a closed-form
packing at the cut bound (:mod:`supermesh.trees.throughput.construct`: dimension-order trees,
height-optimal; four arc-disjoint comb trees per root, tallest the diameter plus one), built in
seconds where column generation takes minutes (16x16) or does not finish (24x24). ``auto``
takes the construction when its trees are height-optimal, or on more than ``CONSTRUCT_ABOVE``
(100) chiplets (column generation, which reaches the diameter itself, is slow beyond);
``method="construct"`` always (an error where none applies), ``"colgen"`` never.

Status: ``optimal`` when the exact rate (recomputed in rational arithmetic from the shares) equals
the cut bound and the tallest tree equals a proven height bound (the eccentricity bound, or the
LP-duality proof for one less); otherwise ``feasible``, with ``stats["rate_gap"]`` and
``stats["height_gap"]``.

Shares: ``Tree.share`` is the fraction of its root's data the tree carries (the shares of a root
sum to 1; exact values in ``stats["shares"]``). At algorithm bandwidth ``rho`` (links) a root
sends at ``rho / n`` link units, so the load of arc ``a`` is ``rho / n * sum of the shares of
the trees using a``, at most its bandwidth. :func:`rate_view` rescales the shares to fractions of
a link's rate, the form :func:`supermesh.verify.trees.packing.check_rates` checks.

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, MutableMapping
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.throughput import (
    throughput_bound,
)
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.throughput.construct import (
    CONSTRUCT_ABOVE,
    construction_for,
    construction_packing,
    part_copies,
)
from supermesh.trees.throughput.exact import exact_shares, prove_height
from supermesh.trees.throughput.lp import column_generation
from supermesh.trees.throughput.model import Network, Progress
from supermesh.trees.throughput.parts import split_parts
from supermesh.trees.throughput.pricing import bfs_labels

__all__ = ["METHODS", "memoised_packing", "pack_throughput"]

METHODS = ("auto", "construct", "colgen")


def _check_options(
    direction: str, max_height: int | None, fraction: float, slack: int | None
) -> None:
    if slack is not None and (not isinstance(slack, int) or slack < 0):
        raise SpecError(f"root_slack must be a non-negative integer, got {slack!r}")
    if direction not in ("out", "in"):
        raise SpecError(f"direction {direction!r} is not 'out' or 'in'", hint="use out or in")
    if max_height is not None and (not isinstance(max_height, int) or max_height < 1):
        raise SpecError(f"max_height must be a positive integer, got {max_height!r}")
    if not (isinstance(fraction, (int, float)) and 0 < fraction <= 1):
        raise SpecError(
            f"min_rate_fraction must be in (0, 1], got {fraction!r}",
            hint="1.0 asks for the optimal rate; 0.95 accepts 95% of it for lower trees",
        )


def _eccentricities(net: Network) -> tuple[dict[int, int], dict[str, Any]]:
    """Each rank's eccentricity over the ranks, and the farthest pair as a certificate."""
    ecc: dict[int, int] = {}
    worst, where = -1, (0, 0)
    for r in net.ranks:
        dist = bfs_labels(len(net.nodes), net.arcs, r)
        for v in net.ranks:
            if dist[v] < 0:
                raise TopologyError(
                    f"rank {net.nodes[v]} cannot be reached from rank {net.nodes[r]}",
                    hint="check that the topology is strongly connected",
                )
            if dist[v] > worst:
                worst, where = dist[v], (r, v)
        ecc[r] = max(dist[v] for v in net.ranks)
    cert = {"root": net.nodes[where[0]], "node": net.nodes[where[1]], "distance": worst}
    return ecc, cert


def pack_throughput(
    G: nx.MultiDiGraph,
    *,
    direction: str = "out",
    ranks: Iterable[int] | None = None,
    max_height: int | None = None,
    min_rate_fraction: float = 1.0,
    root_slack: int | None = None,
    parts: int | str | None = None,
    symmetry: bool = True,
    prove: bool = True,
    time_limit: float = 600.0,
    proof_time_limit: float = 60.0,
    parts_time_limit: float = 60.0,
    workers: int = 1,
    method: str = "auto",
) -> TreePacking:
    """Weighted trees for every rank reaching the optimal AllGather / ReduceScatter rate.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (arc ``bandwidth`` is the capacity).
    direction : {"out", "in"}
        Out-trees for AllGather, in-trees (arcs stored child -> parent) for ReduceScatter.
    ranks : iterable of int, optional
        The roots, which every tree must reach (default: the compute chiplets); other nodes
        relay.
    max_height : int, optional
        Never use trees taller than this (the rate may then fall short of the optimum).
    min_rate_fraction : float
        Stop at the lowest height cap whose rate is at least this fraction of the optimum.
    root_slack : int, optional
        Also cap each tree at its root's eccentricity plus this (0: every tree as low as its
        root allows), trading rate for lower trees where the tallest tree is already minimal.
    parts : int or "auto", optional
        Instead of exact LP shares, split every rank's data into this many equal parts, one
        tree per part (a tree may repeat; see :mod:`supermesh.trees.throughput.parts`): equal
        shares give every tree the same chunk count, which is what a pipelined FIFO serves
        fairly. ``"auto"``: the natural count or a small multiple, whichever first reaches the
        optimum; :func:`choose_parts` picks one for a collective size.
    symmetry : bool
        Solve over the orbits of the grid automorphisms (same optimum, less work).
    prove : bool
        When the height found is above the eccentricity bound, try to prove (CP-SAT pricing and
        LP duality) that one less cannot reach the rate.
    time_limit, proof_time_limit, parts_time_limit : float
        Seconds: a safety net on the column generation (all height caps; it normally converges
        long before); the height proof (at most 12 pricing rounds, each round's CP-SAT pricing
        given a quarter of it); each part count's CP-SAT polish. Solves get fixed limits (and
        the work caps of :func:`~supermesh.trees.cpsat.new_solver`), never the time left, so
        the same call gives the same trees unless a machine is too loaded to finish the work
        within the seconds.
    workers : int
        CP-SAT workers.
    method : {"auto", "construct", "colgen"}
        Where a construction applies (every compute chiplet a rank; no ``root_slack``; no
        ``max_height`` below its tallest tree; ``parts`` a multiple of its trees per root; a
        rate fraction below 1 only if its trees are height-optimal): ``auto`` takes it when
        height-optimal or on more than ``CONSTRUCT_ABOVE`` (100) chiplets, ``construct``
        always.

    Returns
    -------
    TreePacking
        One set holding every tree (they all run at once), ``method="colgen"``. ``stats``:
        ``optimum`` and ``algbw_links`` (exact rates, strings), ``rate_fraction``,
        ``rate_gap``, ``height_gap``, ``shares`` (exact, per tree), ``tradeoff`` (rate fraction
        per height cap tried), ``height_proof``, ``bound_certificate``, ``parts`` (with
        ``parts``), solver counters. ``infeasible`` (with an eccentricity certificate) when
        ``max_height`` is below the eccentricity bound.

    Raises
    ------
    SpecError
        Bad options; ``method="construct"`` where no construction applies.
    TopologyError
        Fewer than two ranks, or ranks that cannot reach each other.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = pack_throughput(build("mesh:3x3"))
    >>> p.status, p.objective, p.stats["algbw_links"], p.method
    ('optimal', 4, '9/4', 'construct')
    >>> q = pack_throughput(build("smbi:12x12"), method="construct", parts=8)
    >>> q.stats["algbw_links"], q.objective, q.lower_bound, len(q.trees)
    ('576/143', 23, 22, 1152)
    """
    start = time.perf_counter()
    _check_options(direction, max_height, min_rate_fraction, root_slack)
    if method not in METHODS:
        raise SpecError(f"method {method!r} is not one of {METHODS}", hint="use auto")
    if method != "colgen":
        built = construction_for(G, direction, ranks, max_height, min_rate_fraction, root_slack)
        counts = None if built is None else part_copies(built, parts)
        usable = built is not None and counts is not None
        if method == "construct" and not usable:
            raise SpecError(
                "no construction gives these trees for this topology and these options",
                hint="constructions cover the mesh, SMBi and even SMAlter from 8x8, every "
                "chiplet a rank, parts a multiple of the trees per root; use method colgen",
            )
        if usable and built is not None and counts is not None:
            optimal = max(t.height for t in built.trees) == built.diameter
            if method == "construct" or optimal or G.number_of_nodes() > CONSTRUCT_ABOVE:
                return construction_packing(G, direction, built, counts, parts, start)
    rank_list = sorted(int(r) for r in (ranks if ranks is not None else compute_nodes(G)))
    collective = "allgather" if direction == "out" else "reducescatter"
    bound = throughput_bound(G, collective, ranks=rank_list)
    net = Network.build(G, rank_list, direction, symmetry)
    n = len(rank_list)
    ecc, ecc_cert = _eccentricities(net)
    lb = max(ecc.values())
    stats: dict[str, Any] = {
        "collective": collective,
        "optimum": str(bound.value),
        "optimum_float": float(bound.value),
        "bound_certificate": bound.certificate,
        "symmetry_order": net.order,
        "eccentricity_bound": lb,
    }
    spec = str(G.graph.get("spec", ""))
    if max_height is not None and max_height < lb:
        stats["wall_time"] = round(time.perf_counter() - start, 3)
        cert = {"kind": "eccentricity", "reason": f"no tree of height <= {max_height}"}
        cert |= ecc_cert | {"max_height": max_height}
        return TreePacking(
            spec,
            direction,
            "infeasible",
            method="colgen",
            certificate=cert,
            lower_bound=lb,
            stats=stats,
        )
    target = float(bound.value) * min_rate_fraction / n
    progress = Progress()
    if root_slack is not None:
        progress.caps = {r: ecc[r] + root_slack for r in net.reps}
        stats["root_slack"] = root_slack
    cap = max_height if max_height is not None else len(net.nodes) - 1
    height, reached, tradeoff = _search(
        net, progress, lb, cap, target, float(bound.value), start + time_limit
    )
    proof: dict[str, Any] = {"proved": height == lb, "height": height - 1}
    while reached and height > lb and prove and root_slack is None:
        proof = prove_height(
            net, progress, height - 1, target, time_limit=proof_time_limit, workers=workers
        )
        if not proof.pop("reachable", False):
            break
        progress = proof.pop("progress_at_cap")  # exact pricing reached the rate one lower
        height -= 1
        tradeoff.append(
            {"max_height": height, "rate_fraction": progress.lam * n / float(bound.value)}
        )
        proof = {"proved": height == lb, "height": height - 1}
    stats |= {"tradeoff": tradeoff, "height_proof": proof}
    stats |= {"iterations": progress.iterations, "columns": len(progress.columns)}
    trees, shares, rate = exact_shares(net, progress, height)
    if parts is not None:
        trees, info = split_parts(
            G,
            net,
            progress,
            height,
            parts,
            bound.value,
            time_limit=parts_time_limit,
            workers=workers,
        )
        rate = Fraction(info["algbw_links"])
        shares = [Fraction(1, info["parts"])] * len(trees)
        stats["parts"] = info
    top = max(t.height for t in trees)
    lower = min(height if proof.get("proved") else lb, top)
    fraction = float(rate / bound.value)
    stats |= {
        "algbw_links": str(rate),
        "algbw_float": float(rate),
        "rate_fraction": fraction,
        "rate_gap": 1.0 - fraction,
        "height_gap": top - lower,
        "shares": [str(x) for x in shares],
        "trees": len(trees),
        "max_trees_per_root": max(sum(1 for t in trees if t.root == r) for r in rank_list),
        "wall_time": round(time.perf_counter() - start, 3),
    }
    return TreePacking(
        spec,
        direction,
        "optimal" if rate == bound.value and top == lower else "feasible",
        sets=(TreeSet(tuple(trees), lower),),
        lower_bound=lower,
        objective=top,
        method="colgen",
        span=None if ranks is None else tuple(rank_list),
        stats=stats,
    )


def _search(
    net: Network,
    progress: Progress,
    lb: int,
    cap: int,
    target: float,
    optimum: float,
    deadline: float,
) -> tuple[int, bool, list[dict[str, Any]]]:
    """Raise the height cap from ``lb`` until the LP rate reaches ``target`` (or gives up).

    Gives up at ``cap``, at the deadline, or after three caps in a row that did not raise the
    rate. Returns the last cap tried, whether it reached the target, and the rate per cap.
    """
    n = len(net.ranks)
    tradeoff: list[dict[str, Any]] = []
    height, stale = lb, 0
    while True:
        before = progress.lam
        reached = column_generation(net, height, target, progress, deadline=deadline)
        tradeoff.append({"max_height": height, "rate_fraction": progress.lam * n / optimum})
        stale = stale + 1 if progress.lam <= before * (1 + 1e-9) else 0
        if reached or height >= cap or time.perf_counter() > deadline or stale >= 3:
            return height, reached, tradeoff
        height += 1


def memoised_packing(
    G: nx.MultiDiGraph,
    memo: MutableMapping[int, TreePacking],
    *,
    direction: str = "out",
    parts: int | str | None = None,
    time_limit: float = 60.0,
) -> TreePacking:
    """:func:`pack_throughput` with ``parts``, kept in ``memo`` under one key per part count.

    The key is the part count, ``0`` for ``"auto"`` and ``-1`` for none: the one convention of
    the per-topology packing caches that the trees engine and the simulator share (a sweep's
    cache holds one memo per topology and direction).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    memo : mutable mapping
        Packings of ``G`` in ``direction`` by key, read and filled.
    direction : {"out", "in"}
    parts : int, "auto" or None
    time_limit : float
        Seconds for the part split and for the height proof.

    Returns
    -------
    TreePacking

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> memo = {}
    >>> p = memoised_packing(build("mesh:3x3"), memo, parts="auto")
    >>> list(memo), memoised_packing(build("mesh:3x3"), memo, parts="auto") is p
    ([0], True)
    """
    key = parts if isinstance(parts, int) else 0 if parts == "auto" else -1
    if key not in memo:
        memo[key] = pack_throughput(
            G,
            direction=direction,
            parts=parts,
            proof_time_limit=time_limit,
            parts_time_limit=time_limit,
        )
    return memo[key]
