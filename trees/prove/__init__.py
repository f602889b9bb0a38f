"""Family proofs: tree counts and heights for a range of sizes, and what holds for every size.

- :mod:`~supermesh.trees.prove.family`: :func:`prove_family`, the entry point (sizes in parallel
  on local processes or a dask cluster, resumable from certificate files).
- :mod:`~supermesh.trees.prove.size`: one size: the tree count and the optimal height of each
  root choice, each with its certificate; :mod:`~supermesh.trees.prove.result` holds its data
  types and :mod:`~supermesh.trees.prove.certificate` its re-checkable files.
- :mod:`~supermesh.trees.prove.cases`: the statement for every size of a family, with its
  argument (the closed forms and cuts), where one is known, as cases by size;
  :mod:`~supermesh.trees.prove.statement` joins those covering one topology.

This room uses :mod:`supermesh.trees.bounds`, :mod:`supermesh.trees.packing` (solver, closed
forms, geodesic matching) and the shared data types. It is the one room allowed to import
:mod:`supermesh.verify`: a certificate file is reused only after the independent checker passes
it, and verify never imports prove, so the dependency stays one way.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use: CP-SAT loads slowly)
_EXPORTS: dict[str, str] = {
    "FamilyProof": "supermesh.trees.prove.family",
    "prove_family": "supermesh.trees.prove.family",
    "parse_family": "supermesh.trees.prove.family",
    "parse_sizes": "supermesh.trees.prove.family",
    "default_choices": "supermesh.trees.prove.family",
    "CHOICES": "supermesh.trees.prove.result",
    "FORMAT": "supermesh.trees.prove.result",
    "ChoiceProof": "supermesh.trees.prove.result",
    "SizeProof": "supermesh.trees.prove.result",
    "SizeTask": "supermesh.trees.prove.result",
    "prove_size": "supermesh.trees.prove.size",
    "recheck_document": "supermesh.trees.prove.certificate",
    "family_statement": "supermesh.trees.prove.statement",
    "cases_for": "supermesh.trees.prove.cases",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
