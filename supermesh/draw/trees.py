"""Draw trees: one panel per tree on the topology's layout, each node marked with its depth.

Every tree arc is drawn on the lane of the physical link it uses, so two trees that share a
doubled link appear as two separate lines, one per copy (:mod:`supermesh.draw.geometry`).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure, FigureBase
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from supermesh.draw.common import (
    ARC_STYLES,
    arc_label,
    drawn_class,
    lighten,
    panel_figure,
    tree_color,
)
from supermesh.draw.geometry import (
    Color,
    Lane,
    arc_lanes,
    draw_boxes,
    draw_link_lanes,
    finish_layout,
    layout_scale,
)
from supermesh.errors import SupermeshError, TopologyError
from supermesh.trees.model import Tree, TreePacking, TreeSet

__all__ = ["draw_trees", "tree_depth_map"]

TreesLike = TreePacking | TreeSet | Sequence[Tree]

_ADDED_DASH = (0, (2.2, 1.2))


_MIN_ID_POINTS = 6.0
"""Smallest font of a node id (points): what still reads on a printed page."""


def _direction(tree: Tree, direction: str | None) -> str:
    if direction is not None:
        return direction
    return "in" if any(v == tree.root for _, v, _ in tree.arcs) else "out"


def tree_depth_map(tree: Tree, direction: str | None = None) -> dict[int, int]:
    """Hops from the root of every node of ``tree``.

    Parameters
    ----------
    tree : Tree
    direction : {"out", "in"}, optional
        How the arcs are stored (parent -> child for out-trees, child -> parent for in-trees).
        By default it is read off the tree: an in-tree has arcs into its root.

    Returns
    -------
    dict
        Node -> depth (the root has depth 0).

    Raises
    ------
    TopologyError
        If the arcs do not form a tree hanging from the root.

    Examples
    --------
    >>> tree_depth_map(Tree(root=0, arcs=((0, 1, 0), (1, 2, 0)), height=2))
    {0: 0, 1: 1, 2: 2}
    >>> tree_depth_map(Tree(root=0, arcs=((1, 0, 0), (2, 1, 0)), height=2))
    {0: 0, 1: 1, 2: 2}
    """
    way = _direction(tree, direction)
    down = [(u, v) for u, v, _ in tree.arcs] if way == "out" else [(v, u) for u, v, _ in tree.arcs]
    children: dict[int, list[int]] = {}
    for parent, child in down:
        children.setdefault(parent, []).append(child)
    depth = {tree.root: 0}
    frontier = [tree.root]
    twice = False  # a node reached twice: a cycle, or two parents
    while frontier and not twice:
        nxt = []
        for u in frontier:
            for v in children.get(u, ()):
                twice = twice or v in depth
                depth[v] = depth[u] + 1
                nxt.append(v)
        frontier = nxt
    if twice or len(depth) != len(down) + 1:
        raise TopologyError(
            f"the arcs of the tree rooted at {tree.root} do not form a tree from its root",
            hint="check the tree file (and its direction: out-trees store parent -> child)",
        )
    return depth


def _check_arcs(G: nx.MultiDiGraph, tree: Tree) -> None:
    for arc in tree.arcs:
        if not G.has_edge(*arc):
            raise TopologyError(
                f"tree rooted at {tree.root} uses arc {arc[0]}->{arc[1]} (key {arc[2]}), "
                f"which {G.graph.get('name', 'the topology')} does not have",
                hint="draw the trees on the topology they were made for",
            )


def _tree_panel(
    ax: Axes,
    G: nx.MultiDiGraph,
    lanes: dict[tuple[int, int, int], Lane],
    tree: Tree,
    color: str,
    direction: str | None,
    scale: float,
    labels: bool,
) -> None:
    depth = tree_depth_map(tree, direction)
    lw = float(np.clip(3.0 * scale, 0.8, 2.4))
    draw_link_lanes(ax, lanes, lw * 0.55, 0.72)
    paths = [lanes[a].points() for a in tree.arcs]
    styles = ["solid" if lanes[a].cls != "added" else _ADDED_DASH for a in tree.arcs]
    coll = LineCollection(
        paths, colors=color, linewidths=lw, linestyles=styles, zorder=2.5, capstyle="butt"
    )
    coll.set_gid("tree")
    ax.add_collection(coll, autolim=True)
    faces: dict[int, Color] = {n: "#f7f7f7" for n in G.nodes if n not in depth}
    faces[tree.root] = lighten(color, 0.35)
    edges: dict[int, Color] = {n: "#b0b0b0" for n in G.nodes if n not in depth}
    edges[tree.root] = color
    boxes = draw_boxes(ax, G, faces=faces, edges=edges, widths={tree.root: 2.2})
    size = float(np.clip(20.0 * scale, 5.0, 10.0))
    for n, d in sorted(depth.items()):
        (x, y), (hx, hy) = G.nodes[n]["pos"], boxes[n]
        if labels:  # clear of the id in the top-left corner
            x, y = x + 0.22 * hx, y - 0.12 * hy
        text = ax.text(
            x, y, str(d), ha="center", va="center", fontsize=size, weight="bold", zorder=4
        )
        text.set_gid("depth")
    if labels:
        for n in sorted(G.nodes):
            (x, y), (hx, hy) = G.nodes[n]["pos"], boxes[n]
            text = ax.text(
                x - hx + 0.04,
                y + hy - 0.03,
                str(n),
                ha="left",
                va="top",
                fontsize=max(_MIN_ID_POINTS, size * 0.6),  # legible when printed
                color="#505050",
                zorder=4,
            )
            text.set_gid("node-id")
    finish_layout(ax)


def _flatten(trees: TreesLike) -> tuple[list[tuple[int | None, Tree]], str | None]:
    """(set index or None, tree) pairs and the packing's direction."""
    if isinstance(trees, TreePacking):
        many = len(trees.sets) > 1
        return [
            (s if many else None, t) for s, ts in enumerate(trees.sets) for t in ts.trees
        ], trees.direction
    if isinstance(trees, TreeSet):
        return [(None, t) for t in trees.trees], None
    return [(None, t) for t in trees], None


def draw_trees(
    G: nx.MultiDiGraph,
    trees: TreesLike,
    fig: FigureBase | None = None,
    *,
    direction: str | None = None,
    ncols: int = 4,
    labels: bool = True,
    legend: bool = True,
    title: str | None = None,
    titles: Sequence[str] | None = None,
    max_panels: int | None = None,
) -> Figure:
    """One panel per tree on the topology's layout; return the matplotlib Figure.

    Each panel shows the whole topology faded (mesh links grey, added links pale red), the tree's
    arcs in the tree's colour on the lane of the copy they use (dashed on an added link), the
    depth of every node of the tree (bold, hops from the root), the root's box filled and
    outlined in the tree's colour, and nodes the tree does not reach greyed out.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology the trees were made for.
    trees : TreePacking, TreeSet or sequence of Tree
        Every tree of every set gets a panel, titled with its set (when there are several), its
        number within the set (from 0, as in the schedule tables), root and height, and its
        share of the root's data when the shares are not all 1 (weighted packings).
    fig : matplotlib Figure or SubFigure, optional
        An empty (sub)figure to draw into; by default a new Figure is made.
    direction : {"out", "in"}, optional
        How the arcs are stored; by default the packing's, else read off each tree.
    ncols : int
        Panels per row.
    labels : bool
        Write each node's id small in the corner of its box.
    legend : bool
        Add the legend below the panels.
    title : str, optional
        Title above the panels; defaults to the topology's name.
    titles : sequence of str, optional
        One title per panel (per tree drawn), instead of the default ones.
    max_panels : int, optional
        Draw only the first this many trees (a weighted packing may give a root dozens); the
        title above the panels then says how many were left out.

    Returns
    -------
    matplotlib.figure.Figure
        The (root) figure.

    Raises
    ------
    SupermeshError
        No trees, ``fig`` is not empty, ``max_panels`` below 1, or ``titles`` of the wrong
        length.
    TopologyError
        A tree uses an arc the topology lacks, or its arcs are not a tree.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.packing.closedform import corner_trees
    >>> G = build("smbi:4x4")
    >>> fig = draw_trees(G, corner_trees(G))
    >>> len(fig.axes), [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "depth"][:4]
    (4, ['0', '1', '2', '3'])
    """
    items, packing_direction = _flatten(trees)
    total = len(items)
    if max_panels is not None:
        if isinstance(max_panels, bool) or not isinstance(max_panels, int) or max_panels < 1:
            raise SupermeshError(
                f"max_panels must be a positive integer, got {max_panels!r}",
                hint="e.g. max_panels=8 (or None to draw every tree)",
            )
        items = items[:max_panels]
    if titles is not None and len(titles) != len(items):
        raise SupermeshError(
            f"{len(titles)} titles for {len(items)} panels", hint="give one title per tree drawn"
        )
    direction = direction or packing_direction
    weighted = any(tree.share != 1.0 for _, tree in items)
    for _, tree in items:
        _check_arcs(G, tree)
    scale, span_x, span_y = layout_scale(G, 4.5, 0.55)
    fig, axes = panel_figure(
        len(items), ncols, span_x * scale + 0.25, span_y * scale + 0.45, fig=fig
    )
    lanes = arc_lanes(G)
    # a tree is numbered within its set, as the schedule tables and verify's messages number it
    # (set 1's first tree is "set 1, tree 0"); the colour still runs over all panels
    within: list[int] = []
    for i, (s, _) in enumerate(items):
        within.append(within[-1] + 1 if i and items[i - 1][0] == s else 0)
    for i, (ax, (s, tree)) in enumerate(zip(axes, items, strict=True)):
        color = tree_color(i)
        _tree_panel(ax, G, lanes, tree, color, direction, scale, labels)
        if titles is not None:
            text = titles[i]
        else:
            head = f"set {s}, " if s is not None else ""
            text = f"{head}tree {within[i]}: root {tree.root}, height {tree.height}"
            if weighted:
                text += f", share {tree.share:.3g}"
        ax.set_title(text, fontsize=8, color=color)
    heading = title if title is not None else G.graph.get("name", "")
    if len(items) < total:
        heading += f" (first {len(items)} of {total} trees)"
    fig.suptitle(heading, fontsize=10)
    if legend:
        _trees_legend(fig, G)
    return fig.get_figure(root=True)


def _trees_legend(fig: FigureBase, G: nx.MultiDiGraph) -> None:
    ink = "#303030"
    classes = {drawn_class(G, u, v, k) for u, v, k in G.edges(keys=True)}
    handles: list[Line2D | Patch] = [Line2D([], [], color=ink, lw=2, label="tree arc")]
    if "added" in classes:
        handles.append(
            Line2D([], [], color=ink, lw=2, ls=_ADDED_DASH, label="tree arc on an added link")
        )
    handles += [
        Line2D([], [], color=lighten(ARC_STYLES[c].color, 0.72), lw=1.5, label=arc_label(G, c))
        for c in ARC_STYLES
        if c in classes
    ]
    handles += [
        Patch(facecolor=lighten(ink, 0.7), edgecolor=ink, lw=2, label="root"),
        Line2D([], [], color=ink, lw=0, marker="$3$", markersize=7, label="depth (hops)"),
    ]
    fig.legend(
        handles=handles, loc="outside lower center", ncols=len(handles), frameon=False, fontsize=8
    )
