"""Exporters: topologies (and later schedules) in the formats other tools read."""

from supermesh.export.topology import FORMATS, anynet_text, dot_text, export_text, graphml_text

__all__ = ["FORMATS", "anynet_text", "dot_text", "export_text", "graphml_text"]
