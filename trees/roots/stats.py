"""The result of :func:`~supermesh.trees.roots.sets.root_sets`: packing, statistics, comparison.

:func:`assemble` turns a packed partition into a :class:`~supermesh.trees.model.TreePacking` with
the per-set statistics; :func:`paper_stats` packs the paper's root sets with the same
:class:`~supermesh.trees.roots.search.SetPacker` and runs the paper's Algorithm 1 on them;
:func:`compare_with_paper` adds whether no set of ours is taller than the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx

from supermesh.errors import SolverError, TopologyError
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.roots.order import pipeline_steps

if TYPE_CHECKING:
    from supermesh.trees.roots.search import SetPacker

__all__ = ["assemble", "compare_with_paper", "paper_stats"]

Roots = tuple[int, ...]


def assemble(
    G: nx.MultiDiGraph,
    ev: SetPacker,
    sets: list[Roots],
    lower: int,
    method: str,
    direction: str,
) -> TreePacking:
    """The packing of a partition whose sets ``ev`` has packed, in the order of ``sets``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ev : SetPacker
        Holds the packing of every set.
    sets : list of tuple
        The partition, in running order.
    lower : int
        A proven lower bound on the sum of the set heights.
    method : str
        ``optimise`` or ``paper`` (the method is ``root-sets:<method>``).
    direction : {"out", "in"}

    Returns
    -------
    TreePacking
        ``optimal`` if every set is proven optimal and the total meets ``lower``, else
        ``feasible``; ``stats`` has the objective, ``k``, ``total``, ``total_lower_bound``,
        ``partition``, ``heights``, the per-set ``set_*`` lists and ``solves``.
    """
    packs = [ev.packs[s] for s in sets]
    tree_sets = tuple(TreeSet(p.sets[0].trees, p.lower_bound) for p in packs)
    heights = [t.height for t in tree_sets]
    proven = all(p.status == "optimal" for p in packs)
    total = sum(heights)
    optimal = proven and total == lower
    bounds = [p.lower_bound for p in packs]
    stats: dict[str, Any] = {
        "objective": "sum of set heights, then the largest set height",
        "k": max(len(s) for s in sets),
        "total": total,
        "total_lower_bound": lower,
        "partition": "optimal (total = lower bound)" if optimal else "heuristic",
        "heights": "optimal per set" if proven else "some sets not proven optimal",
        "set_roots": [list(s) for s in sets],
        "set_heights": heights,
        "set_tree_heights": [[t.height for t in ts.trees] for ts in tree_sets],
        "set_lower_bounds": bounds,
        "set_status": [p.status for p in packs],
        "set_eccentricities": [[ev.ecc[v] for v in s] for s in sets],
        "solves": ev.solves,
    }
    return TreePacking(
        str(G.graph.get("spec", "")),
        direction,
        "optimal" if optimal else "feasible",
        tree_sets,
        lower_bound=max(b for b in bounds if b is not None),
        objective=max(heights),
        method=f"root-sets:{method}",
        stats=stats,
    )


def compare_with_paper(
    G: nx.MultiDiGraph, ev: SetPacker, k: int, direction: str, set_heights: list[int]
) -> dict[str, Any] | None:
    """:func:`paper_stats`, with ``no_set_taller`` when every paper set was packed.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ev : SetPacker
    k : int
        Roots per set.
    direction : {"out", "in"}
    set_heights : list of int
        Our set heights.

    Returns
    -------
    dict or None
        ``None`` off grids; else :func:`paper_stats` and ``no_set_taller``: whether our ``j``-th
        tallest set is no taller than the paper's ``j``-th tallest, for every ``j``.
    """
    paper = paper_stats(G, ev, k, direction)
    if paper is not None and None not in paper["heights"]:
        ours = sorted(set_heights, reverse=True)
        theirs = sorted(paper["heights"], reverse=True)
        paper["no_set_taller"] = all(a <= b for a, b in zip(ours, theirs, strict=True))
    return paper


def paper_stats(G: nx.MultiDiGraph, ev: SetPacker, k: int, direction: str) -> dict[str, Any] | None:
    """The paper's rule on the same packer, and with the paper's own Algorithm 1 trees.

    Pipeline steps (:func:`~supermesh.trees.roots.order.pipeline_steps`, one chunk per tree) are
    for the paper's sets in the paper's order.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    ev : SetPacker
        Packs the paper's sets (each with the full per-set work, charged to its search).
    k : int
        Roots per set.
    direction : {"out", "in"}

    Returns
    -------
    dict or None
        ``None`` off grids; else ``sets`` (the paper's order), ``heights`` (``None`` for a set
        that admits no arc-disjoint trees), ``total``, ``max``, ``pipeline_steps``, and the
        same for Algorithm 1: ``algorithm1`` (``None`` where it gets stuck),
        ``algorithm1_total``, ``algorithm1_stuck``, ``algorithm1_pipeline_steps``.
    """
    from supermesh.trees.packing.baselines import algorithm1
    from supermesh.trees.roots.paper import paper_root_sets

    try:
        sets = paper_root_sets(G, k=k)
    except TopologyError:
        return None
    heights: list[int | None] = []
    for s in sets:
        key = tuple(sorted(s))
        ok = ev.certificate(key) is None
        heights.append(ev.solve(key, limit=ev.per_set, within=False) if ok else None)
    alg1: list[TreePacking | None] = []
    for s in sets:
        try:
            alg1.append(algorithm1(G, s, direction=direction))
        except SolverError:
            alg1.append(None)
    done = None not in heights
    alg1_done = all(p is not None and p.sets for p in alg1)
    return {
        "sets": sets,
        "heights": heights,
        "total": sum(h for h in heights if h is not None) if done else None,
        "max": max((h for h in heights if h is not None), default=None),
        "pipeline_steps": _steps_of([ev.packs[tuple(sorted(s))] for s in sets], direction)
        if done
        else None,
        "algorithm1": [None if p is None else p.objective for p in alg1],
        "algorithm1_total": sum(p.objective or 0 for p in alg1 if p is not None)
        if alg1_done
        else None,
        "algorithm1_stuck": sum(p is None for p in alg1),
        "algorithm1_pipeline_steps": _steps_of([p for p in alg1 if p is not None], direction)
        if alg1_done
        else None,
    }


def _steps_of(packs: Sequence[TreePacking], direction: str) -> int:
    return pipeline_steps([p.sets[0] for p in packs], chunks=1, direction=direction)
