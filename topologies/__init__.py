"""Topology generators, spec strings, files and metrics.

A topology is a ``networkx.MultiDiGraph`` with the attributes documented in
:mod:`supermesh.topologies.model`. Files in JSON, GraphML, DOT and BookSim anynet, and any
networkx graph, become topologies through :mod:`supermesh.topologies.formats`.
"""

from supermesh.topologies.costs import set_link_costs
from supermesh.topologies.formats.accept import as_topology
from supermesh.topologies.formats.convert import from_networkx
from supermesh.topologies.formats.read import read_topology
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
from supermesh.topologies.hexamesh import hexagon_rows, hexamesh
from supermesh.topologies.interposer import (
    butterdonut,
    cmesh,
    double_butterfly,
    folded_torus,
    kite_medium,
    kite_small,
)
from supermesh.topologies.io import from_json, to_json, write_topology
from supermesh.topologies.memory import attach_memory
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
    "as_topology",
    "attach_memory",
    "bisection_width",
    "build",
    "butterdonut",
    "check_node",
    "cmesh",
    "compute_nodes",
    "double_butterfly",
    "folded_torus",
    "from_json",
    "from_networkx",
    "hexagon_rows",
    "hexamesh",
    "kite_medium",
    "kite_small",
    "mesh",
    "metrics",
    "nodes_of_kind",
    "parse_spec",
    "partial_smalter",
    "partial_smbi",
    "perimeter_sides",
    "read_topology",
    "set_link_costs",
    "smalter",
    "smbi",
    "smuni",
    "to_json",
    "torus",
    "write_topology",
]
