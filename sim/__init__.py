"""A compact link simulator for pipelined collectives, calibrated to the reference.

The model (see :mod:`supermesh.sim.presets` for every constant and where it comes from): each
directed link serves a FIFO of chunk transfers in schedule order, one at a time, holding the link
until the receiver has the whole chunk; a transfer starts when its link is free and its data are
there (a reduce waits for every child's chunk and the aggregation, a broadcast for the parent's
chunk). :mod:`supermesh.sim.engine` solves this exactly with a max-plus recurrence in numpy;
:mod:`supermesh.sim.oracle` is the plain event simulation the tests compare it with.

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

from supermesh.sim.algorithms import ALGORITHMS, run_algorithm, tree_sets_for
from supermesh.sim.baselines import BASELINES, baseline_program, multitree_trees, route
from supermesh.sim.bounds import ThroughputBound, collective_bound, cut_bound, rank_connectivity
from supermesh.sim.collectives import COLLECTIVES, check_collective, tree_program
from supermesh.sim.energy import Energy, energy
from supermesh.sim.engine import Timing, run_program
from supermesh.sim.oracle import simulate_events
from supermesh.sim.presets import PRESETS, SimParams, get_preset
from supermesh.sim.program import DeadlockError, Phase, PhaseBuilder, Program
from supermesh.sim.result import SimResult
from supermesh.sim.run import evaluate, simulate, simulate_baseline
from supermesh.sim.sweep import SweepCase, run_sweep, sweep_cases

__all__ = [
    "ALGORITHMS",
    "BASELINES",
    "COLLECTIVES",
    "PRESETS",
    "DeadlockError",
    "Energy",
    "Phase",
    "PhaseBuilder",
    "Program",
    "SimParams",
    "SimResult",
    "SweepCase",
    "ThroughputBound",
    "Timing",
    "baseline_program",
    "check_collective",
    "collective_bound",
    "cut_bound",
    "energy",
    "evaluate",
    "get_preset",
    "multitree_trees",
    "rank_connectivity",
    "route",
    "run_algorithm",
    "run_program",
    "run_sweep",
    "simulate",
    "simulate_baseline",
    "simulate_events",
    "sweep_cases",
    "tree_program",
    "tree_sets_for",
]
