"""Checks of schedule tables, independently of the code that built them.

- :mod:`~supermesh.verify.schedule.tables`: :func:`check_schedule`, the entry point: every
  entry's link exists, FIFO steps per link are in the documented order, tables list each
  chiplet's rows.
- :mod:`~supermesh.verify.schedule.flow`: per tree, every chunk reaches every rank once and every
  reduction holds each contribution exactly once.
- :mod:`~supermesh.verify.schedule.groups`: what the checks share: a table's entries tree by
  tree, findings that name their tree, the phases of each collective.
- :mod:`~supermesh.verify.schedule.ranges`: chunk ranges cover the data once.
- :mod:`~supermesh.verify.schedule.shares`: weighted tables: the shares, and the chunk ranges
  their largest-remainder rule gives.
- :mod:`~supermesh.verify.schedule.packings`: agreement with the tree packings the table claims.
- :mod:`~supermesh.verify.schedule.alltoall`: AllToAll tables (point-to-point routes): every
  block reaches its destination exactly once along existing arcs, in an order that can run.
- :mod:`~supermesh.verify.schedule.file`: a schedule file (the table, then its deadlock
  freedom), for :func:`~supermesh.verify.files.check_file`.

Deadlock freedom of the same tables is :mod:`supermesh.verify.deadlock`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "check_schedule": "supermesh.verify.schedule.tables",
    "check_tree_flows": "supermesh.verify.schedule.flow",
    "check_chunk_ranges": "supermesh.verify.schedule.ranges",
    "check_shares": "supermesh.verify.schedule.shares",
    "check_packings": "supermesh.verify.schedule.packings",
    "check_alltoall": "supermesh.verify.schedule.alltoall",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
