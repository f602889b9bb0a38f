"""What proving one size takes and gives: :class:`SizeTask` in, :class:`SizeProof` out.

:class:`SizeTask` is the picklable input of :func:`~supermesh.trees.prove.size.prove_size`.
:class:`SizeProof` (with one :class:`ChoiceProof` per root choice) summarises a size's certificate
file, a JSON document tagged ``format: "supermesh-proof"`` (:data:`FORMAT`), without its trees;
:func:`summarize_document` reads that summary out of the document, and ``to_json`` gives the
summary's own JSON. :data:`CHOICES` names the root choices a size can be proved for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHOICES",
    "FORMAT",
    "ChoiceProof",
    "SizeProof",
    "SizeTask",
    "summarize_document",
]

FORMAT = "supermesh-proof"
CHOICES = ("corners", "sides", "corners3", "free")


@dataclass(frozen=True)
class SizeTask:
    """What :func:`~supermesh.trees.prove.size.prove_size` needs.

    Picklable, so it can run in another process.
    """

    spec: str
    size: str
    choices: tuple[str, ...] = ("corners", "sides")
    direction: str = "out"
    time_limit: float = 60.0
    solver_workers: int = 1
    out_path: str | None = None


@dataclass(frozen=True)
class ChoiceProof:
    """Heights for one root choice at one size (summary; the trees are in the file).

    ``status``: ``optimal`` (``bound`` says how: ``eccentricity``, re-checked by verify, or
    ``cpsat``, the solver's proof), ``feasible`` (time limit; ``lower_bound`` gives the gap),
    ``infeasible`` (Edmonds' ``certificate``), ``unknown`` (no packing within the time limit) or
    ``n/a`` (the choice does not exist on this topology).
    """

    name: str
    status: str
    roots: tuple[int, ...] = ()
    relay_only: tuple[int, ...] = ()
    height: int | None = None
    lower_bound: int | None = None
    bound: str | None = None
    method: str = ""
    certificate: dict[str, Any] | None = None

    @property
    def proof(self) -> str:
        """Short proof kind for tables."""
        if self.status == "optimal":
            return "eccentricity bound" if self.bound == "eccentricity" else "CP-SAT bound"
        if self.status == "feasible":
            return f"gap {(self.height or 0) - (self.lower_bound or 0)}"
        if self.status == "infeasible":
            return "Edmonds cut"
        return self.status

    def to_json(self) -> dict[str, Any]:
        """Summary fields (no trees)."""
        return {
            "status": self.status,
            "roots": list(self.roots),
            "relay_only": list(self.relay_only),
            "height": self.height,
            "lower_bound": self.lower_bound,
            "bound": self.bound,
            "method": self.method,
            "certificate": self.certificate,
        }


@dataclass(frozen=True)
class SizeProof:
    """The result for one size (summary of its certificate file).

    ``proven`` means: the file passed
    :func:`~supermesh.trees.prove.certificate.recheck_document`, ``max_trees`` trees were
    exhibited, and every root choice is settled (optimal or infeasible). ``recomputed``: why a
    file already there was not reused (``None``: none was there, or it was reused).
    """

    size: str
    spec: str
    max_trees: int
    max_trees_lower: int | None
    max_trees_roots: tuple[int, ...]
    choices: dict[str, ChoiceProof]
    findings: tuple[str, ...] = ()
    certificate: str | None = None
    reused: bool = False
    seconds: float = 0.0
    upper: dict[str, Any] = field(default_factory=dict)
    recomputed: str | None = None

    @property
    def proven(self) -> bool:
        settled = all(c.status in ("optimal", "infeasible", "n/a") for c in self.choices.values())
        return not self.findings and self.max_trees_lower == self.max_trees and settled

    @property
    def heights(self) -> dict[str, int | None]:
        """Height per root choice (``None`` when impossible or unknown)."""
        return {n: c.height for n, c in self.choices.items() if c.status != "n/a"}

    def to_json(self) -> dict[str, Any]:
        """``size``, ``spec``, ``max_trees``, ``heights``, ``certificate`` and the details."""
        return {
            "size": self.size,
            "spec": self.spec,
            "max_trees": self.max_trees,
            "max_trees_exhibited": self.max_trees_lower,
            "max_trees_roots": list(self.max_trees_roots),
            "heights": self.heights,
            "proven": self.proven,
            "choices": {n: c.to_json() for n, c in self.choices.items()},
            "upper": self.upper,
            "findings": list(self.findings),
            "certificate": self.certificate,
            "reused": self.reused,
            "recomputed": self.recomputed,
            "seconds": round(self.seconds, 3),
        }


def summarize_document(
    doc: dict[str, Any],
    path: str | None,
    reused: bool,
    seconds: float,
    *,
    recomputed: str | None = None,
) -> SizeProof:
    """The :class:`SizeProof` summary of a certificate file's document (its trees left out).

    Parameters
    ----------
    doc : dict
        A ``supermesh-proof`` document, as :func:`~supermesh.trees.prove.size.prove_size`
        computes it or reads it back from a file.
    path : str or None
        Where the document is stored (``None``: nowhere); kept as ``certificate``.
    reused : bool
        Whether the document was read back from an existing file rather than computed.
    seconds : float
        Wall-clock time spent on the size.
    recomputed : str, optional
        Why a file already at ``path`` was not reused (it failed the re-check, was partial, ...).

    Returns
    -------
    SizeProof
        ``max_trees_lower`` is ``max_trees`` when the document exhibits a ``lower`` packing;
        ``upper`` keeps the Frank certificate with its ``sets`` replaced by their number.

    Raises
    ------
    KeyError
        A document without ``size``, ``topology``, ``max_trees``, ``choices`` or ``upper`` (or a
        choice without ``status``); documents are re-checked before they are summarised.

    Examples
    --------
    >>> doc = {"size": "2x2", "topology": "smbi:2x2", "max_trees": 5, "lower": {"choice": "c"},
    ...        "upper": {"kind": "subpartition", "sets": [[0], [1]]},
    ...        "choices": {"c": {"status": "optimal", "roots": [0], "height": 2}}}
    >>> p = summarize_document(doc, None, False, 0.0)
    >>> p.heights, p.max_trees_lower, p.upper, p.proven
    ({'c': 2}, 5, {'kind': 'subpartition', 'sets': 2}, True)
    """
    choices = {}
    for name, c in doc["choices"].items():
        choices[name] = ChoiceProof(
            name=name,
            status=c["status"],
            roots=tuple(c.get("roots") or ()),
            relay_only=tuple(c.get("relay_only") or ()),
            height=c.get("height"),
            lower_bound=c.get("lower_bound"),
            bound=c.get("bound"),
            method=c.get("method", ""),
            certificate=c.get("certificate"),
        )
    lower = doc.get("lower")
    exhibited = doc["max_trees"] if isinstance(lower, dict) else None
    return SizeProof(
        size=doc["size"],
        spec=doc["topology"],
        max_trees=doc["max_trees"],
        max_trees_lower=exhibited,
        max_trees_roots=tuple(doc.get("max_trees_roots") or ()),
        choices=choices,
        findings=tuple(doc.get("findings") or ()),
        certificate=path,
        reused=reused,
        seconds=seconds,
        upper={k: v for k, v in doc["upper"].items() if k != "sets"}
        | {"sets": len(doc["upper"].get("sets") or [])},
        recomputed=recomputed,
    )
