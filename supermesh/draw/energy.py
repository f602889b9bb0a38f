"""Energy (or power) by component, one stacked bar per run: the paper's Figures 14 and 15.

Each bar stacks the four components DSENT reports, bottom to top: router static, router dynamic,
link static, link dynamic (:data:`supermesh.sim.energy.COMPONENTS`), for one simulated run
(a :class:`~supermesh.sim.result.SimResult`), by the energy model the run names or one given.
Bars are in mJ (W for power), or normalised to one of them (the baseline: the mesh in Figure 14,
SuperMesh in Figure 15); each carries its total on top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from supermesh.draw.common import new_figure
from supermesh.errors import SupermeshError
from supermesh.sim.energy import COMPONENTS, EnergyModel
from supermesh.sim.result import SimResult

__all__ = ["COMPONENT_STYLES", "draw_energy", "energy_bars"]

Bars = Mapping[str, SimResult] | Sequence[tuple[str, SimResult]]

COMPONENT_STYLES: dict[str, tuple[str, str]] = {
    "router_static": ("#1f4e79", "router static"),
    "router_dynamic": ("#6fa8dc", "router dynamic"),
    "link_static": ("#a35200", "link static"),
    "link_dynamic": ("#f6b26b", "link dynamic"),
}
"""Colour and legend label of each component (routers blue, links orange; static dark)."""

_QUANTITIES = {"energy": ("energy", "mJ", 1e3), "power": ("average power", "W", 1.0)}


def energy_bars(
    bars: Bars,
    *,
    quantity: str = "energy",
    baseline: str | None = None,
    model: EnergyModel | str | None = None,
) -> tuple[list[str], np.ndarray]:
    """The bars' labels and their components, shape ``(bars, 4)`` in :data:`COMPONENTS` order.

    Parameters
    ----------
    bars : mapping or sequence of (label, SimResult)
    quantity : {"energy", "power"}
        Energy in mJ or average power over the run in W.
    baseline : str, optional
        Label of the bar every bar is divided by (its total becomes 1).
    model : EnergyModel or str, optional
        Energy model for every bar (default: each run's own).

    Returns
    -------
    (list of str, numpy.ndarray)

    Raises
    ------
    SupermeshError
        No bars, an unknown quantity, or a baseline that is not one of the labels or spent
        nothing.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim import simulate_baseline
    >>> runs = {n: simulate_baseline(build(f"{n}:4x4"), "ring", "allreduce", 1 << 20)
    ...         for n in ("mesh", "smbi")}
    >>> labels, values = energy_bars(runs, baseline="mesh")
    >>> labels, round(float(values[0].sum()), 6)
    (['mesh', 'smbi'], 1.0)
    """
    items = list(bars.items()) if isinstance(bars, Mapping) else list(bars)
    if not items:
        raise SupermeshError("no runs to draw", hint="pass at least one (label, SimResult)")
    if quantity not in _QUANTITIES:
        raise SupermeshError(
            f"quantity {quantity!r} is not one of {sorted(_QUANTITIES)}", hint="energy or power"
        )
    rows = []
    for _, r in items:
        e = r.energy if model is None else r.energy_with(model)
        values = np.array([e.component(c) for c in COMPONENTS])
        if quantity == "power":
            values = values / r.seconds if r.seconds > 0 else values * 0.0
        rows.append(values)
    table = np.array(rows)
    labels = [label for label, _ in items]
    if baseline is None:
        return labels, table * _QUANTITIES[quantity][2]
    if baseline not in labels:
        raise SupermeshError(
            f"baseline {baseline!r} is not one of the bars", hint=f"use one of: {', '.join(labels)}"
        )
    total = float(table[labels.index(baseline)].sum())
    if total <= 0:
        raise SupermeshError(f"the baseline {baseline!r} spent no {quantity}")
    return labels, table / total


def draw_energy(
    bars: Bars,
    ax: Axes | None = None,
    *,
    quantity: str = "energy",
    baseline: str | None = None,
    model: EnergyModel | str | None = None,
    legend: bool = True,
    title: str | None = None,
) -> Figure:
    """Stacked bars of energy (or power) by component, one per run, each with its total on top.

    Parameters
    ----------
    bars : mapping or sequence of (label, SimResult)
        The runs, in drawing order.
    ax : matplotlib Axes, optional
    quantity, baseline, model
        See :func:`energy_bars`.
    legend : bool
        Draw the components' legend.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        As :func:`energy_bars`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim import simulate_baseline
    >>> runs = [(n, simulate_baseline(build(f"{n}:4x4"), "ring", "allreduce", 1 << 20))
    ...         for n in ("mesh", "smbi")]
    >>> fig = draw_energy(runs, baseline="mesh")
    >>> len(fig.axes[0].patches)  # 2 bars x 4 components
    8
    """
    labels, table = energy_bars(bars, quantity=quantity, baseline=baseline, model=model)
    if ax is None:
        fig, ax = new_figure(max(3.2, 0.9 * len(labels) + 1.6), 3.6)
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    for j, name in enumerate(COMPONENTS):
        color, label = COMPONENT_STYLES[name]
        ax.bar(
            x,
            table[:, j],
            0.62,
            bottom=bottom,
            color=color,
            label=label,
            edgecolor="white",
            linewidth=0.4,
        )
        bottom += table[:, j]
    top = float(bottom.max())
    what, unit, _ = _QUANTITIES[quantity]
    for xi, total in enumerate(bottom.tolist()):
        text = f"{total:.2f}×" if baseline is not None else f"{total:,.4g} {unit}"
        ax.text(xi, total + 0.015 * top, text, ha="center", va="bottom", fontsize=7.5)
    if baseline is not None:
        ax.axhline(1.0, color="#404040", lw=0.8, ls="--", zorder=0)
        ax.set_ylabel(f"{what} / {baseline}'s (×)")
    else:
        ax.set_ylabel(f"{what} ({unit})")
    ax.set_ylim(0, top * (1.32 if legend else 1.12))  # room for the totals and the legend
    ax.set_xticks(x, labels, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if legend:
        ax.legend(fontsize=7, loc="upper left", ncol=2, framealpha=0.9)
    if title is not None:
        ax.set_title(title, fontsize=10)
    return fig
