"""Grids of simulations (topologies x sizes x algorithms x collectives) as flat rows.

Trees are built once per (topology, algorithm, collective kind) and reused for every size: the
cache keys are those :func:`~supermesh.sim.algorithms.run_algorithm` looks up
(:func:`~supermesh.sim.tree_sets.trees_key`: AllReduce, Broadcast and Reduce each have their own
trees; ReduceScatter and AllGather share their root sets).
:func:`build_trees` builds what a list of cases needs, one task per topology; with ``workers``
above 1 the topologies run in parallel in local processes (:mod:`supermesh.parallel`), and so do
the simulations in :func:`run_sweep`. The rows do not depend on the number of workers.
``fast_trees`` builds ReduceScatter / AllGather root sets in the fast mode of
:func:`~supermesh.trees.roots.sets.root_sets` (a shorter running-order search; same partition,
heights and proofs).

Modules: :mod:`~supermesh.sim.sweep.cases` (the points and the row columns),
:mod:`~supermesh.sim.sweep.trees` (trees built once per topology),
:mod:`~supermesh.sim.sweep.checkpoint` (the resume file), :mod:`~supermesh.sim.sweep.run`
(the sweep).
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "ROW_FIELDS": "supermesh.sim.sweep.cases",
    "SweepCase": "supermesh.sim.sweep.cases",
    "sweep_cases": "supermesh.sim.sweep.cases",
    "build_trees": "supermesh.sim.sweep.trees",
    "checkpoint_path": "supermesh.sim.sweep.checkpoint",
    "checkpoint_rows": "supermesh.sim.sweep.checkpoint",
    "run_sweep": "supermesh.sim.sweep.run",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
