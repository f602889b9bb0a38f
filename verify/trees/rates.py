"""Check weighted packings: several trees per root, each with a share of its root's data.

A throughput packing (``method="colgen"``, :mod:`supermesh.trees.throughput.pack`) runs every tree
at once; a rank's trees split its data by their ``share`` (they add up to 1), and the claimed
algorithm bandwidth ``rho = stats["algbw_links"]`` (an exact fraction, in links) says how fast.
At that rate a tree of share ``s`` sends ``s rho / n`` link units (``n`` ranks), so the packing
is valid when, for every arc ``(u, v, key)`` (parallel arcs separately: a tree names the key it
uses)::

    sum over the trees using (u, v, key) of  share * rho / n  <=  bandwidth(u, v, key)

Everything is recounted here in exact fractions (no solver, no :mod:`supermesh.trees`
algorithm): every tree spans the ranks
(:func:`~supermesh.verify.trees.arborescence.check_tree`), every rank roots a tree and its shares
add up to exactly 1, the arc loads at the claimed rate fit, and the rate the shares really allow,
``min over arcs of n bandwidth / (sum of shares)``, is reported
(:func:`~supermesh.verify.trees.loads.rate_report`). When the file carries the cut that bounds
the rate (``stats["bound_certificate"]``), the cut is recounted and the claimed rate must not
exceed it; a packing called ``optimal`` must reach it.

Shares are read exactly from ``stats["shares"]`` (fraction strings, one per tree in file order)
when present, else from each tree's ``share`` (a float: then sums and loads are compared with a
relative tolerance of 1e-9).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction

import networkx as nx

from supermesh.trees.model import Tree, TreePacking
from supermesh.verify.claims import Claim, re_derived, unproven
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import check_tree, span_nodes
from supermesh.verify.trees.loads import RateReport, arc_bandwidth, exact_fraction, rate_report

__all__ = ["check_weighted_packing", "is_weighted_packing", "rate_claims"]

Arc = tuple[int, int, int]
_TOL = Fraction(1, 10**9)
_SHOWN = 8  # per-arc findings listed before a summary line


def is_weighted_packing(G: nx.MultiDiGraph, packing: TreePacking) -> bool:
    """Whether ``packing`` splits each rank's data over several trees that run at once.

    True for ``method == "colgen"``, for a packing that claims a rate
    (``stats["algbw_links"]``), and for a set in which every rank roots a tree and some root
    has several trees with shares below 1. Other sets with shares below 1 (a Broadcast from one
    root over half-rate trees, say) give each share as a fraction of a link's rate and are
    checked by :func:`~supermesh.verify.trees.packing.check_rates` instead.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking

    Returns
    -------
    bool

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(0, ((0, 1, 0),), 1, share=0.5)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t, t)),), span=(0, 1))
    >>> is_weighted_packing(build("mesh:2x2"), p)  # rank 1 roots no tree: a rate view
    False
    """
    if packing.method == "colgen" or "algbw_links" in packing.stats:
        return True
    ranks = set(span_nodes(G, packing.span))
    for s in packing.sets:
        roots = [t.root for t in s.trees]
        if (
            len(set(roots)) < len(roots)
            and any(t.share < 1.0 for t in s.trees)
            and ranks <= set(roots)
        ):
            return True
    return False


def _close(x: Fraction, y: Fraction, exact: bool) -> bool:
    return x == y if exact else abs(x - y) <= _TOL * max(Fraction(1), abs(y))


def _exceeds(x: Fraction, y: Fraction, exact: bool) -> bool:
    return x > y if exact else x > y + _TOL * max(Fraction(1), abs(y))


def _share_findings(
    packing: TreePacking, trees: Sequence[Tree], rep: RateReport, ranks: Iterable[int]
) -> list[Finding]:
    found: list[Finding] = []
    total: dict[int, Fraction] = defaultdict(Fraction)
    for j, (t, s) in enumerate(zip(trees, rep.shares, strict=True)):
        total[t.root] += s
        if not 0 < s <= 1:
            found.append(Finding("bad-share", f"tree {j} (root {t.root}) has share {s}", tree=j))
        elif rep.exact and abs(float(s) - t.share) > 1e-9:
            found.append(
                Finding(
                    "share-mismatch",
                    f"tree {j} (root {t.root}) has share {t.share:g}, stats say {s}",
                    tree=j,
                )
            )
    for r in sorted(set(ranks) - total.keys()):
        found.append(Finding("rank-without-tree", f"rank {r} roots no tree: nobody gets its data"))
    for r, x in sorted(total.items()):
        if not _close(x, Fraction(1), rep.exact):
            found.append(
                Finding(
                    "share-sum",
                    f"the shares of root {r}'s trees add up to {x} ({float(x):.6g}), not 1",
                    node=r,
                )
            )
    return found


def _load_findings(G: nx.MultiDiGraph, rep: RateReport) -> list[Finding]:
    if rep.claimed is None or rep.rate is None or not _exceeds(rep.claimed, rep.rate, rep.exact):
        return []
    over = []
    for a, x in sorted(rep.loads.items()):
        used = rep.claimed * x / rep.ranks
        if _exceeds(used, arc_bandwidth(G, a), rep.exact):
            over.append((a, used))
    found = [
        Finding(
            "rate-overused",
            f"at the claimed rate {rep.claimed} arc {a[0]}->{a[1]} key {a[2]} carries {used} "
            f"link units, more than its bandwidth {arc_bandwidth(G, a)}",
            arc=a,
        )
        for a, used in over[:_SHOWN]
    ]
    b = rep.busiest[0]
    found.append(
        Finding(
            "rate-claim-too-high",
            f"claimed rate {rep.claimed} links, but the shares allow only {rep.rate} "
            f"({float(rep.rate):.6g}; busiest arc {b[0]}->{b[1]} key {b[2]}); "
            f"{len(over)} arc(s) overloaded",
            arc=b,
        )
    )
    return found


def _bound_findings(G: nx.MultiDiGraph, packing: TreePacking, rep: RateReport) -> list[Finding]:
    cert = packing.stats.get("bound_certificate")
    optimum = exact_fraction(packing.stats.get("optimum"))
    if not isinstance(cert, dict) or optimum is None:
        return []
    inside = cert.get("set")
    if not isinstance(inside, list) or not inside:
        return [Finding("certificate-malformed", "stats.bound_certificate has no node set")]
    extra = sorted(set(cert) - {"set", "direction", "bandwidth", "arcs", "ranks", "ranks_outside"})
    if extra:
        return [
            Finding(
                "unknown-field",
                f"stats.bound_certificate: field {extra[0]!r} is not part of the format",
            )
        ]
    side = set(inside)
    leaving = cert.get("direction") == "leaving"
    crossing = Fraction(0)
    for u, v, k in G.edges(keys=True):  # arcs leaving the set (ReduceScatter) or entering it
        if (u in side) != (v in side) and (u in side) == leaving:
            crossing += arc_bandwidth(G, (u, v, k))
    ranks = span_nodes(G, packing.span)
    outside = sum(1 for r in ranks if r not in side)
    valid = 0 < outside < len(ranks)  # the set holds a rank and misses one
    value = len(ranks) * crossing / outside if valid else None
    found: list[Finding] = []
    arcs = sum(1 for u, v in G.edges() if (u in side) != (v in side) and (u in side) == leaving)
    stated = {
        "bandwidth": exact_fraction(cert.get("bandwidth")),
        "arcs": cert.get("arcs"),
        "ranks": cert.get("ranks"),
        "ranks_outside": cert.get("ranks_outside"),
        "direction": cert.get("direction"),
    }
    true = {
        "bandwidth": crossing,
        "arcs": arcs,
        "ranks": len(ranks),
        "ranks_outside": outside,
        "direction": "entering" if packing.direction == "out" else "leaving",
    }
    for name, want in true.items():
        if name in cert and stated[name] != want:
            found.append(
                Finding(
                    "certificate-invalid",
                    f"stats.bound_certificate states {name} {cert.get(name)!r}, the recount "
                    f"gives {want if not isinstance(want, Fraction) else str(want)!r}",
                )
            )
    if found:
        return found
    if value != optimum:
        found.append(
            Finding(
                "certificate-invalid",
                f"the cut of stats.bound_certificate gives {value}, not the optimum {optimum} "
                f"({'leaving' if leaving else 'entering'} bandwidth {crossing}, "
                f"{outside} of {len(ranks)} ranks outside)",
            )
        )
        return found
    if rep.claimed is not None and rep.claimed > optimum:
        found.append(
            Finding(
                "rate-above-bound",
                f"claimed rate {rep.claimed} exceeds the cut bound {optimum} of its certificate",
            )
        )
    if packing.status == "optimal" and rep.claimed is not None and rep.claimed < optimum:
        found.append(
            Finding(
                "optimal-rate-gap",
                f"status optimal but the claimed rate {rep.claimed} is below the bound {optimum}",
            )
        )
    return found


def rate_claims(G: nx.MultiDiGraph, packing: TreePacking, rep: RateReport) -> list[Claim]:
    """The rate claims of a weighted packing that verify re-derived (the rest are errors).

    ``stats.algbw_links``: the shares allow at least that rate (loads recounted in exact
    fractions); ``stats.optimum``: no packing is faster (the cut of ``stats.bound_certificate``
    recounted). A claim contradicted by the recount is an error of
    :func:`check_weighted_packing`, not a claim.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking
    rep : RateReport
        Its recount (:func:`~supermesh.verify.trees.loads.rate_report`).

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> G = build("mesh:2x2")
    >>> a, b = Tree(0, ((0, 1, 0),), 1, share=0.5), Tree(1, ((1, 0, 0),), 1, share=1.0)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a, a, b)),), span=(0, 1),
    ...                 stats={"algbw_links": "2"})
    >>> [c.field for c in rate_claims(G, p, rate_report(G, p))]
    ['stats.algbw_links']
    """
    claims: list[Claim] = []
    if rep.claimed is not None and rep.rate is not None and 0 < rep.claimed <= rep.rate:
        claims.append(
            re_derived(
                "stats.algbw_links",
                f"the trees reach an algorithm bandwidth of {rep.claimed} links",
                f"the shares allow {rep.rate}: every arc's load recounted in exact fractions",
            )
        )
    raw = packing.stats.get("optimum")
    optimum = exact_fraction(raw)
    if optimum is None or optimum <= 0:
        return claims  # a malformed optimum is an error of check_weighted_packing
    statement = f"no packing is faster than {optimum} links"
    if not isinstance(packing.stats.get("bound_certificate"), dict):
        claims.append(unproven("stats.optimum", statement, "no stats.bound_certificate to recount"))
    elif not _bound_findings(G, packing, rep):
        claims.append(
            re_derived("stats.optimum", statement, "the cut of stats.bound_certificate, recounted")
        )
    return claims


def check_weighted_packing(G: nx.MultiDiGraph, packing: TreePacking) -> list[Finding]:
    """Check a weighted packing: trees, shares, loads at the claimed rate, the cut bound.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking
        Every tree of every set runs at once (see the module docstring).

    Returns
    -------
    list of Finding
        Empty when valid. Codes: those of
        :func:`~supermesh.verify.trees.arborescence.check_tree`, and ``bad-share``,
        ``share-mismatch``, ``share-sum``, ``rank-without-tree``,
        ``rate-overused`` (an arc over its bandwidth at the claimed rate),
        ``rate-claim-too-high`` (with the rate the shares allow), ``rate-unclaimed``
        (warning), ``certificate-malformed``, ``certificate-invalid``, ``rate-above-bound``,
        ``optimal-rate-gap``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> G = build("mesh:2x2")
    >>> a, b = Tree(0, ((0, 1, 0),), 1, share=0.5), Tree(1, ((1, 0, 0),), 1, share=1.0)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a, a, b)),), span=(0, 1),
    ...                 stats={"algbw_links": "2"})
    >>> check_weighted_packing(G, p)
    []
    >>> p.stats["algbw_links"] = "3"
    >>> [f.code for f in check_weighted_packing(G, p)]
    ['rate-overused', 'rate-overused', 'rate-claim-too-high']
    """
    found: list[Finding] = []
    for i, s in enumerate(packing.sets):
        for j, t in enumerate(s.trees):
            found += check_tree(
                G, t, direction=packing.direction, span=packing.span, index=j, set_index=i
            )
    if not packing.trees:  # an infeasible answer: its status and certificate are checked
        return found  # by check_packing
    rep = rate_report(G, packing)
    raw = packing.stats.get("shares")
    if raw is not None and not rep.exact:
        found.append(
            Finding(
                "share-mismatch",
                f"stats.shares must list one fraction per tree ({len(packing.trees)} trees), "
                f"not {str(raw)[:60]}",
            )
        )
    found += _share_findings(packing, packing.trees, rep, span_nodes(G, packing.span))
    if "algbw_links" in packing.stats and (rep.claimed is None or rep.claimed <= 0):
        found.append(
            Finding(
                "bad-field",
                f"stats.algbw_links is {str(packing.stats['algbw_links'])[:40]!r}, not a positive "
                "fraction of link bandwidths",
            )
        )
    elif rep.claimed is None:
        found.append(
            Finding(
                "rate-unclaimed",
                f"stats.algbw_links is missing; the shares allow {rep.rate} links",
                severity="warning",
            )
        )
    raw = packing.stats.get("optimum")
    if raw is not None and ((opt := exact_fraction(raw)) is None or opt <= 0):
        found.append(Finding("bad-field", f"stats.optimum is {str(raw)[:40]!r}, not a fraction"))
    if packing.status == "optimal" and (raw is None or rep.claimed is None):
        found.append(
            Finding(
                "optimal-rate-gap",
                "status optimal, but the file does not state its rate (stats.algbw_links) and "
                "the cut bound (stats.optimum with stats.bound_certificate) it meets",
            )
        )
    found += _load_findings(G, rep)
    found += _bound_findings(G, packing, rep)
    return found
