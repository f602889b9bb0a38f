"""Checks of ``supermesh prove`` certificate files: every count, cut, subpartition and height.

- :mod:`~supermesh.verify.proof.file`: :func:`check_proof_document`, a ``supermesh-proof``
  document claim by claim (the tree count, its upper and lower proofs, the roots, each choice),
  for :func:`~supermesh.verify.files.check_file` and for ``prove``'s own re-check.
- :mod:`~supermesh.verify.proof.packings`: the trees inside a certificate file.
- :mod:`~supermesh.verify.proof.choices`: the root choices, rebuilt from their definitions.
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "check_proof_document": "supermesh.verify.proof.file",
    "check_choice": "supermesh.verify.proof.packings",
    "check_packing_doc": "supermesh.verify.proof.packings",
    "choice_definition": "supermesh.verify.proof.choices",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
