"""The comparison columns of ``sweep`` and ``report``: against the mesh and against TACOS."""

from __future__ import annotations

import csv
import json


def test_sweep_json_and_csv_carry_the_speedups(run_cli, tmp_path):
    code, out, _ = run_cli(
        "sweep", "smbi:3x3", "--sizes", "256KiB", "-c", "allgather", "-a", "ring", "--json"
    )
    assert code == 0
    (row,) = json.loads(out)["rows"]
    assert row["speedup_vs_mesh"] == 1.0  # the ring walks the same cycle on both networks
    assert row["speedup_vs_tacos"] is not None
    path = tmp_path / "rows.csv"
    code, _, _ = run_cli("sweep", "smbi:3x3", "--sizes", "256KiB", "-a", "ring", "-o", str(path))
    assert code == 0
    with path.open() as fh:
        (line,) = list(csv.DictReader(fh))
    assert float(line["speedup_vs_tacos"]) > 0


def test_sweep_table_and_no_compare(run_cli):
    code, out, _ = run_cli("sweep", "mesh:3x3", "--sizes", "256KiB", "-a", "direct")
    assert code == 0
    assert "vs TACOS" in out
    code, out, _ = run_cli("sweep", "mesh:3x3", "--sizes", "256KiB", "--no-compare", "--json")
    assert code == 0
    assert "speedup_vs_tacos" not in json.loads(out)["rows"][0]


def test_report_shows_speedup_against_tacos(run_cli):
    code, out, _ = run_cli("report", "smbi:3x3", "mesh:3x3", "--no-design", "--size", "256KiB")
    assert code == 0
    assert "vs TACOS" in out
    code, out, _ = run_cli(
        "report", "smbi:3x3", "mesh:3x3", "--no-design", "--size", "256KiB", "--json"
    )
    doc = json.loads(out)
    vs = doc["speedups_vs_tacos"]["smbi:3x3"]
    times = doc["topologies"][0]["sim"]
    for c in ("allreduce", "reducescatter", "allgather"):
        assert vs[c] == round(times["tacos"][c]["cycles"] / times[c]["cycles"], 4)
