"""Root sets for ReduceScatter / AllGather: every chiplet roots a tree, ``K`` disjoint trees a set.

- :mod:`~supermesh.trees.roots.sets`: :func:`root_sets`, the entry point: the partition of the
  chiplets into sets, each packed with proven-optimal heights, and their running order.
- :mod:`~supermesh.trees.roots.size`: how many roots a set can have (with the proof that one more
  fails) and a lower bound on every partition.
- :mod:`~supermesh.trees.roots.start`, :mod:`~supermesh.trees.roots.swaps`: start partitions and
  the local search over them; :mod:`~supermesh.trees.roots.search` packs the sets on a work
  budget, reusing mirror images (:mod:`~supermesh.trees.roots.symmetry`).
- :mod:`~supermesh.trees.roots.order`: the exact pipeline step count of sets sharing link FIFOs,
  and the order that shortens it.
- :mod:`~supermesh.trees.roots.paper`: the SuperMesh paper's rule (one root per side, outside in)
  as a baseline; :mod:`~supermesh.trees.roots.stats` assembles the result and the comparison.

This room uses :mod:`supermesh.trees.packing` (every set is a tree packing) and
:mod:`supermesh.trees.bounds`; nothing below it uses roots.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    "root_sets": "supermesh.trees.roots.sets",
    "SetSize": "supermesh.trees.roots.size",
    "root_set_size": "supermesh.trees.roots.size",
    "partition_lower_bound": "supermesh.trees.roots.size",
    "paper_root_sets": "supermesh.trees.roots.paper",
    "SetOrder": "supermesh.trees.roots.order",
    "order_sets": "supermesh.trees.roots.order",
    "pipeline_steps": "supermesh.trees.roots.order",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
