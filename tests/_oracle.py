"""The mutation campaign's oracle: one judge per file kind, written from the documented semantics.

:func:`oracle` is what :func:`supermesh.testing.mutations.campaign.run_campaign` calls:
``oracle(kind, original, mutant) -> (valid, why)``. Each judge (``_oracle_<kind>``) raises
:class:`~_oracle_common.Invalid` unless it can show the mutant valid; none calls verify or the
code that wrote the file.
"""

from __future__ import annotations

from typing import Any

from _oracle_common import Invalid
from _oracle_proof import proof_problem
from _oracle_schedule import schedule_problem
from _oracle_sweep import sweep_problem
from _oracle_topology import topology_problem
from _oracle_trees import trees_problem

JUDGES = {
    "topology": topology_problem,
    "design": topology_problem,
    "trees": trees_problem,
    "schedule": schedule_problem,
    "proof": proof_problem,
    "sweep": sweep_problem,
}


def oracle(kind: str, original: Any, mutant: Any) -> tuple[bool, str]:
    """Whether ``mutant`` (of a valid ``original`` of file kind ``kind``) is provably valid."""
    try:
        JUDGES[kind](mutant, original)
    except Invalid as exc:
        return False, str(exc)
    return True, "valid"
