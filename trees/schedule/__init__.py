"""From a collective to its trees and per-chiplet schedule tables.

- :mod:`~supermesh.trees.schedule.collective`: :func:`collective_trees`, the one place that
  decides which trees a named algorithm uses for a collective (``pipeline``, ``tto``, ``paper``,
  ``throughput``), shared by the simulator, the tables and the report;
  :mod:`~supermesh.trees.schedule.rules` runs its pipeline, paper and TTO rules.
- :mod:`~supermesh.trees.schedule.model`: the table data types (:class:`ScheduleEntry`,
  :class:`Schedule`), JSON without loss.
- :mod:`~supermesh.trees.schedule.build`: :func:`build_schedule`, the tables of a tree
  collective; :mod:`~supermesh.trees.schedule.phases` reads and checks the trees of each phase;
  :mod:`~supermesh.trees.schedule.weighted` splits each block among a rank's weighted
  trees (an AllReduce's vector among all its trees, the busiest link least busy);
  :mod:`~supermesh.trees.schedule.fifo` orders a link shared by many trees (a list
  schedule, which the simulator runs too) over the flat arrays of
  :mod:`~supermesh.trees.schedule.forest`; :mod:`~supermesh.trees.schedule.list_schedule`
  runs those list schedules and repairs one round's by deadlines;
  :mod:`~supermesh.trees.schedule.justify` list-schedules unit transfers over any dependency
  graph (an AllReduce without its barrier) and improves the schedule by justification;
  :mod:`~supermesh.trees.schedule.timed` does the same for transfers of unequal durations
  (chunks that ramp).
- :mod:`~supermesh.trees.schedule.free_share`: :func:`free_share_packing`, an AllReduce whose
  parts float (the free-root rate, in equal parts), and :func:`whole_tree_packing`, a few whole
  trees where floating parts gain no rate.
- :mod:`~supermesh.trees.schedule.routes`: :func:`route_schedule`, the tables of an AllToAll
  (point-to-point routes with a per-link order).
- :mod:`~supermesh.trees.schedule.size`: bytes per chiplet in a stated compact encoding.

Why :func:`collective_trees` lives here and not in a room of its own: choosing trees for a
collective is the first step of every schedule, and the simulator reads the same choice. It is
the one room that uses the others: :mod:`~supermesh.trees.packing`, :mod:`~supermesh.trees.roots`,
:mod:`~supermesh.trees.throughput` and :mod:`~supermesh.trees.bounds`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    # which trees
    "COLLECTIVE_ALGORITHMS": "supermesh.trees.schedule.collective",
    "collective_trees": "supermesh.trees.schedule.collective",
    "natural_direction": "supermesh.trees.schedule.collective",
    "phase_packings": "supermesh.trees.schedule.collective",
    "one_way_arc": "supermesh.trees.schedule.collective",
    "reversible": "supermesh.trees.schedule.collective",
    "throughput_packing": "supermesh.trees.schedule.collective",
    # the tables
    "CHUNK_BYTES": "supermesh.trees.schedule.model",
    "COLLECTIVES": "supermesh.trees.schedule.model",
    "FIELDS": "supermesh.trees.schedule.model",
    "PHASES": "supermesh.trees.schedule.model",
    "ROUTE_COLLECTIVES": "supermesh.trees.schedule.model",
    "Route": "supermesh.trees.schedule.routes",
    "route_schedule": "supermesh.trees.schedule.routes",
    "Schedule": "supermesh.trees.schedule.model",
    "ScheduleEntry": "supermesh.trees.schedule.model",
    "build_schedule": "supermesh.trees.schedule.build",
    "chunks_for": "supermesh.trees.schedule.build",
    "split_block": "supermesh.trees.schedule.weighted",
    "least_loaded_counts": "supermesh.trees.schedule.weighted",
    "reverse_packing": "supermesh.trees.schedule.phases",
    "FREE_SHARE_RANKS": "supermesh.trees.schedule.free_share",
    "FREE_SHARE_MULTIPLES": "supermesh.trees.schedule.free_share",
    "free_share_packing": "supermesh.trees.schedule.free_share",
    "free_share_rate": "supermesh.trees.schedule.free_share",
    "whole_tree_packing": "supermesh.trees.schedule.free_share",
    "reverse_tree": "supermesh.trees.schedule.phases",
    "FIFO_ROUNDS": "supermesh.trees.schedule.fifo",
    "FIFO_WORK": "supermesh.trees.schedule.fifo",
    "REPAIR_WORK": "supermesh.trees.schedule.fifo",
    "ListSchedule": "supermesh.trees.schedule.list_schedule",
    "list_schedule": "supermesh.trees.schedule.list_schedule",
    "repaired_schedule": "supermesh.trees.schedule.list_schedule",
    "justified_schedule": "supermesh.trees.schedule.justify",
    "TimedSchedule": "supermesh.trees.schedule.timed",
    "timed_floor": "supermesh.trees.schedule.timed",
    "timed_justified_schedule": "supermesh.trees.schedule.timed",
    "timed_list_schedule": "supermesh.trees.schedule.timed",
    "slot_floor": "supermesh.trees.schedule.justify",
    "unit_list_schedule": "supermesh.trees.schedule.justify",
    "way_to_go": "supermesh.trees.schedule.list_schedule",
    "Job": "supermesh.trees.schedule.fifo",
    "fifo_order": "supermesh.trees.schedule.fifo",
    "fifo_orders": "supermesh.trees.schedule.fifo",
    "fifo_slots": "supermesh.trees.schedule.fifo",
    "Forest": "supermesh.trees.schedule.forest",
    "forest": "supermesh.trees.schedule.forest",
    "stream_counts": "supermesh.trees.schedule.fifo",
    "streamed": "supermesh.trees.schedule.fifo",
    "TableEncoding": "supermesh.trees.schedule.size",
    "table_bytes": "supermesh.trees.schedule.size",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
