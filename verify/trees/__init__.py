"""Checks of tree files: spanning, disjointness, heights, certificates, weighted rates.

- :mod:`~supermesh.verify.trees.arborescence`: one tree against the topology (spans the compute
  chiplets, rooted where it says, the height it claims).
- :mod:`~supermesh.verify.trees.packing`: a set and a whole packing (arc-disjoint counting
  parallel arcs, or rate-disjoint; the status and bounds it claims).
- :mod:`~supermesh.verify.trees.certificates`: infeasibility certificates (an Edmonds cut, a
  Frank subpartition, a height cap below a root's distance), recounted.
- :mod:`~supermesh.verify.trees.heights`: claimed heights and lower bounds against recomputed
  root eccentricities.
- :mod:`~supermesh.verify.trees.rates`: weighted packings, every link's load in exact fractions
  (recounted by :mod:`~supermesh.verify.trees.loads`).
- :mod:`~supermesh.verify.trees.file`: a tree file (its fields, then the packing), for
  :func:`~supermesh.verify.files.check_file`.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "check_tree": "supermesh.verify.trees.arborescence",
    "span_nodes": "supermesh.verify.trees.arborescence",
    "check_disjoint": "supermesh.verify.trees.packing",
    "check_packing": "supermesh.verify.trees.packing",
    "check_rates": "supermesh.verify.trees.packing",
    "check_certificate": "supermesh.verify.trees.certificates",
    "check_edmonds_certificate": "supermesh.verify.trees.certificates",
    "check_frank_certificate": "supermesh.verify.trees.certificates",
    "crossing_arcs": "supermesh.verify.trees.certificates",
    "check_height_claim": "supermesh.verify.trees.heights",
    "eccentricity": "supermesh.verify.trees.heights",
    "RateReport": "supermesh.verify.trees.loads",
    "check_weighted_packing": "supermesh.verify.trees.rates",
    "is_weighted_packing": "supermesh.verify.trees.rates",
    "rate_report": "supermesh.verify.trees.loads",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
