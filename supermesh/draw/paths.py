"""The shapes of drawn links: straight or bent arcs, S-curves along a channel, trimmed at nodes.

Coordinates are chiplet pitches (a node's ``pos``); every function returns the points of a
polyline as a numpy array of shape ``(samples, 2)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Point", "curved_path", "s_path", "trim_path"]

Point = Sequence[float] | np.ndarray
"""A 2D point: a pair of floats or a numpy array of shape (2,)."""


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
