"""``supermesh schedule``: formats, round trips, and one-line errors that write nothing."""

from __future__ import annotations

import csv
import importlib
import importlib.util
import json

import pytest
from _msccl import check_result, execute, validate
from _schedule_trees import packing, rank_sets, side_trees

from supermesh.cli import main
from supermesh.topologies import build
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.model import Schedule
from supermesh.units import parse_size


def run(argv, capsys):
    """Run the CLI; return (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def smbi_trees(tmp_path):
    G = build("smbi:4x4")
    trees = side_trees(G, 0, 3, 15, 12)
    path = tmp_path / "trees.json"
    path.write_text(json.dumps(packing(G, [trees]).to_json()))
    return G, trees, str(path)


def test_csv_json_and_msccl_from_a_tree_file(smbi_trees, tmp_path, capsys):
    G, trees, tree_file = smbi_trees
    expect = build_schedule(G, "allreduce", packing(G, [trees]), nbytes=4 * 2**20)
    base = ["schedule", "smbi:4x4", "-c", "allreduce", "--trees", tree_file, "--size", "4MiB"]
    code, out, _ = run([*base, "-o", str(tmp_path / "t.csv")], capsys)
    assert code == 0
    assert "entries" in out
    rows = list(csv.reader((tmp_path / "t.csv").read_text().splitlines()))
    assert len(rows) == 1 + 2 * len(expect.entries)
    code, _, _ = run([*base, "-o", str(tmp_path / "t.json")], capsys)
    assert code == 0
    assert Schedule.from_json(json.loads((tmp_path / "t.json").read_text())) == expect
    code, _, _ = run([*base, "-o", str(tmp_path / "t.xml")], capsys)
    assert code == 0
    algo = validate((tmp_path / "t.xml").read_text())
    assert algo.get("nchunksperloop") == str(4 * 32)  # 4 trees, 64 steps / 2 entries per link
    check_result(algo, execute(algo))


def test_stdout_and_explicit_format(smbi_trees, capsys):
    _, _, tree_file = smbi_trees
    code, out, _ = run(
        ["schedule", "smbi:4x4", "-c", "broadcast", "--trees", tree_file, "--format", "csv"],
        capsys,
    )
    # the corner trees have four roots, so broadcast refuses them with a one-line error
    assert code == 2
    assert out == ""
    code, out, _ = run(
        ["schedule", "smbi:4x4", "-c", "allreduce", "--trees", tree_file, "--chunks", "2"],
        capsys,
    )
    assert code == 0
    assert json.loads(out)["chunks"] == 2


def test_reduce_scatter_sets_from_a_file(tmp_path, capsys):
    G = build("smbi:3x4")
    sets = rank_sets(G, 2)
    path = tmp_path / "rs.json"
    path.write_text(json.dumps(packing(G, sets, "in").to_json()))
    out_file = tmp_path / "rs.xml"
    argv = ["schedule", "smbi:3x4", "-c", "reducescatter", "--trees", str(path), "--chunks", "3"]
    code, _, _ = run([*argv, "-o", str(out_file)], capsys)
    assert code == 0
    algo = validate(out_file.read_text())
    check_result(algo, execute(algo))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-c", "allreduce", "--size", "lots"], "size 'lots'"),
        (["-c", "allreduce", "--size", "1MiB", "--chunks", "2"], "--size and --chunks"),
        (["-c", "allreduce", "-o", "OUT.txt"], "extension"),
        (["-c", "alltoall"], "alltoall"),
        (["-c", "allgather"], "one tree rooted at each"),
        (["-c", "allreduce", "--roots", "corners"], "--roots is for computed trees"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(smbi_trees, tmp_path, capsys, args, message):
    _, _, tree_file = smbi_trees
    out_file = tmp_path / "OUT.csv"
    args = [a.replace("OUT.txt", str(tmp_path / "OUT.txt")) for a in args]
    if "-o" not in args:
        args += ["-o", str(out_file)]
    code, _, err = run(["schedule", "smbi:4x4", "--trees", tree_file, *args], capsys)
    assert code == 2
    assert message in err
    assert err.startswith("error: ")
    assert len(err.strip().splitlines()) <= 2  # error + hint
    assert list(tmp_path.glob("OUT*")) == []


def test_trees_of_another_topology_and_bad_files(smbi_trees, tmp_path, capsys):
    _, _, tree_file = smbi_trees
    keep = tmp_path / "keep.csv"
    keep.write_text("precious\n")
    code, _, err = run(["schedule", "mesh:4x4", "-c", "allreduce", "--trees", tree_file,
                        "-o", str(keep)], capsys)  # fmt: skip
    assert code == 2
    assert "holds trees for smbi:4x4, not for mesh:4x4" in err  # the declared topology, as sim
    assert keep.read_text() == "precious\n"  # never clobbered on error
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(["schedule", "smbi:4x4", "-c", "allreduce", "--trees", str(bad)], capsys)
    assert code == 2
    assert "not valid JSON" in err


def test_parse_size_units():
    assert parse_size("4MiB") == 4 * 2**20
    assert parse_size("512KiB") == 512 * 1024
    assert parse_size("1MB") == 10**6
    assert parse_size("12288") == 12288


@pytest.mark.skipif(
    importlib.util.find_spec("supermesh.trees.packing.search") is None
    or not hasattr(importlib.import_module("supermesh.trees.packing.search"), "pack_trees"),
    reason="pack_trees not available yet",
)
def test_computed_trees_allreduce_and_allgather(tmp_path, capsys):
    out_file = tmp_path / "ar.json"
    code, _, _ = run(["schedule", "smbi:4x4", "-c", "allreduce", "-o", str(out_file)], capsys)
    assert code == 0
    s = Schedule.from_json(json.loads(out_file.read_text()))
    assert s.roots == ((0, 3, 15, 12),)
    xml = tmp_path / "ag.xml"
    code, _, _ = run(["schedule", "mesh:3x3", "-c", "allgather", "-o", str(xml)], capsys)
    assert code == 0
    algo = validate(xml.read_text())
    check_result(algo, execute(algo))


def test_throughput_allreduce_tables_have_no_barrier(tmp_path, capsys):
    # sim -a throughput runs its AllReduce without the global barrier; its tables say so, and
    # the checker finds them clean and deadlock-free; the pipeline's tables keep the barrier
    for algorithm, barrier in (("throughput", False), ("pipeline", True)):
        path = tmp_path / f"{algorithm}.json"
        argv = ["schedule", "mesh:3x3", "-c", "allreduce", "-a", algorithm, "-o", str(path)]
        code, _, _ = run([*argv, "-q"], capsys)
        assert code == 0
        assert json.loads(path.read_text())["barrier"] is barrier
        code, out, _ = run(["verify", str(path)], capsys)
        assert code == 0
        assert "deadlock-free" in out
