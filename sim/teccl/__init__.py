"""TE-CCL (Liu et al., SIGCOMM 2024): collective schedules as multi-commodity flows over time.

The network is expanded in time (epochs of one chunk transfer); a chunk crossing an arc in an
epoch is a flow variable; links carry their capacity per epoch (each parallel arc its own); a
chiplet forwards (and, for AllGather, copies) only chunks it holds, buffering them between
epochs; every destination must hold every chunk it needs by the end. The smallest finish time
is searched for exactly (CP-SAT on the integer model) where the model is small and through the
LP relaxation with a repair (a list schedule that follows the LP) where it is not; every answer
states what is proven (``optimal``, or ``feasible`` with a proven lower bound).

Modules: :mod:`~supermesh.sim.teccl.model` (the solution), :mod:`~supermesh.sim.teccl.network`
(capacities, distances, bounds), :mod:`~supermesh.sim.teccl.gather` and
:mod:`~supermesh.sim.teccl.alltoall` (the two models and their LPs),
:mod:`~supermesh.sim.teccl.rounding` (list schedules), :mod:`~supermesh.sim.teccl.solvers`
(CP-SAT and LP settings), :mod:`~supermesh.sim.teccl.solve` (the search),
:mod:`~supermesh.sim.teccl.collective` (which solves a collective needs),
:mod:`~supermesh.sim.teccl.replay` (the simulator program) and
:mod:`~supermesh.sim.teccl.tables` (schedule tables).

References
----------
.. [1] X. Liu et al., "Rethinking Machine Learning Collective Communication as a Multi-Commodity
   Flow Problem", ACM SIGCOMM 2024.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: OR-Tools loads slowly)
_EXPORTS: dict[str, str] = {
    "Send": "supermesh.sim.teccl.model",
    "TecclSolution": "supermesh.sim.teccl.model",
    "Network": "supermesh.sim.teccl.network",
    "network_of": "supermesh.sim.teccl.network",
    "TECCL_METHODS": "supermesh.sim.teccl.solve",
    "solve_teccl": "supermesh.sim.teccl.solve",
    "TECCL_COLLECTIVES": "supermesh.sim.teccl.collective",
    "teccl_program": "supermesh.sim.teccl.collective",
    "teccl_solutions": "supermesh.sim.teccl.collective",
    "replay_program": "supermesh.sim.teccl.replay",
    "teccl_schedule": "supermesh.sim.teccl.tables",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
