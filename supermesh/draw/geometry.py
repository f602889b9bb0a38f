"""Where every arc of a topology is drawn: the lanes of :func:`~supermesh.draw.draw_topology`.

Tree, utilisation and pipeline drawings put their colours on exactly the lanes the topology
drawing uses, so a tree that takes the second copy of a doubled link is drawn on that copy's
lane, next to (never over) the first. The drawings on the layout also share its scale
(:func:`layout_scale`), the links in their class colours (:func:`draw_link_lanes`, faded under a
tree) and the framing (:func:`finish_layout`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import Polygon, Rectangle

from supermesh.draw.common import ARC_STYLES, NODE_STYLES, drawn_class, lighten
from supermesh.draw.paths import trim_path
from supermesh.draw.topology import _STRAIGHT, Route, _lanes, _route, _route_points, node_boxes
from supermesh.topologies.model import Arc

__all__ = [
    "LANE_GAP",
    "Color",
    "Lane",
    "arc_lanes",
    "draw_boxes",
    "draw_link_lanes",
    "drawn_lanes",
    "finish_layout",
    "layout_scale",
]

Color = str | tuple[float, float, float]
"""A colour: a matplotlib name or hex string, or an RGB triple."""

LANE_GAP = 0.13
"""Distance between the lanes of parallel links, in chiplet pitches (as in draw_topology)."""

_OTHER = ARC_STYLES["other"]


@dataclass(frozen=True)
class Lane:
    """How one arc is drawn.

    Attributes
    ----------
    arc : (src, dst, key)
    a, b : numpy.ndarray
        Centres of the pair's lower and higher node id (the lane's own orientation).
    route : tuple
        Straight, arc or S-curve (see :mod:`supermesh.draw.topology`).
    offset : float
        Sideways shift of the lane, to the left of ``a -> b``.
    two_way : bool
        The lane also carries the opposite arc with the same key.
    cls : str
        The arc's class (mesh, added, memory, other).
    """

    arc: Arc
    a: np.ndarray
    b: np.ndarray
    half_a: tuple[float, float]
    half_b: tuple[float, float]
    diamond_a: bool
    diamond_b: bool
    route: Route
    offset: float
    two_way: bool
    cls: str

    def points(self, shift: float = 0.0, spread: float = 1.0) -> np.ndarray:
        """The lane's points from the arc's source to its destination, trimmed at the boxes.

        ``shift`` moves the line to the right of the direction of travel, so the two arcs of a
        two-way lane drawn with the same positive ``shift`` sit side by side; ``spread``
        multiplies the distance between parallel lanes (to make room for such pairs).
        """
        forward = self.arc[0] < self.arc[1]  # the lane runs from the lower node id
        extra = -shift if forward else shift
        pts = _route_points(self.a, self.b, self.route, self.offset * spread + extra)
        pts = trim_path(
            pts,
            self.a,
            self.half_a,
            self.b,
            self.half_b,
            diamond_a=self.diamond_a,
            diamond_b=self.diamond_b,
        )
        return pts if forward else pts[::-1]


def arc_lanes(G: nx.MultiDiGraph) -> dict[Arc, Lane]:
    """The lane of every arc of ``G``, as :func:`~supermesh.draw.draw_topology` draws it.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (node attribute ``pos``).

    Returns
    -------
    dict
        Arc ``(src, dst, key)`` -> :class:`Lane`. The two arcs of a two-way link share a lane.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> lanes = arc_lanes(build("smbi:2x2"))
    >>> len(lanes), len({(lane.offset, lane.arc[2]) for lane in lanes.values()})
    (16, 2)
    """
    pos = {n: np.asarray(p, dtype=float) for n, p in G.nodes(data="pos")}
    boxes = node_boxes(G)
    nodes = sorted(G.nodes)
    centres = np.array([pos[n] for n in nodes]).reshape(-1, 2)
    halves = np.array([boxes[n] for n in nodes]).reshape(-1, 2)
    middle = centres.mean(axis=0) if nodes else np.zeros(2)
    row = {n: i for i, n in enumerate(nodes)}
    compute = NODE_STYLES["compute"]
    diamond = {n: NODE_STYLES.get(k, compute).shape == "diamond" for n, k in G.nodes(data="kind")}
    out: dict[Arc, Lane] = {}
    for (u, v), lanes in sorted(_lanes(G).items()):
        route = _STRAIGHT
        if math.dist(pos[u], pos[v]) > 1.5:
            keep = np.ones(len(nodes), dtype=bool)
            keep[[row[u], row[v]]] = False
            route = _route(pos[u], pos[v], centres[keep], halves[keep], middle)
        for j, (src, dst, key, two_way) in enumerate(lanes):
            offset = (j - (len(lanes) - 1) / 2) * LANE_GAP
            members = [(src, dst, key)] + ([(dst, src, key)] if two_way else [])
            for arc in members:
                out[arc] = Lane(
                    arc=arc,
                    a=pos[u],
                    b=pos[v],
                    half_a=boxes[u],
                    half_b=boxes[v],
                    diamond_a=diamond[u],
                    diamond_b=diamond[v],
                    route=route,
                    offset=offset,
                    two_way=two_way,
                    cls=drawn_class(G, *arc),
                )
    return out


def draw_boxes(
    ax: Axes,
    G: nx.MultiDiGraph,
    *,
    faces: Mapping[int, Color] | None = None,
    edges: Mapping[int, Color] | None = None,
    widths: Mapping[int, float] | None = None,
    zorder: float = 3.0,
) -> dict[int, tuple[float, float]]:
    """Draw every node's box (the shapes of ``draw_topology``) with optional per-node colours.

    Nodes not in ``faces`` / ``edges`` / ``widths`` get their kind's style and a 1 pt outline.
    Returns the half sizes of the boxes (:func:`~supermesh.draw.topology.node_boxes`).
    """
    boxes = node_boxes(G)
    compute = NODE_STYLES["compute"]
    patches: list[Rectangle | Polygon] = []
    face_list, edge_list, width_list = [], [], []
    for n, d in sorted(G.nodes(data=True)):
        style = NODE_STYLES.get(d["kind"], compute)
        (x, y), (hx, hy) = d["pos"], boxes[n]
        if style.shape == "diamond":
            patches.append(
                Polygon([(x - hx, y), (x, y + hy), (x + hx, y), (x, y - hy)], closed=True)
            )
        else:
            patches.append(Rectangle((x - hx, y - hy), 2 * hx, 2 * hy))
        face_list.append((faces or {}).get(n, style.face))
        edge_list.append((edges or {}).get(n, style.edge))
        width_list.append((widths or {}).get(n, 1.0))
    ax.add_collection(
        PatchCollection(
            patches,
            facecolors=face_list,
            edgecolors=edge_list,
            linewidths=width_list,
            zorder=zorder,
        ),
        autolim=True,
    )
    return boxes


def drawn_lanes(lanes: dict[Arc, Lane]) -> list[Lane]:
    """One :class:`Lane` per drawn line (a two-way lane once, by its lower-id arc), sorted."""
    return [lane for arc, lane in sorted(lanes.items()) if not lane.two_way or arc[0] < arc[1]]


def layout_scale(G: nx.MultiDiGraph, budget: float, cap: float) -> tuple[float, float, float]:
    """Inches per pitch and the drawing's span (x, y) in pitches.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (node ``pos`` in pitches).
    budget : float
        Inches the longer side of the layout may take.
    cap : float
        The most inches per pitch (small topologies are not blown up).

    Returns
    -------
    tuple of float
        ``(inches per pitch, span x, span y)``.
    """
    pos = np.array([p for _, p in G.nodes(data="pos")], dtype=float).reshape(-1, 2)
    span_x, span_y = (np.ptp(pos, axis=0) + 1.0) if len(pos) else (1.0, 1.0)
    return min(cap, budget / max(span_x, span_y, 1.0)), float(span_x), float(span_y)


def draw_link_lanes(ax: Axes, lanes: dict[Arc, Lane], lw: float, fade: float = 0.0) -> None:
    """Every drawn lane once in its class colour, mixed with white by ``fade``.

    Parameters
    ----------
    ax : matplotlib Axes
    lanes : dict
        From :func:`arc_lanes`.
    lw : float
        Line width in points.
    fade : float
        0 draws the class colours, 1 white.
    """
    drawn = drawn_lanes(lanes)
    colors = [lighten(ARC_STYLES.get(lane.cls, _OTHER).color, fade) for lane in drawn]
    coll = LineCollection(
        [lane.points() for lane in drawn],
        colors=colors,
        linewidths=lw,
        zorder=1.5,
        capstyle="butt",
    )
    coll.set_gid("links")
    ax.add_collection(coll, autolim=True)


def finish_layout(ax: Axes) -> None:
    """Frame a drawing on the layout: equal aspect, fitted to what is drawn, no axes."""
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.margins(0.04)
    ax.axis("off")
