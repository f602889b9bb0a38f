"""Family proofs: tree counts and heights for a range of sizes, and what holds for every size.

:func:`prove_family` runs :func:`~supermesh.trees.prove.size.prove_size` for every size of a
family (in parallel through :mod:`supermesh.parallel`; each size writes and re-checks its own
certificate file, so an interrupted run resumes where it stopped), then sets the per-size results
against the family's all-sizes cases (:mod:`supermesh.trees.prove.cases`): every size the
statement covers is a check of its numeric claims, and a size that contradicts it is reported
under ``contradicted`` (that would be a bug in the argument or the code, never hidden).

Families are given as a family name with options, the size left out: ``smbi``,
``smalter,corners=4``, ``partial-smalter,io=east``, ``mesh,memory=south`` (a spec with ``NxN`` or
``rN`` in place of the size is accepted too: ``mesh:NxN,memory=south``). Sizes: ``2..64`` (square
sizes 2x2 to 64x64), ``4..64:2`` (every second one), ``4x4,6x8`` (a list), and for ``hexamesh``
radii ``1..4`` or ``r1,r3``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supermesh.errors import SpecError
from supermesh.parallel import map_tasks, open_executor, remove_temporaries
from supermesh.topologies import build
from supermesh.topologies.spec import parse_spec
from supermesh.trees.prove.cases import Case, cases_for
from supermesh.trees.prove.result import CHOICES, SizeProof, SizeTask
from supermesh.trees.prove.size import prove_size
from supermesh.trees.prove.statement import join_cases

__all__ = ["FamilyProof", "default_choices", "parse_family", "parse_sizes", "prove_family"]

Size = tuple[int, int]
_RANGE = re.compile(r"^r?(\d+)\s*\.\.\s*r?(\d+)(?::(\d+))?$")
_ONE = re.compile(r"^(\d+)(?:x(\d+))?$")
_SIZE_HINT = "use A..B (square sizes), A..B:STEP, or a list like 4x4,6x8 (hexamesh: 1..4 or r1,r3)"


@dataclass(frozen=True)
class FamilyProof:
    """What :func:`prove_family` found.

    Attributes
    ----------
    family : str
        The family as given, normalised (``smbi``, ``mesh,memory=south``).
    direction : {"out", "in"}
    roots : tuple of str
        Root choices proved at every size.
    sizes : tuple of SizeProof
        One per size, sorted by size.
    all_sizes : dict or None
        ``statement``, ``argument``, ``applies``, ``construction``, ``checked`` (sizes of the
        range that are proven and agree with it), ``contradicted`` and ``not_covered``; ``None``
        when no all-sizes argument is known for this family.

    Examples
    --------
    >>> proof = prove_family("smbi", "3..4", roots=["corners"], time_limit=10)
    >>> [(s.size, s.max_trees) for s in proof.sizes]
    [('3x3', 5), ('4x4', 4)]
    """

    family: str
    direction: str
    roots: tuple[str, ...]
    sizes: tuple[SizeProof, ...]
    all_sizes: dict[str, Any] | None

    @property
    def proven(self) -> bool:
        """Every size proven."""
        return all(s.proven for s in self.sizes)

    def to_json(self) -> dict[str, Any]:
        """``family``, ``direction``, ``roots``, ``sizes``, ``all_sizes`` and ``checked_range``."""
        labels = [s.size for s in self.sizes]
        return {
            "family": self.family,
            "direction": self.direction,
            "roots": list(self.roots),
            "checked_range": f"{labels[0]}..{labels[-1]}" if labels else None,
            "proven": self.proven,
            "sizes": [s.to_json() for s in self.sizes],
            "all_sizes": self.all_sizes,
        }


def parse_family(text: str) -> tuple[str, str, bool]:
    """Split a family argument into its name and options; say whether it is a HexaMesh.

    Returns
    -------
    name : str
    options : str
        ``""`` or ``",key=value,..."`` to append to ``name:SIZE``.
    hexagonal : bool

    Raises
    ------
    SpecError
        An unknown family or option (checked on the smallest size).

    Examples
    --------
    >>> parse_family("mesh:NxN,memory=south"), parse_family("hexamesh")
    (('mesh', ',memory=south', False), ('hexamesh', '', True))
    """
    raw = text.strip().lower()
    name, _, rest = raw.replace(":", ",", 1).partition(",")
    parts = [p.strip() for p in rest.split(",") if p.strip()]
    parts = [p for p in parts if not re.fullmatch(r"(nxn|n|rn|rxc|\d+x\d+|\d+|r\d+)", p)]
    options = "".join(f",{p}" for p in parts)
    hexagonal = name == "hexamesh"
    parse_spec(f"{name}:{'r1' if hexagonal else '3x3'}{options}")  # raises on bad names
    return name, options, hexagonal


def parse_sizes(text: str, *, hexagonal: bool = False) -> list[Size]:
    """Sizes from ``A..B``, ``A..B:STEP`` or a comma list; a radius ``r`` is ``(r, r)``.

    Raises
    ------
    SpecError
        A malformed or empty range.

    Examples
    --------
    >>> parse_sizes("2..4"), parse_sizes("4x4,6x8,5"), parse_sizes("r1,r3", hexagonal=True)
    ([(2, 2), (3, 3), (4, 4)], [(4, 4), (6, 8), (5, 5)], [(1, 1), (3, 3)])
    >>> parse_sizes("4..10:2")
    [(4, 4), (6, 6), (8, 8), (10, 10)]
    """
    spec = text.strip().lower().replace(" ", "")
    m = _RANGE.match(spec)
    if m:
        lo, hi, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        if lo > hi or step < 1:
            raise SpecError(f"size range {text!r} is empty", hint=_SIZE_HINT)
        return [(n, n) for n in range(lo, hi + 1, step)]
    sizes = []
    for token in spec.split(","):
        one = _ONE.match(token[1:] if hexagonal and token.startswith("r") else token)
        if not token or not one or (hexagonal and one.group(2)):
            raise SpecError(f"size {token!r} in {text!r} is not understood", hint=_SIZE_HINT)
        rows = int(one.group(1))
        sizes.append((rows, int(one.group(2) or rows)))
    return sizes


def default_choices(name: str) -> tuple[str, ...]:
    """Root choices proved unless asked otherwise.

    Examples
    --------
    >>> default_choices("mesh"), default_choices("smbi"), default_choices("hexamesh")
    (('corners', 'sides', 'corners3'), ('corners', 'sides'), ('corners',))
    """
    if name == "hexamesh":
        return ("corners",)
    if name in ("mesh", "partial-smbi", "partial-smalter"):
        return ("corners", "sides", "corners3")
    return ("corners", "sides")


def _label(size: Size, hexagonal: bool) -> str:
    return f"r{size[0]}" if hexagonal else f"{size[0]}x{size[1]}"


def _compare(case: Case, size: Size, proof: SizeProof) -> list[dict[str, Any]]:
    """Where ``proof`` disagrees with what ``case`` predicts at ``size``."""
    claims = case.predict(size)
    bad = []
    if "max_trees" in claims and claims["max_trees"] != proof.max_trees:
        bad.append(
            {"claim": "max_trees", "predicted": claims["max_trees"], "found": proof.max_trees}
        )
    for name, height in claims.get("heights", {}).items():
        choice = proof.choices.get(name)
        if choice is None or choice.status in ("n/a", "unknown"):
            continue
        found = None if choice.status == "infeasible" else choice.height
        if found != height or (height is not None and choice.status != "optimal"):
            bad.append({"claim": f"height {name}", "predicted": height, "found": found})
    return bad


def _all_sizes(
    name: str, options: str, sizes: list[Size], proofs: Sequence[SizeProof], hexagonal: bool
) -> dict[str, Any] | None:
    params: dict[str, Any] = {}
    if options:
        _, _, opts, memory = parse_spec(f"{name}:{'r1' if hexagonal else '3x3'}{options}")
        params = dict(opts) | ({"memory": memory} if memory else {})
    cases = [c for c in cases_for(name, params) if any(c.test(s) for s in sizes)]
    if not cases:
        return None
    checked, contradicted, uncovered = [], [], []
    for size, proof in zip(sizes, proofs, strict=True):
        covering = [c for c in cases if c.test(size)]
        if not covering:
            uncovered.append(proof.size)
            continue
        bad = [b | {"size": proof.size} for c in covering for b in _compare(c, size, proof)]
        contradicted += bad
        if not bad and proof.proven:
            checked.append(proof.size)
    return join_cases(cases) | {
        "checked": checked,
        "contradicted": contradicted,
        "not_covered": uncovered,
    }


def prove_family(
    family: str,
    sizes: Sequence[Size] | str,
    *,
    roots: Sequence[str] | None = None,
    out_dir: str | Path | None = None,
    executor: Executor | None = None,
    time_limit: float = 60.0,
    direction: str = "out",
    progress: bool = False,
    solver_workers: int = 1,
) -> FamilyProof:
    """Prove tree counts and heights for every size, and check the all-sizes statement.

    Parameters
    ----------
    family : str
        Family name with options (module docstring), e.g. ``"smbi"``, ``"mesh,memory=south"``.
    sizes : sequence of (rows, cols) or str
        Sizes, or a size text for :func:`parse_sizes` (HexaMesh: radii as ``(r, r)``).
    roots : sequence of str, optional
        Root choices among ``corners``, ``sides``, ``corners3``, ``free`` (default:
        :func:`default_choices`). ``free`` adds nothing: the free-root count is always proved.
    out_dir : str or Path, optional
        Directory for one certificate file per size (``<family>_<size>.json``). Files already
        there that re-check are reused, others are recomputed.
    executor : concurrent.futures.Executor, optional
        Where sizes run (default: a local process pool, :func:`supermesh.parallel.open_executor`).
    time_limit : float
        CP-SAT seconds per root choice and size (only where no closed form applies).
    direction : {"out", "in"}
    progress : bool
        Progress bar on stderr (when it is a terminal).
    solver_workers : int
        CP-SAT threads per task.

    Returns
    -------
    FamilyProof

    Raises
    ------
    SpecError
        Unknown family, option or root choice, malformed sizes, a size below the family's
        minimum, an unknown direction.

    Examples
    --------
    >>> from supermesh.parallel import SerialExecutor
    >>> fp = prove_family("smbi", "3..5", executor=SerialExecutor())
    >>> [(s.size, s.max_trees, s.heights["corners"]) for s in fp.sizes]
    [('3x3', 5, 4), ('4x4', 4, 6), ('5x5', 4, 8)]
    >>> fp.all_sizes["checked"], fp.all_sizes["contradicted"]
    (['3x3', '4x4', '5x5'], [])
    """
    name, options, hexagonal = parse_family(family)
    if direction not in ("out", "in"):
        raise SpecError(f"direction {direction!r} is not 'out' or 'in'", hint="use out or in")
    given = parse_sizes(sizes, hexagonal=hexagonal) if isinstance(sizes, str) else sizes
    size_list: list[Size] = sorted({(int(r), int(c)) for r, c in given})
    if not size_list:
        raise SpecError("no sizes to prove", hint=_SIZE_HINT)
    chosen = tuple(dict.fromkeys(roots)) if roots else default_choices(name)
    unknown = [c for c in chosen if c not in CHOICES]
    if unknown:
        raise SpecError(f"unknown root choice {unknown[0]!r}", hint=f"use {', '.join(CHOICES)}")
    specs = [f"{name}:{_label(s, hexagonal)}{options}" for s in size_list]
    build(specs[0])  # the smallest size: raises SpecError below the family's minimum
    stem = re.sub(r"[^a-z0-9=+-]+", "_", f"{name}{options}")
    tasks = [
        SizeTask(
            spec,
            _label(size, hexagonal),
            chosen,
            direction,
            time_limit,
            solver_workers,
            None
            if out_dir is None
            else str(Path(out_dir) / f"{stem}_{_label(size, hexagonal)}.json"),
        )
        for spec, size in zip(specs, size_list, strict=True)
    ]
    try:
        if executor is None:
            with open_executor(tasks=len(tasks)) as pool:
                proofs = map_tasks(
                    prove_size, tasks, executor=pool, progress=progress, description=f"prove {name}"
                )
        else:
            proofs = map_tasks(
                prove_size, tasks, executor=executor, progress=progress, description=f"prove {name}"
            )
    except BaseException:
        remove_temporaries(t.out_path for t in tasks if t.out_path is not None)
        raise
    return FamilyProof(
        family=f"{name}{options}",
        direction=direction,
        roots=chosen,
        sizes=tuple(proofs),
        all_sizes=_all_sizes(name, options, size_list, proofs, hexagonal),
    )
