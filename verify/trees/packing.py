"""Check tree sets and whole packings against the topology, independently of the solvers.

Nothing here calls :mod:`supermesh.trees` algorithms: the checks recount everything from the
arcs (arc counting over the topology), so a wrong solver cannot vouch for itself. Each tree is
checked by :func:`~supermesh.verify.trees.arborescence.check_tree`.

A tree set is valid when every tree is valid and the trees are arc-disjoint: a specific arc
``(u, v, key)`` is used by at most one tree of the set, and a node pair ``u -> v`` with ``m``
parallel arcs is used at most ``m`` times in total. Weighted sets (a tree ``share`` below 1) are
checked for rate disjointness instead (:func:`check_rates`), and weighted packings (several trees
per root sharing its data, all at once) by
:func:`supermesh.verify.trees.rates.check_weighted_packing`.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from supermesh.trees.model import TreePacking, TreeSet
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import check_tree
from supermesh.verify.trees.certificates import check_certificate
from supermesh.verify.trees.heights import check_height_claim
from supermesh.verify.trees.rates import check_weighted_packing, is_weighted_packing

__all__ = ["check_disjoint", "check_packing", "check_rates"]

Arc = tuple[int, int, int]
_EPS = 1e-9


def _arc_text(a: Arc) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def check_disjoint(
    G: nx.MultiDiGraph, tree_set: TreeSet, *, set_index: int | None = None
) -> list[Finding]:
    """Check that the trees of one set are arc-disjoint, counting parallel arcs.

    A specific arc ``(u, v, key)`` may be used by one tree only (``arc-overused``); the pair
    ``u -> v`` with ``m`` parallel arcs may be used ``m`` times in total (``pair-overused``).
    Arcs missing from ``G`` are left to :func:`~supermesh.verify.trees.arborescence.check_tree`.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    tree_set : TreeSet
    set_index : int, optional
        Named in the findings.

    Returns
    -------
    list of Finding
        ``arc-overused`` and ``pair-overused`` errors.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree
    >>> G = build("smbi:2x2")  # every link doubled: two trees may share each direction
    >>> a = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> b = Tree(root=0, arcs=((0, 1, 1), (0, 2, 1), (1, 3, 1)), height=2)
    >>> check_disjoint(G, TreeSet((a, b)))
    []
    >>> [f.code for f in check_disjoint(G, TreeSet((a, a)))]
    ['arc-overused', 'arc-overused', 'arc-overused']
    """
    users: dict[Arc, list[int]] = defaultdict(list)
    for j, t in enumerate(tree_set.trees):
        for a in sorted(set(t.arcs)):
            users[a].append(j)
    prefix = f"set {set_index}: " if set_index is not None else ""
    found: list[Finding] = []
    pair_users: dict[tuple[int, int], list[int]] = defaultdict(list)
    for a, js in sorted(users.items()):
        pair_users[(a[0], a[1])].extend(js)
        if len(js) > 1:
            m = G.number_of_edges(a[0], a[1]) if a[0] in G and a[1] in G else 0
            hint = (
                f"; {a[0]}->{a[1]} has {m} parallel arcs, give each tree its own key"
                if m > 1
                else ""
            )
            found.append(
                Finding(
                    "arc-overused",
                    f"{prefix}arc {_arc_text(a)} is used by trees {', '.join(map(str, js))}{hint}",
                    set=set_index,
                    tree=js[1],
                    arc=a,
                )
            )
    for (u, v), js in sorted(pair_users.items()):
        m = G.number_of_edges(u, v) if u in G and v in G else 0
        if m and len(js) > m:
            found.append(
                Finding(
                    "pair-overused",
                    f"{prefix}{u}->{v} has {m} parallel arc(s) but trees "
                    f"{', '.join(map(str, js))} use it {len(js)} times",
                    set=set_index,
                    tree=js[m],
                    arc=(u, v, 0),
                )
            )
    return found


def check_rates(
    G: nx.MultiDiGraph, tree_set: TreeSet, *, set_index: int | None = None
) -> list[Finding]:
    """Check rate disjointness of a weighted set: shares per node pair fit its parallel arcs.

    Each tree carries ``share`` (0 < share <= 1) of a link's rate on every arc it uses; the
    shares on a pair ``u -> v`` must add up to at most its number of parallel arcs.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    tree_set : TreeSet
    set_index : int, optional
        Named in the findings.

    Returns
    -------
    list of Finding
        ``rate-overused`` errors.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree
    >>> G = build("mesh:2x2")
    >>> half = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2, share=0.5)
    >>> check_rates(G, TreeSet((half, half)))
    []
    >>> [f.code for f in check_rates(G, TreeSet((half, half, half)))]
    ['rate-overused', 'rate-overused', 'rate-overused']
    """
    prefix = f"set {set_index}: " if set_index is not None else ""
    found: list[Finding] = []
    load: dict[tuple[int, int], float] = defaultdict(float)
    for j, t in enumerate(tree_set.trees):
        if not (0.0 < t.share <= 1.0 + _EPS):
            found.append(
                Finding(
                    "bad-share",
                    f"{prefix}tree {j} has share {t.share}, not in (0, 1]",
                    set=set_index,
                    tree=j,
                )
            )
        for a in set(t.arcs):
            load[(a[0], a[1])] += t.share
    for (u, v), total in sorted(load.items()):
        m = G.number_of_edges(u, v) if u in G and v in G else 0
        if m and total > m + _EPS:
            found.append(
                Finding(
                    "rate-overused",
                    f"{prefix}shares on {u}->{v} add up to {total:g} but it has {m} arc(s)",
                    set=set_index,
                    arc=(u, v, 0),
                )
            )
    return found


def _status_findings(packing: TreePacking) -> list[Finding]:
    found: list[Finding] = []
    trees = packing.trees
    if packing.status == "infeasible":
        if trees:
            found.append(
                Finding("trees-when-infeasible", "status is infeasible but trees are given")
            )
        if packing.objective is not None:
            found.append(
                Finding(
                    "objective-mismatch",
                    f"status is infeasible but objective is "
                    f"{packing.objective}: there is no tree to be that tall",
                )
            )
        if packing.certificate is None:
            found.append(
                Finding("certificate-missing", "status is infeasible but there is no certificate")
            )
        return found
    if not trees:
        found.append(Finding("no-trees", f"status is {packing.status} but no tree is given"))
        return found
    height = max(t.height for t in trees)
    if packing.objective != height:
        found.append(
            Finding(
                "objective-mismatch",
                f"objective {packing.objective} is not the largest claimed tree height {height}",
            )
        )
    if packing.status == "optimal" and (
        packing.lower_bound is None or packing.lower_bound != packing.objective
    ):
        found.append(
            Finding(
                "optimal-without-proof",
                f"status optimal needs lower_bound == objective, got lower_bound "
                f"{packing.lower_bound} and objective {packing.objective}",
            )
        )
    return found


def check_packing(G: nx.MultiDiGraph, packing: TreePacking) -> list[Finding]:
    """Check a whole solver answer: every tree, disjointness per set, status, bounds, certificate.

    Runs :func:`~supermesh.verify.trees.arborescence.check_tree` on every tree,
    :func:`check_disjoint` on every set (or
    :func:`check_rates` for a set with a share below 1; a weighted packing, see
    :func:`~supermesh.verify.trees.rates.is_weighted_packing`, goes to
    :func:`~supermesh.verify.trees.rates.check_weighted_packing` instead), checks the status is
    consistent (``optimal`` / ``feasible`` have trees and ``objective`` is their largest height;
    ``optimal`` has ``lower_bound == objective``; ``infeasible`` has no trees and a certificate),
    re-checks the certificate when there is one
    (:func:`~supermesh.verify.trees.certificates.check_certificate`) and the height claims against
    recomputed eccentricities (:func:`~supermesh.verify.trees.heights.check_height_claim`).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking

    Returns
    -------
    list of Finding
        Every error and warning; empty for a valid answer.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,), 2),), 2, 2)
    >>> check_packing(G, p)
    []
    """
    found: list[Finding] = []
    weighted = is_weighted_packing(G, packing)  # all trees at once, shares of each root's data
    if weighted:
        found += check_weighted_packing(G, packing)
    for i, s in enumerate(() if weighted else packing.sets):
        for j, t in enumerate(s.trees):
            found += check_tree(
                G, t, direction=packing.direction, span=packing.span, index=j, set_index=i
            )
        if all(abs(t.share - 1.0) <= _EPS for t in s.trees):
            found += check_disjoint(G, s, set_index=i)
        else:
            found += check_rates(G, s, set_index=i)
    found += _status_findings(packing)
    if packing.certificate is not None:
        found += check_certificate(G, packing)
    found += check_height_claim(G, packing)
    return found
