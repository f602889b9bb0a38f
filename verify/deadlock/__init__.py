"""Deadlock freedom: wait-for graphs on link FIFO entries (Dally and Seitz), with the argument.

- :mod:`~supermesh.verify.deadlock.analysis`: :func:`check_deadlock`, the entry point: the
  verdict with its argument; a cycle comes back as the counterexample, with a fix.
- :mod:`~supermesh.verify.deadlock.graphs`: the wait-for and channel-dependency graphs it
  decides on, and :func:`fifo_model`, any schedule form as a FIFO model.
- :mod:`~supermesh.verify.deadlock.fifo`: the execution model it runs on (link FIFOs of chunk
  transfers with waits, buffer slots), read from a schedule table.
- :mod:`~supermesh.verify.deadlock.tree_schedule`: a tree-level description (explicit FIFO
  permutations, multi-hop routes that hold their first link) for schedules that are not tables.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "check_deadlock": "supermesh.verify.deadlock.analysis",
    "DeadlockReport": "supermesh.verify.deadlock.analysis",
    "dependency_graph": "supermesh.verify.deadlock.graphs",
    "wait_for_graph": "supermesh.verify.deadlock.graphs",
    "fifo_model": "supermesh.verify.deadlock.graphs",
    "fifo_orders": "supermesh.verify.deadlock.graphs",
    "FifoModel": "supermesh.verify.deadlock.fifo",
    "Transfer": "supermesh.verify.deadlock.fifo",
    "table_model": "supermesh.verify.deadlock.fifo",
    "is_periodic": "supermesh.verify.deadlock.fifo",
    "PERIODIC_CHUNKS": "supermesh.verify.deadlock.fifo",
    "TreeSchedule": "supermesh.verify.deadlock.tree_schedule",
    "transfers": "supermesh.verify.deadlock.tree_schedule",
    "tree_model": "supermesh.verify.deadlock.tree_schedule",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
