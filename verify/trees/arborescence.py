"""Check one tree against the topology: an arborescence rooted where it claims, with its height.

Nothing here calls :mod:`supermesh.trees` algorithms: the check recounts everything from the
arcs (breadth-first search over the tree's own arcs, arc counting over the topology), so a wrong
solver cannot vouch for itself.

What a valid tree is (``direction="out"``: arcs parent -> child; ``"in"``: child -> parent)
    every arc exists in the topology with that key; no arc is listed twice; every node has at
    most one parent arc; the root has none; every span node (default: every compute chiplet) is
    reached from the root along the arcs (``out``) or reaches the root (``in``); no cycle; the
    claimed height equals the longest root-leaf path. Relays (nodes outside the span) are
    allowed. A relay that is a leaf carries nothing anyone needs: it is reported as a
    ``relay-leaf`` *warning*, not an error, because the tree is still correct.

Sets of trees and whole packings are checked by :mod:`supermesh.verify.trees.packing`.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Iterable

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.model import Tree
from supermesh.verify.findings import Finding

__all__ = ["check_tree", "span_nodes"]

Arc = tuple[int, int, int]


def span_nodes(G: nx.MultiDiGraph, span: Iterable[int] | None = None) -> list[int]:
    """The nodes a tree must reach: ``span`` if given, else every compute chiplet.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    span : iterable of int, optional

    Returns
    -------
    list of int
        Ascending.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> len(span_nodes(build("mesh:2x2,memory=south")))
    4
    """
    if span is not None:
        return sorted(set(span))
    return sorted(n for n, kind in G.nodes(data="kind") if kind == "compute")


def _label(set_index: int | None, index: int | None, root: int | None = None) -> str:
    parts = []
    if set_index is not None:
        parts.append(f"set {set_index}")
    parts.append(f"tree {index}" if index is not None else "tree")
    if root is not None:
        parts.append(f"(root {root})")
    return " ".join(parts)


def _arc_text(a: Arc) -> str:
    return f"{a[0]}->{a[1]} key {a[2]}"


def _check_direction(direction: str) -> None:
    if direction not in ("out", "in"):
        raise SupermeshError(f"direction {direction!r} is not 'out' or 'in'")


def check_tree(
    G: nx.MultiDiGraph,
    tree: Tree,
    *,
    direction: str,
    span: Iterable[int] | None = None,
    index: int | None = None,
    set_index: int | None = None,
) -> list[Finding]:
    """Check that ``tree`` is an arborescence of ``G`` rooted where it claims, with its height.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    tree : Tree
        The tree; its arcs are the arcs the data travel on (see :mod:`supermesh.trees.model`).
    direction : {"out", "in"}
        ``"out"``: arcs point parent -> child; ``"in"``: child -> parent.
    span : iterable of int, optional
        Nodes the tree must reach; default every compute chiplet. Other nodes may relay.
    index, set_index : int, optional
        Tree and set indices, used in the findings.

    Returns
    -------
    list of Finding
        Empty if the tree is valid (warnings such as ``relay-leaf`` may still appear). The height
        is only compared when the arcs form a tree (no node with two parents).

    Raises
    ------
    SupermeshError
        If ``direction`` is not ``"out"`` or ``"in"``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> check_tree(G, t, direction="out")
    []
    >>> [f.code for f in check_tree(G, Tree(root=0, arcs=((0, 1, 0),), height=1), direction="out")]
    ['not-spanning', 'not-spanning']
    """
    _check_direction(direction)
    where = _label(set_index, index, tree.root)
    spec = G.graph.get("spec") or "the topology"
    found: list[Finding] = []

    def add(
        code: str,
        msg: str,
        *,
        arc: Arc | None = None,
        node: int | None = None,
        severity: str = "error",
    ) -> None:
        found.append(
            Finding(
                code,
                f"{where}: {msg}",
                severity=severity,
                set=set_index,
                tree=index,
                arc=arc,
                node=node,
            )
        )

    targets = span_nodes(G, span)
    for n in targets:
        if n not in G:
            add("node-out-of-range", f"span node {n} does not exist in {spec}", node=n)
    targets = [n for n in targets if n in G]

    usable: list[Arc] = []
    for a, count in sorted(Counter(tree.arcs).items()):
        u, v, k = a
        if count > 1:
            add("arc-repeated", f"arc {_arc_text(a)} is listed {count} times", arc=a)
        if u not in G or v not in G:
            bad = u if u not in G else v
            add(
                "arc-missing",
                f"arc {_arc_text(a)} names node {bad}, which does not exist in {spec}"
                f" (ids 0..{G.number_of_nodes() - 1})",
                arc=a,
                node=bad,
            )
            continue
        if not G.has_edge(u, v, k):
            keys = sorted(G[u][v]) if G.has_edge(u, v) else []
            add(
                "arc-missing",
                f"arc {_arc_text(a)} does not exist in {spec}"
                + (f" ({u}->{v} has keys {keys})" if keys else f" (no link {u}->{v})"),
                arc=a,
            )
        usable.append(a)

    if tree.root not in G:
        add("root-missing", f"root {tree.root} does not exist in {spec}", node=tree.root)
        return found

    # data direction -> (parent, child) for both directions
    parent_arcs: dict[int, list[Arc]] = defaultdict(list)
    children: dict[int, list[int]] = defaultdict(list)
    for a in usable:
        parent, child = (a[0], a[1]) if direction == "out" else (a[1], a[0])
        parent_arcs[child].append(a)
        children[parent].append(child)
    structural = False
    for child, pas in sorted(parent_arcs.items()):
        if child == tree.root:
            structural = True
            add("root-has-parent", f"root {child} has a parent arc {_arc_text(pas[0])}", node=child)
        elif len(pas) > 1:
            structural = True
            add(
                "two-parents",
                f"node {child} has {len(pas)} parent arcs: {', '.join(map(_arc_text, pas))}",
                node=child,
                arc=pas[1],
            )

    touched = {n for a in usable for n in a[:2]}
    parentless = sorted(n for n in touched if n not in parent_arcs)
    if usable and (tree.root in parent_arcs or tree.root not in touched) and len(parentless) == 1:
        add(
            "wrong-root",
            f"the arcs form a tree rooted at {parentless[0]}, not at the claimed root {tree.root}",
            node=parentless[0],
        )

    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        n = queue.popleft()
        for c in children.get(n, ()):
            if c not in depth:
                depth[c] = depth[n] + 1
                queue.append(c)

    verb = "is not reached from" if direction == "out" else "does not reach"
    for n in targets:
        if n not in depth:
            add("not-spanning", f"node {n} {verb} root {tree.root} along the tree arcs", node=n)

    unreached = touched - depth.keys()
    if unreached:
        D = nx.DiGraph()
        D.add_edges_from((a[0], a[1]) for a in usable)
        in_cycle: set[int] = set()
        for comp in nx.strongly_connected_components(D.subgraph(unreached)):
            if len(comp) > 1:
                cyc = [u for u, _ in nx.find_cycle(D.subgraph(comp))]
                in_cycle |= comp
                add(
                    "cycle",
                    f"arcs form a cycle {'->'.join(map(str, [*cyc, cyc[0]]))}",
                    node=cyc[0],
                )
        for a in usable:
            parent = a[0] if direction == "out" else a[1]
            if parent not in depth and not (a[0] in in_cycle and a[1] in in_cycle):
                add("detached", f"arc {_arc_text(a)} is not connected to root {tree.root}", arc=a)

    span_set = set(targets)
    if tree.root not in span_set:
        add("root-outside-span", f"root {tree.root} is not a span node", severity="warning")
    for n in sorted(depth):
        if n != tree.root and n not in span_set and not children.get(n):
            add(
                "relay-leaf",
                f"relay node {n} is a leaf: its arc carries data nobody needs",
                node=n,
                severity="warning",
            )

    if not structural:
        height = max(depth.values())
        if height != tree.height:
            add(
                "height-mismatch",
                f"claimed height {tree.height}, but the longest root-leaf path has {height} arcs",
            )
    return found
