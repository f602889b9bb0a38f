"""Topology generators, spec strings, files and metrics.

A topology is a ``networkx.MultiDiGraph`` with the attributes documented in
:mod:`supermesh.topologies.model`.
"""

from supermesh.topologies.grid import (
    SIDES,
    mesh,
    partial_smalter,
    partial_smbi,
    perimeter_sides,
    smalter,
    smbi,
    smuni,
    torus,
)
from supermesh.topologies.io import from_json, read_topology, to_json, write_topology
from supermesh.topologies.metrics import arc_connectivity, bisection_width, metrics
from supermesh.topologies.model import (
    Arc,
    Topology,
    add_arc,
    add_link,
    add_node,
    arcs,
    check_node,
    compute_nodes,
    nodes_of_kind,
)
from supermesh.topologies.spec import FAMILIES, build, parse_spec

__all__ = [
    "FAMILIES",
    "SIDES",
    "Arc",
    "Topology",
    "add_arc",
    "add_link",
    "add_node",
    "arc_connectivity",
    "arcs",
    "bisection_width",
    "build",
    "check_node",
    "compute_nodes",
    "from_json",
    "mesh",
    "metrics",
    "nodes_of_kind",
    "parse_spec",
    "partial_smalter",
    "partial_smbi",
    "perimeter_sides",
    "read_topology",
    "smalter",
    "smbi",
    "smuni",
    "to_json",
    "torus",
    "write_topology",
]
