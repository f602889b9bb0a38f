"""The claims of a tree file, re-derived where verify can and marked unproven where it cannot.

A packing claims more than its trees: ``lower_bound`` (no packing with these roots has a lower
tallest tree), each set's ``lower_bound``, ``status`` ``optimal`` (the tallest tree meets a proven
bound; for root sets, the sum of the set heights meets ``stats.total_lower_bound``; for weighted
packings, also that the rate is the cut bound) and ``infeasible`` (its certificate). What verify
can re-derive here, from the topology and the file alone:

eccentricity
    every tree rooted at ``r`` that reaches the span is at least as tall as ``r``'s eccentricity
    (breadth-first search over the topology), so a bound at most the largest root eccentricity
    of a set is re-derived; so is ``optimal`` when the tallest tree meets it.
the partition bound (root sets)
    the ``j``-th lowest set of any partition of the chiplets into sets of ``k`` roots is at least
    the smallest ``t`` such that ``j`` sets fit among the chiplets of eccentricity at most ``t``
    (the smaller last set first); their sum bounds the total from below.
certificates
    an Edmonds cut, a Frank subpartition, a height cap below a root's distance (recounted by
    :mod:`~supermesh.verify.trees.certificates`), a root-set degree argument, a small cut family
    (by enumerating root vectors).

A bound above these (a CP-SAT proof, LP duality) and a certificate of kind ``solver`` are
*unproven*: reported as ``claim-unproven`` warnings, never accepted silently.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from supermesh.trees.model import TreePacking
from supermesh.verify.claims import Claim, re_derived, unproven
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import span_nodes
from supermesh.verify.trees.families import check_cut_family
from supermesh.verify.trees.heights import eccentricity

__all__ = ["partition_bound", "root_eccentricities", "tree_file_claims"]


def root_eccentricities(G: nx.MultiDiGraph, packing: TreePacking) -> dict[int, int | None]:
    """Root -> its eccentricity over the packing's span (``None``: some span node unreachable).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking

    Returns
    -------
    dict
        Root -> eccentricity or ``None``.

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> from supermesh.topologies import build
    >>> root_eccentricities(build("smbi:4x4"), smbi_corner_trees(4))
    {0: 6, 3: 6, 15: 6, 12: 6}
    """
    out: dict[int, int | None] = {}
    for t in packing.trees:
        if t.root not in out and t.root in G:
            out[t.root] = eccentricity(G, t.root, direction=packing.direction, span=packing.span)
    return out


def partition_bound(ecc: Sequence[int], k: int) -> int:
    """Lower bound on the sum of set heights of any partition of ``ecc``'s roots into sets of k.

    The sets have ``k`` roots but one, which has ``len(ecc) % k`` when that is not 0. At most
    ``c(t)`` sets can have height ``<= t``: as many as fit among the roots of eccentricity
    ``<= t`` (the smaller set first); so the ``j``-th lowest set is at least the smallest ``t``
    with ``c(t) >= j``, and the bound is the sum over ``j``.

    Parameters
    ----------
    ecc : sequence of int
        The roots' eccentricities.
    k : int
        Roots per set.

    Returns
    -------
    int

    Examples
    --------
    >>> partition_bound([6, 5, 5, 5, 5, 4, 4, 4, 4, 6], 4)  # sets of 4, 4, 2: 4 + 5 + 6
    15
    """
    n = len(ecc)
    if not n or k < 1:
        return 0
    full, rest = divmod(n, k)
    count = full + (rest > 0)
    total = 0
    for j in range(1, count + 1):
        for t in sorted(set(ecc)):
            pool = sum(1 for e in ecc if e <= t)
            fits = (1 + (pool - rest) // k) if rest and pool >= rest else pool // k
            if min(fits, count) >= j:
                total += t
                break
    return total


def _bound_claim(
    field: str, lower: int | None, claimed: int | None, ecc: int | None, root: int | None
) -> Claim | None:
    """The verdict on a quoted lower bound (None: no claim, or one already contradicted)."""
    if lower is None or (claimed is not None and lower > claimed):
        return None
    statement = f"no tree set with these roots has a tallest tree below {lower}"
    if ecc is not None and lower <= ecc:
        return re_derived(
            field,
            statement,
            f"root {root} has eccentricity {ecc} over the span: no tree rooted there is lower",
        )
    above = "" if ecc is None else f" above the eccentricity bound {ecc}"
    return unproven(field, statement, f"a bound{above} rests on the solver's proof")


def _largest(ecc: dict[int, int | None], roots: Sequence[int]) -> tuple[int | None, int | None]:
    known = [(e, r) for r in roots if (e := ecc.get(r)) is not None]
    if not known or len(known) < len(roots):
        return None, None
    e, r = max(known, key=lambda x: (x[0], -x[1]))
    return e, r


def _height_claims(G: nx.MultiDiGraph, packing: TreePacking) -> list[Claim]:
    ecc = root_eccentricities(G, packing)
    claims: list[Claim] = []
    overall: tuple[int | None, int | None] = (None, None)
    for i, s in enumerate(packing.sets):
        e, r = _largest(ecc, s.roots)
        if e is not None and (overall[0] is None or e > overall[0]):
            overall = (e, r)
        c = _bound_claim(
            f"sets[{i}].lower_bound", s.lower_bound, s.height if s.trees else None, e, r
        )
        if c is not None and not (len(packing.sets) == 1 and s.lower_bound == packing.lower_bound):
            claims.append(c)
    if packing.sets and any(ecc.get(t.root) is None for t in packing.trees):
        overall = (None, None)
    if not packing.trees:  # infeasible: the roots are the ranks (weighted) or in the certificate
        overall = _infeasible_bound(G, packing)
    c = _bound_claim("lower_bound", packing.lower_bound, packing.objective, *overall)
    if c is not None:
        claims.append(c)
    return claims


def _infeasible_bound(G: nx.MultiDiGraph, packing: TreePacking) -> tuple[int | None, int | None]:
    """A height every tree of an infeasible request needs: (bound, root) or (None, None)."""
    cert = packing.certificate if isinstance(packing.certificate, dict) else {}
    if packing.method == "colgen" or "algbw_links" in packing.stats or "optimum" in packing.stats:
        known = []
        for r in span_nodes(G, packing.span):  # every rank roots a tree
            e = eccentricity(G, r, direction=packing.direction, span=packing.span)
            if e is None:
                return None, None
            known.append((e, -r))
        if known:
            e, r = max(known)
            return e, -r
    root = cert.get("root")
    if cert.get("kind") == "eccentricity" and isinstance(root, int) and root in G:
        e = eccentricity(G, root, direction=packing.direction, span=packing.span)
        return e, root
    return None, None


def _status_claim(packing: TreePacking, claims: list[Claim]) -> list[Claim]:
    if packing.status != "optimal" or packing.method.startswith("root-sets:"):
        return []
    if packing.lower_bound is None or packing.lower_bound != packing.objective:
        return []  # contradicted: optimal-without-proof
    bound = next((c for c in claims if c.field == "lower_bound"), None)
    statement = f"a tallest tree of {packing.objective} is optimal"
    if bound is not None and bound.verdict == "re-derived":
        return [re_derived("status", statement, f"it meets the lower bound: {bound.argument}")]
    return [unproven("status", statement, f"it meets lower_bound {packing.lower_bound}, unproven")]


def _root_set_claims(G: nx.MultiDiGraph, packing: TreePacking) -> tuple[list[Finding], list[Claim]]:
    """Root sets: every span node roots one tree; the partition bound and the status."""
    found: list[Finding] = []
    claims: list[Claim] = []
    span = span_nodes(G, packing.span)
    roots = [t.root for t in packing.trees]
    twice = sorted({r for r in roots if roots.count(r) > 1})
    missing = sorted(set(span) - set(roots))
    if twice or missing:
        found.append(
            Finding(
                "root-sets-partition",
                "root sets must give every chiplet exactly one tree: "
                + (f"{twice[:8]} root several" if twice else "")
                + ("; " if twice and missing else "")
                + (f"{missing[:8]} root none" if missing else ""),
            )
        )
        return found, claims
    ecc = root_eccentricities(G, packing)
    known = [e for r in roots if (e := ecc.get(r)) is not None]
    k = max(len(s.trees) for s in packing.sets)
    total = sum(s.height for s in packing.sets)
    lower = packing.stats.get("total_lower_bound")
    status = packing.stats.get("set_status")
    if packing.status == "optimal" and (
        lower != total or not (isinstance(status, list) and all(x == "optimal" for x in status))
    ):
        found.append(
            Finding(
                "optimal-without-proof",
                f"root sets called optimal need stats.total_lower_bound = the total {total} and "
                f"every stats.set_status optimal (they are {lower!r} and {status!r})",
            )
        )
    if not isinstance(lower, int) or isinstance(lower, bool) or len(known) < len(roots):
        return found, claims
    bound = partition_bound(known, k)
    statement = f"no partition into sets of {k} roots has a total set height below {lower}"
    if lower > total:
        return found, claims  # contradicted: reported with the stats
    if lower <= bound:
        claims.append(
            re_derived(
                "stats.total_lower_bound",
                statement,
                f"the root eccentricities allow no partition below {bound} (partition bound)",
            )
        )
    else:
        claims.append(
            unproven(
                "stats.total_lower_bound",
                statement,
                f"above the partition bound {bound} of the root eccentricities: it rests on the "
                "sets' solver bounds",
            )
        )
    if packing.status == "optimal" and lower == total:
        verdict = claims[-1].verdict
        make = re_derived if verdict == "re-derived" else unproven
        claims.append(
            make(
                "status",
                f"the total set height {total} is optimal",
                "it meets stats.total_lower_bound"
                + ("" if verdict == "re-derived" else " (unproven)"),
            )
        )
    return found, claims


def _infeasible_claims(G: nx.MultiDiGraph, packing: TreePacking, errors: bool) -> list[Claim]:
    cert = packing.certificate
    if not isinstance(cert, dict) or errors:
        return []
    kind = cert.get("kind")
    if kind == "solver":
        return [
            unproven(
                "certificate",
                f"no packing of height <= {cert.get('max_height')} exists",
                f"it rests on {cert.get('solver', 'a solver')}'s proof, which cannot be recounted",
            )
        ]
    if kind == "cut-family":
        _, decided = check_cut_family(G, cert, direction=packing.direction, span=packing.span)
        statement = f"no {cert.get('trees')} roots meet the cut family"
        if not decided:
            return [unproven("certificate", statement, "too many root vectors to enumerate")]
        return [re_derived("certificate", statement, "every root vector enumerated")]
    if kind == "eccentricity":
        why = (
            f"node {cert.get('node')} is {cert.get('distance')} hops from root "
            f"{cert.get('root')}, beyond the height cap {cert.get('max_height')} (BFS)"
        )
    elif kind == "root-sets":
        why = (
            f"chiplet {cert.get('set')} has {cert.get('entering_arcs')} arcs in, fewer than "
            f"{cert.get('required')}, so it would root a tree in each of the "
            f"{cert.get('full_sets')} full sets"
        )
    elif "sets" in cert:
        why = (
            f"the {len(cert.get('sets') or [])} disjoint sets are entered by "
            f"{cert.get('entering_arcs')} arcs in all, fewer than {cert.get('required')} "
            "(Frank, recounted)"
        )
    else:
        shown = cert.get("set") or []
        why = (
            f"the set {shown[:8]} is entered by {cert.get('entering_arcs')} arcs, fewer than "
            f"the {cert.get('required')} trees rooted outside it (Edmonds, recounted)"
        )
    return [re_derived("certificate", "no such trees exist", why)]


def tree_file_claims(
    G: nx.MultiDiGraph, packing: TreePacking, findings: Sequence[Finding]
) -> tuple[list[Finding], list[Claim]]:
    """The claims of a packing with their verdicts, and findings about root sets.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
    findings : sequence of Finding
        What :func:`~supermesh.verify.trees.packing.check_packing` found (a certificate already
        found invalid is not re-judged).

    Returns
    -------
    (list of Finding, list of Claim)
        ``root-sets-partition`` errors; the claims (see the module docstring).

    Examples
    --------
    >>> from supermesh.testing.examples import smbi_corner_trees
    >>> from supermesh.topologies import build
    >>> _, claims = tree_file_claims(build("smbi:4x4"), smbi_corner_trees(4), [])
    >>> [(c.field, c.verdict) for c in claims]
    [('lower_bound', 're-derived'), ('status', 're-derived')]
    """
    found: list[Finding] = []
    claims = _height_claims(G, packing)
    if packing.status == "infeasible":
        bad = any(f.code.startswith("certificate") and f.is_error for f in findings)
        return found, claims + _infeasible_claims(G, packing, bad)
    claims += _status_claim(packing, claims)
    if packing.method.startswith("root-sets:") and packing.trees:
        more_found, more = _root_set_claims(G, packing)
        found += more_found
        claims += more
    return found, claims
