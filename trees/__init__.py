"""Tree counts with proof, height-optimal tree packing, root sets, schedules."""

from supermesh.trees.baselines import algorithm1, tto
from supermesh.trees.bounds import (
    CountBound,
    RootsBound,
    check_roots,
    edmonds_deficit,
    in_degree_upper_bound,
    max_trees_free,
    max_trees_from_root,
)
from supermesh.trees.construct import construct_trees
from supermesh.trees.heights import height_lower_bound
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing import pack_trees
from supermesh.trees.rootspec import resolve_roots
from supermesh.trees.schedule import build_schedule
from supermesh.trees.schedule_model import Schedule, ScheduleEntry
from supermesh.trees.table_size import TableEncoding, table_bytes

__all__ = [
    "CountBound",
    "RootsBound",
    "Schedule",
    "ScheduleEntry",
    "TableEncoding",
    "Tree",
    "TreePacking",
    "TreeSet",
    "algorithm1",
    "build_schedule",
    "check_roots",
    "construct_trees",
    "edmonds_deficit",
    "height_lower_bound",
    "in_degree_upper_bound",
    "max_trees_free",
    "max_trees_from_root",
    "pack_trees",
    "resolve_roots",
    "table_bytes",
    "tto",
]
