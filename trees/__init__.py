"""Tree counts with proof, height-optimal tree packing, root sets, schedules."""

from supermesh.trees.bounds import (
    CountBound,
    RootsBound,
    check_roots,
    edmonds_deficit,
    in_degree_upper_bound,
    max_trees_free,
    max_trees_from_root,
)
from supermesh.trees.model import Tree, TreePacking, TreeSet
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
    "build_schedule",
    "check_roots",
    "edmonds_deficit",
    "in_degree_upper_bound",
    "max_trees_free",
    "max_trees_from_root",
    "resolve_roots",
    "table_bytes",
]
