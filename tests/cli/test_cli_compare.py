"""The comparison columns of ``sweep`` and ``report``: against the mesh and against TACOS."""

from __future__ import annotations

import csv
import json

from supermesh.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_json_and_csv_carry_the_speedups(capsys, tmp_path):
    code, out, _ = run(
        capsys, "sweep", "smbi:3x3", "--sizes", "256KiB", "-c", "allgather", "-a", "ring", "--json"
    )
    assert code == 0
    (row,) = json.loads(out)["rows"]
    assert row["speedup_vs_mesh"] == 1.0  # the ring walks the same cycle on both networks
    assert row["speedup_vs_tacos"] is not None
    path = tmp_path / "rows.csv"
    code, _, _ = run(
        capsys, "sweep", "smbi:3x3", "--sizes", "256KiB", "-a", "ring", "--csv", str(path)
    )
    assert code == 0
    with path.open() as fh:
        (line,) = list(csv.DictReader(fh))
    assert float(line["speedup_vs_tacos"]) > 0


def test_sweep_table_and_no_compare(capsys):
    code, out, _ = run(capsys, "sweep", "mesh:3x3", "--sizes", "256KiB", "-a", "direct")
    assert code == 0
    assert "vs TACOS" in out
    code, out, _ = run(capsys, "sweep", "mesh:3x3", "--sizes", "256KiB", "--no-compare", "--json")
    assert code == 0
    assert "speedup_vs_tacos" not in json.loads(out)["rows"][0]


def test_report_shows_speedup_against_tacos(capsys):
    code, out, _ = run(capsys, "report", "smbi:3x3", "mesh:3x3", "--no-design", "--size", "256KiB")
    assert code == 0
    assert "vs TACOS" in out
    code, out, _ = run(
        capsys, "report", "smbi:3x3", "mesh:3x3", "--no-design", "--size", "256KiB", "--json"
    )
    doc = json.loads(out)
    vs = doc["speedups_vs_tacos"]["smbi:3x3"]
    times = doc["topologies"][0]["sim"]
    for c in ("allreduce", "reducescatter", "allgather"):
        assert vs[c] == round(times["tacos"][c]["cycles"] / times[c]["cycles"], 4)
