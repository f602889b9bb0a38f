"""Tables fit an 80-column terminal: every line of each command's table output (titles, notes
and cells; rich folds cells, the titles and notes are folded by the commands themselves).

``sweep`` has its own test (tests/cli/test_cli_sweep.py); the proofs ``bound`` and ``design``
print are prose, which a terminal folds at any width.
"""

from __future__ import annotations

import pytest

TABLES = [
    ["report", "mesh:2x2", "smbi:2x2", "--no-design", "--size", "64KiB"],
    ["report", "mesh:2x2", "smbi:2x2", "--no-design", "--size", "64KiB", "--preset", "paper"],
    ["topo", "hexamesh:r2,memory=south"],
    ["topo", "cmesh:8x8"],
    ["trees", "smbi:4x4", "--root-sets", "--method", "paper"],
    ["trees", "smbi:4x4", "--throughput"],
    ["sim", "smbi:4x4", "-c", "allgather", "--size", "64MiB"],
    ["schedule", "smbi:3x3", "-c", "allreduce", "-o", "{d}/s.xml"],
    ["prove", "smbi", "--grids", "2..4", "--workers", "1"],
]


@pytest.mark.parametrize("args", TABLES, ids=[" ".join(a)[:48] for a in TABLES])
def test_tables_fit_80_columns(run_cli, tmp_path, args):
    code, out, err = run_cli(*[a.replace("{d}", str(tmp_path)) for a in args])
    assert code == 0, err
    lines = out.splitlines()
    assert lines
    widest = max(lines, key=len)
    assert len(widest) <= 80, widest
    assert "\u2026" not in out  # rich's ellipsis: nothing cut short
