"""The campaign's judge of prove's certificate files, from docs/schemas/proof.schema.json.

A certificate file is valid when it is schema-valid; ``size`` is its spec's size; ``upper`` is a
Frank subpartition that rules out ``max_trees + 1`` trees (recounted); ``lower`` shows
``max_trees`` valid trees over every compute chiplet; ``max_trees_roots`` fit (shown, or by
max-flow when every node is spanned); each choice has the roots, span and relays of its
definition and either valid trees it restates exactly (height, bound, status, method; the bound
``eccentricity`` exactly when it is the largest root eccentricity), an Edmonds cut for an
impossible choice, or nothing (unknown, n/a); ``findings`` is empty and ``status`` says
``proven`` exactly when everything is shown and settled.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import networkx as nx
from _oracle_common import check_schema, compute, crossing, eccentricity, flow_ok, need
from _oracle_trees import topology, trees_problem

_IO_CORNER = {"north": 1, "east": 2, "south": 3, "west": 0}


def definition(G: nx.MultiDiGraph, name: str, direction: str) -> tuple[list[int], Any] | None:
    """The roots and span of a root choice, from its documented definition; None if n/a."""
    cells = {
        (d["row"], d["col"]): n
        for n, d in G.nodes(data=True)
        if d["kind"] == "compute" and d.get("row") is not None
    }
    if G.graph.get("family") == "hexamesh":
        if name != "corners":
            return None
        rows = sorted({r for r, _ in cells})
        first = lambda r: cells[min((c for rr, c in cells if rr == r))]  # noqa: E731
        last = lambda r: cells[max((c for rr, c in cells if rr == r))]  # noqa: E731
        return [first(rows[0]), last(rows[len(rows) // 2]), first(rows[-1])], None
    R, C = G.graph.get("rows"), G.graph.get("cols")
    if R is None or C is None:
        return None
    corners = [cells[(0, 0)], cells[(0, C - 1)], cells[(R - 1, C - 1)], cells[(R - 1, 0)]]
    if name == "corners":
        return corners, None
    if name == "sides":
        return [
            cells[(0, C // 2)],
            cells[(R // 2, C - 1)],
            cells[(R - 1, C - 1 - C // 2)],
            cells[(R - 1 - R // 2, 0)],
        ], None
    omit = corners[_IO_CORNER[(G.graph.get("params") or {}).get("io", "south")]]
    r, c = next(p for p, n in cells.items() if n == omit)
    neighbours = [cells[p] for p in ((r, c + 1), (r, c - 1), (r + 1, c), (r - 1, c)) if p in cells]
    doubled = any(
        (G.number_of_edges(m, omit) if direction == "out" else G.number_of_edges(omit, m)) >= 2
        for m in neighbours
    )
    roots = [x for x in corners if x != omit]
    return roots, None if doubled else [n for n in compute(G) if n != omit]


def _edmonds(
    G: nx.MultiDiGraph, cert: Any, roots: list[int], direction: str, targets: list[int]
) -> None:
    need(isinstance(cert, dict) and isinstance(cert.get("set"), list) and cert["set"], "no cut")
    X = cert["set"]
    need(len(set(X)) == len(X) and set(X) <= set(G) and set(X) & set(targets), "the cut's set")
    a, r = crossing(G, X, direction), sum(1 for x in roots if x not in set(X))
    need(cert.get("entering_arcs") == a and cert.get("required") == r and a < r, "the cut's counts")
    need(set(cert) <= {"set", "entering_arcs", "required", "roots"}, "unknown certificate fields")
    need(cert.get("roots", roots) == roots, "the cut's roots")


def _choice(
    G: nx.MultiDiGraph, name: str, c: dict[str, Any], doc: dict[str, Any], original: dict[str, Any]
) -> None:
    d = definition(G, name, doc["direction"])
    if d is None:
        need(c["status"] == "n/a", f"{name} does not exist here")
        return
    need(c["status"] != "n/a", f"{name} exists here")
    roots, span = d
    relays = [] if span is None else sorted(set(compute(G)) - set(span))
    need(
        c.get("roots") == roots and c.get("span") == span and c.get("relay_only") == relays,
        f"{name}'s roots, span or relays",
    )
    status = c["status"]
    if status in ("infeasible", "unknown"):
        need(c.get("packing") is None and c.get("height") is None, "trees where there are none")
        if status == "infeasible":
            _edmonds(G, c.get("certificate"), roots, doc["direction"], span or compute(G))
        else:
            need(c.get("certificate") is None, "a certificate for an unknown choice")
        return
    need(c.get("certificate") is None, "a certificate beside trees")
    p = c.get("packing")
    ref = ((original.get("choices") or {}).get(name) or {}).get("packing") or {}
    trees_problem(p, ref)
    need(p["topology"] == doc["topology"] and p["direction"] == doc["direction"], "packing context")
    trees = [t for s in p["sets"] for t in s["trees"]] if "sets" in p else p["trees"]
    need(
        [t["root"] for t in trees] == roots and p.get("span") == span, "the packing's roots / span"
    )
    for field, value in (
        ("height", p["objective"]),
        ("lower_bound", p.get("lower_bound")),
        ("status", p["status"]),
        ("method", p.get("method", "")),
    ):
        need(c.get(field) == value, f"{name}.{field} does not restate its packing")
    targets = span or compute(G)
    eccs = [eccentricity(G, r, doc["direction"], targets) for r in roots]
    e = None if None in eccs else max(x for x in eccs if x is not None)
    want = "eccentricity" if e is not None and p.get("lower_bound") == e else "cpsat"
    need(c.get("bound") == want, f"{name}.bound")


def proof_problem(doc: Any, original: dict[str, Any]) -> None:
    """Raise :class:`Invalid` unless the certificate document ``doc`` is provably valid."""
    check_schema(doc, "proof", original)
    G = topology(doc["topology"])
    direction, k = doc["direction"], doc["max_trees"]
    need(doc["size"] == doc["topology"].split(":", 1)[-1].split(",", 1)[0], "size")
    up = doc["upper"]
    need(up["kind"] == "subpartition" and up["trees"] == k + 1, "upper's kind or tree count")
    sets = up["sets"]
    flat = [v for X in sets for v in X]
    need(len(flat) == len(set(flat)) and set(flat) <= set(G), "upper's sets")
    need(all(set(X) & set(compute(G)) for X in sets), "an upper set without a chiplet")
    per = [crossing(G, X, direction) for X in sets]
    need(up["entering_arcs"] == sum(per) and up.get("entering_per_set", per) == per, "upper counts")
    need(up["required"] == (k + 1) * (len(sets) - 1) > sum(per), "upper does not rule out k + 1")
    need(
        set(up) <= {"kind", "trees", "sets", "entering_arcs", "entering_per_set", "required"},
        "upper's fields",
    )
    choices = doc["choices"]
    for name, c in choices.items():
        _choice(G, name, c, doc, original)
    lower, shown = doc.get("lower"), None
    if lower is not None:
        if "choice" in lower:
            c = choices.get(lower["choice"])
            need(
                c is not None and c["status"] in ("optimal", "feasible") and c.get("span") is None,
                "lower's choice holds no trees over every chiplet",
            )
            p = c["packing"]
        else:
            p = lower["packing"]
            ref = (original.get("lower") or {}).get("packing") or {}
            trees_problem(p, ref)
            need(
                p["topology"] == doc["topology"] and p["direction"] == direction, "lower's context"
            )
        trees = [t for s in p["sets"] for t in s["trees"]] if "sets" in p else p["trees"]
        need(len(trees) == k and p.get("span") is None, "lower does not show max_trees trees")
        shown = [t["root"] for t in trees]
    roots = doc.get("max_trees_roots")
    if roots is not None:
        need(len(roots) == k and set(roots) <= set(G), "max_trees_roots")
        if shown is None or Counter(shown) != Counter(roots):
            need(
                compute(G) == sorted(G) and flow_ok(G, roots, k, direction, compute(G)),
                "max_trees_roots not shown to fit",
            )
    need(not doc.get("findings"), "the file lists failures")
    if "status" in doc:
        settled = all(c["status"] in ("optimal", "infeasible", "n/a") for c in choices.values())
        want = "proven" if shown is not None and settled else "partial"
        need(doc["status"] == want, "status")
    if doc.get("time_limit") is not None:
        need(doc["time_limit"] > 0, "time_limit")
