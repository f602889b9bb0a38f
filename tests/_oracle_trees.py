"""The campaign's judge of tree files, written from docs/schemas/trees.schema.json and
trees/model.py.

A tree file is valid when it is schema-valid JSON; every tree is an arborescence of the named
topology in data direction, rooted at its root, reaching every span node, as tall as it says;
the trees of a set are arc-disjoint (weighted packings instead: every rank roots trees whose
shares add up to 1, and every arc carries at most its bandwidth at the claimed rate); the status,
bounds, certificate and the stats it restates or claims are true. A bound is known true when it
is at most the root eccentricity, or when it is the original file's own bound in the same
context (the original is the tool's output and trusted for what only a solver knows).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

import networkx as nx
from _oracle_common import (
    Invalid,
    check_schema,
    compute,
    crossing,
    distances,
    eccentricity,
    is_count,
    need,
)

from supermesh.errors import SupermeshError
from supermesh.topologies import build

INFORMATIVE_SAFE = {
    "gap",
    "eccentricities",
    "bound",
    "balance",
    "collective",
    "optimum",
    "optimum_float",
    "bound_certificate",
    "eccentricity_bound",
    "algbw_links",
    "algbw_float",
    "rate_fraction",
    "rate_gap",
    "height_gap",
    "height_proof",
    "shares",
    "trees",
    "max_trees_per_root",
    "parts",
    "k",
    "total",
    "total_lower_bound",
    "partition",
    "heights",
    "set_roots",
    "set_heights",
    "set_tree_heights",
    "set_lower_bounds",
    "set_status",
    "set_eccentricities",
    "k_certificate",
    "pipeline_steps",
    "paper",
}
"""The stats keys with a documented meaning; every other key is a search statistic."""


def topology(spec: str) -> nx.MultiDiGraph:
    try:
        return build(spec)
    except SupermeshError as exc:
        raise Invalid(f"topology {spec!r} does not build: {exc}") from None


def _sets(doc: dict[str, Any]) -> list[list[dict[str, Any]]]:
    if "sets" in doc:
        if "trees" in doc:
            need(
                len(doc["sets"]) == 1 and doc["trees"] == doc["sets"][0]["trees"],
                "the top-level trees contradict sets",
            )
        return [s["trees"] for s in doc["sets"]]
    return [doc["trees"]]


def tree_height(
    G: nx.MultiDiGraph, tree: dict[str, Any], direction: str, targets: list[int]
) -> int:
    """The height of a valid tree; raise Invalid if it is not an arborescence reaching targets."""
    arcs = [tuple(a) for a in tree["arcs"]]
    need(len(set(arcs)) == len(arcs), "a tree lists an arc twice")
    parent: dict[int, int] = {}
    kids: dict[int, list[int]] = defaultdict(list)
    for u, v, k in arcs:
        need(u in G and v in G and G.has_edge(u, v, k), f"arc {(u, v, k)} is not in the topology")
        p, c = (u, v) if direction == "out" else (v, u)
        need(c not in parent, f"node {c} has two parents")
        parent[c] = p
        kids[p].append(c)
    root = tree["root"]
    need(root in G and root not in parent, "the root is missing or has a parent")
    depth = {root: 0}
    order = [root]
    for x in order:
        for c in kids[x]:
            depth[c] = depth[x] + 1
            order.append(c)
    need(len(depth) == len(parent) + 1, "some arcs are not connected to the root")
    need(all(t in depth for t in targets), "a span node is not reached")
    return max(depth.values())


def same_trees(a: list[list[dict[str, Any]]], b: list[list[dict[str, Any]]]) -> bool:
    """The same sets of the same trees (arcs compared as sets, fields with their defaults)."""

    def norm(t: dict[str, Any]) -> tuple[Any, ...]:
        return (t["root"], t["height"], t.get("share", 1.0), sorted(map(tuple, t["arcs"])))

    return [[norm(t) for t in s] for s in a] == [[norm(t) for t in s] for s in b]


def _weighted(doc: dict[str, Any]) -> bool:
    return doc.get("method") == "colgen" or "algbw_links" in (doc.get("stats") or {})


def _frac(x: Any) -> Fraction:
    need(isinstance(x, str) and not isinstance(x, bool), f"{x!r} is not a fraction string")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise Invalid(f"{x!r} is not a fraction") from None


def _rates(
    G: nx.MultiDiGraph, doc: dict[str, Any], trees: list[dict[str, Any]], targets: list[int]
) -> tuple[Fraction | None, Fraction | None]:
    """Check a weighted packing's shares and loads: (the rate claimed, the cut bound)."""
    st = doc.get("stats") or {}
    if "shares" in st:
        need(
            isinstance(st["shares"], list) and len(st["shares"]) == len(trees),
            "stats.shares is not one fraction per tree",
        )
        shares = [_frac(x) for x in st["shares"]]
        for t, x in zip(trees, shares, strict=True):
            need(abs(float(x) - t.get("share", 1.0)) <= 1e-9, "a share differs from stats.shares")
    else:
        shares = [Fraction(repr(float(t.get("share", 1.0)))) for t in trees]
    total: dict[int, Fraction] = defaultdict(Fraction)
    for t, x in zip(trees, shares, strict=True):
        need(0 < x <= 1, "a share outside (0, 1]")
        total[t["root"]] += x
    need(set(total) == set(targets), "not every rank roots a tree (or a root is no rank)")
    for x in total.values():
        need(
            x == 1 if "shares" in st else abs(x - 1) <= Fraction(1, 10**9), "shares do not add to 1"
        )
    load: dict[tuple[int, int, int], Fraction] = defaultdict(Fraction)
    for t, x in zip(trees, shares, strict=True):
        for a in {tuple(a) for a in t["arcs"]}:
            load[a] += x
    n = len(targets)
    allowed = min(n * Fraction(repr(float(G.edges[a]["bandwidth"]))) / x for a, x in load.items())
    claimed = None
    if "algbw_links" in st:
        claimed = _frac(st["algbw_links"])
        need(0 < claimed <= allowed, f"the claimed rate {claimed} is not within (0, {allowed}]")
    optimum = None
    if "optimum" in st:
        optimum = _frac(st["optimum"])
        cert = st.get("bound_certificate")
        need(isinstance(cert, dict), "an optimum without its cut")
        side = set(cert.get("set") or [])
        need(bool(side) and side <= set(G), "the cut's set is empty or names no node")
        leaving = doc["direction"] == "in"
        arcs = [
            (u, v, k)
            for u, v, k in G.edges(keys=True)
            if (u in side) != (v in side) and (u in side) == leaving
        ]
        bw = sum((Fraction(repr(float(G.edges[a]["bandwidth"]))) for a in arcs), Fraction(0))
        outside = sum(1 for r in targets if r not in side)
        need(0 < outside < n, "the cut does not separate the ranks")
        need(optimum == n * bw / outside, "the optimum is not the cut's value")
        stated = {
            "bandwidth": str(bw),
            "arcs": len(arcs),
            "ranks": n,
            "ranks_outside": outside,
            "direction": "leaving" if leaving else "entering",
            "set": cert.get("set"),
        }
        for key, value in cert.items():
            need(
                key in stated
                and (value == stated[key] or (key == "bandwidth" and _frac(value) == bw)),
                f"the cut states {key} {value!r}",
            )
        if claimed is not None:
            need(claimed <= optimum, "the claimed rate beats the cut bound")
    return claimed, optimum


def _parts(
    G: nx.MultiDiGraph,
    info: Any,
    trees: list[dict[str, Any]],
    targets: list[int],
    st: dict[str, Any],
) -> None:
    """stats.parts: K equal parts per rank, the busiest arc's load, the rate, the load bound."""
    need(isinstance(info, dict), "stats.parts is not an object")
    per_root = set(Counter(t["root"] for t in trees).values())
    need(len(per_root) == 1 and info.get("parts") == next(iter(per_root)), "parts.parts")
    K, n = info["parts"], len(targets)
    use = Counter(tuple(a) for t in trees for a in {tuple(x) for x in t["arcs"]})
    load = max(Fraction(c) / Fraction(repr(float(G.edges[a]["bandwidth"]))) for a, c in use.items())
    need(_frac(info.get("max_load")) == load, "parts.max_load")
    need(_frac(info.get("algbw_links")) == Fraction(n * K) / load, "parts.algbw_links")
    need(
        info.get("algbw_links") == st.get("algbw_links")
        or _frac(st.get("algbw_links")) == _frac(info["algbw_links"]),
        "parts.algbw_links differs from stats.algbw_links",
    )
    bound = Fraction(n * K) / _frac(st.get("optimum"))
    if all(float(d["bandwidth"]) == 1.0 for *_, d in G.edges(data=True)):
        bound = Fraction(-(-bound.numerator // bound.denominator))
    need(
        _frac(info.get("load_bound")) == bound and info.get("proved") is (load == bound),
        "parts.load_bound",
    )


def _ecc_bound(
    G: nx.MultiDiGraph, roots: list[int], direction: str, targets: list[int]
) -> int | None:
    eccs = [eccentricity(G, r, direction, targets) for r in roots]
    return None if not eccs or None in eccs else max(e for e in eccs if e is not None)


def _partition_bound(ecc: list[int], k: int) -> int:
    """Sum over j of the least t such that j sets of k fit among roots of eccentricity <= t."""
    full, rest = divmod(len(ecc), k)
    count = full + (rest > 0)

    def sets_within(t: int) -> int:
        pool = sum(e <= t for e in ecc)
        fits = 1 + (pool - rest) // k if rest and pool >= rest else pool // k
        return min(fits, count)

    return sum(min(t for t in sorted(set(ecc)) if sets_within(t) >= j) for j in range(1, count + 1))


def context(doc: dict[str, Any]) -> tuple[Any, ...]:
    """What a packing's bounds are about: topology, direction, span, each set's roots."""
    sets = _sets(doc) if doc.get("sets") or doc.get("trees") else []
    return (
        doc.get("topology"),
        doc.get("direction"),
        repr(doc.get("span")),
        _weighted(doc),
        tuple(tuple(sorted(t["root"] for t in s)) for s in sets),
    )


def _bound_ok(lb: int | None, ecc: int | None, trusted: int | None) -> bool:
    return lb is None or (ecc is not None and lb <= ecc) or (trusted is not None and lb <= trusted)


def _certificate(
    G: nx.MultiDiGraph,
    doc: dict[str, Any],
    original: dict[str, Any],
    targets: list[int],
    cert: Any = None,
) -> None:
    cert = doc.get("certificate") if cert is None else cert
    direction = doc["direction"]
    need(isinstance(cert, dict), "infeasible without a certificate")
    kind = cert.get("kind")
    if kind == "solver":
        orig = original.get("certificate") or {}
        need(
            context(doc) == context(original)
            and orig.get("kind") == "solver"
            and is_count(cert.get("max_height"))
            and cert["max_height"] <= orig.get("max_height", -1),
            "a solver's certificate other than the original's",
        )
        return
    if kind == "eccentricity":
        r, v = cert.get("root"), cert.get("node")
        need(r in G and v in targets, "the certificate's root or node")
        d = distances(G, r, direction).get(v)
        need(
            d == cert.get("distance") and d is not None and d > cert.get("max_height", d),
            "the distance is wrong or within the cap",
        )
        return
    if kind == "root-sets":
        X, k = cert.get("set"), cert.get("required")
        need(
            isinstance(X, list) and len(X) == 1 and X[0] in targets and is_count(k, 1),
            "root-sets cert",
        )
        a = crossing(G, X, direction)
        need(
            cert.get("entering_arcs") == a
            and cert.get("full_sets") == len(targets) // k
            and a < k
            and len(targets) // k >= 2,
            "root-sets counts",
        )
        return
    if "sets" in cert:
        sets, k = cert["sets"], cert.get("trees")
        need(
            is_count(k, 1) and sets and all(isinstance(X, list) and X for X in sets), "Frank shape"
        )
        flat = [v for X in sets for v in X]
        need(len(flat) == len(set(flat)) and set(flat) <= set(G), "Frank sets not disjoint")
        need(all(set(X) & set(targets) for X in sets), "a Frank set holds no span node")
        per = [crossing(G, X, direction) for X in sets]
        stated = cert.get("entering_arcs")
        need(stated == per if isinstance(stated, list) else stated == sum(per), "Frank entering")
        need(
            cert.get("required") == k * (len(sets) - 1) and sum(per) < k * (len(sets) - 1), "Frank"
        )
        return
    roots, X = cert.get("roots"), cert.get("set")
    need(
        isinstance(roots, list)
        and all(r in G for r in roots)
        and isinstance(X, list)
        and X
        and len(set(X)) == len(X)
        and set(X) <= set(G),
        "Edmonds shape",
    )
    need(bool(set(X) & set(targets)), "the Edmonds set holds no span node")
    a, r = crossing(G, X, direction), sum(1 for x in roots if x not in set(X))
    need(cert.get("entering_arcs") == a and cert.get("required") == r and a < r, "Edmonds counts")


def _stats(
    G: nx.MultiDiGraph,
    doc: dict[str, Any],
    original: dict[str, Any],
    sets: list[list[dict[str, Any]]],
    targets: list[int],
) -> None:
    st, orig = doc.get("stats") or {}, original.get("stats") or {}
    same = context(doc) == context(original)
    trees = [t for s in sets for t in s]
    heights = [max((t["height"] for t in s), default=0) for s in sets]
    ecc = {t["root"]: eccentricity(G, t["root"], doc["direction"], targets) for t in trees}
    lb, obj = doc.get("lower_bound"), doc.get("objective")
    for key in st:
        if key not in INFORMATIVE_SAFE:
            continue  # a search statistic
        value = st[key]
        if key in ("gap", "height_gap"):
            need(value == (None if lb is None or obj is None else obj - lb), f"stats.{key}")
        elif key == "eccentricities":
            need(not sets or value == [ecc[t["root"]] for t in sets[0]], "stats.eccentricities")
        elif key == "eccentricity_bound":
            need(
                not ecc or value == max(e for e in ecc.values() if e is not None),
                "stats.eccentricity_bound",
            )
        elif key == "bound":
            need(
                value == "eccentricity" and lb == max(e for e in ecc.values() if e is not None),
                "stats.bound",
            )
        elif key == "trees":
            need(value == len(trees), "stats.trees")
        elif key == "max_trees_per_root":
            need(
                value == max(Counter(t["root"] for t in trees).values()), "stats.max_trees_per_root"
            )
        elif key == "collective":
            need(
                value == ("allgather" if doc["direction"] == "out" else "reducescatter"),
                "collective",
            )
        elif key in ("optimum_float", "algbw_float", "rate_fraction", "rate_gap"):
            try:
                if key == "optimum_float":
                    target = float(Fraction(st["optimum"]))
                elif key == "algbw_float":
                    target = float(Fraction(st["algbw_links"]))
                else:
                    share = Fraction(st["algbw_links"]) / Fraction(st["optimum"])
                    target = float(share) if key == "rate_fraction" else 1 - float(share)
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                raise Invalid(f"stats.{key} without its fractions") from None
            need(
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and abs(value - target) <= 1e-9 * max(1, abs(target)),
                f"stats.{key}",
            )
        elif key == "shares" or key in ("optimum", "bound_certificate", "algbw_links"):
            continue  # checked with the rates
        elif key == "balance":
            hs = [t["height"] for t in trees] if len(sets) == 1 else []
            need(
                value not in ("optimal", "feasible")
                or not hs
                or min(hs) == max(hs)
                or (same and value == orig.get("balance") and same_trees(sets, _sets(original))),
                "stats.balance",
            )
        elif key == "height_proof":
            known = [e for e in ecc.values() if e is not None]
            if isinstance(value, dict) and value.get("proved") is True:
                h = value.get("height")
                need(
                    is_count(h)
                    and (h < max(known) or (same and value == orig.get("height_proof"))),
                    "stats.height_proof",
                )
        elif key == "parts":
            _parts(G, value, trees, targets, st)
        elif key in (
            "k",
            "total",
            "set_roots",
            "set_heights",
            "set_tree_heights",
            "set_lower_bounds",
            "set_eccentricities",
        ):
            facts = {
                "k": max(len(s) for s in sets) if sets else 0,
                "total": sum(heights),
                "set_roots": [[t["root"] for t in s] for s in sets],
                "set_heights": heights,
                "set_tree_heights": [[t["height"] for t in s] for s in sets],
                "set_lower_bounds": [x.get("lower_bound") for x in doc.get("sets", [])],
                "set_eccentricities": [[ecc[t["root"]] for t in s] for s in sets],
            }
            need(value == facts[key], f"stats.{key}")
        elif key == "set_status":
            need(isinstance(value, list) and len(value) == len(sets), "stats.set_status")
            for i, claim in enumerate(value):
                s_lb = doc["sets"][i].get("lower_bound")
                need(claim in ("optimal", "feasible"), "set status")
                if claim == "optimal":
                    e = max(ecc[t["root"]] or 0 for t in sets[i])
                    orig_sets = original.get("sets") or []
                    trusted = (
                        same
                        and i < len(orig_sets)
                        and orig.get("set_status", [None] * (i + 1))[i] == "optimal"
                        and same_trees([orig_sets[i]["trees"]], [sets[i]])
                    )
                    need(
                        s_lb == heights[i] and (heights[i] <= e or trusted), "a set called optimal"
                    )
        elif key == "total_lower_bound":
            k = max(len(s) for s in sets)
            eccs = [ecc[t["root"]] for t in trees]
            bound = (
                _partition_bound([e for e in eccs if e is not None], k) if None not in eccs else -1
            )
            trusted = orig.get("total_lower_bound") if same else None
            need(
                is_count(value)
                and value <= sum(heights)
                and (value <= bound or (trusted is not None and value <= trusted)),
                "total_lower_bound",
            )
        elif key in ("partition", "heights"):
            proven = all(x == "optimal" for x in st.get("set_status", []))
            truth = proven and st.get("total_lower_bound") == sum(heights)
            word = {
                "partition": ("optimal (total = lower bound)", "heuristic"),
                "heights": ("optimal per set", "some sets not proven optimal"),
            }[key]
            need(
                value == word[0 if (truth if key == "partition" else proven) else 1], f"stats.{key}"
            )
        elif key == "k_certificate":
            k = max(len(s) for s in sets)
            need(isinstance(value, dict), "stats.k_certificate")
            kind = value.get("kind")
            if kind == "root-sets":
                need(value.get("required") == k + 1, "the certificate is not about sets of k + 1")
            else:
                # a subpartition (kind may be left out: sets say it); trees, if stated, is k + 1
                need(kind in (None, "subpartition") and "sets" in value, "a k_certificate kind")
                need(value.get("trees", k + 1) == k + 1, "the certificate is not about k + 1")
            need(
                set(value)
                <= {
                    "kind",
                    "set",
                    "sets",
                    "entering_arcs",
                    "required",
                    "trees",
                    "entering_per_set",
                    "full_sets",
                    "roots",
                    "reason",
                },
                "k_certificate fields",
            )
            _certificate(
                G,
                doc,
                original,
                targets,
                value if kind == "root-sets" else {**value, "trees": k + 1},
            )
        elif key in ("pipeline_steps", "paper"):
            need(
                same and value == orig.get(key) and same_trees(sets, _sets(original)),
                f"stats.{key} changed",
            )


def trees_problem(doc: Any, original: dict[str, Any]) -> None:
    """Raise :class:`Invalid` unless the tree document ``doc`` is provably valid."""
    check_schema(doc, "trees", original)
    G = topology(doc["topology"])
    direction, span = doc["direction"], doc.get("span")
    if span is not None:
        need(set(span) <= set(G), "a span node is not in the topology")
    targets = sorted(span) if span is not None else compute(G)
    sets = _sets(doc)
    trees = [t for s in sets for t in s]
    lb, obj, status = doc.get("lower_bound"), doc.get("objective"), doc["status"]
    same = context(doc) == context(original)
    if status == "infeasible":
        need(not trees and obj is None, "infeasible with trees or an objective")
        _certificate(G, doc, original, targets)
        if lb is not None:
            roots = targets if _weighted(doc) else [doc["certificate"].get("root")]
            roots = [r for r in roots if r in G]
            ecc = _ecc_bound(G, roots, direction, targets) if roots else None
            need(_bound_ok(lb, ecc, original.get("lower_bound") if same else None), "lower_bound")
        return
    need(doc.get("certificate") is None, "a feasible packing with a certificate")
    need(bool(sets) and all(sets), "an empty set")
    for t in trees:
        need(tree_height(G, t, direction, targets) == t["height"], "a height is wrong")
    weighted = _weighted(doc)
    claimed = optimum = None
    if weighted:
        claimed, optimum = _rates(G, doc, trees, targets)
    else:
        need(all(t.get("share", 1.0) == 1.0 for t in trees), "a share below 1 in unweighted trees")
        for s in sets:
            arcs = [tuple(a) for t in s for a in t["arcs"]]
            need(len(arcs) == len(set(arcs)), "two trees of a set share an arc")
    heights = [max(t["height"] for t in s) for s in sets]
    need(obj == max(heights), "objective is not the tallest tree")
    need(lb is None or lb <= obj, "lower bound above the objective")
    orig_sets = {}
    if original.get("status") != "infeasible":
        for s_doc, s in zip(original.get("sets", []), _sets(original), strict=False):
            orig_sets[tuple(sorted(t["root"] for t in s))] = s_doc.get("lower_bound")
    for i, s in enumerate(sets):
        s_lb = doc["sets"][i].get("lower_bound") if "sets" in doc else None
        need(s_lb is None or s_lb <= heights[i], "a set's lower bound above its height")
        roots = sorted(t["root"] for t in s)
        e = _ecc_bound(G, roots, direction, targets)
        trusted = orig_sets.get(tuple(roots)) if same else None
        need(_bound_ok(s_lb, e, trusted), f"set {i}'s lower bound is not known true")
    all_roots = sorted({t["root"] for t in trees})
    ecc_all = _ecc_bound(G, targets if weighted else all_roots, direction, targets)
    need(
        _bound_ok(lb, ecc_all, original.get("lower_bound") if same else None),
        "lower_bound is not known true",
    )
    root_sets = doc.get("method", "").startswith("root-sets:")
    if root_sets:
        need(sorted(t["root"] for t in trees) == targets, "root sets do not partition the span")
        st = doc.get("stats") or {}
        if status == "optimal":
            need(
                st.get("total_lower_bound") == sum(heights)
                and isinstance(st.get("set_status"), list)
                and all(x == "optimal" for x in st["set_status"]),
                "root sets not optimal",
            )
    if status == "optimal":
        need(lb == obj, "optimal without a bound meeting the objective")
        if weighted:
            need(claimed is not None and claimed == optimum, "optimal below the cut bound")
    _stats(G, doc, original, sets, targets)
