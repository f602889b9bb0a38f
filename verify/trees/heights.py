"""Check claimed heights and quoted lower bounds against recomputed root eccentricities.

A tree rooted at ``r`` that reaches every span node is at least as high as ``r``'s eccentricity
over the span (its largest hop distance to a span node; for in-trees, from one). That bound is
recomputed here by breadth-first search over the topology, not taken from the solver, and every
claimed height and quoted lower bound of a packing is held against it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.model import TreePacking
from supermesh.verify.findings import Finding
from supermesh.verify.trees.arborescence import span_nodes

__all__ = ["check_eccentricity_certificate", "check_height_claim", "eccentricity"]


def eccentricity(
    G: nx.MultiDiGraph,
    root: int,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> int | None:
    """Largest hop distance from ``root`` to a span node (``"in"``: from a span node to root).

    Breadth-first search; ``None`` if some span node cannot be reached at all. Any tree rooted at
    ``root`` that reaches the span has at least this height.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    root : int
    direction : {"out", "in"}
    span : iterable of int, optional
        Default: every compute chiplet.

    Returns
    -------
    int or None

    Raises
    ------
    SupermeshError
        On another direction.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> eccentricity(build("mesh:4x4"), 0), eccentricity(build("mesh:4x4"), 5)
    (6, 4)
    """
    if direction not in ("out", "in"):
        raise SupermeshError(f"direction {direction!r} is not 'out' or 'in'")
    step = G.successors if direction == "out" else G.predecessors
    dist = {root: 0}
    queue = deque([root])
    while queue:
        n = queue.popleft()
        for m in step(n):
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    targets = {n for n in span_nodes(G, span) if n in G}  # absent nodes: check_tree reports them
    if not targets <= dist.keys():
        return None
    return max((dist[n] for n in targets), default=0)


def check_height_claim(G: nx.MultiDiGraph, packing: TreePacking) -> list[Finding]:
    """Check claimed heights and quoted lower bounds against recomputed root eccentricities.

    For every set and for the whole packing: the claimed height is at least the quoted lower
    bound (``bound-above-objective``) and at least the largest root eccentricity over the span
    (``height-below-eccentricity``: no tree can be lower); a quoted lower bound below that
    eccentricity is valid but weaker than the trivial bound (``weak-lower-bound``, a warning);
    a span node no root reaches is ``unreachable``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking

    Returns
    -------
    list of Finding
        Errors and ``weak-lower-bound`` warnings.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,), 1),), 1, 2)
    >>> [f.code for f in check_height_claim(build("mesh:2x2"), p)]
    ['weak-lower-bound', 'weak-lower-bound']
    """
    found: list[Finding] = []
    if packing.status == "infeasible":
        return found
    overall = 0
    for i, s in enumerate(packing.sets):
        ecc = 0
        for j, t in enumerate(s.trees):
            if t.root not in G:
                continue  # reported by check_tree
            e = eccentricity(G, t.root, direction=packing.direction, span=packing.span)
            if e is None:
                found.append(
                    Finding(
                        "unreachable",
                        f"set {i} tree {j}: some span node cannot be connected to root {t.root} "
                        "by any path",
                        set=i,
                        tree=j,
                        node=t.root,
                    )
                )
                continue
            ecc = max(ecc, e)
            if t.height < e:
                found.append(
                    Finding(
                        "height-below-eccentricity",
                        f"set {i} tree {j}: claimed height {t.height} is below root {t.root}'s "
                        f"eccentricity {e}",
                        set=i,
                        tree=j,
                    )
                )
        overall = max(overall, ecc)
        found += _bound(s.lower_bound, s.height if s.trees else None, ecc, f"set {i}", i)
    found += _bound(packing.lower_bound, packing.objective, overall, "packing", None)
    if packing.objective is not None and packing.objective < overall:
        found.append(
            Finding(
                "height-below-eccentricity",
                f"packing: objective {packing.objective} is below the largest root eccentricity "
                f"{overall}",
            )
        )
    return found


def _bound(
    lower: int | None, claimed: int | None, ecc: int, where: str, set_index: int | None
) -> list[Finding]:
    found = []
    if lower is not None and claimed is not None and lower > claimed:
        found.append(
            Finding(
                "bound-above-objective",
                f"{where}: lower bound {lower} is above the claimed height {claimed}",
                set=set_index,
            )
        )
    if lower is not None and lower < ecc:
        found.append(
            Finding(
                "weak-lower-bound",
                f"{where}: quoted lower bound {lower} is below the root eccentricity {ecc}",
                severity="warning",
                set=set_index,
            )
        )
    return found


def _stated_int(cert: dict[str, Any], name: str) -> int | None:
    value = cert.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_eccentricity_certificate(
    G: nx.MultiDiGraph,
    cert: dict[str, Any],
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> list[Finding]:
    """Check an eccentricity certificate: a height cap below a root's distance to a span node.

    Such a certificate (``kind: "eccentricity"``) rules out every tree rooted at ``root`` of
    height at most ``max_height``, since ``node`` (which the trees must reach) lies ``distance``
    hops away; the distance is recomputed by breadth-first search.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    cert : dict
        The certificate: ``root``, ``node``, ``distance``, ``max_height``.
    direction : {"out", "in"}
    span : iterable of int, optional
        The nodes the trees must reach (default: every compute chiplet).

    Returns
    -------
    list of Finding
        ``certificate-malformed`` or ``certificate-invalid`` errors; empty when it proves
        what it says.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> cert = {"kind": "eccentricity", "root": 0, "node": 15, "distance": 6, "max_height": 5}
    >>> check_eccentricity_certificate(build("mesh:4x4"), cert)
    []
    >>> G = build("mesh:4x4")
    >>> [f.code for f in check_eccentricity_certificate(G, cert | {"max_height": 6})]
    ['certificate-invalid']
    """
    root, node = _stated_int(cert, "root"), _stated_int(cert, "node")
    distance, cap = _stated_int(cert, "distance"), _stated_int(cert, "max_height")
    if root is None or node is None or distance is None or cap is None:
        msg = "an eccentricity certificate needs 'root', 'node', 'distance', 'max_height'"
        return [Finding("certificate-malformed", f"certificate: {msg}")]
    if root not in G or node not in G:
        missing = root if root not in G else node
        return [
            Finding(
                "certificate-malformed", f"certificate: names node {missing}, not in the topology"
            )
        ]
    if node not in span_nodes(G, span):
        return [
            Finding(
                "certificate-malformed", f"certificate: node {node} is not one the trees must reach"
            )
        ]
    step = G.successors if direction == "out" else G.predecessors
    dist = {root: 0}
    queue = deque([root])
    while queue:
        n = queue.popleft()
        for m in step(n):
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    true = dist.get(node)
    found: list[Finding] = []
    if true != distance:
        found.append(
            Finding(
                "certificate-invalid",
                f"certificate: states distance {distance} from {root} to {node}, the true one "
                f"is {true}",
            )
        )
    if true is not None and true <= cap:
        found.append(
            Finding(
                "certificate-invalid",
                f"certificate: node {node} is {true} hops from root {root}, within max height "
                f"{cap}",
            )
        )
    return found
