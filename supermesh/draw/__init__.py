"""Drawings (matplotlib, Figure API only; nothing is shown, no pyplot state).

Every function returns a ``matplotlib.figure.Figure``; :func:`save_figure` writes it as png, svg or
pdf. Topologies (:func:`draw_topology`), trees one panel each (:func:`draw_trees`), root sets with
their heights (:func:`draw_root_sets`), the pipeline over time (:func:`draw_pipeline`), link
utilisation on the layout and over time (:func:`draw_utilization`,
:func:`draw_utilization_timeseries`), sweep curves (:func:`draw_sweep`, :func:`draw_speedup`) and
throughput packings (link loads with the bottleneck cut :func:`draw_link_load`, the rate-height
trade-off :func:`draw_tradeoff`, one rank's weighted trees :func:`draw_root_trees`) and energy by
component (:func:`draw_energy`).
"""

from supermesh.draw.curves import draw_speedup, draw_sweep
from supermesh.draw.energy import draw_energy, energy_bars
from supermesh.draw.files import figure_bytes, figure_format, save_figure
from supermesh.draw.gallery import gallery_output, gallery_quick
from supermesh.draw.link_load import LinkLoads, draw_link_load, link_loads, load_colorbar
from supermesh.draw.pipeline import Timeline, Transfer, draw_pipeline, pipeline_timeline
from supermesh.draw.root_sets import draw_root_sets
from supermesh.draw.root_trees import draw_root_trees
from supermesh.draw.topology import draw_topology
from supermesh.draw.tradeoff import TradeoffPoint, draw_tradeoff, tradeoff_point
from supermesh.draw.trees import draw_trees, tree_depth_map
from supermesh.draw.utilization import (
    draw_utilization,
    draw_utilization_timeseries,
    utilization_colorbar,
)

__all__ = [
    "LinkLoads",
    "Timeline",
    "TradeoffPoint",
    "Transfer",
    "draw_energy",
    "draw_link_load",
    "draw_pipeline",
    "draw_root_sets",
    "draw_root_trees",
    "draw_speedup",
    "draw_sweep",
    "draw_topology",
    "draw_tradeoff",
    "draw_trees",
    "draw_utilization",
    "draw_utilization_timeseries",
    "energy_bars",
    "figure_bytes",
    "figure_format",
    "gallery_output",
    "gallery_quick",
    "link_loads",
    "load_colorbar",
    "pipeline_timeline",
    "save_figure",
    "tradeoff_point",
    "tree_depth_map",
    "utilization_colorbar",
]
