"""Drawings (matplotlib, Figure API only; nothing is shown, no pyplot state)."""

from supermesh.draw.common import figure_format, save_figure
from supermesh.draw.topology import draw_topology

__all__ = ["draw_topology", "figure_format", "save_figure"]
