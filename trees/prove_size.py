"""One size of a family: tree count and heights with their proofs, in a re-checkable file.

For one topology :func:`prove_size` finds

- ``max_trees`` with free roots (:func:`~supermesh.trees.bounds.max_trees_free`), the Frank
  subpartition ruling out one more (``upper``), and a packing of ``max_trees`` trees (``lower``);
- for each named root choice (``corners``, ``sides``, ``corners3``): Edmonds' cut when the roots
  are impossible, else trees of the smallest height it can prove: a geodesic matching
  (:mod:`supermesh.trees.geodesic`; optimal by the eccentricity bound), else CP-SAT
  (:func:`~supermesh.trees.packing.pack_trees`: ``optimal`` with its bound, or ``feasible`` with
  the gap when the time limit hits);

then writes everything to a JSON *certificate file* (``format: "supermesh-proof"``) and re-checks
it with the independent checkers of :mod:`supermesh.verify` before calling the size proven
(:func:`recheck_document`). A certificate file already present is re-checked the same way and
reused when it passes (resuming a sweep); a corrupted one is recomputed.

Root choices
    ``corners``: the four corners (TL, TR, BR, BL); on a full HexaMesh three alternate corners
    of the hexagon. ``sides``: the chiplet ``L // 2`` along each side
    (:mod:`supermesh.trees.rootspec`). ``corners3``: the corners but the one
    :func:`~supermesh.trees.closedform.omitted_corner` names; on the mesh that corner is left out
    of the span and may only relay (TTO).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError, SolverError, SupermeshError
from supermesh.topologies import build
from supermesh.topologies.io import read_json_file, write_text_atomic
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds import CountBound, check_roots, max_trees_free
from supermesh.trees.closedform import (
    grid_corners,
    omitted_corner,
    smalter_side_trees,
    undoubled_perimeter,
)
from supermesh.trees.geodesic import geodesic_packing
from supermesh.trees.heights import height_lower_bound
from supermesh.trees.model import TreePacking
from supermesh.trees.rootspec import resolve_roots

__all__ = [
    "CHOICES",
    "FORMAT",
    "ChoiceProof",
    "SizeProof",
    "SizeTask",
    "choice_roots",
    "prove_size",
    "recheck_document",
]

FORMAT = "supermesh-proof"
CHOICES = ("corners", "sides", "corners3", "free")


@dataclass(frozen=True)
class SizeTask:
    """What :func:`prove_size` needs (picklable, so it can run in another process)."""

    spec: str
    size: str
    choices: tuple[str, ...] = ("corners", "sides")
    direction: str = "out"
    time_limit: float = 60.0
    solver_workers: int = 1
    out_path: str | None = None


@dataclass(frozen=True)
class ChoiceProof:
    """Heights for one root choice at one size (summary; the trees are in the file).

    ``status``: ``optimal`` (``bound`` says how: ``eccentricity``, re-checked by verify, or
    ``cpsat``, the solver's proof), ``feasible`` (time limit; ``lower_bound`` gives the gap),
    ``infeasible`` (Edmonds' ``certificate``), ``unknown`` (no packing within the time limit) or
    ``n/a`` (the choice does not exist on this topology).
    """

    name: str
    status: str
    roots: tuple[int, ...] = ()
    relay_only: tuple[int, ...] = ()
    height: int | None = None
    lower_bound: int | None = None
    bound: str | None = None
    method: str = ""
    certificate: dict[str, Any] | None = None

    @property
    def proof(self) -> str:
        """Short proof kind for tables."""
        if self.status == "optimal":
            return "eccentricity bound" if self.bound == "eccentricity" else "CP-SAT bound"
        if self.status == "feasible":
            return f"gap {(self.height or 0) - (self.lower_bound or 0)}"
        if self.status == "infeasible":
            return "Edmonds cut"
        return self.status

    def to_json(self) -> dict[str, Any]:
        """Summary fields (no trees)."""
        return {
            "status": self.status,
            "roots": list(self.roots),
            "relay_only": list(self.relay_only),
            "height": self.height,
            "lower_bound": self.lower_bound,
            "bound": self.bound,
            "method": self.method,
            "certificate": self.certificate,
        }


@dataclass(frozen=True)
class SizeProof:
    """The result for one size (summary of its certificate file).

    ``proven`` means: the file passed :func:`recheck_document`, ``max_trees`` trees were
    exhibited, and every root choice is settled (optimal or infeasible).
    """

    size: str
    spec: str
    max_trees: int
    max_trees_lower: int | None
    max_trees_roots: tuple[int, ...]
    choices: dict[str, ChoiceProof]
    findings: tuple[str, ...] = ()
    certificate: str | None = None
    reused: bool = False
    seconds: float = 0.0
    upper: dict[str, Any] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        settled = all(c.status in ("optimal", "infeasible", "n/a") for c in self.choices.values())
        return not self.findings and self.max_trees_lower == self.max_trees and settled

    @property
    def heights(self) -> dict[str, int | None]:
        """Height per root choice (``None`` when impossible or unknown)."""
        return {n: c.height for n, c in self.choices.items() if c.status != "n/a"}

    def to_json(self) -> dict[str, Any]:
        """``size``, ``spec``, ``max_trees``, ``heights``, ``certificate`` and the details."""
        return {
            "size": self.size,
            "spec": self.spec,
            "max_trees": self.max_trees,
            "max_trees_exhibited": self.max_trees_lower,
            "max_trees_roots": list(self.max_trees_roots),
            "heights": self.heights,
            "proven": self.proven,
            "choices": {n: c.to_json() for n, c in self.choices.items()},
            "upper": self.upper,
            "findings": list(self.findings),
            "certificate": self.certificate,
            "reused": self.reused,
            "seconds": round(self.seconds, 3),
        }


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
    from supermesh.trees.packing import pack_trees

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
        "packing": packing.to_json(),
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
    return {"packing": packing.to_json()}


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


def _packing_findings(G: nx.MultiDiGraph, doc: Any, where: str) -> tuple[list[str], Any]:
    from supermesh.verify import check_packing, errors

    try:
        packing = TreePacking.from_json(doc, source=where)
    except SupermeshError as exc:
        return [f"{where}: {exc}"], None
    return [f"{where}: {f.message}" for f in errors(check_packing(G, packing))], packing


def _choice_findings(G: nx.MultiDiGraph, name: str, c: dict[str, Any], direction: str) -> list[str]:
    from supermesh.verify import check_edmonds_certificate, eccentricity, errors

    where = f"choice {name}"
    status = c.get("status")
    if status in ("n/a", "unknown"):
        return []
    roots, span = c.get("roots") or [], c.get("span")
    if status == "infeasible":
        found = check_edmonds_certificate(
            G, roots, c.get("certificate"), direction=direction, span=span
        )
        return [f"{where}: {f.message}" for f in errors(found)]
    out, packing = _packing_findings(G, c.get("packing"), where)
    if packing is None:
        return out
    if [t.root for t in packing.trees] != roots:
        out.append(f"{where}: tree roots {[t.root for t in packing.trees]} are not {roots}")
    if packing.objective != c.get("height") or packing.status != status:
        out.append(f"{where}: summary does not match its trees")
    if status == "optimal" and c.get("bound") == "eccentricity":
        ecc = [eccentricity(G, r, direction=direction, span=span) for r in roots]
        if None in ecc or max(e for e in ecc if e is not None) != c.get("height"):
            out.append(f"{where}: height {c.get('height')} is not the root eccentricity {ecc}")
    return out


def recheck_document(doc: Any, G: nx.MultiDiGraph | None = None) -> list[str]:
    """Re-check a certificate file's claims with :mod:`supermesh.verify`; messages of failures.

    Checks: the Frank subpartition rules out ``max_trees + 1`` trees; the ``lower`` packing has
    ``max_trees`` valid arc-disjoint trees; every choice's trees are valid with the stated roots
    and height, an ``optimal`` claim by ``eccentricity`` equals the recomputed eccentricity, and
    an ``infeasible`` claim's Edmonds set really is entered by too few arcs. A CP-SAT bound is
    the solver's proof and is reported as such (``bound: "cpsat"``), not re-derived.

    Returns
    -------
    list of str
        Empty when everything checks.
    """
    from supermesh.verify import check_frank_certificate, errors

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return [f"not a {FORMAT} document"]
    try:
        G = G if G is not None else build(str(doc["topology"]))
        direction, k = str(doc["direction"]), int(doc["max_trees"])
        choices = dict(doc["choices"])
    except (KeyError, TypeError, ValueError, SupermeshError) as exc:
        return [f"malformed document: {exc}"]
    out: list[str] = []
    upper = doc.get("upper")
    if isinstance(upper, dict) and upper.get("kind") == "subpartition":
        found = check_frank_certificate(G, k + 1, upper, direction=direction)
        out += [f"upper: {f.message}" for f in errors(found)]
    else:
        out.append(
            f"upper: a {upper.get('kind') if isinstance(upper, dict) else upper!r} "
            "certificate cannot be re-checked by verify"
        )
    lower = doc.get("lower")
    found_lower: list[str] = []
    if isinstance(lower, dict) and isinstance(lower.get("choice"), str):
        chosen = choices.get(lower["choice"], {})
        trees = (chosen.get("packing") or {}).get("trees") or []
        if chosen.get("span") is not None or len(trees) != k:
            out.append(f"lower: choice {lower['choice']} does not exhibit {k} spanning trees")
    elif isinstance(lower, dict):
        found_lower, packing = _packing_findings(G, lower.get("packing"), "lower")
        out += found_lower
        if packing is not None and (len(packing.trees) != k or packing.span is not None):
            out.append(f"lower: {len(packing.trees)} trees exhibited, {k} claimed")
    for name, c in sorted(choices.items()):
        out += _choice_findings(G, name, c if isinstance(c, dict) else {}, direction)
    return out


def _summary(doc: dict[str, Any], path: str | None, reused: bool, seconds: float) -> SizeProof:
    choices = {}
    for name, c in doc["choices"].items():
        choices[name] = ChoiceProof(
            name=name,
            status=c["status"],
            roots=tuple(c.get("roots") or ()),
            relay_only=tuple(c.get("relay_only") or ()),
            height=c.get("height"),
            lower_bound=c.get("lower_bound"),
            bound=c.get("bound"),
            method=c.get("method", ""),
            certificate=c.get("certificate"),
        )
    lower = doc.get("lower")
    exhibited = doc["max_trees"] if isinstance(lower, dict) else None
    return SizeProof(
        size=doc["size"],
        spec=doc["topology"],
        max_trees=doc["max_trees"],
        max_trees_lower=exhibited,
        max_trees_roots=tuple(doc.get("max_trees_roots") or ()),
        choices=choices,
        findings=tuple(doc.get("findings") or ()),
        certificate=path,
        reused=reused,
        seconds=seconds,
        upper={k: v for k, v in doc["upper"].items() if k != "sets"}
        | {"sets": len(doc["upper"].get("sets") or [])},
    )


def _reusable(task: SizeTask) -> dict[str, Any] | None:
    if task.out_path is None or not Path(task.out_path).is_file():
        return None
    try:
        doc = read_json_file(task.out_path)
    except (InputFileError, SupermeshError, OSError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return None
    names = [n for n in task.choices if n != "free"]
    if doc.get("direction") != task.direction or not all(
        n in (doc.get("choices") or {}) for n in names
    ):
        return None
    G = build(task.spec)
    if doc.get("topology") != G.graph.get("spec", task.spec) or recheck_document(doc, G):
        return None
    settled = all(doc["choices"][n]["status"] in ("optimal", "infeasible", "n/a") for n in names)
    if not settled:
        return None  # an earlier run left gaps (time limit, interrupt): try again
    doc["choices"] = {n: doc["choices"][n] for n in names}
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
    doc = _reusable(task)
    if doc is not None:
        return _summary(doc, task.out_path, True, time.perf_counter() - start)
    doc = _compute(task)
    if task.out_path is not None:
        write_text_atomic(task.out_path, json.dumps(doc, separators=(",", ":")) + "\n")
    return _summary(doc, task.out_path, False, time.perf_counter() - start)
