"""Break what the tool produces on purpose, to show the checkers notice.

- :mod:`~supermesh.testing.mutations.objects`: mutators of the Python objects (a tree set, a
  schedule table) for property tests of :func:`supermesh.verify.check_packing` and
  :func:`supermesh.verify.check_schedule`.
- :mod:`~supermesh.testing.mutations.documents`: single-field mutants of every file kind the tool
  writes (topology, design, trees, schedule, certificate file, sweep CSV).
- :mod:`~supermesh.testing.mutations.campaign`: the campaign: every mutant verified and judged
  by an independent oracle, the outcomes counted (caught, still valid, accepted but wrong, ...).
"""

from supermesh._lazy import lazy_exports

# public name -> module defining it (imported on first use)
_EXPORTS: dict[str, str] = {
    "change_height": "supermesh.testing.mutations.objects",
    "drop_dependency": "supermesh.testing.mutations.objects",
    "drop_entry": "supermesh.testing.mutations.objects",
    "drop_node": "supermesh.testing.mutations.objects",
    "move_arc": "supermesh.testing.mutations.objects",
    "move_entry": "supermesh.testing.mutations.objects",
    "remove_arc": "supermesh.testing.mutations.objects",
    "swap_steps": "supermesh.testing.mutations.objects",
    "DELETED": "supermesh.testing.mutations.documents",
    "ENUMS": "supermesh.testing.mutations.documents",
    "Mutant": "supermesh.testing.mutations.documents",
    "document_mutants": "supermesh.testing.mutations.documents",
    "field_patterns": "supermesh.testing.mutations.documents",
    "OUTCOMES": "supermesh.testing.mutations.campaign",
    "Outcome": "supermesh.testing.mutations.campaign",
    "run_campaign": "supermesh.testing.mutations.campaign",
    "tally": "supermesh.testing.mutations.campaign",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = list(_EXPORTS)
