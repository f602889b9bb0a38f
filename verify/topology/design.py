"""Check a design file (``design -o``): the links it adds, the target it claims, its minimality.

A design is a topology file whose ``params.design`` says how it was made: ``base`` (the spec it
extends), ``target`` (``trees`` K; ``roots`` ``"any"``, one root list or a list of root sets;
``direction`` ``both`` / ``out`` / ``in``; ``max_height``; ``span``), ``added`` (the links, as
pairs ``[u, v]``), and the claims ``status`` (``optimal``: no cheaper design exists), ``cost``,
``lower_bound``, ``candidates`` (``families``, explicit ``links``, ``costs`` of links that do not
cost 1) and ``max_links`` (the port budget, one for every chiplet, or per chiplet).

Re-derived here, without the design code:

the links
    the file is the base plus one link (two opposite arcs of class ``added``, bandwidth and
    latency 1, the next free keys) per added pair, each a candidate of the families named
    (rebuilt from their documented definitions), within the port budget.
the target
    ``roots: "any"``: every ordered pair of span nodes is joined by K arc-disjoint paths
    (max-flow), which is Edmonds' condition for every choice of K roots; given roots: for every
    span node, K arc-disjoint paths from a source feeding one path per tree into each root
    (in-trees on the reversed network). With relays (a span smaller than the nodes) the flow
    condition is only necessary: the claim is unproven. A ``max_height`` needs the trees, which
    the file does not hold: unproven.
the counting bound
    each span node short of the arcs in (or out) its trees need must gain that many link ends,
    one per added link at it; in a group of candidates joined as a bipartite graph every link has
    one end on each side, so the group needs as many links as its needier side needs ends (else
    half its total); each end costs at least the cheapest candidate at its node. A
    ``lower_bound`` (and ``optimal``) at most this bound is re-derived; above it, it rests on the
    solver's cuts: unproven.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.topologies.spec import build
from supermesh.verify.claims import Claim, re_derived, unproven
from supermesh.verify.documents import unknown_fields
from supermesh.verify.findings import Finding
from supermesh.verify.topology.counting import (
    candidate_pairs,
    counting_bound,
    ends_needed,
    flow_failure,
    requirements,
)

__all__ = ["DESIGN_SUFFIX", "check_design"]

DESIGN_SUFFIX = "+design"
FAMILIES = ("perimeter-parallel", "any-parallel", "diagonal")
DESIGN = ("base", "target", "added", "status", "cost", "lower_bound", "candidates", "max_links")
TARGET = ("trees", "roots", "direction", "max_height", "span")
CANDIDATES = ("families", "links", "costs")
Pair = tuple[int, int]


def _pairs(added: Any) -> list[Pair] | None:
    if not isinstance(added, list):
        return None
    out = []
    for p in added:
        if not (
            isinstance(p, list)
            and len(p) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in p)
            and p[0] < p[1]
        ):
            return None
        out.append((p[0], p[1]))
    return out


def _link_findings(G: nx.MultiDiGraph, B: nx.MultiDiGraph, pairs: list[Pair]) -> list[Finding]:
    """The file must be the base plus two arcs of class added per pair, on the next keys."""
    found = []
    if set(G) != set(B) or any(G.nodes[n] != B.nodes[n] for n in B):
        found.append(Finding("design-mismatch", "the nodes differ from the base's"))
    for name in ("family", "rows", "cols", "params"):
        mine, theirs = G.graph.get(name), B.graph.get(name)
        if name == "params":
            mine = {k: v for k, v in (mine or {}).items() if k != "design"}
        if mine != theirs:
            found.append(
                Finding("design-mismatch", f"the file's {name} is {mine!r}, the base's {theirs!r}")
            )
    expected = {(u, v, k): dict(d) for u, v, k, d in B.edges(keys=True, data=True)}
    for u, v in pairs:
        for x, y in ((u, v), (v, u)):
            key = sum(1 for s, t, _ in expected if (s, t) == (x, y))
            expected[(x, y, key)] = {"cls": "added", "bandwidth": 1.0, "latency": 1.0}
    have = {(u, v, k): dict(d) for u, v, k, d in G.edges(keys=True, data=True)}
    for a in sorted(expected.keys() - have.keys())[:5]:
        found.append(
            Finding(
                "design-mismatch",
                f"arc {a[0]}->{a[1]} key {a[2]} of the base or an added link is missing",
                arc=a,
            )
        )
    for a in sorted(have.keys() - expected.keys())[:5]:
        found.append(
            Finding(
                "design-mismatch",
                f"arc {a[0]}->{a[1]} key {a[2]} is neither the base's nor an added link's",
                arc=a,
            )
        )
    for a in sorted(have.keys() & expected.keys()):
        if have[a] != expected[a]:
            found.append(
                Finding(
                    "design-mismatch",
                    f"arc {a[0]}->{a[1]} key {a[2]} has {have[a]}, expected {expected[a]}",
                    arc=a,
                )
            )
            break
    return found


def _offered(B: nx.MultiDiGraph, design: dict[str, Any]) -> tuple[dict[Pair, int] | None, str]:
    """Candidate pair -> cost, from the families and links the design names (None: not said)."""
    cands = design.get("candidates")
    if not isinstance(cands, dict):
        return None, "the file does not say which candidates were offered"
    families, links, costs = cands.get("families"), cands.get("links", []), cands.get("costs", {})
    if not (
        isinstance(families, list)
        and all(f in FAMILIES for f in families)
        and _pairs(links) is not None
        and isinstance(costs, dict)
    ):
        return None, "params.design.candidates is malformed"
    offered: dict[Pair, int] = {}
    for f in families:
        for p in candidate_pairs(B, f):
            offered[p] = 1
    for p in _pairs(links) or []:
        offered[p] = 1
    for text, c in costs.items():
        u, _, v = str(text).partition("-")
        pair = (int(u), int(v)) if u.isdigit() and v.isdigit() else None
        if pair is None or pair not in offered or isinstance(c, bool) or not isinstance(c, int):
            return None, f"params.design.candidates.costs names {text!r}: {c!r}"
        if c < 0:
            return None, f"params.design.candidates.costs gives {text!r} a negative cost"
        offered[pair] = c
    return offered, ""


def check_design(G: nx.MultiDiGraph, doc: dict[str, Any]) -> tuple[list[Finding], list[Claim]]:
    """Check a design file's links and claims (see the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The file's topology.
    doc : dict
        The file's document (``params.design`` holds the design).

    Returns
    -------
    (list of Finding, list of Claim)
        ``design-mismatch`` errors; the claims with their verdicts.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.topologies.io import to_json
    >>> from supermesh.trees.design import design
    >>> T = design(build("mesh:4x4"), trees=4, max_links=4).topology  # SMAlter's 8 links
    >>> doc = to_json(T)
    >>> found, claims = check_design(T, doc)
    >>> found, [(c.field, c.verdict) for c in claims]
    ([], [('params.design.target', 're-derived'), ('params.design.lower_bound', 're-derived')])
    >>> doc["params"]["design"]["lower_bound"] = 9  # more than the 8 links added
    >>> [f.code for f in check_design(T, doc)[0]]
    ['design-mismatch']
    """
    design = (doc.get("params") or {}).get("design")
    if not isinstance(design, dict):
        return [
            Finding("design-mismatch", "a design file (spec ending in +design) needs params.design")
        ], []
    base_spec, target, pairs = design.get("base"), design.get("target"), _pairs(design.get("added"))
    if not isinstance(base_spec, str) or not isinstance(target, dict) or pairs is None:
        return [
            Finding(
                "design-mismatch",
                "params.design needs base (a spec), target (an "
                "object) and added (pairs [u, v] with u < v)",
            )
        ], []
    found: list[Finding] = unknown_fields(design, DESIGN, "params.design")
    found += unknown_fields(target, TARGET, "params.design.target")
    found += unknown_fields(design.get("candidates"), CANDIDATES, "params.design.candidates")
    if doc.get("spec") != f"{base_spec}{DESIGN_SUFFIX}":
        found.append(
            Finding(
                "design-mismatch", f"spec {doc.get('spec')!r} is not {base_spec + DESIGN_SUFFIX!r}"
            )
        )
    try:
        B = build(base_spec)
    except SupermeshError as exc:
        return [
            *found,
            Finding("design-mismatch", f"the base {base_spec!r} does not build: {exc}"),
        ], []
    if len(set(pairs)) != len(pairs):
        found.append(Finding("design-mismatch", "params.design.added lists a link twice"))
    found += _link_findings(G, B, pairs)
    if found:
        return found, []
    more, claims = _claims(G, B, design, target, pairs)
    return found + more, claims


def _target(B: nx.MultiDiGraph, target: dict[str, Any]) -> tuple[int, list[int]] | None:
    """The tree count and the span of a well-formed target, else None."""
    k, span, roots = target.get("trees"), target.get("span"), target.get("roots")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        return None
    if target.get("direction") not in ("both", "out", "in"):
        return None
    if span == "compute":
        nodes = sorted(n for n, kind in B.nodes(data="kind") if kind == "compute")
    elif isinstance(span, list) and span and all(isinstance(v, int) and v in B for v in span):
        nodes = sorted(set(span))
    else:
        return None
    sets = roots if isinstance(roots, list) and roots and isinstance(roots[0], list) else [roots]
    if roots != "any" and not all(
        isinstance(s, list) and 0 < len(s) <= k and all(isinstance(r, int) and r in B for r in s)
        for s in sets
    ):
        return None
    return k, nodes


def _budget(B: nx.MultiDiGraph, design: dict[str, Any]) -> dict[int, int] | None:
    raw = design.get("max_links")
    ports = {n: max(B.in_degree(n), B.out_degree(n)) for n in B}
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1:
        return dict.fromkeys(ports, raw)
    if isinstance(raw, dict):
        out = dict.fromkeys(ports, max(ports.values()))
        for key, m in raw.items():
            if not (str(key).isdigit() and int(key) in out and isinstance(m, int) and m >= 1):
                return None
            out[int(key)] = m
        return out
    return None


def _claims(
    G: nx.MultiDiGraph,
    B: nx.MultiDiGraph,
    design: dict[str, Any],
    target: dict[str, Any],
    pairs: list[Pair],
) -> tuple[list[Finding], list[Claim]]:
    found: list[Finding] = []
    claims: list[Claim] = []
    shape = _target(B, target)
    if shape is None:
        return [Finding("design-mismatch", f"params.design.target {target!r} is malformed")], []
    k, span = shape
    reqs = requirements(target, span)
    what = f"{k} arc-disjoint trees " + (
        "for any roots" if target["roots"] == "any" else f"rooted at {target['roots']}"
    )
    for roots, direction in reqs:
        why = flow_failure(G, k, roots, direction, span)
        if why is not None:
            found.append(
                Finding(
                    "design-mismatch",
                    f"the design does not carry {what} ({direction}-trees): {why}",
                )
            )
    if not found:
        if len(span) == G.number_of_nodes():
            claims.append(
                re_derived(
                    "params.design.target",
                    f"the design carries {what}",
                    "Edmonds' condition holds: max-flow over every span node",
                )
            )
        else:
            claims.append(
                unproven(
                    "params.design.target",
                    f"the design carries {what}",
                    "with relays the flow condition is necessary, not sufficient",
                )
            )
    if target.get("max_height") is not None:
        claims.append(
            unproven(
                "params.design.target.max_height",
                f"trees at most {target['max_height']} tall exist",
                "the file holds no trees",
            )
        )
    offered, why = _offered(B, design)
    budget = _budget(B, design)
    if offered is None or budget is None:
        reason = why or "params.design.max_links is missing or malformed"
        claims.append(
            unproven(
                "params.design.added", "the links are candidates within the port budget", reason
            )
        )
        return found, claims
    for p in pairs:
        if p not in offered:
            found.append(
                Finding(
                    "design-mismatch",
                    f"added link {p[0]}-{p[1]} is not a candidate of the families named",
                )
            )
    ports = {n: max(G.in_degree(n), G.out_degree(n)) for n in G}
    over = [n for n in G if ports[n] > budget[n]]
    if over:
        found.append(Finding("design-mismatch", f"chiplets {over[:8]} exceed the port budget"))
    if found:
        return found, claims
    base_ports = {n: max(B.in_degree(n), B.out_degree(n)) for n in B}
    room = {n: max(0, budget[n] - base_ports[n]) for n in B}
    need = ends_needed(B, k, reqs, span, offered)
    _, bound = counting_bound(B, need, offered, room)
    cost = sum(offered[p] for p in pairs)
    stated, lower, status = design.get("cost"), design.get("lower_bound"), design.get("status")
    for name in ("cost", "lower_bound"):
        value = design.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            found.append(
                Finding("design-mismatch", f"params.design.{name} is {value!r}, not a count")
            )
    if found:
        return found, claims
    if stated is not None and stated != cost:
        found.append(
            Finding("design-mismatch", f"cost {stated!r}, but the added links cost {cost}")
        )
    if cost < bound:
        found.append(
            Finding(
                "design-mismatch",
                f"the links cost {cost}, below the counting bound "
                f"{bound}: the design cannot reach its target",
            )
        )
    if status is not None and status not in ("optimal", "feasible"):
        found.append(Finding("design-mismatch", f"status {status!r} is not optimal or feasible"))
    if lower is not None and (
        isinstance(lower, bool)
        or not isinstance(lower, int)
        or lower > cost
        or (status == "optimal") != (lower == cost)
    ):
        found.append(
            Finding(
                "design-mismatch",
                f"lower_bound {lower!r} with cost {cost} and "
                f"status {status!r}: optimal means the bound meets the cost",
            )
        )
    if found or lower is None:
        return found, claims
    statement = f"no design cheaper than {lower} reaches the target"
    if lower <= bound:
        claims.append(
            re_derived(
                "params.design.lower_bound",
                statement,
                f"the counting bound is {bound} (link ends each chiplet lacks)",
            )
        )
    else:
        claims.append(
            unproven(
                "params.design.lower_bound",
                statement,
                f"above the counting bound {bound}: it rests on the solver's cuts",
            )
        )
    return found, claims
