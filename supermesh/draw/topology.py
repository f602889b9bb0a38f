"""Draw a topology: chiplets on their grid or brick positions, every link visible."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import cast

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch, Polygon, Rectangle

from supermesh.draw.common import (
    ARC_STYLES,
    NODE_STYLES,
    ArcStyle,
    arc_label,
    drawn_class,
    new_figure,
)
from supermesh.draw.paths import curved_path, s_path, trim_path
from supermesh.topologies.model import arcs

__all__ = ["draw_topology", "node_boxes"]

_LANE_GAP = 0.13
_MAX_LABELLED = 256
_COMPUTE = NODE_STYLES["compute"]
_BENDS = (0.3, 0.4, 0.5, 0.65, 0.9, 1.3)


def node_boxes(G: nx.MultiDiGraph) -> dict[int, tuple[float, float]]:
    """Half width and half height of each node's drawn box, in chiplet pitches.

    Grid chiplets are squares 0.56 wide; HexaMesh chiplets are bricks 0.8 x 0.5 (neighbours in a
    row are one pitch apart); routers (``router`` nodes of concentrated families) are
    small diamonds.
    """
    brick = G.graph.get("family") == "hexamesh"
    out = {}
    for n, kind in G.nodes(data="kind"):
        if NODE_STYLES.get(kind, _COMPUTE).shape == "diamond":
            out[n] = (0.17, 0.17)
        else:
            out[n] = (0.4, 0.25) if brick else (0.28, 0.28)
    return out


def _lanes(G: nx.MultiDiGraph) -> dict[tuple[int, int], list[tuple[int, int, int, bool]]]:
    """Per node pair: drawn lanes ``(src, dst, key, two_way)``, two-way links first."""
    by_pair: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
    for u, v, k in arcs(G):
        by_pair[min(u, v), max(u, v)].append((u, v, k))
    out = {}
    for (u, v), items in by_pair.items():
        fwd = [a for a in items if a[0] == u]
        back = [a for a in items if a[0] == v]
        lanes: list[tuple[int, int, int, bool]] = []
        for a in list(fwd):
            match = next(
                (b for b in back if G.edges[b]["cls"] == G.edges[a]["cls"] and b[2] == a[2]),
                None,
            )
            if match is not None:
                lanes.append((u, v, a[2], True))
                fwd.remove(a)
                back.remove(match)
        lanes += [(*a, False) for a in fwd + back]
        out[u, v] = lanes
    return out


Route = tuple[str, float, bool]
"""How a link is drawn: ``("arc", bend, _)`` (0 = straight) or ``("s", channel, vertical)``."""

_STRAIGHT: Route = ("arc", 0.0, False)


def _route_points(a: np.ndarray, b: np.ndarray, route: Route, offset: float = 0.0) -> np.ndarray:
    kind, value, vertical = route
    if kind == "s":
        return s_path(a, b, value, vertical=vertical, offset=offset)
    return curved_path(a, b, value, offset, samples=48 if value else 24)


def _route(
    a: np.ndarray, b: np.ndarray, centres: np.ndarray, halves: np.ndarray, middle: np.ndarray
) -> Route:
    """A way to draw a long link that misses every other node.

    Tried in order: straight; then, for a link along a row or column, arcs bending further and
    further (the side away from the drawing's middle first) before S-curves along the channels
    between rows or columns near the ends; for a slanted link the S-curves first.
    """
    # only nodes near the link can be hit (the widest arc is 1.3 pitches off the chord)
    near = np.all((centres > np.minimum(a, b) - 2.0) & (centres < np.maximum(a, b) + 2.0), axis=1)
    centres, halves = centres[near], halves[near]
    if len(centres) == 0:
        return _STRAIGHT
    chord = b - a
    normal = np.array([-chord[1], chord[0]])
    outward = 1.0 if float(np.dot((a + b) / 2 - middle, normal)) >= 0 else -1.0

    def clear(route: Route) -> bool:
        pts = _route_points(a, b, route)[1:-1]
        dx = np.abs(pts[:, None, 0] - centres[None, :, 0])
        dy = np.abs(pts[:, None, 1] - centres[None, :, 1])
        return not np.any((dx < halves[None, :, 0] + 0.03) & (dy < halves[None, :, 1] + 0.03))

    arcs: list[Route] = [
        ("arc", sign * bend, False) for bend in _BENDS for sign in (outward, -outward)
    ]
    vertical = abs(chord[1]) >= abs(chord[0])
    axis = 0 if vertical else 1
    lo, hi = sorted((a[axis], b[axis]))
    channels = [(lo + hi) / 2, lo + 0.5, hi - 0.5, lo - 0.5, hi + 0.5]
    s_curves: list[Route] = [("s", c, vertical) for c in channels]
    # a slanted link (butterfly) is best routed along a channel, an axis-aligned one as an arc
    slanted = min(abs(chord[0]), abs(chord[1])) > 1e-9
    candidates = [_STRAIGHT, *(s_curves + arcs if slanted else arcs + s_curves)]
    for route in candidates:
        if clear(route):
            return route
    return ("arc", outward * _BENDS[-1], False)


def _draw_links(
    ax: Axes, G: nx.MultiDiGraph, boxes: dict[int, tuple[float, float]], lw: float
) -> tuple[set[str], bool]:
    pos = {n: np.asarray(p, dtype=float) for n, p in G.nodes(data="pos")}
    nodes = sorted(G.nodes)
    centres = np.array([pos[n] for n in nodes]).reshape(-1, 2)
    halves = np.array([boxes[n] for n in nodes]).reshape(-1, 2)
    middle = centres.mean(axis=0) if nodes else np.zeros(2)
    row = {n: i for i, n in enumerate(nodes)}
    diamonds = {
        n for n in nodes if NODE_STYLES.get(G.nodes[n]["kind"], _COMPUTE).shape == "diamond"
    }
    segments: dict[str, list[np.ndarray]] = defaultdict(list)
    one_way = False
    for (u, v), lanes in sorted(_lanes(G).items()):
        route = _STRAIGHT
        if math.dist(pos[u], pos[v]) > 1.5:
            keep = np.ones(len(nodes), dtype=bool)
            keep[[row[u], row[v]]] = False
            route = _route(pos[u], pos[v], centres[keep], halves[keep], middle)
        for j, (src, dst, key, two_way) in enumerate(lanes):
            cls = drawn_class(G, src, dst, key)
            offset = (j - (len(lanes) - 1) / 2) * _LANE_GAP
            pts = _route_points(pos[u], pos[v], route, offset)
            pts = trim_path(
                pts,
                pos[u],
                boxes[u],
                pos[v],
                boxes[v],
                diamond_a=u in diamonds,
                diamond_b=v in diamonds,
            )
            if src != u:
                pts = pts[::-1]
            segments[cls].append(pts)
            if not two_way:
                one_way = True
                _arrowhead(ax, pts, ARC_STYLES.get(cls, ARC_STYLES["other"]), lw)
    for cls, paths in segments.items():
        style = ARC_STYLES.get(cls, ARC_STYLES["other"])
        ax.add_collection(
            LineCollection(
                paths, colors=style.color, linewidths=lw, zorder=style.zorder, capstyle="butt"
            ),
            autolim=True,
        )
    return set(segments), one_way


def _arrowhead(ax: Axes, pts: np.ndarray, style: ArcStyle, lw: float) -> None:
    """An arrowhead in the middle of a one-way link, pointing along it."""
    i = max(1, len(pts) // 2)
    tail, head = pts[i - 1], pts[min(i + 1, len(pts) - 1)]
    ax.add_patch(
        FancyArrowPatch(
            tuple(tail),
            tuple(head),
            arrowstyle="-|>",
            mutation_scale=7 + 3 * lw,
            color=style.color,
            lw=lw,
            shrinkA=0,
            shrinkB=0,
            zorder=style.zorder + 0.05,
        )
    )


def _draw_nodes(
    ax: Axes, G: nx.MultiDiGraph, boxes: dict[int, tuple[float, float]], fontsize: float
) -> set[str]:
    shapes: dict[str, list[Rectangle | Polygon]] = defaultdict(list)
    for n, d in sorted(G.nodes(data=True)):
        style = NODE_STYLES.get(d["kind"], _COMPUTE)
        (x, y), (hx, hy) = d["pos"], boxes[n]
        if style.shape == "diamond":
            shapes[d["kind"]].append(
                Polygon([(x - hx, y), (x, y + hy), (x + hx, y), (x, y - hy)], closed=True)
            )
        else:
            shapes[d["kind"]].append(Rectangle((x - hx, y - hy), 2 * hx, 2 * hy))
        if fontsize:
            small = 0.85 if style.shape == "diamond" else 1.0
            ax.text(x, y, str(n), ha="center", va="center", fontsize=fontsize * small, zorder=4)
    for kind, patches in shapes.items():
        style = NODE_STYLES.get(kind, _COMPUTE)
        ax.add_collection(
            PatchCollection(
                patches, facecolor=style.face, edgecolor=style.edge, linewidth=1.0, zorder=3
            ),
            autolim=True,
        )
    return set(shapes)


def _legend(
    ax: Axes,
    G: nx.MultiDiGraph,
    kinds: set[str],
    classes: set[str],
    one_way: bool,
    *,
    own_figure: bool,
) -> None:
    """Legend right of the drawing: a figure legend (constrained layout makes room for it) when
    the figure is ours, else an axes legend anchored outside the caller's axes."""
    handles: list[Patch | Line2D] = [
        Patch(
            facecolor=NODE_STYLES[k].face, edgecolor=NODE_STYLES[k].edge, label=NODE_STYLES[k].label
        )
        for k in NODE_STYLES
        if k in kinds
    ]
    handles += [
        Line2D([], [], color=ARC_STYLES[c].color, lw=2, label=arc_label(G, c))
        for c in ARC_STYLES
        if c in classes
    ]
    if one_way:
        handles.append(
            Line2D([], [], color="#404040", lw=0, marker=">", markersize=7, label="one-way link")
        )
    if own_figure:
        fig = cast(Figure, ax.get_figure(root=True))
        fig.legend(handles=handles, loc="outside right upper", frameon=False, fontsize=8)
        return
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=8,
        borderaxespad=0.0,
    )


def draw_topology(
    G: nx.MultiDiGraph, ax: Axes | None = None, *, labels: bool = True, title: str | None = None
) -> Figure:
    """Draw topology ``G`` and return the matplotlib Figure (never shown, no pyplot state).

    Chiplets are boxes at their ``pos`` (grid squares, HexaMesh bricks, router diamonds),
    coloured by kind. Each physical link is a line coloured by class; parallel links are separate
    side-by-side lanes; a one-way arc has an arrowhead in its middle; links that would cross a
    chiplet (torus wrap-arounds, folded rings, Kite, butterflies) are drawn as arcs around it.
    The legend sits right of the drawing, outside the axes.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    ax : matplotlib Axes, optional
        Draw into this Axes; by default a new Figure sized to the topology.
    labels : bool
        Write node ids in the boxes (skipped above 256 nodes, where they cannot be read).
    title : str, optional
        Defaults to the topology's name.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> fig = draw_topology(build("smbi:3x3"))
    >>> [len(c.get_segments()) for c in fig.axes[0].collections[:2]]  # mesh, added lanes
    [12, 8]
    """
    pos = np.array([p for _, p in G.nodes(data="pos")], dtype=float).reshape(-1, 2)
    span_x, span_y = (np.ptp(pos, axis=0) + 1.0) if len(pos) else (1.0, 1.0)
    scale = min(0.9, 12.0 / max(span_x, span_y, 1.0))  # inches per pitch
    own_figure = ax is None
    if ax is None:
        fig, ax = new_figure(span_x * scale + 2.6, span_y * scale + 0.8)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    boxes = node_boxes(G)
    lw = float(np.clip(2.2 * scale, 0.4, 1.8))
    fontsize = min(9.0, 11.0 * scale) if labels and G.number_of_nodes() <= _MAX_LABELLED else 0.0
    classes, one_way = _draw_links(ax, G, boxes, lw)
    kinds = _draw_nodes(ax, G, boxes, fontsize)
    _legend(ax, G, kinds, classes, one_way, own_figure=own_figure)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.margins(0.03)
    ax.axis("off")
    ax.set_title(title if title is not None else G.graph.get("name", ""), fontsize=10)
    return fig
