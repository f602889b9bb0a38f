"""Tree counts with proof, height-optimal tree packing, root sets, schedules, proofs, design."""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    "CountBound": "supermesh.trees.bounds",
    "RootsBound": "supermesh.trees.bounds",
    "Schedule": "supermesh.trees.schedule_model",
    "ScheduleEntry": "supermesh.trees.schedule_model",
    "TableEncoding": "supermesh.trees.table_size",
    "Tree": "supermesh.trees.model",
    "TreePacking": "supermesh.trees.model",
    "TreeSet": "supermesh.trees.model",
    "algorithm1": "supermesh.trees.baselines",
    "build_schedule": "supermesh.trees.schedule",
    "check_roots": "supermesh.trees.bounds",
    "collective_trees": "supermesh.trees.collective_trees",
    "construct_trees": "supermesh.trees.construct",
    "edmonds_deficit": "supermesh.trees.bounds",
    "height_lower_bound": "supermesh.trees.heights",
    "in_degree_upper_bound": "supermesh.trees.bounds",
    "max_trees_free": "supermesh.trees.bounds",
    "max_trees_from_root": "supermesh.trees.bounds",
    "pack_trees": "supermesh.trees.packing",
    "resolve_roots": "supermesh.trees.rootspec",
    "root_sets": "supermesh.trees.roots",
    "paper_root_sets": "supermesh.trees.roots_paper",
    "root_set_size": "supermesh.trees.roots",
    "partition_lower_bound": "supermesh.trees.roots",
    "table_bytes": "supermesh.trees.table_size",
    "tto": "supermesh.trees.baselines",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
