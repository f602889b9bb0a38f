"""Throughput packings through the pipeline: registry, ``trees --throughput``, ``sim``, ``verify``.

Independent facts used: the AllGather cut bound of the 4x4 mesh is 32/15 links (a corner has 2
links in and 15 ranks' data to receive: 16 * 2 / 15) and 64/15 with the perimeter doubled
(SMBi); AllReduce run as ReduceScatter then AllGather on a symmetric topology takes both phases
in turn, 1 / (15/64 + 15/64) = 32/15 on SMBi 4x4; the diameter of a 4x4 grid is 6 hops (corner
to corner); a simulated collective never beats its cut bound.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from supermesh.errors import SpecError
from supermesh.sim import get_preset, run_algorithm
from supermesh.topologies import build
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.collective import (
    COLLECTIVE_ALGORITHMS,
    collective_trees,
    throughput_packing,
)
from supermesh.verify import check_packing

MIB = 1 << 20


# ---------------------------------------------------------------------------- registry
def test_registry_builds_throughput_trees():
    assert "throughput" in COLLECTIVE_ALGORITHMS
    G = build("smbi:4x4")
    ag = collective_trees(G, "allgather", algorithm="throughput")
    assert (ag.method, ag.direction, ag.stats["algbw_links"]) == ("colgen", "out", "64/15")
    rs = collective_trees(G, "reducescatter", algorithm="throughput")
    assert rs.direction == "in"
    assert check_packing(G, ag) == []
    assert check_packing(G, rs) == []
    again = collective_trees(G, "allgather", algorithm="throughput")
    assert again.trees == ag.trees  # deterministic
    assert again.stats["shares"] == ag.stats["shares"]


@pytest.mark.parametrize("collective", ["broadcast", "reduce"])
def test_registry_refuses_broadcast_and_reduce(collective):
    with pytest.raises(SpecError) as err:
        collective_trees(build("mesh:4x4"), collective, algorithm="throughput")
    assert err.value.hint


def test_parts_follow_the_size():
    G = build("smbi:4x4")
    memo: dict[int, TreePacking] = {}
    # 1 MiB: 16 ranks of 5.3 chunks each; 512 MiB: 2730.7 chunks per rank. With rho*/n = 4/15,
    # 4 parts per rank reach the bound with 15 trees on the busiest link; at 512 MiB that link
    # then serves 15 * ceil(2730.7 / 4) chunks, fewer than any other count allows
    big = throughput_packing(G, "out", nbytes=512 * MIB, memo=memo)
    assert big.stats["parts"]["parts"] == 4
    assert {t.share for t in big.trees} == {0.25}
    small = throughput_packing(G, "out", nbytes=MIB, memo=memo)
    assert all(
        Fraction(x) == 1 / Fraction(small.stats["parts"]["parts"]) for x in small.stats["shares"]
    )
    assert set(memo) >= {4}


# ---------------------------------------------------------------------------- trees CLI
def test_trees_throughput_human(run_cli):
    code, out, _ = run_cli("trees", "mesh:4x4", "--throughput")
    assert code == 0
    assert "cut bound      32/15" in out
    assert "rate reached   32/15 = 2.1333 links (100.00% of the bound)" in out
    assert "max height     6" in out  # the diameter
    assert "status optimal" in out
    assert "max height cap" in out  # the rate per height cap


def test_trees_throughput_json_and_file(run_cli, tmp_path):
    path = tmp_path / "rs.json"
    code, out, _ = run_cli(
        "trees",
        "smbi:4x4",
        "--throughput",
        "--collective",
        "reducescatter",
        "--parts",
        "4",
        "--json",
        "-o",
        str(path),
    )
    assert code == 0
    doc = json.loads(out)
    assert doc == json.loads(path.read_text())
    assert (doc["direction"], doc["method"], doc["stats"]["algbw_links"]) == (
        "in",
        "colgen",
        "64/15",
    )
    assert len(doc["sets"][0]["trees"]) == 16 * 4
    assert check_packing(build("smbi:4x4"), TreePacking.from_json(doc)) == []
    code, out, _ = run_cli("verify", str(path))
    assert code == 0
    assert "the shares allow 64/15" in out
    doc["stats"]["algbw_links"] = "13/3"  # a little above 64/15
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    code, out, _ = run_cli("verify", str(bad))
    assert code == 1
    assert "rate-claim-too-high" in out


def test_trees_throughput_infeasible_height(run_cli, tmp_path):
    path = tmp_path / "none.json"
    code, out, _ = run_cli(
        "trees", "mesh:4x4", "--throughput", "--max-height", "5", "-o", str(path)
    )
    assert code == 1
    assert "6 hops" in out  # corner to corner
    assert not path.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("--throughput", "--roots", "corners"),
        ("--throughput", "--parts", "0"),
        ("--throughput", "--collective", "allgather", "--direction", "in"),
        ("--parts", "2"),
    ],
)
def test_trees_throughput_bad_options(run_cli, args):
    code, _, err = run_cli("trees", "mesh:4x4", *args)
    assert code == 2
    assert "hint:" in err


def test_trees_throughput_rings_write_what_sim_runs(run_cli, tmp_path):
    # SMBi 4x4: 4 rings of 16 chiplets, 64 trees of height 15 at 64/15 links; the file runs
    # at one chunk a tree, as sim's own throughput run: 15 transfers of 512 MiB / 64 a link
    path = tmp_path / "rings.json"
    code, out, _ = run_cli(
        "trees", "smbi:4x4", "--throughput", "--method", "rings", "-o", str(path)
    )
    assert code == 0
    assert "64 out-trees, all at once (rings), 4 per rank" in out
    assert "rate reached   64/15" in out
    assert "max height     15" in out
    assert "max height cap" not in out  # no height cap to trade
    doc = json.loads(path.read_text())
    assert doc["method"] == "rings"
    code, out, _ = run_cli("verify", str(path))
    assert code == 0
    code, out, _ = run_cli(
        "sim", "smbi:4x4", "--trees", str(path), "-c", "allgather", "--size", "512MiB",
        "--preset", "paper", "--json", "--no-links",
    )  # fmt: skip
    assert code == 0
    run = json.loads(out)
    assert run["meta"]["chunk_bytes"] == 8 * MIB
    assert run["seconds"] == pytest.approx(15 * (8 * MIB / 25 + 20) * 1e-9, rel=1e-12)


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("smbi:5x5", "--throughput", "--method", "rings"), 1, "no rings at the cut bound"),
        (("smbi:4x4", "--method", "rings"), 2, "add --throughput"),
        (("smbi:4x4", "--throughput", "--method", "rings", "--parts", "4"), 2, "--parts"),
    ],
)
def test_trees_rings_refused_where_they_do_not_apply(run_cli, tmp_path, args, code, words):
    path = tmp_path / "none.json"
    got, _, err = run_cli("trees", *args, "-o", str(path))
    assert got == code
    assert words in err
    assert "hint:" in err
    assert not path.exists()


# ---------------------------------------------------------------------------- sim
def test_sim_throughput_allreduce_refuses_one_way_arcs(run_cli):
    # its ReduceScatter runs the AllGather trees backwards: SMUni's arcs have no reverse (this
    # failed late with "the packing uses arc 0->4 key 1, which the topology does not have")
    code, out, err = run_cli("sim", "smuni:4x4", "-c", "allreduce", "-a", "throughput")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("error: a throughput AllReduce runs its ReduceScatter")
    assert "has no reverse" in lines[0]
    assert lines[1].startswith("hint: use --algorithm pipeline")
    assert "Traceback" not in err


@pytest.mark.parametrize("preset", ["booksim", "paper"])
def test_sim_allgather_throughput(run_cli, preset):
    code, out, _ = run_cli(
        "sim",
        "mesh:4x4",
        "-c",
        "allgather",
        "-a",
        "throughput",
        "--size",
        "16MiB",
        "--preset",
        preset,
        "--json",
        "--no-links",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["algorithm"] == "throughput"
    assert doc["bound"]["certificate"]["algbw_links"] == "32/15"
    assert doc["bound"]["algbw_links"] == pytest.approx(32 / 15)
    assert 1.0 <= doc["ratio_to_bound"] < 1.1


def test_sim_bounds_per_algorithm():
    G = build("smbi:4x4")
    params = get_preset("booksim")
    cache: dict = {}
    ar = run_algorithm(G, "throughput", "allreduce", 4 * MIB, params, cache=cache)
    assert ar.bound is not None
    # 36 links (72 arcs) over the 2 x 15 transfers an element needs: 12/5, below the 4 links
    # between any two ranks; the same bound for every algorithm
    assert ar.bound.value == pytest.approx(12 / 5)
    assert ar.time >= ar.lower_bound
    pipe = run_algorithm(G, "pipeline", "allreduce", 4 * MIB, params, cache=cache)
    assert pipe.bound is not None
    assert pipe.bound.value == pytest.approx(12 / 5)
    rs = run_algorithm(G, "throughput", "reducescatter", 4 * MIB, params, cache=cache)
    assert rs.bound is not None
    assert rs.bound.value == pytest.approx(64 / 15)
    assert rs.time >= rs.lower_bound
    assert ("throughput", "smbi:4x4", "in") in cache  # packings cached per direction


def test_sim_tree_file(run_cli, tmp_path):
    path = tmp_path / "ag.json"
    code, _, _ = run_cli("trees", "smbi:4x4", "--throughput", "--parts", "4", "-o", str(path))
    assert code == 0
    code, out, _ = run_cli(
        "sim", "smbi:4x4", "-c", "allgather", "--trees", str(path), "--json", "--no-links"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["algorithm"] == "throughput"  # a weighted file runs all its trees at once
    assert doc["ratio_to_bound"] >= 1.0
    code, _, err = run_cli("sim", "smbi:4x4", "-a", "pipeline", "--trees", str(path))
    assert code == 2
    assert "--algorithm throughput" in err
    code, _, err = run_cli("sim", "smbi:4x4", "-c", "broadcast", "-a", "throughput")
    assert code == 2


def test_report_row():
    from supermesh.report import build_report

    doc = build_report(["smbi:4x4"], simulate=False, design=False)
    row = doc["topologies"][0]["trees"]["allgather_throughput"]
    assert (row["bound"], row["rate"], row["max_height"]) == ("64/15", "64/15", 6)


def test_a_tree_file_above_the_memory_cap_is_refused_and_nothing_written(
    run_cli, tmp_path, monkeypatch
):
    # smbi:4x4 --throughput: 16 ranks x 4 trees of 15 arcs = 960 arcs, about 100 KiB as JSON
    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "64KiB")
    out_file = tmp_path / "t.json"
    code, out, err = run_cli("trees", "smbi:4x4", "--throughput", "-o", str(out_file))
    assert code == 2
    assert "64 trees (960 arcs)" in err
    assert "hint:" in err
    assert not out_file.exists()
    code, out, _ = run_cli("trees", "smbi:4x4", "--throughput")  # printed only: no document
    assert code == 0
    assert "64" in out


def test_sim_names_the_schedule_it_kept(run_cli):
    # mesh 3x3 AllGather 1 MiB: a corner takes 8 shares over its 2 links, so one chunk a rank
    # needs 4 epochs at the least; the list schedule meets that, and its run is kept
    code, out, _ = run_cli(
        "sim", "mesh:3x3", "-c", "allgather", "--size", "1MiB", "--preset", "paper"
    )
    assert code == 0
    row = out[out.index("schedule kept") :]
    assert "tried)" in row.splitlines()[0]
    assert "epochs, TE-CCL model" in row
    assert "116,509 B chunks" in row  # 1 MiB / 9 ranks, one chunk each


@pytest.mark.parametrize(
    ("spec", "kept", "below"),
    [
        # trees packed on the raw bandwidth ran at 1.276 of the bound
        ("kite-small:4x4", "", 1.02),
        # the in-trees of the held rates run at 1.316, their out-trees reversed at 1.213
        ("folded-torus:4x4", ", the out-trees reversed", 1.25),
    ],
)
def test_sim_throughput_packs_held_long_wires_on_their_rates(run_cli, spec, kept, below):
    # booksim holds a wire of length l for l flit times: the bound counts b / l, and so do the
    # trees a throughput run packs there
    from supermesh.sim.packing_choice import HELD_RULE

    code, out, _ = run_cli(
        "sim", spec, "-c", "reducescatter", "-a", "throughput", "--size", "64MiB",
        "--preset", "booksim", "--json", "--no-links",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    fastest = min((t for t in doc["meta"]["tried"] if "time" in t), key=lambda t: t["time"])
    assert fastest["rule"] == HELD_RULE + kept
    assert 1.0 <= doc["ratio_to_bound"] < below
