"""The rate-height trade-off of ReduceScatter / AllGather schedules, as points and a plot.

A throughput packing (:func:`supermesh.trees.throughput.pack.pack_throughput`) reaches the cut bound
with trees as low as the eccentricity allows; capping each tree at its root's eccentricity
(``root_slack=0``) can cost rate; an LP with no height cap (ForestColl does not look at heights)
may grow taller trees; the paper's root sets (4 arc-disjoint trees per set, sets in turn) reach
``n / (number of sets)`` links. :func:`tradeoff_point` places a packing on the rate-height plane
(rate recounted exactly by :func:`~supermesh.draw.link_load.link_loads`) and
:func:`draw_tradeoff` plots several.

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from supermesh.draw.common import new_figure, tree_color
from supermesh.draw.link_load import collective_of, link_loads
from supermesh.errors import SupermeshError
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.model import TreePacking
from supermesh.trees.throughput.rates import root_shares

__all__ = ["TradeoffPoint", "draw_tradeoff", "tradeoff_point"]


@dataclass(frozen=True)
class TradeoffPoint:
    """One schedule on the rate-height plane.

    Attributes
    ----------
    label : str
    rate : Fraction
        Algorithm bandwidth it reaches, in links.
    optimum : Fraction
        The cut bound it is compared with.
    max_height : int or None
        Its tallest tree; None draws the point as a horizontal reference line (a rate only).
    mean_height : float or None
        Tree height averaged over the data (each tree weighted by its share).
    height_floor : int or None
        No schedule's tallest tree is lower than this (the eccentricity bound), if known.
    """

    label: str
    rate: Fraction
    optimum: Fraction
    max_height: int | None = None
    mean_height: float | None = None
    height_floor: int | None = None

    @property
    def fraction(self) -> float:
        """``rate / optimum``."""
        return float(self.rate / self.optimum)


def tradeoff_point(
    G: nx.MultiDiGraph,
    packing: TreePacking,
    label: str,
    *,
    optimum: Fraction | None = None,
) -> TradeoffPoint:
    """Where a packing sits on the rate-height plane: the rate its trees reach (recounted,
    :func:`link_loads`), its tallest tree and its share-weighted mean height.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
        Weighted (all trees at once) or root sets run in turn.
    label : str
    optimum : Fraction, optional
        Default: the cut bound of the packing's collective.

    Returns
    -------
    TradeoffPoint

    Raises
    ------
    SupermeshError, TopologyError
        As :func:`link_loads`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("mesh:3x3")
    >>> p = tradeoff_point(G, pack_throughput(G), "optimal")
    >>> p.rate, p.fraction, p.max_height
    (Fraction(9, 4), 1.0, 4)
    """
    loads = link_loads(G, packing)
    if optimum is None:
        optimum = throughput_bound(G, collective_of(packing), ranks=packing.span).value
    shares = root_shares(packing)
    mean = sum(s * t.height for s, t in zip(shares, packing.trees, strict=True)) / loads.ranks
    floor = packing.stats.get("eccentricity_bound")
    return TradeoffPoint(
        label=label,
        rate=loads.reachable,
        optimum=Fraction(optimum),
        max_height=max(t.height for t in packing.trees),
        mean_height=float(mean),
        height_floor=int(floor) if isinstance(floor, int) else None,
    )


def draw_tradeoff(
    results: Sequence[TradeoffPoint],
    ax: Axes | None = None,
    *,
    legend: bool = True,
    title: str | None = None,
) -> Figure:
    """Rate (fraction of the cut bound) against the tallest tree, one marker per schedule.

    The legend gives each schedule's rate, tallest tree and mean height (over the data: each
    tree weighted by its share); a schedule with no heights is a dashed horizontal line at its
    rate. The cut bound is the line at 100%; heights below the eccentricity bound (no tree set
    can be that low: some rank is that far from another) are shaded.

    Parameters
    ----------
    results : sequence of TradeoffPoint
        From :func:`tradeoff_point` (or made by hand for a reference rate).
    ax : matplotlib Axes, optional
    legend : bool
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        No points, or a point without a positive rate and optimum.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fig = draw_tradeoff([TradeoffPoint("a", F(4), F(64, 15), 6, 5.5, 6)])
    >>> fig.axes[0].lines[1].get_xydata().tolist(), fig.axes[0].get_legend_handles_labels()[1][1]
    ([[6.0, 0.9375]], 'a: 4 links = 93.8%, tallest 6, mean 5.5')
    """
    points = list(results)
    if not points:
        raise SupermeshError("no trade-off points to draw", hint="pass at least one point")
    for p in points:
        if not isinstance(p, TradeoffPoint):
            raise SupermeshError(
                f"expected TradeoffPoint, got {type(p).__name__}",
                hint="make points with tradeoff_point(G, packing, label)",
            )
        if not (p.rate > 0 and p.optimum > 0):
            raise SupermeshError(
                f"point {p.label!r} has rate {p.rate} and optimum {p.optimum}; both must be > 0"
            )
    if ax is None:
        fig, ax = new_figure(5.6, 3.6)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    ax.axhline(1.0, color="#303030", lw=1.2, label="cut bound (ForestColl optimum)")
    heights = [float(p.max_height) for p in points if p.max_height is not None]
    floors = [p.height_floor for p in points if p.height_floor is not None]
    lo = min([*heights, *floors], default=0.0) - 1.0
    hi = max([*heights, *floors], default=lo + 2.0) + 1.0
    if floors:
        floor = max(floors)
        ax.axvspan(lo, floor, color="#e6e6e6", zorder=0, lw=0)
        ax.text(
            (lo + floor) / 2 if floor - lo > 1.5 else floor - 0.1,
            0.02,
            f"no tallest tree\nbelow {floor}\n(eccentricity)",
            transform=ax.get_xaxis_transform(),
            ha="center" if floor - lo > 1.5 else "right",
            va="bottom",
            fontsize=7,
            color="#606060",
        )
    for i, p in enumerate(points):
        color = tree_color(i)
        if p.max_height is None:
            ax.axhline(p.fraction, color=color, lw=1.4, ls="--", label=_point_label(p))
        else:
            ax.plot(
                [p.max_height], [p.fraction], color=color, marker="o", ms=7, ls="", zorder=4,
                label=_point_label(p),
            )  # fmt: skip
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fractions = [p.fraction for p in points]
    ax.set_ylim(min(min(fractions) - 0.05, 0.8), max(max(fractions), 1.0) + 0.04)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("tallest tree (hops)")
    ax.set_ylabel("rate (% of the cut bound)")
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=7.5, frameon=True, loc="lower right")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig


def _point_label(p: TradeoffPoint) -> str:
    rate = f"{float(p.rate):.3g} links = {p.fraction:.1%}"
    if p.max_height is None:
        return f"{p.label}: {rate}"
    mean = f", mean {p.mean_height:.3g}" if p.mean_height is not None else ""
    return f"{p.label}: {rate}, tallest {p.max_height}{mean}"
