"""The trees engine: tree counts with proof, packings, root sets, throughput, schedules, design.

One folder per capability ("room"); each room's ``__init__`` states its API in ``__all__``:

========================================  ==============================================
:mod:`~supermesh.trees.bounds`            how many trees fit, how low, how fast (with proof)
:mod:`~supermesh.trees.packing`           disjoint trees for given roots, smallest heights
:mod:`~supermesh.trees.roots`             root sets for ReduceScatter / AllGather
:mod:`~supermesh.trees.throughput`        weighted trees at the cut bound
:mod:`~supermesh.trees.schedule`          trees for a collective, per-chiplet tables
:mod:`~supermesh.trees.prove`             statements for every size of a family
:mod:`~supermesh.trees.design`            the cheapest links for a tree count
========================================  ==============================================

At the top of the folder sit what every room shares: the data types
(:mod:`~supermesh.trees.model`: :class:`Tree`, :class:`TreeSet`, :class:`TreePacking`;
:mod:`~supermesh.trees.oriented`: a tree as parent -> child arcs), the strict readers of their
files' values (:mod:`~supermesh.trees.json_values`), root lists by name
(:mod:`~supermesh.trees.rootspec`) and the one CP-SAT configuration
(:mod:`~supermesh.trees.cpsat`).

Imports run one way (``tests/test_layout.py`` enforces it): a room may use the shared modules
and the rooms listed for it, and outside a room only the names in its ``__all__``::

    bounds     -> (shared only)
    packing    -> bounds
    throughput -> bounds
    roots      -> packing, bounds
    design     -> packing, bounds
    prove      -> packing, bounds      (and supermesh.verify, to re-check what it reuses)
    schedule   -> roots, throughput, packing, bounds

The engine as a whole uses :mod:`supermesh.topologies` and never :mod:`supermesh.sim`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "STATUSES": "supermesh.trees.model",
    "Tree": "supermesh.trees.model",
    "TreeSet": "supermesh.trees.model",
    "TreePacking": "supermesh.trees.model",
    "read_packing": "supermesh.trees.model",
    "OrientedTree": "supermesh.trees.oriented",
    "orient": "supermesh.trees.oriented",
    "ROOT_NAMES": "supermesh.trees.rootspec",
    "resolve_roots": "supermesh.trees.rootspec",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
