"""The pipeline, paper and TTO rules that choose a collective's trees, one per collective kind.

The rules :func:`~supermesh.trees.schedule.collective.collective_trees` applies, as tabled in
:mod:`~supermesh.trees.schedule.collective`: AllReduce on one root set (:func:`allreduce_trees`),
Broadcast / Reduce from one root (:func:`one_root_trees`), ReduceScatter / AllGather with a tree
per chiplet in root sets (:func:`every_rank_trees`). Each returns one :class:`TreePacking` with
every set, its ``stats["rule"]`` saying which rule chose the trees (:func:`with_rule`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from supermesh.errors import InfeasibleError, SolverError, SupermeshError, TopologyError
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["allreduce_trees", "every_rank_trees", "one_root_trees", "with_rule"]


def _usable(p: TreePacking) -> bool:
    return p.status in ("optimal", "feasible") and bool(p.sets)


def _pack(G: nx.MultiDiGraph, roots: Sequence[int], direction: str, limit: float) -> TreePacking:
    from supermesh.trees.packing.search import pack_trees

    return pack_trees(G, roots, direction=direction, time_limit=limit)


def _algorithm1(G: nx.MultiDiGraph, roots: Sequence[int], direction: str) -> TreePacking:
    from supermesh.trees.packing.baselines import algorithm1

    try:
        return algorithm1(G, roots, direction=direction)
    except SolverError as exc:  # the procedure got stuck: no trees on these roots
        spec = str(G.graph.get("spec", ""))
        return TreePacking(spec, direction, "infeasible", stats={"why": str(exc)})


def _merge(
    G: nx.MultiDiGraph, packs: Sequence[TreePacking], direction: str, method: str
) -> TreePacking:
    """One packing holding every set of ``packs`` (optimal only if each one is)."""
    if len(packs) == 1:
        return packs[0]
    sets: tuple[TreeSet, ...] = tuple(s for p in packs for s in p.sets)
    status = "optimal" if all(p.status == "optimal" for p in packs) else "feasible"
    bounds = [p.lower_bound for p in packs if p.lower_bound is not None]
    return TreePacking(
        topology=str(G.graph.get("spec", packs[0].topology)),
        direction=direction,
        status=status,
        sets=sets,
        lower_bound=max(bounds) if bounds else None,
        objective=max(t.height for s in sets for t in s.trees),
        method=method,
        span=packs[0].span,
        stats={"set_methods": [p.method for p in packs]},
    )


def _roots(G: nx.MultiDiGraph, text: str | None) -> list[int]:
    from supermesh.trees.rootspec import resolve_roots

    return resolve_roots(G, text or "corners")


def _default_roots(G: nx.MultiDiGraph, direction: str) -> list[int]:
    """The corners on a grid; elsewhere the most distinct roots that fit (Frank, proven)."""
    from supermesh.trees.bounds import most_distinct_roots

    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if rows is None or cols is None or G.graph.get("family") == "hexamesh":
        return most_distinct_roots(G, direction)
    return _roots(G, "corners")


def with_rule(p: TreePacking, rule: str, **extra: Any) -> TreePacking:
    """Record in ``p.stats`` which rule chose the trees (``"rule"``) and what it found.

    Parameters
    ----------
    p : TreePacking
        The chosen trees (changed in place).
    rule : str
        The rule in words, e.g. ``"tto (no 4 corner trees)"``.
    **extra
        Further entries of ``p.stats``.

    Returns
    -------
    TreePacking
        ``p`` itself.
    """
    p.stats["rule"] = rule
    p.stats.update(extra)
    return p


def allreduce_trees(
    G: nx.MultiDiGraph, algorithm: str, roots: str | None, direction: str, limit: float
) -> TreePacking:
    """AllReduce: one set on ``roots`` (default: the corners), or TTO's three corner trees.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    algorithm : {"pipeline", "paper", "tto"}
    roots : str or None
        The roots of the one set (:func:`~supermesh.trees.rootspec.resolve_roots`). ``None``:
        the corners on grids, elsewhere the most distinct roots that fit; with ``pipeline``,
        TTO's trees where those roots admit none (the mesh).
    direction : {"out", "in"}
    limit : float
        CP-SAT seconds per set.

    Returns
    -------
    TreePacking

    Raises
    ------
    InfeasibleError
        The roots admit no trees (with the packer's certificate).
    """
    from supermesh.trees.packing.baselines import tto

    if algorithm == "tto":
        return with_rule(tto(G, direction=direction), "tto")
    chosen = _roots(G, roots) if roots is not None else _default_roots(G, direction)
    if algorithm == "paper":
        packing = _algorithm1(G, chosen, direction)
    else:
        packing = _pack(G, chosen, direction, limit)
    if _usable(packing):
        return with_rule(packing, f"{algorithm} on {roots or 'default roots'} {chosen}")
    if algorithm == "pipeline" and roots is None:  # the corners admit no 4 trees
        why = {"status": packing.status, "certificate": packing.certificate}
        try:  # a mesh: TTO's 3 corner trees, the fourth corner relaying
            return with_rule(tto(G, direction=direction), "tto (no 4 corner trees)", corners=why)
        except TopologyError as exc:  # not a mesh (cmesh, kite, butterflies): no TTO either
            why["tto"] = str(exc)
        from supermesh.trees.bounds import most_distinct_roots

        chosen = most_distinct_roots(G, direction)
        packing = _pack(G, chosen, direction, limit)
        if _usable(packing):
            rule = f"pipeline on the most distinct roots {chosen} (no 4 corner trees, no TTO)"
            return with_rule(packing, rule, corners=why)
    raise InfeasibleError(
        f"no {algorithm} trees on the roots {roots or 'corners'}: {packing.status}",
        certificate=packing.certificate or {},
        hint="pick fewer roots, or roots with more links (see `supermesh bound`)",
    )


def one_root_trees(
    G: nx.MultiDiGraph, algorithm: str, roots: str | None, direction: str, limit: float
) -> TreePacking:
    """Broadcast / Reduce: as many trees from the root as Edmonds allows, fewer if they fail.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    algorithm : {"pipeline", "paper"}
    roots : str or None
        Its first root is the root (default: the first corner; off grids the first of the
        most distinct roots that fit).
    direction : {"out", "in"}
    limit : float
        CP-SAT seconds per set.

    Returns
    -------
    TreePacking

    Raises
    ------
    SupermeshError
        Not even one tree from the root could be built.
    """
    from supermesh.trees.bounds.counts import max_trees_from_root

    root = (_roots(G, roots) if roots is not None else _default_roots(G, direction))[0]
    k = max_trees_from_root(G, root, direction=direction).max_trees
    packing: TreePacking | None = None
    for count in range(max(k, 1), 0, -1):
        packing = _set(G, algorithm, [root] * count, direction, limit)
        if _usable(packing):
            return with_rule(packing, f"{algorithm} from {root}", max_trees_from_root=k)
    raise SupermeshError(
        f"no {algorithm} trees from chiplet {root}: {packing.status if packing else 'none'}"
    )


def _set(
    G: nx.MultiDiGraph, algorithm: str, roots: Sequence[int], direction: str, limit: float
) -> TreePacking:
    """One set (Broadcast / Reduce, or one root set): Algorithm 1 falls back to the packer."""
    if algorithm == "paper":
        packing = _algorithm1(G, roots, direction)
        if _usable(packing):
            return packing
    return _pack(G, roots, direction, limit)


def _paper_order(G: nx.MultiDiGraph) -> list[int]:
    """Every rank once, in the paper's root order (one per side, outside in) on grids."""
    from supermesh.topologies.model import compute_nodes
    from supermesh.trees.roots.paper import paper_root_sets

    try:
        return [r for group in paper_root_sets(G) for r in group]
    except TopologyError:  # not a full grid: rank order
        return compute_nodes(G)


def every_rank_trees(
    G: nx.MultiDiGraph,
    algorithm: str,
    roots: str | None,
    direction: str,
    limit: float,
    fast: bool,
) -> TreePacking:
    """ReduceScatter / AllGather: one tree per chiplet, in root sets.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    algorithm : {"pipeline", "paper"}
    roots : str or None
        Root sets separated by ``;``, each packed as given; ``None``: ``pipeline`` searches
        the sets (:func:`~supermesh.trees.roots.sets.root_sets`), ``paper`` takes the
        paper's root order in sets of 4 (fewer where 4 do not fit).
    direction : {"out", "in"}
    limit : float
        CP-SAT seconds per set.
    fast : bool
        :func:`~supermesh.trees.roots.sets.root_sets`' fast mode.

    Returns
    -------
    TreePacking
        Every set, in running order.

    Raises
    ------
    InfeasibleError
        A given root set, or the root-set search, admits no trees.
    SupermeshError
        A chiplet of the paper's order roots no tree.
    """
    if roots is not None:  # explicit sets, each packed as given
        packs = []
        for part in roots.split(";"):
            chosen = _roots(G, part)
            p = _set(G, algorithm, chosen, direction, limit)
            if not _usable(p):
                raise InfeasibleError(
                    f"no {len(chosen)} arc-disjoint {direction}-trees with roots {chosen} fit "
                    f"{G.graph.get('spec', 'this topology')}",
                    certificate=p.certificate or {},
                    hint="choose other --roots (see `supermesh bound`)",
                )
            packs.append(p)
        return with_rule(_merge(G, packs, direction, packs[0].method), "given root sets")
    if algorithm == "pipeline":
        from supermesh.trees.roots.sets import root_sets

        packing = root_sets(
            G,
            time_limit=limit,
            set_time_limit=limit,
            direction=direction,
            compare=False,
            fast=fast,
        )
        if not _usable(packing):
            raise InfeasibleError(
                f"no root sets on {G.graph.get('spec')}: {packing.status}",
                certificate=packing.certificate or {},
            )
        return with_rule(packing, "root_sets (fast)" if fast else "root_sets")
    packs = []
    queue = _paper_order(G)
    while queue:
        for size in range(min(4, len(queue)), 0, -1):
            p = _set(G, algorithm, queue[:size], direction, limit)
            if _usable(p):
                packs.append(p)
                queue = queue[size:]
                break
        else:
            raise SupermeshError(f"no tree rooted at chiplet {queue[0]}: {p.status}")
    return with_rule(_merge(G, packs, direction, "paper"), "paper order, sets of 4")
