"""verify on sweep CSVs: the relations of a row, and the speedups recounted from rows in the file.

The corpus sweep (mesh:3x3 and smbi:3x3, 64 KiB and 1 MiB, pipeline, ring and TACOS AllReduce)
holds every row's baselines, so each speedup there is checkable by hand: the mesh row's (or the
TACOS row's) time over this row's.
"""

from __future__ import annotations

import csv

import pytest

from supermesh.verify.sweep import COLUMNS, SPEEDUPS, check_sweep_rows


@pytest.fixture
def rows(corpus):
    return list(csv.reader(corpus["sweep"].read_text().splitlines()))


def _cell(rows, spec, alg, size, column):
    i = next(i for i, r in enumerate(rows) if (r[0], r[3], r[4]) == (spec, alg, size) and i > 0)
    return i, rows[0].index(column)


def _errors(rows):
    return [f.message for f in check_sweep_rows(rows).findings if f.is_error]


def test_the_corpus_sweep_checks(rows):
    assert rows[0] == list(COLUMNS + SPEEDUPS)
    assert _errors(rows) == []


def test_speedup_vs_mesh_is_the_mesh_time_over_this_time(rows):
    i, j = _cell(rows, "smbi:3x3", "pipeline", "1048576", "speedup_vs_mesh")
    m, t = _cell(rows, "mesh:3x3", "pipeline", "1048576", "time")
    want = float(rows[m][t]) / float(rows[i][t])
    assert abs(float(rows[i][j]) - want) <= 5e-5  # what the file says, by hand
    rows[i][j] = f"{want + 0.01:.4f}"
    assert any("speedup_vs_mesh" in e and "mesh:3x3" in e for e in _errors(rows))


def test_speedup_vs_tacos_is_the_tacos_time_over_this_time(rows):
    i, j = _cell(rows, "smbi:3x3", "ring", "1048576", "speedup_vs_tacos")
    m, t = _cell(rows, "smbi:3x3", "tacos", "1048576", "time")
    assert abs(float(rows[i][j]) - float(rows[m][t]) / float(rows[i][t])) <= 5e-5
    rows[i][j] = "0.3"
    assert any("speedup_vs_tacos 0.3" in e for e in _errors(rows))


def test_a_mesh_row_is_its_own_baseline(rows):
    i, j = _cell(rows, "mesh:3x3", "ring", "65536", "speedup_vs_mesh")
    rows[i][j] = "1.5"
    assert any("speedup_vs_mesh 1.5" in e for e in _errors(rows))


def test_energy_is_the_sum_of_its_components(rows):
    i, j = _cell(rows, "smbi:3x3", "ring", "65536", "link_static_joules")
    rows[i][j] = str(float(rows[i][j]) * 2)
    assert any("energy_joules" in e for e in _errors(rows))


@pytest.mark.parametrize(
    ("column", "value", "text"),
    [
        ("flits", "12.5", "flits"),
        ("speedup_vs_tacos", "-1", "speedup_vs_tacos"),
        ("collective", "broadcast", "TACOS has no baseline"),
    ],
)
def test_row_fields(rows, column, value, text):
    i, j = _cell(rows, "smbi:3x3", "ring", "65536", column)
    rows[i][j] = value
    assert any(text in e for e in _errors(rows))


def test_a_sweep_without_comparison_columns_is_read(rows):
    cut = [r[: len(COLUMNS)] for r in rows]
    assert _errors(cut) == []
