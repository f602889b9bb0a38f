"""supermesh: design chiplet-network topologies and prove which collective schedules they support.

The four engines are subpackages: :mod:`supermesh.topologies` (generators, specs, files, metrics),
:mod:`supermesh.trees` (tree counts with proof, packing, root sets, schedules, family proofs,
design), :mod:`supermesh.verify` (independent checkers, deadlock analysis) and
:mod:`supermesh.sim` (pipelined-collective simulator). Data flow one way: topologies -> trees ->
verify / sim -> export / draw. Pictures live in :mod:`supermesh.draw` (not imported here, so
that ``import supermesh`` does not load matplotlib).

Examples
--------
>>> import supermesh
>>> G = supermesh.build("smbi:4x4")
>>> supermesh.metrics(G)["arc_connectivity"]
4
>>> supermesh.check_roots(G, [0, 3, 15, 12]).feasible
True
"""

from supermesh._lazy import lazy_exports
from supermesh.errors import (
    InfeasibleError,
    InputFileError,
    SolverError,
    SpecError,
    SupermeshError,
    TopologyError,
)

__version__ = "0.1.0"

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "CountBound": "supermesh.trees",
    "DeadlockReport": "supermesh.verify",
    "DesignResult": "supermesh.trees.design",
    "FamilyProof": "supermesh.trees.prove",
    "Finding": "supermesh.verify",
    "RootsBound": "supermesh.trees",
    "Schedule": "supermesh.trees",
    "ScheduleEntry": "supermesh.trees",
    "SimParams": "supermesh.sim",
    "SimResult": "supermesh.sim",
    "Tree": "supermesh.trees",
    "TreePacking": "supermesh.trees",
    "TreeSet": "supermesh.trees",
    "algorithm1": "supermesh.trees",
    "attach_memory": "supermesh.topologies",
    "build": "supermesh.topologies",
    "build_report": "supermesh.report",
    "build_schedule": "supermesh.trees",
    "check_deadlock": "supermesh.verify",
    "check_weighted_packing": "supermesh.verify",
    "choose_parts": "supermesh.trees.throughput_rates",
    "draw_link_load": "supermesh.draw",
    "draw_root_trees": "supermesh.draw",
    "draw_tradeoff": "supermesh.draw",
    "link_loads": "supermesh.draw",
    "pack_throughput": "supermesh.trees.throughput",
    "packing_rate": "supermesh.trees.throughput_rates",
    "simulate_packing": "supermesh.sim.packing",
    "throughput_bound": "supermesh.trees.throughput_bound",
    "throughput_packing": "supermesh.trees.collective_trees",
    "check_disjoint": "supermesh.verify",
    "check_file": "supermesh.verify",
    "check_packing": "supermesh.verify",
    "check_roots": "supermesh.trees",
    "check_tree": "supermesh.verify",
    "collective_trees": "supermesh.trees",
    "check_schedule": "supermesh.verify",
    "collective_bound": "supermesh.sim",
    "compute_nodes": "supermesh.topologies",
    "construct_trees": "supermesh.trees",
    "design": "supermesh.trees.design",
    "design_gap": "supermesh.trees.design",
    "family_statement": "supermesh.trees.allsizes",
    "format_size": "supermesh.units",
    "get_preset": "supermesh.sim",
    "max_trees_free": "supermesh.trees",
    "max_trees_from_root": "supermesh.trees",
    "metrics": "supermesh.topologies",
    "pack_trees": "supermesh.trees",
    "parse_size": "supermesh.units",
    "prove_family": "supermesh.trees.prove",
    "read_topology": "supermesh.topologies",
    "resolve_roots": "supermesh.trees",
    "root_sets": "supermesh.trees",
    "paper_root_sets": "supermesh.trees",
    "run_algorithm": "supermesh.sim",
    "run_sweep": "supermesh.sim",
    "simulate": "supermesh.sim",
    "simulate_baseline": "supermesh.sim",
    "table_bytes": "supermesh.trees",
    "to_json": "supermesh.topologies",
    "tto": "supermesh.trees",
    "write_topology": "supermesh.topologies",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "InfeasibleError",
    "InputFileError",
    "SolverError",
    "SpecError",
    "SupermeshError",
    "TopologyError",
    "__version__",
    *_EXPORTS,
]
