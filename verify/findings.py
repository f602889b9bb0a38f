"""Findings: what a checker reports instead of a bare ``False``.

Every checker in :mod:`supermesh.verify` returns a ``list[Finding]``; an empty list means the
object passed. A finding names what is wrong (a stable short ``code``), says it in words
(``message``), and points at the place: the set, the tree, the arc and the node involved.

Severity
    ``"error"``: the object is wrong (a tree misses a chiplet, two trees share an arc, a
    certificate does not prove what it claims). ``"warning"``: the object is valid but wasteful
    or weaker than it could be (a relay that is a leaf of a tree, a quoted lower bound below the
    trivial eccentricity bound). ``supermesh verify`` exits 1 only on errors.

Codes (stable; tests and scripts may match on them)
    Trees: ``arc-missing``, ``arc-repeated``, ``two-parents``, ``root-has-parent``,
    ``root-missing``, ``wrong-root``, ``not-spanning``, ``detached``, ``cycle``,
    ``height-mismatch``, ``relay-leaf`` (warning), ``root-outside-span`` (warning),
    ``node-out-of-range``, ``arc-overused``, ``pair-overused``, ``rate-overused``, ``bad-share``,
    ``no-trees``, ``objective-mismatch``, ``bound-above-objective``, ``optimal-without-proof``,
    ``height-below-eccentricity``, ``weak-lower-bound`` (warning), ``unreachable``,
    ``trees-when-infeasible``, ``certificate-missing``, ``certificate-malformed``,
    ``certificate-invalid``, ``root-sets-partition``, ``stats-mismatch``, ``bad-field``,
    ``duplicate-contradiction``.

    Weighted packings (:mod:`supermesh.verify.trees.rates`): ``share-mismatch``, ``share-sum``,
    ``rank-without-tree``, ``rate-claim-too-high``, ``rate-unclaimed`` (warning),
    ``rate-above-bound``, ``optimal-rate-gap``.

    Topologies and designs (:mod:`supermesh.verify.topology`): ``spec-mismatch``, ``self-loop``,
    ``bad-attribute``, ``key-gap`` (warning), ``isolated-node`` (warning), ``metrics-mismatch``,
    ``design-mismatch``. Certificate files (:mod:`supermesh.verify.proof`): ``proof-mismatch``.
    Sweep files (:mod:`supermesh.verify.sweep`): ``sweep-mismatch``.

    Schedule tables (:mod:`supermesh.verify.schedule.tables`): ``entry-id``, ``bad-field``,
    ``ranks-mismatch``, ``ranks-order``, ``ranks-left-out`` (warning), ``roots-mismatch``,
    ``table-mismatch``, ``chunks-mismatch``, ``dep-missing``, ``dep-chunks``, ``dep-extra``,
    ``deps-incomplete``, ``fifo-step``, ``fifo-order``, ``chunk-range``, ``chunk-coverage``,
    ``op-mismatch``, ``depth-mismatch``, ``relay-leaf``, ``received-twice``,
    ``chunk-undelivered``, ``chunk-incomplete``, ``double-count``, ``phase-mismatch``,
    ``tree-mismatch``, ``deadlock-cycle``, ``deadlock-unchecked`` (warning).

    Any format: ``claim-unproven`` (warning): a claim verify cannot re-derive
    (:mod:`supermesh.verify.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SEVERITIES", "Finding", "errors", "format_finding"]

SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Finding:
    """One thing a checker found wrong (or wasteful).

    Attributes
    ----------
    code : str
        Stable short identifier, e.g. ``"not-spanning"`` (see the module docstring).
    message : str
        A readable sentence naming the tree, arc and node involved.
    severity : {"error", "warning"}
    set : int or None
        Index of the tree set, where the finding concerns one.
    tree : int or None
        Index of the tree inside its set.
    arc : tuple of (src, dst, key) or None
        The arc involved.
    node : int or None
        The node involved.
    entry : int or None
        The schedule table entry involved (schedule findings).

    Examples
    --------
    >>> f = Finding("arc-missing", "tree 0: arc 0->5 key 0 does not exist", tree=0, arc=(0, 5, 0))
    >>> f.to_json()["arc"]
    [0, 5, 0]
    """

    code: str
    message: str
    severity: str = "error"
    set: int | None = None
    tree: int | None = None
    arc: tuple[int, int, int] | None = None
    node: int | None = None
    entry: int | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r} is not one of {SEVERITIES}")

    @property
    def is_error(self) -> bool:
        """Whether this finding makes the checked object invalid."""
        return self.severity == "error"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict with every field (``arc`` as a list, absent places as ``null``)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "set": self.set,
            "tree": self.tree,
            "arc": list(self.arc) if self.arc is not None else None,
            "node": self.node,
            "entry": self.entry,
        }


def errors(findings: list[Finding]) -> list[Finding]:
    """The findings of severity ``"error"``.

    Parameters
    ----------
    findings : list of Finding

    Returns
    -------
    list of Finding
        Those with ``severity == "error"``, in order.

    Examples
    --------
    >>> errors([Finding("relay-leaf", "x", severity="warning")])
    []
    """
    return [f for f in findings if f.is_error]


def format_finding(finding: Finding) -> str:
    """One line for a terminal: ``severity code: message``.

    Parameters
    ----------
    finding : Finding

    Returns
    -------
    str
        The severity padded to 7 characters, the code, and the message.

    Examples
    --------
    >>> format_finding(Finding("cycle", "tree 1: arcs form a cycle 3->4->3", tree=1))
    'error   cycle: tree 1: arcs form a cycle 3->4->3'
    """
    return f"{finding.severity:<7} {finding.code}: {finding.message}"
