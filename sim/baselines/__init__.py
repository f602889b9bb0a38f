"""Baseline algorithms users compare against, as FIFO programs for the same engine.

- ``ring``: the unidirectional ring (Patarasuk and Yuan, JPDC 2009): ``n - 1`` reduce-scatter steps
  then ``n - 1`` all-gather steps, each node sending one block of ``M / n`` per step to the next
  node of a Hamiltonian cycle. Grids with an even side have one (:func:`grid_cycle`); an odd x
  odd grid has none, so the ring takes the cycle through all chiplets but a corner and visits the
  corner between two of them, the hop out of it routed over 2 links (store and forward); other
  topologies use a DFS order with routed hops.
- ``bidir-ring``: two rings in opposite directions, half the data each (NCCL 2; on an odd x odd
  grid the two rings share one link). On an odd x odd grid the AllReduce is the TTO deck's
  RingBiOdd (Laskar et al., HPCA 2024): the rings cover every
  chiplet but one corner, the data are cut into ``n - 1`` blocks, and the corner hands its blocks
  to its two ring neighbours and gets the results back from them.
- ``direct``: one-shot exchange: every source sends its data straight to every destination that
  needs them (AllReduce: the whole vector to every rank, then each rank adds), over
  dimension-order routes, one-hop flows first (the order the TPU note found fastest).
- ``multitree``: MultiTree (Huang et al., ISCA 2021): one spanning tree per rank, all grown one
  level per time step, a link used by at most one tree per step; each tree edge sends its root's
  ``M / n`` in one piece, steps in order.

Every step sends whole blocks (no chunk pipelining inside a step), as these algorithms do.

- ``tacos``: TACOS (Won et al., MICRO 2024), greedy link-chunk matching over a time-expanded
  network (:mod:`~supermesh.sim.baselines.tacos`); its chunks are 12 KiB chunks (or, for large
  sizes, a synthesised period repeated), pipelined through each link's FIFO in the synthesised
  order (:mod:`~supermesh.sim.baselines.tacos_program`). Reached by name through
  :func:`supermesh.sim.algorithms.run_algorithm` (it caches syntheses across sizes).

Modules: :mod:`~supermesh.sim.baselines.dispatch` (:func:`baseline_program`, by name),
:mod:`~supermesh.sim.baselines.routes` (routes and grid cycles the others walk),
:mod:`~supermesh.sim.baselines.ring`, :mod:`~supermesh.sim.baselines.direct`,
:mod:`~supermesh.sim.baselines.multitree`, :mod:`~supermesh.sim.baselines.tacos` (the
synthesiser and its :class:`TacosSchedule`), :mod:`~supermesh.sim.baselines.tacos_program`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "BASELINES": "supermesh.sim.baselines.dispatch",
    "baseline_program": "supermesh.sim.baselines.dispatch",
    "route": "supermesh.sim.baselines.routes",
    "grid_cycle": "supermesh.sim.baselines.routes",
    "grid_cycle_but_corner": "supermesh.sim.baselines.routes",
    "ring_program": "supermesh.sim.baselines.ring",
    "direct_program": "supermesh.sim.baselines.direct",
    "direct_alltoall_schedule": "supermesh.sim.baselines.direct",
    "multitree_program": "supermesh.sim.baselines.multitree",
    "multitree_trees": "supermesh.sim.baselines.multitree",
    "TacosSchedule": "supermesh.sim.baselines.tacos",
    "synthesize_allgather": "supermesh.sim.baselines.tacos",
    "chunks_per_rank_for": "supermesh.sim.baselines.tacos_program",
    "tacos_packing": "supermesh.sim.baselines.tacos_program",
    "tacos_program": "supermesh.sim.baselines.tacos_program",
    "tacos_schedules": "supermesh.sim.baselines.tacos_program",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
