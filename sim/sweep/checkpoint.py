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

__all__ = ["case_key", "checkpoint_path", "fingerprint", "read_checkpoint"]


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
