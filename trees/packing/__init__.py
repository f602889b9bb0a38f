"""Tree packing: arc-disjoint spanning trees for given roots, with the smallest heights.

- :mod:`~supermesh.trees.packing.methods`: :func:`pack_by_method`, every method below by name
  (what ``supermesh trees --method`` calls).
- :mod:`~supermesh.trees.packing.search`: :func:`pack_trees`, the search around the CP-SAT
  model (warm starts, height bounds, the balancing objectives, a work budget).
- :mod:`~supermesh.trees.packing.model`: the CP-SAT model itself (a parent per node and tree,
  an integer depth, arc capacities); public because root sets and design re-solve it.
- :mod:`~supermesh.trees.packing.construct`: fast trees without a solver (closed-form combs on
  doubled perimeters, Lovász's greedy elsewhere), built on
  :mod:`~supermesh.trees.packing.greedy`.
- :mod:`~supermesh.trees.packing.closedform` and :mod:`~supermesh.trees.packing.geodesic`:
  constructions proved height-optimal for every grid size (geodesic matching), on the grid
  corners of :mod:`~supermesh.trees.packing.corners`.
- :mod:`~supermesh.trees.packing.baselines`: the published procedures as named baselines (TTO's
  three mesh trees, the SuperMesh paper's Algorithm 1).

Why the constructions and the baselines live here: they produce the same object as the solver
(a :class:`~supermesh.trees.model.TreePacking` for given roots) and the solver warm-starts from
them. This room uses :mod:`supermesh.trees.bounds` (heights, Edmonds' check) and the shared data
types; it never uses roots, throughput, schedule, prove or design.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    # the solver, and every method by name
    "pack_trees": "supermesh.trees.packing.search",
    "METHODS": "supermesh.trees.packing.methods",
    "pack_by_method": "supermesh.trees.packing.methods",
    "Budget": "supermesh.trees.packing.model",
    "PackingProblem": "supermesh.trees.packing.model",
    "PackingModel": "supermesh.trees.packing.model",
    "SolveResult": "supermesh.trees.packing.model",
    "WORK_FLOOR": "supermesh.trees.packing.model",
    "build_model": "supermesh.trees.packing.model",
    "solve": "supermesh.trees.packing.model",
    # constructions without a solver
    "construct_trees": "supermesh.trees.packing.construct",
    "roots_certificate": "supermesh.trees.packing.construct",
    "greedy_parents": "supermesh.trees.packing.greedy",
    "geodesic_packing": "supermesh.trees.packing.geodesic",
    "corner_trees": "supermesh.trees.packing.closedform",
    "three_corner_trees": "supermesh.trees.packing.closedform",
    "grid_corners": "supermesh.trees.packing.corners",
    "omitted_corner": "supermesh.trees.packing.corners",
    "undoubled_perimeter": "supermesh.trees.packing.corners",
    "smalter_side_trees": "supermesh.trees.packing.closedform",
    # published baselines
    "algorithm1": "supermesh.trees.packing.baselines",
    "tto": "supermesh.trees.packing.baselines",
    "tto_roots": "supermesh.trees.packing.baselines",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
