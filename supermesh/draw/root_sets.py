"""Draw root sets on the topology's layout: each set's roots in its colour, heights in the legend.

The roots of a pipelined ReduceScatter / AllGather run set after set (the paper's figure 8), and
a set is as slow as its tallest tree, so the legend gives every set's height (and its lower bound
when the two differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from supermesh.draw.common import ARC_STYLES, arc_label, lighten, new_figure, tree_color
from supermesh.draw.geometry import (
    Color,
    arc_lanes,
    draw_boxes,
    draw_link_lanes,
    finish_layout,
    layout_scale,
)
from supermesh.errors import SupermeshError, TopologyError
from supermesh.trees.model import TreePacking, TreeSet

__all__ = ["draw_root_sets"]

SetsLike = TreePacking | Sequence[TreeSet] | Sequence[Sequence[int]]


def _sets_of(sets: SetsLike) -> list[tuple[list[int], int | None, int | None]]:
    """(roots, height, lower bound) per set."""
    groups = sets.sets if isinstance(sets, TreePacking) else sets
    out: list[tuple[list[int], int | None, int | None]] = []
    for s in groups:
        if isinstance(s, TreeSet):
            out.append((s.roots, s.height, s.lower_bound))
        else:
            out.append(([int(r) for r in s], None, None))
    return out


def draw_root_sets(
    G: nx.MultiDiGraph,
    sets: SetsLike,
    ax: Axes | None = None,
    *,
    heights: Sequence[int | None] | None = None,
    title: str | None = None,
) -> Figure:
    """Root sets on the topology's layout: each set's roots in its colour, heights in the legend.

    This is the paper's figure 8 (root selection for pipelined ReduceScatter / AllGather): the
    roots run set after set, and a set is as slow as its tallest tree.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    sets : TreePacking, sequence of TreeSet, or sequence of root lists
        The sets in the order they run.
    ax : matplotlib Axes, optional
        Draw into this Axes (the legend goes right of it); by default a new Figure.
    heights : sequence of int, optional
        Height of each set when ``sets`` are plain root lists.
    title : str, optional
        Defaults to the topology's name.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        No sets, or ``heights`` of the wrong length.
    TopologyError
        A root that is not a node of ``G``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> fig = draw_root_sets(build("smalter:4x4"), [[0, 3, 15, 12], [1, 7, 14, 8]], heights=[6, 5])
    >>> [t.get_text() for t in fig.legends[0].get_texts()][:2]
    ['set 0: roots 0, 3, 15, 12; height 6', 'set 1: roots 1, 7, 14, 8; height 5']
    """
    groups = _sets_of(sets)
    if not groups:
        raise SupermeshError("no root sets to draw", hint="pass at least one set")
    if heights is not None:
        if len(heights) != len(groups):
            raise SupermeshError(
                f"{len(heights)} heights for {len(groups)} sets",
                hint="give one height per set (or None)",
            )
        groups = [(r, h, lb) for (r, _, lb), h in zip(groups, heights, strict=True)]
    set_of: dict[int, int] = {}
    for i, (roots, _, _) in enumerate(groups):
        for r in roots:
            if r not in G:
                raise TopologyError(f"root {r} is not a node of {G.graph.get('name', 'G')}")
            set_of.setdefault(r, i)
    scale, span_x, span_y = layout_scale(G, 7.0, 0.7)
    own = ax is None
    if ax is None:
        fig, ax = new_figure(span_x * scale + 3.2, span_y * scale + 0.6)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    lanes = arc_lanes(G)
    draw_link_lanes(ax, lanes, float(np.clip(2.4 * scale, 0.6, 1.8)))
    faces: dict[int, Color] = {n: lighten(tree_color(i), 0.45) for n, i in set_of.items()}
    edges = {n: tree_color(i) for n, i in set_of.items()}
    boxes = draw_boxes(ax, G, faces=faces, edges=edges, widths=dict.fromkeys(set_of, 2.0))
    size = float(np.clip(13.0 * scale, 5.0, 9.0))
    for n in sorted(G.nodes):
        (x, y), (_, hy) = G.nodes[n]["pos"], boxes[n]
        ax.text(x, y + 0.25 * hy, str(n), ha="center", va="center", fontsize=size, zorder=4)
        if n in set_of:
            text = ax.text(
                x,
                y - 0.45 * hy,
                f"S{set_of[n]}",
                ha="center",
                va="center",
                fontsize=size * 0.8,
                weight="bold",
                color="#202020",
                zorder=4,
            )
            text.set_gid("set")
    finish_layout(ax)
    ax.set_title(title if title is not None else G.graph.get("name", ""), fontsize=10)
    handles: list[Patch | Line2D] = [
        Patch(
            facecolor=lighten(tree_color(i), 0.45),
            edgecolor=tree_color(i),
            lw=2,
            label=_set_label(i, roots, h, lb),
        )
        for i, (roots, h, lb) in enumerate(groups)
    ]
    classes = {lane.cls for lane in lanes.values()}
    handles += [
        Line2D([], [], color=ARC_STYLES[c].color, lw=2, label=arc_label(G, c))
        for c in ARC_STYLES
        if c in classes
    ]
    where = (
        {"loc": "outside right upper"}
        if own
        else {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0}
    )
    (fig if own else ax).legend(
        handles=handles,
        frameon=False,
        fontsize=8,
        title="root sets, in run order",
        title_fontsize=8,
        alignment="left",
        **where,
    )
    return fig


def _set_label(i: int, roots: list[int], height: int | None, bound: int | None) -> str:
    label = f"set {i}: roots {', '.join(map(str, roots))}"
    if height is not None:
        label += f"; height {height}"
        if bound is not None and bound != height:
            label += f" (bound {bound})"
    return label
