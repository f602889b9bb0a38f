"""Claims: what a file asserts beyond its data, and whether verify could re-derive it.

A tree file does not only hold trees: it says their heights are optimal, that no lower tree
exists, that a rate is the best possible, that a set of roots is impossible. verify accepts such a
claim only when it re-derives it from the topology and the file's own data (a root's
eccentricity, a cut it recounts, a subpartition, a height certificate, the rate its shares allow);
a claim it cannot re-derive is *unproven* (it may well be true: it rests on a solver's proof), and
a claim contradicted by what verify computes is an error finding of the checker concerned.

Each checked claim becomes a :class:`Claim`: the field that makes it, the statement, the verdict
(``re-derived`` or ``unproven``) and the argument. An unproven claim is also a ``claim-unproven``
warning (:func:`unproven_findings`), so the summary of
:func:`~supermesh.verify.files.check_file` never says a bare ``OK`` when a claim rests on trust
(:func:`verdict_word`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from supermesh.verify.findings import Finding

__all__ = [
    "RE_DERIVED",
    "UNPROVEN",
    "Claim",
    "re_derived",
    "unproven",
    "unproven_findings",
    "verdict_word",
]

RE_DERIVED = "re-derived"
UNPROVEN = "unproven"
VERDICTS = (RE_DERIVED, UNPROVEN)


@dataclass(frozen=True)
class Claim:
    """One claim of a file and what verify made of it.

    Attributes
    ----------
    field : str
        Where the file makes it, as a path: ``"status"``, ``"sets[0].lower_bound"``,
        ``"stats.balance"``, ``"choices.sides.bound"``.
    statement : str
        What it says, with its values ("max height 16 is optimal").
    verdict : {"re-derived", "unproven"}
    argument : str
        How verify re-derived it, or why it cannot.

    Examples
    --------
    >>> c = Claim("lower_bound", "no tree set is lower than 6", "re-derived",
    ...           "root 0 has eccentricity 6")
    >>> c.to_json()["verdict"]
    're-derived'
    """

    field: str
    statement: str
    verdict: str
    argument: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")

    def to_json(self) -> dict[str, Any]:
        """``field``, ``statement``, ``verdict`` and ``argument``."""
        return {
            "field": self.field,
            "statement": self.statement,
            "verdict": self.verdict,
            "argument": self.argument,
        }


def re_derived(field: str, statement: str, argument: str) -> Claim:
    """A claim verify re-derived (see :class:`Claim`).

    Parameters
    ----------
    field : str
        Where the file makes the claim (``sets[0].lower_bound``).
    statement : str
        What it says.
    argument : str
        How verify re-derived it, or why it cannot.

    Returns
    -------
    Claim
        With verdict ``re-derived``.

    Examples
    --------
    >>> re_derived("status", "optimal", "equals the eccentricity bound").verdict
    're-derived'
    """
    return Claim(field, statement, RE_DERIVED, argument)


def unproven(field: str, statement: str, argument: str) -> Claim:
    """A claim verify cannot re-derive (see :class:`Claim`).

    Parameters
    ----------
    field : str
        Where the file makes the claim (``sets[0].lower_bound``).
    statement : str
        What it says.
    argument : str
        How verify re-derived it, or why it cannot.

    Returns
    -------
    Claim
        With verdict ``unproven``.

    Examples
    --------
    >>> unproven("lower_bound", "no set is lower than 16", "a solver's bound").verdict
    'unproven'
    """
    return Claim(field, statement, UNPROVEN, argument)


def unproven_findings(claims: Iterable[Claim]) -> list[Finding]:
    """One ``claim-unproven`` warning per unproven claim, naming its field and statement.

    Parameters
    ----------
    claims : iterable of Claim

    Returns
    -------
    list of Finding
        ``claim-unproven`` warnings, in order.

    Examples
    --------
    >>> [f.message for f in unproven_findings([unproven("lower_bound", "16", "solver")])]
    ['lower_bound: 16: unproven (solver)']
    """
    return [
        Finding(
            "claim-unproven",
            f"{c.field}: {c.statement}: unproven ({c.argument})",
            severity="warning",
        )
        for c in claims
        if c.verdict == UNPROVEN
    ]


def verdict_word(ok: bool, claims: Sequence[Claim]) -> str:
    """The first word(s) of a report's summary: ``OK``, ``OK (2 claims unproven)``, ``FAILED``.

    Parameters
    ----------
    ok : bool
        Whether the report has no error.
    claims : sequence of Claim
        The report's claims.

    Returns
    -------
    str

    Examples
    --------
    >>> verdict_word(True, []), verdict_word(False, [])
    ('OK', 'FAILED')
    >>> verdict_word(True, [unproven("lower_bound", "16", "the solver's bound")])
    'OK (1 claim unproven)'
    """
    if not ok:
        return "FAILED"
    n = sum(c.verdict == UNPROVEN for c in claims)
    if not n:
        return "OK"
    return f"OK ({n} claim{'s' if n > 1 else ''} unproven)"
