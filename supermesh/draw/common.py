"""Styling and geometry every supermesh drawing shares (topologies, trees, link utilisation).

Drawings use the object-oriented ``matplotlib.figure.Figure`` API only: no pyplot state, nothing
shown, safe under any backend. Coordinates are chiplet pitches (a node's ``pos``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure, FigureBase

from supermesh.errors import SupermeshError

Point = Sequence[float] | np.ndarray
"""A 2D point: a pair of floats or a numpy array of shape (2,)."""

__all__ = [
    "ARC_STYLES",
    "FIGURE_FORMATS",
    "GALLERY_DIR_ENV",
    "GALLERY_QUICK_ENV",
    "NODE_STYLES",
    "TREE_COLORS",
    "ArcStyle",
    "NodeStyle",
    "Point",
    "curved_path",
    "figure_format",
    "gallery_output",
    "gallery_quick",
    "lighten",
    "new_figure",
    "panel_figure",
    "s_path",
    "save_figure",
    "tree_color",
    "trim_path",
]

FIGURE_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")


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
    "other": ArcStyle("#1f77b4", "long / other link", 1.9),
}
"""Colour, legend label and stacking order per arc class (colour-blind-safe tab10 hues)."""

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

GALLERY_DIR_ENV = "SUPERMESH_GALLERY_DIR"
"""Environment variable: the folder gallery scripts write their images to."""

GALLERY_QUICK_ENV = "SUPERMESH_GALLERY_QUICK"
"""Environment variable: when set to 1, gallery scripts run fewer sizes and shorter solves."""


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


def gallery_output(script: str | Path, argv: Sequence[str] | None = None) -> Path:
    """Where a gallery script writes its image: ``<dir>/<script name>.png``.

    ``<dir>`` is the first command-line argument, else the folder named by the environment
    variable :data:`GALLERY_DIR_ENV`, else the script's own folder.

    Examples
    --------
    >>> gallery_output("gallery/plot_x.py", ["out"]).as_posix()
    'out/plot_x.png'
    """
    args = list(argv) if argv is not None else sys.argv[1:]
    folder = args[0] if args else os.environ.get(GALLERY_DIR_ENV) or Path(script).parent
    return Path(folder) / (Path(script).stem + ".png")


def gallery_quick() -> bool:
    """True when :data:`GALLERY_QUICK_ENV` is ``1``: gallery scripts then do less work."""
    return os.environ.get(GALLERY_QUICK_ENV, "") == "1"


def figure_format(path: str | Path) -> str:
    """The image format of ``path`` from its extension.

    Raises
    ------
    SupermeshError
        If the extension is not png, svg or pdf.

    Examples
    --------
    >>> figure_format("out/mesh.SVG")
    'svg'
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FIGURE_FORMATS:
        raise SupermeshError(
            f"cannot draw to {str(path)!r}: unknown image extension {ext or '(none)'!r}",
            hint=f"use a file name ending in {', '.join('.' + f for f in FIGURE_FORMATS)}",
        )
    return ext


def new_figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A constrained-layout Figure (not registered with pyplot) and its single Axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def save_figure(fig: Figure, path: str | Path, *, dpi: int = 150) -> None:
    """Write ``fig`` to ``path`` (png/svg/pdf by extension), atomically.

    The image is rendered to a temporary file in the same directory and renamed over ``path``,
    so a failed render leaves no partial file and never clobbers an existing one.

    Raises
    ------
    SupermeshError
        On an unknown extension or a directory that cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from supermesh.draw import draw_topology
    >>> from supermesh.topologies import build
    >>> path = Path(tempfile.mkdtemp()) / "mesh.svg"
    >>> save_figure(draw_topology(build("mesh:2x2")), path)
    >>> path.read_text()[:5]
    '<?xml'
    """
    fmt = figure_format(path)
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".{fmt}", dir=target.parent)
    except OSError as exc:
        raise SupermeshError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, format=fmt, dpi=dpi, bbox_inches="tight", metadata=_metadata(fmt))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _metadata(fmt: str) -> dict[str, str | None]:
    # reproducible files: no creation date in svg/pdf
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None}
    return {}


def curved_path(
    a: Point, b: Point, bend: float, offset: float = 0.0, samples: int = 48
) -> np.ndarray:
    """Points of a link from ``a`` to ``b``: straight if ``bend`` is 0, else a quadratic arc.

    ``bend`` is the arc's distance from the chord at its middle (positive to the left of
    ``a -> b``); ``offset`` shifts the whole link sideways (parallel lanes).

    Examples
    --------
    >>> curved_path((0, 0), (2, 0), 0.5)[24].round(2).tolist()
    [1.02, 0.5]
    """
    p0, p2 = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    chord = p2 - p0
    normal = np.array([-chord[1], chord[0]]) / max(float(np.hypot(*chord)), 1e-12)
    p0, p2 = p0 + offset * normal, p2 + offset * normal
    if bend == 0:
        return np.linspace(p0, p2, samples)
    p1 = (p0 + p2) / 2 + 2 * bend * normal
    t = np.linspace(0.0, 1.0, samples)[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2


def s_path(
    a: Point,
    b: Point,
    channel: float,
    *,
    vertical: bool,
    offset: float = 0.0,
    samples: int = 64,
) -> np.ndarray:
    """Points of a cubic S-curve from ``a`` to ``b`` that runs along a channel between nodes.

    With ``vertical`` the curve leaves ``a`` sideways to the line ``x = channel``, follows it and
    enters ``b`` sideways (control points ``(channel, a_y)`` and ``(channel, b_y)``); otherwise the
    same along ``y = channel``. ``offset`` shifts it sideways like :func:`curved_path`.

    Examples
    --------
    >>> s_path((0, 0), (1, -4), 0.5, vertical=True, samples=3)[1].tolist()
    [0.5, -2.0]
    """
    p0, p3 = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    chord = p3 - p0
    normal = np.array([-chord[1], chord[0]]) / max(float(np.hypot(*chord)), 1e-12)
    if vertical:
        p1, p2 = np.array([channel, p0[1]]), np.array([channel, p3[1]])
    else:
        p1, p2 = np.array([p0[0], channel]), np.array([p3[0], channel])
    t = np.linspace(0.0, 1.0, samples)[:, None]
    pts = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3
    return pts + offset * normal


def trim_path(
    points: np.ndarray,
    a: Point,
    half_a: tuple[float, float],
    b: Point,
    half_b: tuple[float, float],
    *,
    diamond_a: bool = False,
    diamond_b: bool = False,
) -> np.ndarray:
    """Drop the points of a link inside its end nodes' shapes (centre, half width/height).

    A shape is the box ``|dx| < hx, |dy| < hy``, or with ``diamond_*`` the inscribed diamond
    ``|dx|/hx + |dy|/hy < 1``.
    """

    def inside(c: Point, h: tuple[float, float], diamond: bool) -> np.ndarray:
        dx, dy = np.abs(points[:, 0] - c[0]) / h[0], np.abs(points[:, 1] - c[1]) / h[1]
        return (dx + dy < 1) if diamond else (dx < 1) & (dy < 1)

    keep = ~(inside(a, half_a, diamond_a) | inside(b, half_b, diamond_b))
    idx = np.flatnonzero(keep)
    if len(idx) < 2:
        return points[[0, -1]]
    return points[idx[0] : idx[-1] + 1]
