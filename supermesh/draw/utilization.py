"""Link utilisation: a heat map on the topology's layout, and the share of busy links over time.

These are the paper's figure 2 (link utilisation of a 6x6 mesh during AllGather: the border
links are the bottleneck) and figure 18 (utilisation over the run, mesh vs SuperMesh).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import networkx as nx
import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter

from supermesh.draw.common import new_figure, tree_color
from supermesh.draw.geometry import arc_lanes, draw_boxes
from supermesh.errors import SupermeshError, TopologyError
from supermesh.sim.engine.timing import run_program
from supermesh.sim.program import Program
from supermesh.sim.result import SimResult
from supermesh.topologies.model import Arc, arcs

__all__ = [
    "busy_timeseries",
    "draw_utilization",
    "draw_utilization_timeseries",
    "utilization_colorbar",
]

_SPREAD = 2.0  # parallel links further apart than in draw_topology: each holds two lines
_SHIFT = 0.05  # the two directions of a link, each to the right of its direction of travel
CMAP = ListedColormap(colormaps["plasma"](np.linspace(0.0, 0.82, 256)), name="utilization")
"""Dark blue (idle) through magenta to orange (busy): plasma without its pale yellow end."""


def _shares(G: nx.MultiDiGraph, utilization: SimResult | Mapping[Arc, float]) -> dict[Arc, float]:
    given = utilization.utilization if isinstance(utilization, SimResult) else utilization
    shares = dict.fromkeys(arcs(G), 0.0)
    for arc, value in given.items():
        key = (int(arc[0]), int(arc[1]), int(arc[2]))
        if key not in shares:
            raise TopologyError(
                f"utilisation given for arc {key[0]}->{key[1]} (key {key[2]}), which "
                f"{G.graph.get('name', 'the topology')} does not have",
                hint="draw a result on the topology it was simulated on",
            )
        if not (np.isfinite(value) and value >= 0):
            raise SupermeshError(
                f"utilisation {value!r} of arc {key} is not a number >= 0",
                hint="give shares of the run time (0 to 1)",
            )
        shares[key] = float(value)
    return shares


def utilization_colorbar(fig: Figure, axes: Axes | Sequence[Axes], *, vmax: float = 1.0) -> None:
    """Add the utilisation colour bar (0 to ``vmax`` as percentages) beside ``axes``."""
    mappable = ScalarMappable(Normalize(0.0, 100.0 * vmax), CMAP)
    fig.colorbar(mappable, ax=axes, label="link utilisation (% of the run)", shrink=0.8)


def draw_utilization(
    G: nx.MultiDiGraph,
    utilization: SimResult | Mapping[Arc, float],
    ax: Axes | None = None,
    *,
    vmax: float = 1.0,
    labels: bool = True,
    colorbar: bool = True,
    title: str | None = None,
) -> Figure:
    """Heat map of link utilisation on the topology's layout; return the matplotlib Figure.

    Every arc is its own line, coloured (dark blue = idle, orange = busy all the time) and
    thickened by its utilisation. The two directions of a link sit side by side, each to the
    right of its direction of travel; parallel links keep their lanes (spread apart to make
    room).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    utilization : SimResult or mapping
        A simulation result, or arc ``(src, dst, key)`` -> share of the run it was busy (0-1;
        arcs left out count as idle).
    ax : matplotlib Axes, optional
        Draw into this Axes; by default a new Figure.
    vmax : float
        Share at the top of the colour scale.
    labels : bool
        Write node ids in the boxes.
    colorbar : bool
        Add the colour bar (turn off to share one across panels: :func:`utilization_colorbar`).
    title : str, optional
        Defaults to the topology's name, with the algorithm and collective of a result.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TopologyError
        A utilisation for an arc ``G`` does not have.
    SupermeshError
        A negative or non-finite utilisation, or ``vmax <= 0``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> fig = draw_utilization(build("mesh:2x2"), {(0, 1, 0): 0.5})
    >>> len(fig.axes[0].collections[0].get_segments())  # one line per arc
    8
    """
    if not vmax > 0:
        raise SupermeshError(f"vmax {vmax!r} must be positive", hint="e.g. vmax=1.0 (100%)")
    shares = _shares(G, utilization)
    pos = np.array([p for _, p in G.nodes(data="pos")], dtype=float).reshape(-1, 2)
    span_x, span_y = (np.ptp(pos, axis=0) + 1.0) if len(pos) else (1.0, 1.0)
    scale = min(0.75, 7.0 / max(span_x, span_y, 1.0))
    if ax is None:
        fig, ax = new_figure(span_x * scale + 1.6, span_y * scale + 0.6)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    lanes = arc_lanes(G)
    norm = Normalize(0.0, vmax, clip=True)
    cmap = ScalarMappable(norm, CMAP).get_cmap()
    order = sorted(shares, key=lambda a: (shares[a], a))  # busiest drawn last, on top
    paths = [lanes[a].points(_SHIFT if lanes[a].two_way else 0.0, _SPREAD) for a in order]
    values = np.array([shares[a] for a in order])
    top = float(np.clip(4.0 * scale, 1.2, 3.0))
    coll = LineCollection(
        paths,
        colors=cmap(norm(values)),
        linewidths=0.5 + (top - 0.5) * np.clip(values / vmax, 0.0, 1.0),
        zorder=2,
        capstyle="butt",
    )
    coll.set_gid("utilization")
    ax.add_collection(coll, autolim=True)
    draw_boxes(ax, G, faces=dict.fromkeys(G.nodes, "#f4f4f4"))
    if labels and G.number_of_nodes() <= 256:
        size = float(np.clip(12.0 * scale, 5.0, 9.0))
        for n, (x, y) in sorted(G.nodes(data="pos")):
            ax.text(x, y, str(n), ha="center", va="center", fontsize=size, zorder=4)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.margins(0.03)
    ax.axis("off")
    if title is None:
        title = G.graph.get("name", "")
        if isinstance(utilization, SimResult):
            title += f": {utilization.algorithm} {utilization.collective}"
    ax.set_title(title, fontsize=10)
    mean = float(np.mean(values)) if len(values) else 0.0
    ax.text(
        0.5,
        -0.01,
        f"mean {100 * mean:.0f}%, max {100 * float(values.max(initial=0.0)):.0f}%; "
        "one line per direction (keeps right)",
        transform=ax.transAxes,
        ha="center",
        va="top",
        fontsize=8,
    )
    if colorbar:
        utilization_colorbar(fig, ax, vmax=vmax)
    return fig


def busy_timeseries(program: Program, n_arcs: int, *, bins: int = 100) -> dict[str, list[float]]:
    """Exact share of links busy per time bin, from every transfer's start time.

    Runs ``program`` on the engine keeping all start times, then integrates the number of busy
    links exactly over each bin (events +1 at a start, -1 at a delivery; the integral is piecewise
    linear between events). Unlike a sampled series it has no aliasing, whatever the bin width.

    Parameters
    ----------
    program : Program
        From :func:`supermesh.sim.collectives.tree_program` or
        :func:`supermesh.sim.baselines.dispatch.baseline_program`.
    n_arcs : int
        Number of directed links the share is taken over (all arcs of the topology).
    bins : int
        Number of equal bins from 0 to the end of the run.

    Returns
    -------
    dict
        ``t`` (bin centres, internal unit) and ``utilization`` (0-1), as in
        :attr:`SimResult.timeseries <supermesh.sim.result.SimResult>`.

    Raises
    ------
    SupermeshError
        ``bins`` or ``n_arcs`` not positive.

    Examples
    --------
    >>> from supermesh.sim.program import PhaseBuilder, Program
    >>> idx = {}
    >>> pb = PhaseBuilder(idx)
    >>> _ = pb.add((0, 1, 0), count=2, duration=10.0, payload=1)
    >>> busy_timeseries(Program(list(idx), [pb.build(start=0.0)]), 2, bins=2)["utilization"]
    [0.5, 0.5]
    """
    if bins < 1 or n_arcs < 1:
        raise SupermeshError(f"bins ({bins}) and n_arcs ({n_arcs}) must be positive")
    timing = run_program(program, keep_starts=True)
    starts, ends = [], []
    for phase, pt in zip(program.phases, timing.phases, strict=True):
        for b, s in enumerate(pt.starts or []):
            starts.append(np.asarray(s, dtype=float))
            ends.append(starts[-1] + float(phase.duration[b]))
    end = float(timing.end)
    edges = np.linspace(0.0, end, bins + 1)
    if not starts or end <= 0:
        return {"t": ((edges[:-1] + edges[1:]) / 2).tolist(), "utilization": [0.0] * bins}
    times = np.concatenate(starts + ends)
    steps = np.concatenate(
        [np.ones(sum(len(x) for x in starts)), -np.ones(sum(len(x) for x in ends))]
    )
    order = np.argsort(times, kind="stable")
    times, busy = times[order], np.cumsum(steps[order])
    # integral of the busy count from 0 to each event time, then at each bin edge
    area = np.concatenate([[0.0], np.cumsum(busy[:-1] * np.diff(times))])
    at_edges = np.interp(edges, times, area, left=0.0, right=float(area[-1]))
    share = np.diff(at_edges) / (np.diff(edges) * n_arcs)
    return {
        "t": ((edges[:-1] + edges[1:]) / 2).tolist(),
        "utilization": np.clip(share, 0.0, 1.0).tolist(),
    }


def _time_axis(results: Sequence[SimResult]) -> tuple[float, str]:
    """Scale from internal units and the axis label: the shared unit, else microseconds."""
    units = {r.params.unit for r in results}
    if len(units) == 1:
        unit = units.pop()
        return 1.0, f"time ({unit}s)" if not unit.endswith("s") else f"time ({unit})"
    return -1.0, "time (µs)"


def draw_utilization_timeseries(
    results: SimResult | Sequence[SimResult],
    ax: Axes | None = None,
    *,
    labels: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """Share of all links busy over the run, one line per result; return the Figure.

    Parameters
    ----------
    results : SimResult or sequence of SimResult
        Results with a time series (simulated with ``bins > 0``).
    ax : matplotlib Axes, optional
    labels : sequence of str, optional
        Legend label per result (default: topology and algorithm); the legend adds each run's
        mean utilisation.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        No results, a result without a time series, or labels of the wrong length.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim import simulate_baseline
    >>> r = simulate_baseline(build("mesh:2x2"), "ring", "allreduce", 1 << 16)
    >>> len(draw_utilization_timeseries(r).axes[0].lines)
    1
    """
    runs = [results] if isinstance(results, SimResult) else list(results)
    if not runs:
        raise SupermeshError("no results to plot", hint="pass at least one SimResult")
    if labels is not None and len(labels) != len(runs):
        raise SupermeshError(
            f"{len(labels)} labels for {len(runs)} results", hint="give one label per result"
        )
    scale, xlabel = _time_axis(runs)
    if ax is None:
        fig, ax = new_figure(6.4, 3.4)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    for i, r in enumerate(runs):
        series = r.timeseries
        if not series.get("t"):
            raise SupermeshError(
                f"the result for {r.topology} has no time series",
                hint="simulate with bins > 0 (the default is 100)",
            )
        t = np.asarray(series["t"], dtype=float)
        t = t * r.params.seconds_per_unit * 1e6 if scale < 0 else t
        u = 100.0 * np.asarray(series["utilization"], dtype=float)
        name = labels[i] if labels is not None else f"{r.topology} {r.algorithm}"
        ax.plot(
            t,
            u,
            color=tree_color(i),
            lw=1.6,
            label=f"{name} (mean {100 * r.mean_link_utilization:.0f}%)",
        )
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    ax.set_ylabel("links busy (% of all links)")
    ax.set_ylim(0, 105)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower center", frameon=True)
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig
