"""One size of a family: tree count and heights with their proofs, in a re-checkable file.

For one topology :func:`prove_size` finds

- ``max_trees`` with free roots (:func:`~supermesh.trees.bounds.free.max_trees_free`), the Frank
  subpartition ruling out one more (``upper``), and a packing of ``max_trees`` trees (``lower``);
- for each named root choice (``corners``, ``sides``, ``corners3``): Edmonds' cut when the roots
  are impossible, else trees of the smallest height it can prove: a geodesic matching
  (:mod:`supermesh.trees.packing.geodesic`; optimal by the eccentricity bound), else CP-SAT
  (:func:`~supermesh.trees.packing.search.pack_trees`: ``optimal`` with its bound, or ``feasible``
  with the gap when the time limit hits);

then writes everything to a JSON *certificate file* (``format: "supermesh-proof"``) and re-checks
it with the independent checkers of :mod:`supermesh.verify` before calling the size proven
(:func:`recheck_document`). A certificate file already present is re-checked the same way and
reused when it passes (resuming a sweep); one that does not is recomputed, and the result says
why (``SizeProof.recomputed``).

This module holds the proving itself; the task and result types (:class:`SizeTask`,
:class:`SizeProof`, :class:`ChoiceProof`) live in :mod:`supermesh.trees.prove.result` and the
certificate files (re-check, reuse, write) in :mod:`supermesh.trees.prove.certificate`; all are
importable from here.

Root choices
    ``corners``: the four corners (TL, TR, BR, BL); on a full HexaMesh three alternate corners
    of the hexagon. ``sides``: the chiplet ``L // 2`` along each side
    (:mod:`supermesh.trees.rootspec`). ``corners3``: the corners but the one
    :func:`~supermesh.trees.packing.corners.omitted_corner` names; on the mesh that corner is
    left out of the span and may only relay (TTO).
"""

from __future__ import annotations

import time
from typing import Any

import networkx as nx

from supermesh.errors import SolverError
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.counts import CountBound, check_roots
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.bounds.heights import height_lower_bound
from supermesh.trees.model import TreePacking
from supermesh.trees.packing.closedform import smalter_side_trees
from supermesh.trees.packing.corners import grid_corners, omitted_corner, undoubled_perimeter
from supermesh.trees.packing.geodesic import geodesic_packing
from supermesh.trees.prove.certificate import recheck_document, reusable_document, write_document
from supermesh.trees.prove.result import (
    FORMAT,
    SizeProof,
    SizeTask,
    summarize_document,
)
from supermesh.trees.rootspec import resolve_roots

__all__ = ["choice_roots", "prove_size"]


def _hex_corners(G: nx.MultiDiGraph) -> list[int]:
    rows: dict[int, list[tuple[int, int]]] = {}
    for n, d in G.nodes(data=True):
        if d.get("kind") == "compute":
            rows.setdefault(int(d["row"]), []).append((int(d["col"]), int(n)))
    last, mid = max(rows), max(rows) // 2
    return [min(rows[0])[1], max(rows[mid])[1], min(rows[last])[1]]


def choice_roots(
    G: nx.MultiDiGraph, name: str, *, direction: str = "out"
) -> tuple[list[int], list[int] | None] | None:
    """Roots (and span, when not the default) of a named root choice, or ``None`` if n/a.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> choice_roots(build("mesh:3x3"), "corners3")
    ([0, 2, 8], [0, 1, 2, 3, 4, 5, 7, 8])
    >>> choice_roots(build("hexamesh:r1"), "corners")
    ([0, 4, 5], None)
    """
    if G.graph.get("family") == "hexamesh":
        return (_hex_corners(G), None) if name == "corners" else None
    if G.graph.get("rows") is None or G.graph.get("cols") is None:
        return None
    if name == "corners":
        return grid_corners(G), None
    if name == "sides":
        return resolve_roots(G, "sides"), None
    if name == "corners3":
        omit = omitted_corner(G)
        roots = [c for c in grid_corners(G) if c != omit]
        if omit in undoubled_perimeter(G, direction=direction):
            return roots, [v for v in compute_nodes(G) if v != omit]
        return roots, None
    return None


def _closed_form(G: nx.MultiDiGraph, roots: list[int], direction: str) -> TreePacking | None:
    """A closed form for roots no geodesic matching serves (SMAlter N x N, N even, sides)."""
    n = G.graph.get("rows")
    plain = G.graph.get("family") == "smalter" and not G.graph.get("params")
    if not plain or n != G.graph.get("cols") or n % 2 or n < 4:
        return None
    packing = smalter_side_trees(n, direction=direction)
    return packing if [t.root for t in packing.trees] == roots else None


def _solve(
    G: nx.MultiDiGraph,
    roots: list[int],
    direction: str,
    span: list[int] | None,
    task: SizeTask,
) -> TreePacking | None:
    """Smallest-height trees: geodesic matching, else CP-SAT (a closed form if it times out)."""
    packing = geodesic_packing(G, roots, direction=direction, span=span)
    if packing is not None:
        return packing
    from supermesh.trees.packing.search import pack_trees

    closed = _closed_form(G, roots, direction) if span is None else None
    try:
        found = pack_trees(
            G,
            roots,
            direction=direction,
            span=span,
            time_limit=task.time_limit,
            workers=task.solver_workers,
            balance=False,
        )
    except SolverError:
        return closed
    if closed is not None and found.status == "feasible":
        return closed if (closed.objective or 0) < (found.objective or 0) else found
    return found


def _choice(G: nx.MultiDiGraph, name: str, task: SizeTask) -> tuple[dict[str, Any], Any]:
    found = choice_roots(G, name, direction=task.direction)
    if found is None:
        return {"status": "n/a"}, None
    roots, span = found
    relays = sorted(set(compute_nodes(G)) - set(span)) if span is not None else []
    doc: dict[str, Any] = {
        "roots": roots,
        "span": span,
        "relay_only": relays,
        "packing": None,
        "certificate": None,
    }
    feasible = check_roots(G, roots, direction=task.direction, span=span)
    if not feasible.feasible:
        return doc | {"status": "infeasible", "certificate": feasible.certificate}, None
    packing = _solve(G, roots, task.direction, span, task)
    if packing is None:
        return doc | {"status": "unknown"}, None
    if packing.status == "infeasible":
        return doc | {"status": "infeasible", "certificate": packing.certificate}, None
    ecc = height_lower_bound(G, roots, direction=task.direction, span=span)
    return doc | {
        "status": packing.status,
        "height": packing.objective,
        "lower_bound": packing.lower_bound,
        "bound": "eccentricity" if packing.lower_bound == ecc else "cpsat",
        "method": packing.method,
        # no wall-clock figures in a certificate: the same inputs give the same file
        "packing": packing.to_json(timings=False),
    }, packing


def _lower(
    G: nx.MultiDiGraph, free: CountBound, choices: dict[str, Any], task: SizeTask
) -> dict[str, Any] | None:
    """A packing of ``max_trees`` trees: a choice's own when it has that many, else built."""
    for name, (doc, packing) in choices.items():
        if packing is not None and doc["span"] is None and len(packing.trees) == free.max_trees:
            return {"choice": name}
    roots = list(free.roots)
    if not roots:
        return None
    packing = _solve(G, roots, task.direction, None, task)
    if packing is None or packing.status == "infeasible":
        return None
    return {"packing": packing.to_json(timings=False)}


def _frank(cert: dict[str, Any]) -> dict[str, Any]:
    """Frank certificate in the form verify reads (total ``entering_arcs``)."""
    out = dict(cert)
    if isinstance(out.get("entering_arcs"), list):
        out["entering_per_set"] = out["entering_arcs"]
        out["entering_arcs"] = sum(out["entering_arcs"])
    return out


def _compute(task: SizeTask) -> dict[str, Any]:
    G = build(task.spec)
    free = max_trees_free(G, direction=task.direction)
    names = [n for n in task.choices if n != "free"]
    choices = {n: _choice(G, n, task) for n in names}
    lower = _lower(G, free, choices, task)
    doc = {
        "format": FORMAT,
        "version": 1,
        "topology": str(G.graph.get("spec", task.spec)),
        "size": task.size,
        "direction": task.direction,
        "time_limit": task.time_limit,
        "max_trees": free.max_trees,
        "max_trees_roots": list(free.roots),
        "upper": _frank(free.certificate),
        "lower": lower,
        "choices": {n: d for n, (d, _) in choices.items()},
    }
    doc["findings"] = recheck_document(doc, G)
    statuses = [str(d["status"]) for d, _ in choices.values()]
    settled = all(s in ("optimal", "infeasible", "n/a") for s in statuses)
    proven = not doc["findings"] and lower is not None and settled
    doc["status"] = "proven" if proven else "partial"
    return doc


def prove_size(task: SizeTask) -> SizeProof:
    """Prove one size (or reuse its certificate file when it re-checks); see the module docstring.

    Parameters
    ----------
    task : SizeTask
        Spec, size label, root choices, direction, CP-SAT time limit per choice, and where to
        write the certificate file (``None``: nowhere).

    Returns
    -------
    SizeProof

    Raises
    ------
    SupermeshError
        A bad spec, or a certificate path that cannot be written.

    Examples
    --------
    >>> p = prove_size(SizeTask("smbi:4x4", "4x4"))
    >>> p.max_trees, p.heights, p.proven
    (4, {'corners': 6, 'sides': 5}, True)
    """
    start = time.perf_counter()
    doc, why_not = reusable_document(task)
    if doc is not None:
        return summarize_document(doc, task.out_path, True, time.perf_counter() - start)
    doc = _compute(task)
    if task.out_path is not None:
        write_document(task.out_path, doc)
    seconds = time.perf_counter() - start
    return summarize_document(doc, task.out_path, False, seconds, recomputed=why_not)
