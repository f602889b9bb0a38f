"""Draw the link loads of a throughput packing, with the bottleneck cut that bounds its rate.

A throughput packing (:func:`supermesh.trees.throughput.pack.pack_throughput`) runs every tree at
once, each carrying a share of its root's data. At algorithm bandwidth ``rho`` (links) a rank sends
at ``rho / n`` link units, so arc ``a`` carries ``rho / n * (sum of the shares of the trees using
a)``, at most its bandwidth. :func:`link_loads` computes these loads exactly (also for root sets
run one after another, the paper's scheme), :func:`draw_link_load` colours every directed link by
its load and shades the bottleneck cut of
:func:`~supermesh.trees.bounds.throughput.throughput_bound`. The trees one rank roots are drawn by
:func:`~supermesh.draw.root_trees.draw_root_trees`, the rate-height trade-off by
:mod:`supermesh.draw.tradeoff`.

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
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure, FigureBase
from matplotlib.patches import Patch, Rectangle

from supermesh.draw.common import lighten
from supermesh.draw.topology import node_boxes
from supermesh.draw.utilization import CMAP, draw_utilization
from supermesh.errors import SupermeshError, TopologyError
from supermesh.topologies.model import Arc, arcs
from supermesh.trees.bounds.throughput import exact_fraction, throughput_bound
from supermesh.trees.model import TreePacking
from supermesh.trees.throughput.rates import root_shares

__all__ = [
    "CUT_COLOR",
    "LinkLoads",
    "check_packing",
    "collective_of",
    "draw_link_load",
    "link_loads",
    "load_colorbar",
]

CUT_COLOR = "#1b9e77"
"""Outline of the nodes inside the bottleneck cut (teal: apart from the load colours)."""

_CUT_FACE = lighten(CUT_COLOR, 0.72)


@dataclass(frozen=True)
class LinkLoads:
    """How much of every arc's capacity a packing uses, exactly.

    Attributes
    ----------
    rate : Fraction
        The algorithm bandwidth (links) the loads are taken at.
    reachable : Fraction
        The best rate the trees allow: the busiest arc then runs at its capacity (sets run one
        after another each take the time of their own busiest arc).
    loads : dict
        Every arc ``(src, dst, key)`` of the topology -> the fraction of its bandwidth used over
        the whole collective (0 for an unused arc; above 1 when ``rate`` exceeds ``reachable``).
    ranks : int
        Number of roots ``n`` (each holds ``1 / n`` of the data).
    """

    rate: Fraction
    reachable: Fraction
    loads: dict[Arc, Fraction]
    ranks: int

    @property
    def max_load(self) -> Fraction:
        """The largest load (1 when ``rate`` is the reachable rate)."""
        return max(self.loads.values(), default=Fraction(0))

    @property
    def busiest(self) -> list[Arc]:
        """The arcs carrying the largest load, sorted."""
        top = self.max_load
        return sorted(a for a, x in self.loads.items() if x == top and top > 0)


def check_packing(G: nx.MultiDiGraph, packing: TreePacking) -> None:
    """Check that ``packing`` is a packing with trees, all on arcs of ``G``, before drawing it.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking

    Raises
    ------
    SupermeshError
        Not a packing, or one with no trees.
    TopologyError
        A tree arc the topology lacks.
    """
    if not isinstance(packing, TreePacking):
        raise SupermeshError(
            f"expected a TreePacking, got {type(packing).__name__}",
            hint="pass the result of pack_throughput (or TreePacking.from_json)",
        )
    if not packing.trees:
        raise SupermeshError(
            f"the packing ({packing.status}) holds no trees",
            hint="an infeasible packing has nothing to draw; raise its height cap",
        )
    for t in packing.trees:
        for a in t.arcs:
            if not G.has_edge(*a):
                raise TopologyError(
                    f"tree rooted at {t.root} uses arc {a[0]}->{a[1]} (key {a[2]}), which "
                    f"{G.graph.get('name', 'the topology')} does not have",
                    hint="draw a packing on the topology it was made for",
                )


def link_loads(
    G: nx.MultiDiGraph, packing: TreePacking, *, rate: Fraction | float | str | None = None
) -> LinkLoads:
    """The fraction of every arc's bandwidth a packing uses at a given rate, exactly.

    Each root's data is split over its trees in proportion to their shares (exact shares from
    ``stats["shares"]`` when present). In one set of ``s`` the trees run together; sets run one
    after another. With ``L_s(a)`` the sum of the shares of the trees of set ``s`` using arc
    ``a``, divided by its bandwidth, set ``s`` takes ``max_a L_s(a)`` (in units of ``M / n``
    over one link), so the reachable rate is ``n / sum_s max_a L_s(a)`` and at rate ``rho``
    arc ``a`` is loaded ``rho / n * sum_s L_s(a)``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (arc ``bandwidth``, default 1).
    packing : TreePacking
        A weighted packing (one set, all trees at once) or root sets run in turn.
    rate : Fraction, float or str, optional
        Algorithm bandwidth in links. Default: ``stats["algbw_links"]`` when the packing states
        it, else the reachable rate (the busiest arc then has load exactly 1).

    Returns
    -------
    LinkLoads

    Raises
    ------
    SupermeshError
        Not a packing, no trees, a share or rate that is not a positive number.
    TopologyError
        A tree arc the topology lacks, or a used arc of bandwidth 0.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("smbi:4x4")
    >>> loads = link_loads(G, pack_throughput(G))
    >>> loads.rate, loads.max_load, len(loads.busiest) > 0
    (Fraction(64, 15), Fraction(1, 1), True)
    """
    check_packing(G, packing)
    shares = iter(root_shares(packing))
    n = len({t.root for t in packing.trees})
    total: dict[Arc, Fraction] = dict.fromkeys(arcs(G), Fraction(0))
    span = Fraction(0)  # sum over sets of the set's busiest arc
    for tree_set in packing.sets:
        used: dict[Arc, Fraction] = {}
        for tree in tree_set.trees:
            share = next(shares)
            for a in tree.arcs:
                used[a] = used.get(a, Fraction(0)) + share
        for a, x in used.items():
            bw = exact_fraction(G.edges[a].get("bandwidth", 1.0))
            if bw == 0:
                raise TopologyError(
                    f"arc {a[0]}->{a[1]} (key {a[2]}) has bandwidth 0 but carries a tree",
                    hint="give every used link a positive bandwidth",
                )
            used[a] = x / bw
            total[a] += used[a]
        span += max(used.values(), default=Fraction(0))
    reachable = Fraction(n) / span if span else Fraction(0)
    if rate is None:
        stated = packing.stats.get("algbw_links")
        rate = Fraction(str(stated)) if stated is not None else reachable
    try:
        value = Fraction(str(rate)) if not isinstance(rate, Fraction) else rate
    except (ValueError, ZeroDivisionError):
        value = Fraction(-1)
    if value <= 0:
        raise SupermeshError(
            f"rate {rate!r} is not a positive number of links",
            hint="give the algorithm bandwidth in links, e.g. '64/15'",
        )
    per_rank = value / n
    return LinkLoads(value, reachable, {a: x * per_rank for a, x in total.items()}, n)


def load_colorbar(fig: FigureBase, axes: Axes | Sequence[Axes], *, vmax: float = 1.0) -> None:
    """Add the link-load colour bar (0 to ``vmax`` of capacity, as percentages) beside ``axes``."""
    mappable = ScalarMappable(Normalize(0.0, 100.0 * vmax), CMAP)
    fig.colorbar(mappable, ax=axes, label="link load (% of its bandwidth)", shrink=0.8)


def collective_of(packing: TreePacking) -> str:
    """``allgather`` for out-trees, ``reducescatter`` for in-trees."""
    return "allgather" if packing.direction == "out" else "reducescatter"


def _shade_cut(ax: Axes, G: nx.MultiDiGraph, inside: Sequence[int]) -> None:
    """Unit cells under the nodes of the cut (adjacent cells merge into one region) and a
    thick outline on their boxes."""
    boxes = node_boxes(G)
    for n in sorted(inside):
        (x, y), (hx, hy) = G.nodes[n]["pos"], boxes[n]
        cell = Rectangle((x - 0.5, y - 0.5), 1.0, 1.0, facecolor=_CUT_FACE, lw=0, zorder=0.5)
        cell.set_gid("cut-region")
        ax.add_patch(cell)
        ring = Rectangle(
            (x - hx - 0.035, y - hy - 0.035),
            2 * hx + 0.07,
            2 * hy + 0.07,
            facecolor="none",
            edgecolor=CUT_COLOR,
            lw=2.2,
            zorder=3.5,
        )
        ring.set_gid("cut-node")
        ax.add_patch(ring)


def draw_link_load(
    G: nx.MultiDiGraph,
    packing: TreePacking,
    ax: Axes | None = None,
    *,
    rate: Fraction | float | str | None = None,
    cut: bool = True,
    labels: bool = True,
    colorbar: bool = True,
    title: str | None = None,
) -> Figure:
    """Every directed link coloured and thickened by its load; the bottleneck cut shaded.

    Loads are exact (:func:`link_loads`): at the optimal rate of an optimal packing the links
    crossing the cut run at 100%. The two directions of a link sit side by side, each to the
    right of its direction of travel, as in
    :func:`~supermesh.draw.utilization.draw_utilization` (whose colours this reuses). The cut
    ``S`` of :func:`~supermesh.trees.bounds.throughput.throughput_bound` (AllGather for
    out-trees, ReduceScatter for in-trees) is shaded: its nodes must receive (send) the data of
    the ranks outside through the arcs entering (leaving) it, so no packing beats
    ``n B(S) / |R \\ S|``.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
    ax : matplotlib Axes, optional
        Draw into this Axes; by default a new Figure.
    rate : Fraction, float or str, optional
        See :func:`link_loads`.
    cut : bool
        Shade the bottleneck cut and name it below the drawing.
    labels : bool
        Write node ids in the boxes.
    colorbar : bool
        Add the load colour bar (off to share one: :func:`load_colorbar`).
    title : str, optional
        Defaults to the topology, the rate and its fraction of the bound.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError, TopologyError
        As :func:`link_loads`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("mesh:3x3")
    >>> fig = draw_link_load(G, pack_throughput(G))
    >>> [p.get_gid() for p in fig.axes[0].patches][:2]  # the cut: corner 0
    ['cut-region', 'cut-node']
    """
    loads = link_loads(G, packing, rate=rate)
    bound = throughput_bound(G, collective_of(packing), ranks=packing.span)
    if title is None:
        title = (
            f"{G.graph.get('name', '')}: {collective_of(packing)} at {loads.rate} = "
            f"{float(loads.rate):.3f} links ({float(loads.rate / bound.value):.1%} of the bound)"
        )
    values = {a: float(x) for a, x in loads.loads.items()}
    vmax = max(1.0, float(loads.max_load))
    fig = draw_utilization(G, values, ax, vmax=vmax, labels=labels, colorbar=False, title=title)
    ax = ax if ax is not None else fig.axes[0]
    if cut:
        cert = bound.certificate
        inside = [int(v) for v in cert["set"]]
        _shade_cut(ax, G, inside)
        way = "entering" if cert["direction"] == "entering" else "leaving"
        label = (
            f"bottleneck cut S = {{{', '.join(map(str, inside))}}}: {cert['arcs']} arcs {way},\n"
            f"n B(S) / |R \\ S| = {cert['ranks']}·{cert['bandwidth']}/{cert['ranks_outside']}"
            f" = {bound.value} links"
        )
        handle = Patch(facecolor=_CUT_FACE, edgecolor=CUT_COLOR, lw=2, label=label)
        ax.legend(
            handles=[handle],
            loc="upper center",
            bbox_to_anchor=(0.5, -0.06),
            frameon=False,
            fontsize=8,
            borderaxespad=0.0,
        )
    if colorbar:
        load_colorbar(cast(FigureBase, ax.get_figure(root=False)), ax, vmax=vmax)
    return fig
