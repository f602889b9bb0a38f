"""Sweep curves: bandwidth (or time) against data size or chiplet count, and speedups.

The paper's figures 9 and 10 (bandwidth vs data size, one line per topology) and 11 (scaling
from 9 to 256 chiplets). Input is the flat rows of :func:`supermesh.sim.sweep.run_sweep`
(keys ``topology``, ``chiplets``, ``collective``, ``algorithm``, ``bytes``, ``seconds``,
``error``); rows with an error are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

from supermesh.draw.common import new_figure, tree_color
from supermesh.errors import SupermeshError
from supermesh.units import format_size

__all__ = ["draw_speedup", "draw_sweep", "series_label"]

Row = Mapping[str, Any]
Label = Callable[[Row], str]

_X = {"bytes": "collective size", "chiplets": "compute chiplets"}
_Y = ("bandwidth", "time")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def series_label(row: Row, *, x: str = "bytes") -> str:
    """Default series name: the topology spec (its family when ``x`` is ``chiplets``), the
    algorithm, and the collective.

    Examples
    --------
    >>> series_label({"topology": "smbi:4x4", "algorithm": "pipeline", "collective": "allreduce"})
    'smbi:4x4 pipeline allreduce'
    >>> series_label({"topology": "mesh:8x8", "algorithm": "tto", "collective": "allreduce"},
    ...              x="chiplets")
    'mesh tto allreduce'
    """
    topo = str(row["topology"])
    if x == "chiplets":
        topo = topo.split(":", 1)[0]
    return f"{topo} {row['algorithm']} {row['collective']}"


def _series(
    rows: Iterable[Row], x: str, label: Label | None
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Label -> (x values, seconds, bytes), sorted by x; rows with errors skipped."""
    if x not in _X:
        raise SupermeshError(f"x {x!r} is not one of {sorted(_X)}", hint="use bytes or chiplets")
    points: dict[str, dict[float, tuple[float, float]]] = {}
    for row in rows:
        if row.get("error") or not row.get("seconds"):
            continue
        name = label(row) if label is not None else series_label(row, x=x)
        points.setdefault(name, {})[float(row[x])] = (float(row["seconds"]), float(row["bytes"]))
    if not points:
        raise SupermeshError(
            "no usable sweep rows (every row is missing or failed)",
            hint="run the sweep again and check its error column",
        )
    out = {}
    for name, pts in points.items():
        xs = sorted(pts)
        out[name] = (
            np.array(xs),
            np.array([pts[v][0] for v in xs]),
            np.array([pts[v][1] for v in xs]),
        )
    return out


def _merge_equal(
    curves: list[tuple[str, np.ndarray, np.ndarray]],
) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Curves with the same points drawn once, labelled ``"A = B"`` (else one hides the other)."""
    out: list[tuple[str, np.ndarray, np.ndarray]] = []
    for name, xs, ys in curves:
        for j, (other, oxs, oys) in enumerate(out):
            if len(xs) == len(oxs) and np.allclose(xs, oxs) and np.allclose(ys, oys, rtol=1e-9):
                out[j] = (f"{other} = {name}", oxs, oys)
                break
        else:
            out.append((name, xs, ys))
    return out


def _plot(
    ax: Axes, curves: list[tuple[str, np.ndarray, np.ndarray]], colors: dict[str, int]
) -> None:
    for name, xs, ys in _merge_equal(curves):
        i = colors[name.split(" = ")[0]]
        ax.plot(
            xs,
            ys,
            marker=_MARKERS[i % len(_MARKERS)],
            ms=4,
            lw=1.6,
            color=tree_color(i),
            label=name,
        )


def _x_axis(ax: Axes, x: str, values: Iterable[float]) -> None:
    ticks = sorted(set(values))
    if x == "bytes":  # sizes double: log scale; above 6 points every other one labelled
        ax.set_xscale("log", base=2)
        labelled = ticks if len(ticks) <= 6 else ticks[::2]
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_size(round(v))))
    else:  # chiplet counts: linear (linear growth looks linear); labels at least 1/14 apart
        gap = (ticks[-1] - ticks[0]) / 14.0
        labelled = []
        for v in ticks:
            if not labelled or v - labelled[-1] >= gap:
                labelled.append(v)
        if labelled[-1] != ticks[-1]:  # always label the largest
            labelled[-1] = ticks[-1]
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_major_locator(FixedLocator(labelled))
    ax.xaxis.set_minor_locator(FixedLocator(ticks) if len(labelled) < len(ticks) else NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(_X[x] + (" (bytes)" if x == "bytes" else ""))


def _axes(ax: Axes | None) -> tuple[Figure, Axes]:
    if ax is None:
        return new_figure(5.6, 3.6)
    return cast(Figure, ax.get_figure(root=True)), ax


def draw_sweep(
    rows: Iterable[Row],
    ax: Axes | None = None,
    *,
    x: str = "bytes",
    y: str = "bandwidth",
    normalize: bool = False,
    label: Label | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Figure:
    """One line per series: algorithm bandwidth (or completion time) against ``x``.

    Parameters
    ----------
    rows : iterable of dict
        Sweep rows (:func:`supermesh.sim.sweep.run_sweep`).
    ax : matplotlib Axes, optional
    x : {"bytes", "chiplets"}
        Data size (log scale, binary units) or number of compute chiplets.
    y : {"bandwidth", "time"}
        Algorithm bandwidth in GB/s (bytes / completion time) or completion time in µs.
    normalize : bool
        Divide each series by its first point (the paper's figure 11 normalises to 3x3).
    label : callable, optional
        Row -> series name (default :func:`series_label`).
    legend : bool
        Draw the legend in the axes.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        An unknown ``x`` or ``y``, or no usable rows.

    Examples
    --------
    >>> rows = [{"topology": "mesh:4x4", "algorithm": "tto", "collective": "allreduce",
    ...          "chiplets": 16, "bytes": b, "seconds": b / 1.5e10, "error": None}
    ...         for b in (1 << 20, 1 << 22)]
    >>> fig = draw_sweep(rows)
    >>> fig.axes[0].lines[0].get_ydata().round(1).tolist()  # GB/s
    [15.0, 15.0]
    """
    if y not in _Y:
        raise SupermeshError(f"y {y!r} is not one of {_Y}", hint="use bandwidth or time")
    series = _series(rows, x, label)
    fig, ax = _axes(ax)
    curves = []
    for name, (xs, secs, nbytes) in series.items():
        values = nbytes / secs / 1e9 if y == "bandwidth" else secs * 1e6
        if normalize:
            values = values / values[0]
        curves.append((name, xs, values))
    _plot(ax, curves, {name: i for i, name in enumerate(series)})
    _x_axis(ax, x, [v for xs, _, _ in series.values() for v in xs])
    what = "algorithm bandwidth (GB/s)" if y == "bandwidth" else "completion time (µs)"
    if normalize:
        what = ("bandwidth" if y == "bandwidth" else "time") + " / first point (×)"
    ax.set_ylabel(what)
    if y == "bandwidth" and not normalize:
        ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if legend:  # curves rise to the right: bandwidth saturates at the top, times grow
        ax.legend(
            fontsize=7.5, frameon=True, loc="lower right" if y == "bandwidth" else "upper left"
        )
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig


def draw_speedup(
    rows: Iterable[Row],
    baseline: str,
    ax: Axes | None = None,
    *,
    x: str = "bytes",
    label: Label | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Figure:
    """Speedup of every series over ``baseline`` (baseline time / series time) against ``x``.

    Points where the baseline has no result are left out; the baseline is the dashed line at 1.

    Parameters
    ----------
    rows : iterable of dict
        Sweep rows.
    baseline : str
        The series name (as ``label`` names it) to divide by.
    ax, x, label, legend, title
        As in :func:`draw_sweep`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        The baseline is not one of the series.

    Examples
    --------
    >>> rows = [{"topology": t, "algorithm": "pipeline", "collective": "allreduce",
    ...          "chiplets": 16, "bytes": 1 << 20, "seconds": s, "error": None}
    ...         for t, s in (("mesh:4x4", 4e-5), ("smbi:4x4", 3e-5))]
    >>> fig = draw_speedup(rows, "mesh:4x4 pipeline allreduce")
    >>> fig.axes[0].lines[1].get_ydata().round(3).tolist()
    [1.333]
    """
    series = _series(rows, x, label)
    if baseline not in series:
        raise SupermeshError(
            f"baseline {baseline!r} is not a series of the sweep",
            hint="use one of: " + ", ".join(sorted(series)),
        )
    fig, ax = _axes(ax)
    bx, bt, _ = series[baseline]
    base = dict(zip(bx.tolist(), bt.tolist(), strict=True))
    ax.axhline(1.0, color="#404040", lw=1.2, ls="--", label=f"{baseline} (baseline)")
    curves = []
    for name, (xs, secs, _) in series.items():
        keep = [j for j, v in enumerate(xs.tolist()) if v in base]
        if name == baseline or not keep:
            continue
        px = xs[keep]
        curves.append((name, px, np.array([base[v] for v in px.tolist()]) / secs[keep]))
    _plot(ax, curves, {name: i for i, name in enumerate(series)})
    _x_axis(ax, x, bx.tolist())
    ax.set_ylabel(f"speedup over {baseline} (×)")
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=7.5, frameon=True, loc="best")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig
