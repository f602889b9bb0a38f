"""The resume file of a sweep: JSON lines, the settings first, then one finished row per line.

A sweep killed half-way leaves the rows it finished; started again with the same settings it
reads them back and simulates only the rest. The line being written when it was killed is
ignored, and a file written under other settings is not reused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from supermesh.sim.presets import SimParams
from supermesh.sim.sweep.cases import SweepCase

__all__ = ["case_key", "checkpoint_path", "checkpoint_rows", "fingerprint", "read_checkpoint"]


def checkpoint_path(output: str | Path) -> Path:
    """Where a sweep writing ``output`` keeps its finished rows until the file is written.

    Examples
    --------
    >>> checkpoint_path("runs/ar.csv").name
    '.ar.csv.rows.jsonl'
    """
    out = Path(output)
    return out.with_name(f".{out.name}.rows.jsonl")


def fingerprint(params: SimParams, time_limit: float, fast_trees: bool) -> dict[str, Any]:
    return {"params": params.to_json(), "time_limit": time_limit, "fast_trees": fast_trees}


def case_key(case: SweepCase) -> list[Any]:
    return [case.spec, case.collective, case.algorithm, case.nbytes]


def read_checkpoint(path: Path, fingerprint: dict[str, Any]) -> dict[tuple[Any, ...], dict]:
    """Rows a killed sweep with the same settings finished (nothing if the settings differ)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[tuple[Any, ...], dict] = {}
    for number, line in enumerate(lines):
        try:
            doc = json.loads(line)
        except json.JSONDecodeError:  # the line being written when the sweep was killed
            continue
        if number == 0:
            if doc != {"sweep": fingerprint}:
                return {}
            continue
        if isinstance(doc, dict) and isinstance(doc.get("row"), dict) and "case" in doc:
            found[tuple(doc["case"])] = doc["row"]
    return found


def checkpoint_rows(
    path: str | Path, params: SimParams, *, time_limit: float = 60.0, fast_trees: bool = False
) -> dict[tuple[Any, ...], dict[str, Any]] | None:
    """The rows a killed sweep of these settings left in the checkpoint ``path``, by case.

    Parameters
    ----------
    path : str or Path
        A checkpoint of :func:`~supermesh.sim.sweep.run_sweep`.
    params, time_limit, fast_trees
        The settings of the sweep to resume, as given to ``run_sweep``.

    Returns
    -------
    dict or None
        ``(spec, collective, algorithm, bytes) -> row`` (empty when there is no file); None
        when the file holds a sweep of other settings or is no checkpoint, which ``run_sweep``
        would start afresh (so that a caller can refuse before anything is lost).

    Examples
    --------
    >>> import tempfile
    >>> from supermesh.sim.presets import get_preset
    >>> from supermesh.sim.sweep import run_sweep, sweep_cases
    >>> path = Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> cases = sweep_cases(["mesh:2x2"], ["allgather"], ["ring"], [1 << 16])
    >>> _ = run_sweep(cases, get_preset("booksim"), time_limit=5, checkpoint=path)
    >>> list(checkpoint_rows(path, get_preset("booksim"), time_limit=5))
    [('mesh:2x2', 'allgather', 'ring', 65536)]
    >>> checkpoint_rows(path, get_preset("paper"), time_limit=5) is None
    True
    """
    target = Path(path)
    if not target.exists():
        return {}
    settings = fingerprint(params, time_limit, fast_trees)
    try:
        with target.open(encoding="utf-8") as fh:
            head = json.loads(fh.readline())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if head != {"sweep": settings}:
        return None
    return read_checkpoint(target, settings)
