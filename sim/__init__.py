"""A compact link simulator for pipelined collectives, calibrated to the reference.

The model (see :mod:`supermesh.sim.presets` for every constant and where it comes from): each
directed link serves a FIFO of chunk transfers in schedule order, one at a time, holding the link
until the receiver has the whole chunk; a transfer starts when its link is free and its data are
there (a reduce waits for every child's chunk and the aggregation, a broadcast for the parent's
chunk). :mod:`supermesh.sim.engine` solves this exactly with a max-plus recurrence in numpy;
:mod:`supermesh.sim.oracle` is the plain event simulation the tests compare it with.

Modules, in the order data flow:

- :mod:`~supermesh.sim.presets`: :class:`SimParams` and the named presets (``booksim``,
  ``paper``), every constant with its source.
- :mod:`~supermesh.sim.algorithms`: a named algorithm -> its trees or its baseline program, and
  the run; :mod:`~supermesh.sim.throughput_run`: what a throughput run simulates (rings where
  they stream, else the search over trees of the smallest heights, and on small grids the
  schedules of :mod:`~supermesh.sim.time_expanded`: epochs, TE-CCL's and TACOS's
  programs) and its bound;
  :mod:`~supermesh.sim.defaults`: the names, and the one run when none is named;
  :mod:`~supermesh.sim.tree_sets`: a tree algorithm's trees (from
  :func:`supermesh.trees.schedule.collective_trees`) and their cache key.
- :mod:`~supermesh.sim.collectives` (tree sets -> a program), :mod:`~supermesh.sim.packing`
  (weighted packings -> a program; its chunk sizes: :mod:`~supermesh.sim.chunk_choice`, an
  AllReduce's justified order and ramps: :mod:`~supermesh.sim.justified_choice`,
  :mod:`~supermesh.sim.ramp`), :mod:`~supermesh.sim.baselines` (ring, direct, MultiTree,
  TACOS).
- :mod:`~supermesh.sim.program`: the data the engines run (per-link FIFOs of transfers);
  :mod:`~supermesh.sim.link_costs`: each transfer timed with its own arc's costs.
- :mod:`~supermesh.sim.engine` (the fast max-plus engine), :mod:`~supermesh.sim.oracle` (the
  event simulation it is tested against).
- :mod:`~supermesh.sim.result`, :mod:`~supermesh.sim.bounds`, :mod:`~supermesh.sim.energy`:
  what a run reports (time, bandwidth, the cut bound with its cut, energy by component from the
  transfer list, with the ``dsent`` or ``paper-text`` model);
  :mod:`~supermesh.sim.run` ties them together; :mod:`~supermesh.sim.sweep` runs grids of cases,
  :mod:`~supermesh.sim.compare` adds speedups against the mesh and against TACOS.

Imports (enforced by ``tests/test_layout.py``): sim uses :mod:`supermesh.topologies` and
:mod:`supermesh.trees`; nothing in those engines, nor in :mod:`supermesh.verify`, uses sim's
algorithms.

Examples
--------
>>> from supermesh.topologies import build
>>> from supermesh.sim import simulate
>>> from supermesh.trees import Tree
>>> G = build("mesh:2x2")
>>> chain = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
>>> simulate(G, [[chain]], "reduce", 12288).time  # starts at 1, 2 hops of 1031 + 4 + 19
2086.0
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    # parameters
    "PRESETS": "supermesh.sim.presets",
    "SimParams": "supermesh.sim.presets",
    "get_preset": "supermesh.sim.presets",
    "params_from_text": "supermesh.sim.presets",
    # algorithms and programs
    "ALGORITHMS": "supermesh.sim.defaults",
    "run_algorithm": "supermesh.sim.algorithms",
    "throughput_bound_for": "supermesh.sim.throughput_run",
    "throughput_program": "supermesh.sim.throughput_run",
    "epoch_runs": "supermesh.sim.time_expanded",
    "synthesised_choice": "supermesh.sim.time_expanded",
    "tree_sets_for": "supermesh.sim.tree_sets",
    "COLLECTIVES": "supermesh.sim.collectives",
    "SIM_COLLECTIVES": "supermesh.sim.collectives",
    "alltoall_bound": "supermesh.sim.multicommodity",
    "check_collective": "supermesh.sim.collectives",
    "tree_program": "supermesh.sim.collectives",
    "simulate_packing": "supermesh.sim.packing",
    "BASELINES": "supermesh.sim.baselines.dispatch",
    "baseline_program": "supermesh.sim.baselines.dispatch",
    "multitree_trees": "supermesh.sim.baselines.multitree",
    "route": "supermesh.sim.baselines.routes",
    "DeadlockError": "supermesh.sim.program",
    "Phase": "supermesh.sim.program",
    "PhaseBuilder": "supermesh.sim.program",
    "Program": "supermesh.sim.program",
    # engines
    "Timing": "supermesh.sim.engine.timing",
    "run_program": "supermesh.sim.engine.timing",
    "simulate_events": "supermesh.sim.oracle",
    # results
    "SimResult": "supermesh.sim.result",
    "ThroughputBound": "supermesh.sim.bounds",
    "allreduce_bound": "supermesh.sim.bounds",
    "collective_bound": "supermesh.sim.bounds",
    "cut_bound": "supermesh.sim.bounds",
    "rank_connectivity": "supermesh.sim.bounds",
    "ENERGY_MODELS": "supermesh.sim.energy.presets",
    "EnergyBreakdown": "supermesh.sim.energy.breakdown",
    "EnergyModel": "supermesh.sim.energy.model",
    "NetworkActivity": "supermesh.sim.energy.activity",
    "energy_breakdown": "supermesh.sim.energy.breakdown",
    "energy_model_from_text": "supermesh.sim.energy.presets",
    "get_energy_model": "supermesh.sim.energy.presets",
    "network_activity": "supermesh.sim.energy.activity",
    # entry points
    "evaluate": "supermesh.sim.run",
    "simulate": "supermesh.sim.run",
    "simulate_baseline": "supermesh.sim.run",
    "COMPARE_FIELDS": "supermesh.sim.compare",
    "add_speedups": "supermesh.sim.compare",
    "apply_link_costs": "supermesh.sim.link_costs",
    "link_duration": "supermesh.sim.link_costs",
    "SYNTHESISERS": "supermesh.sim.tables",
    "synthesised_schedule": "supermesh.sim.tables",
    "SweepCase": "supermesh.sim.sweep",
    "run_sweep": "supermesh.sim.sweep",
    "sweep_cases": "supermesh.sim.sweep",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
