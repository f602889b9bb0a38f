"""Styling every supermesh drawing shares: link and node classes, tree colours, figure panels.

Drawings use the object-oriented ``matplotlib.figure.Figure`` API only: no pyplot state, nothing
shown, safe under any backend. The shapes of links are :mod:`~supermesh.draw.paths`, writing a
drawing to a file is :mod:`~supermesh.draw.files`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure, FigureBase

from supermesh.errors import SupermeshError

__all__ = [
    "ARC_STYLES",
    "NODE_STYLES",
    "TREE_COLORS",
    "ArcStyle",
    "NodeStyle",
    "arc_label",
    "drawn_class",
    "lighten",
    "new_figure",
    "panel_figure",
    "tree_color",
]


@dataclass(frozen=True)
class ArcStyle:
    """How links of one class are drawn."""

    color: str
    label: str
    zorder: float


@dataclass(frozen=True)
class NodeStyle:
    """How nodes of one kind are drawn (``shape``: ``square`` or ``diamond``)."""

    face: str
    edge: str
    label: str
    shape: str = "square"


ARC_STYLES: dict[str, ArcStyle] = {
    "mesh": ArcStyle("#4d4d4d", "mesh link", 2.0),
    "added": ArcStyle("#d62728", "added link", 2.2),
    "memory": ArcStyle("#2ca02c", "memory link", 2.1),
    "other": ArcStyle("#1f77b4", "long link", 1.9),
    "router": ArcStyle("#8c8c8c", "chiplet-router link", 1.8),
}
"""Colour, default legend label and stacking order per drawn class (colour-blind-safe tab10
hues): the arc classes of :mod:`supermesh.topologies.model`, plus ``router`` for the links
between a chiplet and its router (:func:`drawn_class`). :func:`arc_label` names them for the
family drawn."""

_INTERPOSER = (
    "folded-torus",
    "kite-small",
    "kite-medium",
    "double-butterfly",
    "butterdonut",
    "cmesh",
)


def drawn_class(G: Any, u: int, v: int, key: int) -> str:
    """The class an arc is drawn in: its ``cls``, or ``router`` when it joins a chiplet to its
    router (router-to-router links keep their class).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("cmesh:4x4")
    >>> drawn_class(G, 0, 16, 0), G.edges[0, 16, 0]["cls"]
    ('router', 'other')
    """
    if (G.nodes[u].get("kind") == "router") != (G.nodes[v].get("kind") == "router"):
        return "router"
    return str(G.edges[u, v, key]["cls"])


def arc_label(G: Any, cls: str) -> str:
    """The legend label of a drawn class on ``G``'s family: what those links are there.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> arc_label(build("hexamesh:r1"), "mesh"), arc_label(build("torus:3x3"), "other")
    ('chiplet link', 'wrap-around link')
    >>> arc_label(build("kite-small:4x4"), "mesh"), arc_label(build("smbi:3x3"), "added")
    ('unit-length link', 'added link')
    """
    family = G.graph.get("family", "")
    if cls == "mesh":
        if family == "hexamesh":
            return "chiplet link"
        return "unit-length link" if family in _INTERPOSER else "mesh link"
    if cls == "other":
        if family == "torus":
            return "wrap-around link"
        return "long link (over 1 pitch)" if family in _INTERPOSER else "other link"
    return ARC_STYLES[cls].label if cls in ARC_STYLES else f"{cls} link"


NODE_STYLES: dict[str, NodeStyle] = {
    "compute": NodeStyle("#dbe9f6", "#1f4e79", "compute chiplet"),
    "memory": NodeStyle("#fde0b0", "#a35200", "memory chiplet"),
    "io": NodeStyle("#e8e8e8", "#404040", "I/O chiplet", "diamond"),
    "router": NodeStyle("#f4f4f4", "#404040", "router", "diamond"),
}
"""Fill, outline, legend label and shape per node kind."""

TREE_COLORS: tuple[str, ...] = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
)
"""Colours of trees and root sets, in order (tab10 without the red of added links)."""


def tree_color(i: int) -> str:
    """Colour of the ``i``-th tree or set (cycling through :data:`TREE_COLORS`).

    Examples
    --------
    >>> tree_color(0), tree_color(len(TREE_COLORS))
    ('#1f77b4', '#1f77b4')
    """
    return TREE_COLORS[i % len(TREE_COLORS)]


def lighten(color: str, amount: float) -> tuple[float, float, float]:
    """``color`` mixed with white: ``amount`` 0 keeps it, 1 gives white.

    Examples
    --------
    >>> lighten("#000000", 0.5)
    (0.5, 0.5, 0.5)
    """
    rgb = np.asarray(to_rgb(color))
    r, g, b = (rgb + (1.0 - rgb) * float(amount)).tolist()
    return (r, g, b)


def panel_figure(
    count: int, ncols: int, width: float, height: float, *, fig: FigureBase | None = None
) -> tuple[FigureBase, list[Axes]]:
    """A constrained-layout Figure with ``count`` panels of ``width x height`` inches.

    Panels fill ``ncols`` columns row by row; with ``fig`` given (a Figure or a SubFigure), the
    panels are made in it (it must be empty).

    Raises
    ------
    SupermeshError
        If ``count`` is not positive or ``fig`` already holds axes.
    """
    if count < 1:
        raise SupermeshError("nothing to draw", hint="pass at least one tree or result")
    ncols = max(1, min(ncols, count))
    nrows = -(-count // ncols)
    if fig is None:
        fig = Figure(figsize=(ncols * width, nrows * height), layout="constrained")
    elif fig.axes:
        raise SupermeshError(
            "the figure passed in already has axes",
            hint="pass an empty Figure (or none: one is made)",
        )
    grid = fig.add_gridspec(nrows, ncols)
    axes = [fig.add_subplot(grid[i // ncols, i % ncols]) for i in range(count)]
    return fig, axes


def new_figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A constrained-layout Figure (not registered with pyplot) and its single Axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()
