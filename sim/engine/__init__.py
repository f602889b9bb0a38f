"""The fast engine: exact start times of every transfer by a max-plus recurrence in numpy.

For one arc, transfers in FIFO order start at ``s[k] = max(s[k-1] + d[k-1] + r, x[k])`` (the
previous transfer's end plus the release gap, or when the data are there): a max-plus recurrence,
one ``numpy.maximum.accumulate`` per arc. A group of arc-disjoint trees is solved level by level
(deepest level first for a reduce, the roots first for a broadcast), each level a few 2-D array
operations over (blocks x chunks). Groups are solved in FIFO order, each starting from the arc
free times the previous group left.

Groups that are not arc-disjoint trees of equal chunk counts (ring steps, one-shot exchanges,
MultiTree steps, throughput packings) are solved transfer by transfer in topological order; when
their blocks depend only on each other, chunk by chunk until the times repeat, the rest by the
repetition; when they are wide (a throughput packing at one chunk per tree: millions of
transfers, FIFOs a thousand long), layer by layer of the transfer dependency graph with array
operations. Every path computes exactly what :func:`supermesh.sim.oracle.simulate_events`
computes.

Link costs: every block's ``duration`` is its transfer time on its own arc
(:func:`supermesh.sim.link_costs.apply_link_costs` sets it from the arc's ``bandwidth`` and
``latency``), so blocks of one level or one periodic group may take different times; the level
path then keeps one row of cumulative durations per block, and the periodic path is exact for any
durations (a max-plus recurrence stays homogeneous). The tests hold both to the oracle on random
programs with random link costs.

Modules: :mod:`~supermesh.sim.engine.timing` (:func:`run_program`, :class:`Timing`: a program
run phase by phase, each phase group by group), :mod:`~supermesh.sim.engine.levels` (arc-disjoint
tree groups, level by level), :mod:`~supermesh.sim.engine.sequential` (the periodic and the
general path), :mod:`~supermesh.sim.engine.frontier` (wide groups, layer by layer),
:mod:`~supermesh.sim.engine.samples` (the sampled start times of a phase, stored flat).
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "PhaseTiming": "supermesh.sim.engine.timing",
    "Timing": "supermesh.sim.engine.timing",
    "run_program": "supermesh.sim.engine.timing",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
