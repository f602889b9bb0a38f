"""Checks of topology files: structure, the spec they name, their metrics, and design claims.

- :mod:`~supermesh.verify.topology.file`: :func:`check_topology_file`, a ``supermesh-topology``
  document (structure, spec regeneration, metrics, a design), for
  :func:`~supermesh.verify.files.check_file`.
- :mod:`~supermesh.verify.topology.metrics`: the stated ``metrics`` recounted.
- :mod:`~supermesh.verify.topology.design`: a design file (``design -o``): the added links, the
  target, the claimed minimality.
- :mod:`~supermesh.verify.topology.counting`: what the design checks rest on: candidate families,
  Edmonds' flow condition, the counting bound.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "check_topology_file": "supermesh.verify.topology.file",
    "spec_differences": "supermesh.verify.topology.file",
    "check_metrics": "supermesh.verify.topology.metrics",
    "recount_metrics": "supermesh.verify.topology.metrics",
    "check_design": "supermesh.verify.topology.design",
    "candidate_pairs": "supermesh.verify.topology.counting",
    "counting_bound": "supermesh.verify.topology.counting",
    "ends_needed": "supermesh.verify.topology.counting",
    "flow_failure": "supermesh.verify.topology.counting",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
