"""What the file checks share: the report they return, field-shape tests, the topology named.

:func:`~supermesh.verify.files.check_document` and the checks of each format
(:mod:`supermesh.verify.files` for topologies, :mod:`supermesh.verify.trees.file`,
:mod:`supermesh.verify.schedule.file`) return a :class:`FileReport`; a field of the wrong shape is
an :class:`~supermesh.errors.InputFileError` (:func:`require`), and the topology a tree or schedule
file names is found and built by :func:`topology_for`, with a guard against specs that would never
finish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supermesh.errors import InputFileError
from supermesh.topologies.costs import split_cost_options
from supermesh.topologies.spec import build, parse_spec
from supermesh.verify.claims import UNPROVEN, Claim, verdict_word
from supermesh.verify.findings import Finding

__all__ = [
    "MAX_CHIPLETS",
    "FileReport",
    "expected_compute",
    "is_int",
    "is_num",
    "require",
    "same_value",
    "topology_for",
    "unknown_fields",
]

MAX_CHIPLETS = 100_000
"""Largest topology a tree file may name (a guard against specs that would never finish)."""


@dataclass(frozen=True)
class FileReport:
    """What :func:`~supermesh.verify.files.check_file` found.

    Attributes
    ----------
    source : str
        The file (or a label for an in-memory document).
    kind : {"topology", "design", "trees", "schedule", "proof", "sweep"}
    summary : str
        One line describing what was checked.
    findings : tuple of Finding
        Every unproven claim is among them as a ``claim-unproven`` warning.
    extra : dict
        Further JSON-ready results (``"deadlock"``: the deadlock report of a schedule).
    claims : tuple of Claim
        The file's claims verify judged: re-derived or unproven (:mod:`supermesh.verify.claims`).

    Examples
    --------
    >>> from supermesh.verify.claims import unproven, unproven_findings
    >>> claim = unproven("lower_bound", "no tree is lower than 7", "the solver's proof")
    >>> r = FileReport("f.json", "trees", "trees on mesh:4x4", tuple(unproven_findings([claim])),
    ...                claims=(claim,))
    >>> r.ok, r.verdict, [c.field for c in r.unproven]
    (True, 'OK (1 claim unproven)', ['lower_bound'])
    """

    source: str
    kind: str
    summary: str
    findings: tuple[Finding, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()

    @property
    def ok(self) -> bool:
        """No finding of severity error."""
        return not any(f.is_error for f in self.findings)

    @property
    def unproven(self) -> tuple[Claim, ...]:
        """The claims verify could not re-derive."""
        return tuple(c for c in self.claims if c.verdict == UNPROVEN)

    @property
    def verdict(self) -> str:
        """``OK``, ``OK (N claims unproven)`` or ``FAILED`` (:func:`verdict_word`)."""
        return verdict_word(self.ok, self.claims)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: source, kind, summary, verdict, counts, findings and claims."""
        n_err = sum(f.is_error for f in self.findings)
        return {
            "file": self.source,
            "kind": self.kind,
            "summary": self.summary,
            "ok": self.ok,
            "verdict": self.verdict,
            "errors": n_err,
            "warnings": len(self.findings) - n_err,
            "unproven": len(self.unproven),
            "findings": [f.to_json() for f in self.findings],
            "claims": [c.to_json() for c in self.claims],
            **self.extra,
        }


def is_int(x: Any) -> bool:
    """An integer, and not a bool (JSON ``true`` is no node id).

    Parameters
    ----------
    x : object

    Returns
    -------
    bool

    Examples
    --------
    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x: Any) -> bool:
    """A number, and not a bool.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool

    Examples
    --------
    >>> is_num(0.5), is_num(2), is_num(False)
    (True, True, False)
    """
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def unknown_fields(obj: Any, known: tuple[str, ...] | frozenset[str], where: str) -> list[Finding]:
    """An ``unknown-field`` error per key of ``obj`` its format does not define (a typo, an edit).

    Parameters
    ----------
    obj : object
        A JSON object (anything else gives no finding).
    known : tuple or frozenset of str
        The fields its format defines.
    where : str
        Its place in the file, for the message.

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> [f.message for f in unknown_fields({"root": 0, "hieght": 3}, ("root", "height"), "tree 0")]
    ["tree 0: field 'hieght' is not part of the format"]
    """
    if not isinstance(obj, dict):
        return []
    return [
        Finding("unknown-field", f"{where}: field {key!r} is not part of the format")
        for key in obj
        if key not in known
    ]


def same_value(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1`` (Python's ``==`` says it is).

    Parameters
    ----------
    a, b : object
        JSON values.

    Returns
    -------
    bool

    Examples
    --------
    >>> same_value([1, 2], [1, 2]), same_value([True], [1]), same_value({"a": 1.0}, {"a": 1})
    (True, False, True)
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def require(cond: bool, source: str, msg: str) -> None:
    """Raise :class:`~supermesh.errors.InputFileError` ``"{source}: {msg}"`` unless ``cond``.

    Parameters
    ----------
    cond : bool
    source : str
        The file.
    msg : str
        What is wrong.

    Raises
    ------
    InputFileError
        Unless ``cond``.

    Examples
    --------
    >>> require(True, "f.json", "fine")
    >>> require(False, "f.json", "nodes must be a list")
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: f.json: nodes must be a list
    """
    if not cond:
        raise InputFileError(f"{source}: {msg}")


def expected_compute(spec: str) -> int:
    """The number of compute chiplets ``spec`` asks for, read from the spec without building it.

    Parameters
    ----------
    spec : str
        A spec string (link-cost options allowed).

    Returns
    -------
    int

    Raises
    ------
    InputFileError
        If the spec asks for an absurd size.
    SpecError
        If it does not parse.

    Examples
    --------
    >>> expected_compute("smbi:4x8,bandwidth=2"), expected_compute("hexamesh:r1")
    (32, 7)
    """
    if re.search(r"\d{7,}", spec):
        raise InputFileError(f"topology {spec!r} is far too large; refusing to build it")
    _, size, _, _ = parse_spec(split_cost_options(spec)[0])
    return int(sum(size[0])) if len(size) == 1 else int(size[0]) * int(size[1])


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system is simply not a file
        return False


def topology_for(spec: str, base_dir: Path | None) -> Any:
    """The topology a tree or schedule file names: a spec, or the path of a topology file.

    Parameters
    ----------
    spec : str
        The file's ``topology`` field.
    base_dir : Path, optional
        Directory of the file naming it: a relative topology path not found as given is looked
        up there.

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        If ``spec`` is neither a spec nor an existing topology file, or asks for more than
        :data:`MAX_CHIPLETS` chiplets; :class:`~supermesh.errors.SupermeshError` if it does not
        build.

    Examples
    --------
    >>> topology_for("smbi:2x2", None).number_of_edges()
    16
    >>> topology_for("smbi", None)
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: topology 'smbi' is neither a spec nor an existing topology file
    """
    path = Path(spec)
    if spec.endswith(".json") or _is_file(path):
        if not path.is_absolute() and not _is_file(path) and base_dir is not None:
            path = base_dir / path
        return build(path)
    if len(spec) > 200 or ":" not in spec:
        raise InputFileError(
            f"topology {spec[:60]!r} is neither a spec nor an existing topology file",
            hint="name a spec such as smbi:4x4 or the path of a topology JSON file",
        )
    if expected_compute(spec) > MAX_CHIPLETS:
        raise InputFileError(
            f"topology {spec!r} has more than {MAX_CHIPLETS} chiplets; refusing to build it"
        )
    return build(spec)
