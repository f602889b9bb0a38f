"""The ``stats`` of a tree file: facts it restates are recounted, claims it makes are judged.

Most of ``stats`` records how a search ran (work budgets, runs, the warm start, the order search);
such keys state nothing about the trees and are not read. The keys below do, whatever the method
that wrote them, and are held against the file's own data (``stats-mismatch`` when they differ):

restated facts (recounted)
    ``gap`` and ``height_gap`` (objective - lower_bound), ``eccentricities`` (one per tree of the
    first set), ``eccentricity_bound`` (the largest root eccentricity), ``bound`` =
    ``"eccentricity"`` (the lower bound is that eccentricity), ``trees``, ``max_trees_per_root``,
    ``collective`` (``allgather`` for out-trees, ``reducescatter`` for in-trees),
    ``optimum_float``, ``algbw_float``, ``rate_fraction``, ``rate_gap``, ``parts`` (its
    ``parts``, ``max_load``, ``load_bound``, ``algbw_links``, ``proved``); for root sets ``k``,
    ``total``, ``set_roots``, ``set_heights``, ``set_tree_heights``, ``set_lower_bounds``,
    ``set_eccentricities``, ``set_status``, ``partition``, ``heights``.
claims (re-derived or unproven)
    ``balance`` (``optimal``: re-derived when every tree has the same height, else the solver's),
    ``height_proof`` (no packing of tallest tree ``height`` reaches the rate: re-derived below the
    eccentricity bound), ``set_status`` per set (``optimal`` at the set's eccentricity bound),
    ``k_certificate`` (no root sets of ``k + 1``: recounted), ``pipeline_steps`` and ``paper``
    (a simulated step count and a comparison with packings not in the file: unproven).

The rate claims (``algbw_links``, ``shares``, ``optimum``, ``bound_certificate``) are checked by
:mod:`~supermesh.verify.trees.rates`.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.trees.model import TreePacking
from supermesh.verify.claims import Claim, re_derived, unproven
from supermesh.verify.documents import same_value
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import span_nodes
from supermesh.verify.trees.certificates import (
    CERTIFICATE_FIELDS,
    check_edmonds_certificate,
    check_frank_certificate,
)
from supermesh.verify.trees.claims import root_eccentricities
from supermesh.verify.trees.families import check_root_sets_certificate

__all__ = ["check_stats"]

_TOL = 1e-9


def _frac(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None


def _close(a: Any, b: float) -> bool:
    if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a):
        return False
    return abs(a - b) <= _TOL * max(1.0, abs(b))


def _mismatch(key: str, have: Any, want: Any) -> Finding:
    shown = repr(have) if len(repr(have)) <= 60 else repr(have)[:57] + "..."
    return Finding("stats-mismatch", f"stats.{key} is {shown}, but the file's data give {want!r}")


def _restated(G: nx.MultiDiGraph, p: TreePacking, ecc: dict[int, int | None]) -> list[Finding]:
    st, found = p.stats, []
    gap = None if p.objective is None or p.lower_bound is None else p.objective - p.lower_bound
    for key in ("gap", "height_gap"):
        if key in st and not same_value(st[key], gap):
            found.append(_mismatch(key, st[key], gap))
    first = p.sets[0].trees if p.sets else ()
    # an infeasible packing names no roots (but in its certificate): nothing to recount then
    if (
        first
        and "eccentricities" in st
        and not same_value(st["eccentricities"], [ecc.get(t.root) for t in first])
    ):
        found.append(
            _mismatch("eccentricities", st["eccentricities"], [ecc.get(t.root) for t in first])
        )
    known = [e for e in ecc.values() if e is not None]
    if (
        known
        and "eccentricity_bound" in st
        and not same_value(st["eccentricity_bound"], max(known))
    ):
        found.append(_mismatch("eccentricity_bound", st["eccentricity_bound"], max(known)))
    if "bound" in st and (st["bound"] != "eccentricity" or p.lower_bound != max(known, default=0)):
        found.append(_mismatch("bound", st["bound"], "eccentricity (= lower_bound)"))
    roots = Counter(t.root for t in p.trees)
    for key, want in (
        ("trees", len(p.trees)),
        ("max_trees_per_root", max(roots.values(), default=0)),
    ):
        if key in st and not same_value(st[key], want):
            found.append(_mismatch(key, st[key], want))
    want_coll = "allgather" if p.direction == "out" else "reducescatter"
    if "collective" in st and st["collective"] != want_coll:
        found.append(_mismatch("collective", st["collective"], want_coll))
    optimum, rate = _frac(st.get("optimum")), _frac(st.get("algbw_links"))
    ratio = rate / optimum if optimum and rate is not None else None
    floats = {
        "optimum_float": None if optimum is None else float(optimum),
        "algbw_float": None if rate is None else float(rate),
        "rate_fraction": None if ratio is None else float(ratio),
        "rate_gap": None if ratio is None else 1 - float(ratio),
    }
    for key, value in floats.items():
        if key in st and (value is None or not _close(st[key], value)):
            expected = value if value is not None else "nothing: the fraction it restates is gone"
            found.append(_mismatch(key, st[key], expected))
    return found


def _parts(G: nx.MultiDiGraph, p: TreePacking) -> tuple[list[Finding], list[Claim]]:
    info = p.stats.get("parts")
    if info is None:
        return [], []
    if not isinstance(info, dict):
        return [_mismatch("parts", info, "an object")], []
    roots = Counter(t.root for t in p.trees)
    counts = set(roots.values())
    K = next(iter(counts)) if len(counts) == 1 else None
    users: Counter[tuple[int, int, int]] = Counter(a for t in p.trees for a in set(t.arcs))
    loads = [
        Fraction(c) / Fraction(str(G.edges[a].get("bandwidth", 1.0)))
        for a, c in users.items()
        if G.has_edge(*a)
    ]
    load = max(loads, default=Fraction(0))
    found = []
    if K is None or not same_value(info.get("parts"), K):
        found.append(_mismatch("parts.parts", info.get("parts"), K))
        return found, []
    n = len(span_nodes(G, p.span))
    if _frac(info.get("max_load")) != load:
        found.append(_mismatch("parts.max_load", info.get("max_load"), str(load)))
    if load and _frac(info.get("algbw_links")) != Fraction(n * K) / load:
        found.append(_mismatch("parts.algbw_links", info.get("algbw_links"), str(n * K / load)))
    if _frac(info.get("algbw_links")) != _frac(p.stats.get("algbw_links")):
        found.append(
            _mismatch("parts.algbw_links", info.get("algbw_links"), p.stats.get("algbw_links"))
        )
    optimum = _frac(p.stats.get("optimum"))
    claims: list[Claim] = []
    if optimum:
        lower = Fraction(n * K) / optimum
        if all(Fraction(str(d.get("bandwidth", 1.0))) == 1 for *_, d in G.edges(data=True)):
            lower = Fraction(math.ceil(lower))  # whole trees per arc of unit bandwidth
        if _frac(info.get("load_bound")) != lower:
            found.append(_mismatch("parts.load_bound", info.get("load_bound"), str(lower)))
        if info.get("proved") is not (load == lower):
            found.append(_mismatch("parts.proved", info.get("proved"), load == lower))
        elif load == lower:
            claims.append(
                re_derived(
                    "stats.parts",
                    f"no packing of {K} equal parts per rank loads a link with fewer than "
                    f"{load} trees",
                    f"n K / (cut bound) = {n} x {K} / {optimum}, rounded up to whole trees",
                )
            )
    return found, claims


def _root_sets(G: nx.MultiDiGraph, p: TreePacking, ecc: dict[int, int | None]) -> list[Finding]:
    st, found = p.stats, []
    sets = p.sets
    facts: dict[str, Any] = {
        "k": max((len(s.trees) for s in sets), default=0),
        "total": sum(s.height for s in sets),
        "set_roots": [s.roots for s in sets],
        "set_heights": [s.height for s in sets],
        "set_tree_heights": [[t.height for t in s.trees] for s in sets],
        "set_lower_bounds": [s.lower_bound for s in sets],
        "set_eccentricities": [[ecc.get(r) for r in s.roots] for s in sets],
    }
    for key, want in facts.items():
        if key in st and not same_value(st[key], want):
            found.append(_mismatch(key, st[key], want))
    status = st.get("set_status")
    if status is not None:
        ok = isinstance(status, list) and len(status) == len(sets)
        for s, claim in zip(sets, status if ok else [], strict=False):
            if claim not in ("optimal", "feasible") or (
                claim == "optimal" and s.lower_bound != s.height
            ):
                ok = False
        if not ok:
            found.append(
                _mismatch(
                    "set_status",
                    status,
                    "optimal exactly where a set's lower bound meets its height",
                )
            )
    total, lower = facts["total"], st.get("total_lower_bound")
    if "total_lower_bound" in st and (
        not isinstance(lower, int) or isinstance(lower, bool) or lower > total
    ):
        found.append(_mismatch("total_lower_bound", lower, f"an integer at most the total {total}"))
    proven = isinstance(status, list) and all(x == "optimal" for x in status)
    optimal = proven and lower == total
    words = {
        "partition": ("optimal (total = lower bound)", "heuristic", optimal),
        "heights": ("optimal per set", "some sets not proven optimal", proven),
    }
    for key, (yes, no, truth) in words.items():
        if key in st and st[key] != (yes if truth else no):
            found.append(_mismatch(key, st[key], yes if truth else no))
    return found


def _k_certificate(G: nx.MultiDiGraph, p: TreePacking) -> tuple[list[Finding], list[Claim]]:
    cert = p.stats.get("k_certificate")
    if cert is None:
        return [], []
    k = max((len(s.trees) for s in p.sets), default=0)
    field, statement = "stats.k_certificate", f"no root sets of {k + 1} trees exist"
    bad = Finding("certificate-invalid", f"stats.k_certificate does not rule out sets of {k + 1}")
    if not isinstance(cert, dict):
        return [bad], []
    extra = sorted(set(cert) - set(CERTIFICATE_FIELDS))
    if extra:
        return [
            Finding(
                "unknown-field",
                f"stats.k_certificate: field {extra[0]!r} is not part of the format",
            )
        ], []
    if cert.get("kind") == "root-sets":
        if check_root_sets_certificate(G, k + 1, cert, direction=p.direction, span=p.span):
            return [bad], []
        why = (
            f"chiplet {cert['set'][0]} has {cert['entering_arcs']} arcs in, fewer than "
            f"{k + 1}, so it would root a tree in each of the {cert['full_sets']} full sets"
        )
        return [], [re_derived(field, statement, why)]
    if cert.get("kind") == "subpartition" or ("sets" in cert and cert.get("kind") is None):
        errors = check_frank_certificate(G, k + 1, cert, direction=p.direction, span=p.span)
        if errors:
            return [bad], []
        return [], [re_derived(field, statement, "Frank subpartition (recounted): fewer trees fit")]
    if "set" in cert and isinstance(cert.get("roots"), list):
        errors = check_edmonds_certificate(
            G, cert["roots"], cert, direction=p.direction, span=p.span
        )
        if errors:
            return [bad], []
        return [], [re_derived(field, statement, "Edmonds cut (recounted)")]
    return [], [unproven(field, statement, f"a {cert.get('kind')!r} certificate is not recounted")]


def _claims(p: TreePacking, ecc: dict[int, int | None]) -> list[Claim]:
    st, claims = p.stats, []
    heights = [t.height for t in (p.sets[0].trees if len(p.sets) == 1 else ())]
    if st.get("balance") in ("optimal", "feasible") and heights:
        statement = f"the heights {heights} are the most balanced at this tallest tree"
        if min(heights) == max(heights):
            claims.append(re_derived("stats.balance", statement, "every tree has the same height"))
        elif st["balance"] == "optimal":
            claims.append(unproven("stats.balance", statement, "the solver's proof"))
    proof = st.get("height_proof")
    if isinstance(proof, dict) and proof.get("proved") is True:
        h = proof.get("height")
        known = [e for e in ecc.values() if e is not None]
        statement = f"no packing with a tallest tree of {h} reaches the rate"
        if isinstance(h, int) and known and h < max(known):
            claims.append(
                re_derived(
                    "stats.height_proof", statement, f"below the eccentricity bound {max(known)}"
                )
            )
        else:
            claims.append(unproven("stats.height_proof", statement, "LP duality in the solver"))
    status = st.get("set_status")
    if isinstance(status, list) and len(status) == len(p.sets):
        for i, (s, claim) in enumerate(zip(p.sets, status, strict=True)):
            if claim != "optimal" or s.lower_bound != s.height:
                continue
            e = max((ecc.get(r) or 0 for r in s.roots), default=0)
            statement = f"set {i}'s tallest tree of {s.height} is optimal for its roots"
            if s.height <= e:
                claims.append(
                    re_derived(
                        f"stats.set_status[{i}]", statement, f"it meets the root eccentricity {e}"
                    )
                )
            else:
                claims.append(unproven(f"stats.set_status[{i}]", statement, "the solver's bound"))
    if "pipeline_steps" in st:
        claims.append(
            unproven(
                "stats.pipeline_steps",
                f"the sets run in {st['pipeline_steps']} pipeline steps",
                "a simulated count verify does not redo",
            )
        )
    if "paper" in st:
        claims.append(
            unproven(
                "stats.paper",
                "the paper's rule gives the sets and heights listed",
                "packings not in the file",
            )
        )
    return claims


_SHAPES: dict[str, Any] = {
    "balance": str,
    "height_proof": dict,
    "k_certificate": dict,
    "pipeline_steps": int,
    "paper": (dict, type(None)),
    "partition": str,
    "heights": str,
    "set_status": list,
    "parts": dict,
    "bound_certificate": dict,
}
"""The documented type of each claim-bearing key (restated facts are compared by value)."""


def _shapes(st: dict[str, Any]) -> list[Finding]:
    found = []
    for key, kind in _SHAPES.items():
        if key in st and (isinstance(st[key], bool) or not isinstance(st[key], kind)):
            found.append(_mismatch(key, st[key], f"a value of the documented type {kind}"))
    proof = st.get("height_proof")
    if isinstance(proof, dict) and not (
        isinstance(proof.get("proved"), bool)
        and isinstance(proof.get("height"), int)
        and not isinstance(proof.get("height"), bool)
        and proof["height"] >= 0
        and set(proof) <= {"proved", "height"}
    ):
        found.append(_mismatch("height_proof", proof, "{proved: true/false, height: a count}"))
    steps = st.get("pipeline_steps")
    if isinstance(steps, int) and steps < 0:
        found.append(_mismatch("pipeline_steps", steps, "a count"))
    return found


def check_stats(G: nx.MultiDiGraph, packing: TreePacking) -> tuple[list[Finding], list[Claim]]:
    """Recount the facts ``stats`` restates and judge the claims it makes (module docstring).

    Returns
    -------
    (list of Finding, list of Claim)
        ``stats-mismatch`` and ``certificate-invalid`` errors; the claims with their verdicts.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking

    Examples
    --------
    >>> import dataclasses
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> from supermesh.topologies import build
    >>> p = dataclasses.replace(smbi_corner_trees(4), stats={"gap": 1})
    >>> [f.message for f in check_stats(build("smbi:4x4"), p)[0]]
    ["stats.gap is 1, but the file's data give 0"]
    """
    ecc = root_eccentricities(G, packing)
    found = _shapes(packing.stats)
    if found:
        return found, []
    found = _restated(G, packing, ecc)
    more, claims = _parts(G, packing)
    found += more
    if any(k in packing.stats for k in ("set_roots", "total", "set_status", "k")):
        found += _root_sets(G, packing, ecc)
    more, k_claims = _k_certificate(G, packing)
    return found + more, claims + k_claims + _claims(packing, ecc)
