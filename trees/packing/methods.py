"""Trees for roots by a named method: the solver, the fast constructions or a published baseline.

``supermesh trees SPEC --method M`` is one call of :func:`pack_by_method`, so a notebook gets the
same trees the command line prints.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.errors import SpecError
from supermesh.trees.model import TreePacking
from supermesh.trees.packing.baselines import algorithm1, tto
from supermesh.trees.packing.construct import construct_trees
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.rootspec import resolve_roots

__all__ = ["METHODS", "pack_by_method"]

METHODS = ("cpsat", "construct", "tto", "algorithm1")
"""``cpsat``: height-optimal (:func:`pack_trees`); ``construct``: closed forms and Lovász's
greedy, no solver; ``tto``: TTO's three mesh corner trees; ``algorithm1``: the SuperMesh paper's
Algorithm 1."""


def pack_by_method(
    G: nx.MultiDiGraph,
    method: str = "cpsat",
    roots: str | Sequence[int] | None = None,
    *,
    k: int | None = None,
    direction: str = "out",
    time_limit: float = 10.0,
    max_height: int | None = None,
) -> TreePacking:
    """Arc-disjoint spanning trees with the given roots, built by ``method``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    method : {"cpsat", "construct", "tto", "algorithm1"}
        See :data:`METHODS`.
    roots : str or sequence of int, optional
        ``corners`` (default; off a grid the most distinct roots that fit,
        :func:`~supermesh.trees.bounds.free.most_distinct_roots`), ``sides``, a comma list or
        node ids (:func:`~supermesh.trees.rootspec.resolve_roots`). ``tto`` picks its own.
    k : int, optional
        Keep only the first ``k`` roots.
    direction : {"out", "in"}
        Out-trees (broadcast, AllGather) or in-trees (reduce, ReduceScatter).
    time_limit : float
        Seconds for ``cpsat`` (then the best found, with the gap).
    max_height : int, optional
        ``cpsat``: no tree taller than this.

    Returns
    -------
    TreePacking
        Status ``optimal``, ``feasible`` or ``infeasible`` (with its certificate).

    Raises
    ------
    SpecError
        An unknown method, roots with ``tto``, ``k`` out of range or a non-positive time limit.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = pack_by_method(build("smbi:4x4"), "construct", "corners")
    >>> [t.height for t in p.trees]
    [6, 6, 6, 6]
    """
    if method not in METHODS:
        raise SpecError(f"unknown method {method!r}", hint=f"use one of: {', '.join(METHODS)}")
    if method == "tto":
        if roots is not None or k is not None:
            raise SpecError(
                "--method tto picks its own roots (3 corners)", hint="drop --roots and --k"
            )
        return tto(G, direction=direction)
    off_grid = G.graph.get("rows") is None or G.graph.get("family") == "hexamesh"
    if roots is None and off_grid:  # no corners: the most distinct roots that fit
        from supermesh.trees.bounds import most_distinct_roots

        chosen = most_distinct_roots(G, direction)
    elif roots is None or isinstance(roots, str):
        chosen = resolve_roots(G, roots or "corners")
    else:
        chosen = list(roots)
    if k is not None:
        if not 1 <= k <= len(chosen):
            raise SpecError(
                f"--k {k} is out of range for {len(chosen)} roots",
                hint=f"use a value from 1 to {len(chosen)}",
            )
        chosen = chosen[:k]
    if method == "algorithm1":
        return algorithm1(G, chosen, direction=direction)
    if method == "construct":
        return construct_trees(G, chosen, direction=direction)
    if time_limit <= 0:
        raise SpecError(
            f"--time-limit {time_limit:g} must be positive", hint="e.g. --time-limit 10"
        )
    return pack_trees(G, chosen, direction=direction, time_limit=time_limit, max_height=max_height)
