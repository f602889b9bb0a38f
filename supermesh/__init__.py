"""supermesh: design chiplet-network topologies and prove which collective schedules they support.

The four engines are subpackages, each a folder of capabilities ("rooms") whose ``__init__``
states its API: :mod:`supermesh.topologies` (generators, specs, files, metrics),
:mod:`supermesh.trees` (bounds, packing, root sets, throughput, schedules, proofs, design),
:mod:`supermesh.verify` (independent checkers, deadlock analysis) and :mod:`supermesh.sim`
(the pipelined-collective simulator). Data flow one way: topologies -> trees -> verify / sim ->
export / draw; ``tests/test_layout.py`` enforces it. Nothing heavy is imported until a name is
used (``import supermesh`` loads neither CP-SAT, igraph nor matplotlib).

Every function below that takes a topology ``G`` also takes any networkx graph (``Graph``,
``DiGraph``, ``MultiGraph``, ``MultiDiGraph``), turned into a topology by :func:`from_networkx`
with its defaults; call it yourself to choose attribute names and keep the label mapping.

Examples
--------
>>> import supermesh
>>> G = supermesh.build("smbi:4x4")
>>> supermesh.metrics(G)["arc_connectivity"]
4
>>> supermesh.check_roots(G, [0, 3, 15, 12]).feasible
True
>>> import networkx as nx
>>> supermesh.max_trees_free(nx.grid_2d_graph(4, 4)).max_trees
2
"""

import textwrap

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

# The public API as a map, in the order data flow: (group, what it is, {name: defining module}).
# Names are imported on first use; help(supermesh) lists this map.
_GROUPS: tuple[tuple[str, str, dict[str, str]], ...] = (
    (
        "topologies",
        "build a network from a spec, a file or a networkx graph, write it, measure it",
        {
            "build": "supermesh.topologies.spec",
            "from_networkx": "supermesh.topologies.formats.convert",
            "read_topology": "supermesh.topologies.formats.read",
            "write_topology": "supermesh.topologies.io",
            "to_json": "supermesh.topologies.io",
            "attach_memory": "supermesh.topologies.memory",
            "set_link_costs": "supermesh.topologies.costs",
            "compute_nodes": "supermesh.topologies.model",
            "metrics": "supermesh.topologies.metrics",
        },
    ),
    (
        "bounds",
        "how many disjoint trees fit, and the best possible throughput, with proof",
        {
            "check_roots": "supermesh.trees.bounds.counts",
            "max_trees_free": "supermesh.trees.bounds.free",
            "max_trees_from_root": "supermesh.trees.bounds.counts",
            "RootsBound": "supermesh.trees.bounds.counts",
            "CountBound": "supermesh.trees.bounds.counts",
            "throughput_bound": "supermesh.trees.bounds.throughput",
        },
    ),
    (
        "trees",
        "arc-disjoint spanning trees for given roots, with the smallest heights",
        {
            "Tree": "supermesh.trees.model",
            "TreeSet": "supermesh.trees.model",
            "TreePacking": "supermesh.trees.model",
            "resolve_roots": "supermesh.trees.rootspec",
            "pack_trees": "supermesh.trees.packing.search",
            "construct_trees": "supermesh.trees.packing.construct",
            "tto": "supermesh.trees.packing.baselines",
            "algorithm1": "supermesh.trees.packing.baselines",
        },
    ),
    (
        "root sets",
        "ReduceScatter / AllGather: every chiplet a root, K disjoint trees a set",
        {
            "root_sets": "supermesh.trees.roots.sets",
            "paper_root_sets": "supermesh.trees.roots.paper",
        },
    ),
    (
        "throughput",
        "weighted trees all at once, at the cut bound, with the lowest heights",
        {
            "pack_throughput": "supermesh.trees.throughput.pack",
            "packing_rate": "supermesh.trees.throughput.rates",
            "choose_parts": "supermesh.trees.throughput.rates",
            "ring_packing": "supermesh.trees.throughput.rings",
            "throughput_packing": "supermesh.trees.schedule.collective",
        },
    ),
    (
        "schedules",
        "the trees of a collective, and the per-chiplet tables that run it",
        {
            "collective_trees": "supermesh.trees.schedule.collective",
            "build_schedule": "supermesh.trees.schedule.build",
            "Schedule": "supermesh.trees.schedule.model",
            "ScheduleEntry": "supermesh.trees.schedule.model",
            "table_bytes": "supermesh.trees.schedule.size",
            "route_schedule": "supermesh.trees.schedule.routes",
        },
    ),
    (
        "verify",
        "re-check any file or object without trusting the code that made it",
        {
            "check_file": "supermesh.verify.files",
            "check_tree": "supermesh.verify.trees.arborescence",
            "check_disjoint": "supermesh.verify.trees.packing",
            "check_packing": "supermesh.verify.trees.packing",
            "check_weighted_packing": "supermesh.verify.trees.rates",
            "check_schedule": "supermesh.verify.schedule.tables",
            "check_alltoall": "supermesh.verify.schedule.alltoall",
            "check_deadlock": "supermesh.verify.deadlock.analysis",
            "DeadlockReport": "supermesh.verify.deadlock.analysis",
            "Finding": "supermesh.verify.findings",
        },
    ),
    (
        "simulate",
        "time a collective in the calibrated link simulator, and its energy",
        {
            "simulate": "supermesh.sim.run",
            "run_algorithm": "supermesh.sim.algorithms",
            "throughput_program": "supermesh.sim.throughput_run",
            "simulate_baseline": "supermesh.sim.run",
            "simulate_packing": "supermesh.sim.packing",
            "run_sweep": "supermesh.sim.sweep",
            "add_speedups": "supermesh.sim.compare",
            "synthesize_allgather": "supermesh.sim.baselines.tacos",
            "TacosSchedule": "supermesh.sim.baselines.tacos",
            "apply_link_costs": "supermesh.sim.link_costs",
            "collective_bound": "supermesh.sim.bounds",
            "allreduce_bound": "supermesh.sim.bounds",
            "alltoall_bound": "supermesh.sim.multicommodity",
            "solve_teccl": "supermesh.sim.teccl.solve",
            "teccl_solutions": "supermesh.sim.teccl.collective",
            "teccl_schedule": "supermesh.sim.teccl.tables",
            "synthesised_schedule": "supermesh.sim.tables",
            "TecclSolution": "supermesh.sim.teccl.model",
            "SimParams": "supermesh.sim.presets",
            "get_preset": "supermesh.sim.presets",
            "SimResult": "supermesh.sim.result",
            "get_energy_model": "supermesh.sim.energy.presets",
            "EnergyModel": "supermesh.sim.energy.model",
            "EnergyBreakdown": "supermesh.sim.energy.breakdown",
            "parse_size": "supermesh.units",
            "format_size": "supermesh.units",
        },
    ),
    (
        "prove",
        "tree counts and heights for every size of a family",
        {
            "prove_family": "supermesh.trees.prove.family",
            "FamilyProof": "supermesh.trees.prove.family",
            "family_statement": "supermesh.trees.prove.statement",
        },
    ),
    (
        "design",
        "the cheapest links to add for a target tree count, with proof",
        {
            "design": "supermesh.trees.design.optimise",
            "design_gap": "supermesh.trees.design.optimise",
            "DesignResult": "supermesh.trees.design.result",
        },
    ),
    (
        "draw",
        "pictures (matplotlib Figures) and the side-by-side report",
        {
            "draw_topology": "supermesh.draw.topology",
            "draw_trees": "supermesh.draw.trees",
            "draw_root_sets": "supermesh.draw.root_sets",
            "draw_pipeline": "supermesh.draw.pipeline",
            "draw_utilization": "supermesh.draw.utilization",
            "draw_link_load": "supermesh.draw.link_load",
            "draw_root_trees": "supermesh.draw.root_trees",
            "draw_tradeoff": "supermesh.draw.tradeoff",
            "draw_energy": "supermesh.draw.energy",
            "link_loads": "supermesh.draw.link_load",
            "save_figure": "supermesh.draw.files",
            "build_report": "supermesh.report",
        },
    ),
)

_EXPORTS: dict[str, str] = {
    name: module for _, _, names in _GROUPS for name, module in names.items()
}


def _api_map() -> str:
    lines = ["", "Public API", "----------"]
    for group, what, names in _GROUPS:
        lines += [f"{group}: {what}"]
        lines += textwrap.wrap(
            ", ".join(names), 92, initial_indent="    ", subsequent_indent="    "
        )
        lines += [""]
    lines += [
        "errors: SupermeshError and its subclasses SpecError, TopologyError, InputFileError,",
        "    InfeasibleError, SolverError (every error a user can cause)",
    ]
    return "\n".join(lines)


__doc__ = (__doc__ or "") + _api_map()


def _accept_graphs(name: str, obj: object) -> object:
    """A function whose first parameter is a topology, wrapped to accept any networkx graph."""
    import inspect

    from supermesh.topologies.formats.accept import takes_topology, topology_input

    if not inspect.isfunction(obj) or not takes_topology(obj):
        return obj
    wrapped = topology_input(obj)
    wrapped.__module__ = __name__  # found again (and pickled) as supermesh.<name>
    return wrapped


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), _accept_graphs)

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
