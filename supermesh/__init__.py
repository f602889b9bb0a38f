"""supermesh: design chiplet-network topologies and prove which collective schedules they support.

The four engines are subpackages: :mod:`supermesh.topologies` (generators, specs, files, metrics),
:mod:`supermesh.trees` (tree counts with proof, packing, root sets, schedules),
:mod:`supermesh.verify` (independent checkers, deadlock analysis) and :mod:`supermesh.sim`
(pipelined-collective simulator). Data flow one way: topologies -> trees -> verify / sim ->
export / draw.

Examples
--------
>>> import supermesh
>>> G = supermesh.build("smbi:4x4")
>>> supermesh.metrics(G)["arc_connectivity"]
4
"""

from supermesh.errors import (
    InfeasibleError,
    InputFileError,
    SolverError,
    SpecError,
    SupermeshError,
    TopologyError,
)
from supermesh.topologies import (
    build,
    compute_nodes,
    metrics,
    read_topology,
    to_json,
    write_topology,
)
from supermesh.trees import Tree, TreePacking, TreeSet

__version__ = "0.1.0"

__all__ = [
    "InfeasibleError",
    "InputFileError",
    "SolverError",
    "SpecError",
    "SupermeshError",
    "TopologyError",
    "Tree",
    "TreePacking",
    "TreeSet",
    "__version__",
    "build",
    "compute_nodes",
    "metrics",
    "read_topology",
    "to_json",
    "write_topology",
]
