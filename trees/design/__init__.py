"""Design: the cheapest links to add so a topology carries a target tree count, with proof.

- :mod:`~supermesh.trees.design.optimise`: :func:`design` (the entry point) and
  :func:`design_gap` (how many of a topology's added links its tree count really needs).
- :mod:`~supermesh.trees.design.candidates`: candidate link families and port budgets.
- :mod:`~supermesh.trees.design.master`: the CP-SAT master problem over candidate links, with
  Edmonds / Menger cuts added lazily (:mod:`~supermesh.trees.design.cuts`).
- :mod:`~supermesh.trees.design.search`: warm starts (known designs, a greedy) and the final
  packing check; :mod:`~supermesh.trees.design.result` assembles the answer.
- :mod:`~supermesh.trees.design.proof`, :mod:`~supermesh.trees.design.infeasible`,
  :mod:`~supermesh.trees.design.text`: the counting bound, cut certificates and the sentences a
  person can check.

This room uses :mod:`supermesh.trees.bounds` (the flow engine) and
:mod:`supermesh.trees.packing` (the final packing check), never roots, throughput or prove.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    "design": "supermesh.trees.design.optimise",
    "design_gap": "supermesh.trees.design.optimise",
    "DesignResult": "supermesh.trees.design.result",
    "STATUSES": "supermesh.trees.design.result",
    "Candidate": "supermesh.trees.design.candidates",
    "FAMILY_NAMES": "supermesh.trees.design.candidates",
    "candidate_links": "supermesh.trees.design.candidates",
    "parse_links": "supermesh.trees.design.candidates",
    "parse_costs": "supermesh.trees.design.candidates",
    "links_budget": "supermesh.trees.design.candidates",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
