"""Throughput runs choose their chunk size by simulating candidates; the default for RS / AG.

Independent facts: the 4x4 mesh's AllGather cut bound is 2n / (n - 1) = 32/15 links (the XY / YX
count of the issue: an arc into a corner carries 15 trees of half a share), a booksim link moves
4096 B per 17 flits of 20 cycles, and a bidirectional ring over the mesh's Hamiltonian cycle
reaches that bound, so nothing may be slower than it by more than the hop overheads.
"""

from __future__ import annotations

import json

import pytest

from supermesh.cli import main
from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.defaults import default_algorithm
from supermesh.topologies import build

MIB = 1 << 20


def trees_only(spec: str, collective: str, nbytes: int, params):
    """A throughput run over the trees of the smallest heights, the rings and the synthesised
    schedules left out.

    The tests below check that search (chunk sizes, one-round tries, other packings); on the
    even grids the rings' run streams and skips it (tests/sim/test_sim_rings.py), and at small
    sizes TE-CCL's or TACOS's schedule may win (tests/sim/test_sim_time_expanded.py).
    """
    from supermesh.sim.run import evaluate
    from supermesh.sim.throughput_run import throughput_bound_for, throughput_program

    G = build(spec)
    program, q = throughput_program(G, collective, nbytes, params, rings=False, synthesised=False)
    bound = throughput_bound_for(G, collective)
    return evaluate(
        G, program, q, collective=collective, algorithm="throughput", nbytes=nbytes, bound=bound
    )


def test_one_chunk_per_tree_reaches_the_mesh_cut_bound():
    G = build("mesh:4x4")
    params = get_preset("booksim")
    nbytes = 512 * MIB
    bound = nbytes * 15 * 340 / (32 * 4096)  # cycles: nbytes / (32/15 links of 4096/340 B/cycle)
    r = run_algorithm(G, "throughput", "allgather", nbytes, params)
    assert r.lower_bound == pytest.approx(bound)
    assert bound <= r.time <= 1.0002 * bound
    # two trees a root, 16 MiB each: the chosen chunk carries a whole tree's share
    assert r.meta["chunk_bytes"] == nbytes // 16 // 2
    assert r.meta["chunk_bytes"] in [t["chunk_bytes"] for t in r.meta["tried"]]
    assert r.time == min(t["time"] for t in r.meta["tried"])


@pytest.mark.parametrize("collective", ["allgather", "reducescatter"])
def test_throughput_no_slower_than_the_ring_and_tacos_on_the_mesh(collective):
    G = build("mesh:4x4")
    params = get_preset("booksim")
    for nbytes in (MIB, 64 * MIB):
        ours = run_algorithm(G, "throughput", collective, nbytes, params).time
        for other in ("bidir-ring", "tacos", "pipeline"):
            assert ours <= run_algorithm(G, other, collective, nbytes, params).time


def test_default_is_throughput_for_reducescatter_and_allgather_on_grids():
    for spec in ("mesh:3x3", "smbi:4x4", "smalter:4x4"):
        G = build(spec)
        assert default_algorithm(G, collective="allgather") == "throughput"
        assert default_algorithm(G, collective="reducescatter") == "throughput"
        assert default_algorithm(G, collective="allreduce") == "pipeline"
    assert default_algorithm(build("hexamesh:r1"), collective="allgather") == "pipeline"


def test_cli_json_says_which_chunk_and_parts(capsys):
    main(["sim", "mesh:4x4", "-c", "allgather", "--size", "1MiB", "--json", "--no-links"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["algorithm"] == "throughput"
    assert doc["meta"]["chunk_bytes"] == doc["params"]["chunk_bytes"] == 32768
    assert doc["meta"]["trees"] == 32  # two trees (parts) per chiplet


def test_a_wafer_scale_throughput_run_is_refused_with_its_transfer_count(monkeypatch):
    from supermesh.errors import ResourceError

    # smbi:4x4: 16 roots x 4 trees x 15 arcs = 960 transfers a phase, two phases for AllReduce
    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "256KiB")
    with pytest.raises(ResourceError, match=r"64 weighted trees \(960 transfers a phase\)"):
        run_algorithm(build("smbi:4x4"), "throughput", "allgather", 1 << 20, get_preset())
    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "1MiB")  # 960 x 300 B = 281 KiB: runs
    r = run_algorithm(build("smbi:4x4"), "throughput", "allgather", 1 << 20, get_preset())
    assert r.time >= r.lower_bound


def test_balanced_chunk_by_hand():
    # mesh 4x4, booksim, 512 MiB: a chunk hop costs 11 + 1 cycles at 4096/340 B per cycle, the
    # tallest tree has 6 hops and the bound moves 512 MiB x 15/32 per busiest link, so
    # sqrt(12 x 4096/340 x 512 MiB x 15 / (32 x 6)) = 77,866 B, which is 19 packets of 4096 B
    from supermesh.sim.chunk_choice import chunk_candidates
    from supermesh.trees.throughput.pack import pack_throughput

    p = pack_throughput(build("mesh:4x4"))
    assert max(t.height for t in p.trees) == 6
    assert chunk_candidates(p, 512 * MIB, get_preset("booksim")) == [
        16 * MIB,
        8 * MIB,
        19 * 4096,
        12288,
    ]
    # at 1 MiB the balance lies below the preset's chunk: not offered
    assert chunk_candidates(p, MIB, get_preset("booksim")) == [32768, 16384, 12288]


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
def test_smalter_4x4_streams_at_the_bound_with_twice_the_parts(collective):
    # the fewest parts (4 per chiplet), in rounds of one chunk of every tree, run no closer
    # than 1.007 of the bound at any chunk size (paper preset, 512 MiB); 8 parts with one chunk
    # per tree stream: within 0.2% (issue 17). (The fewest parts' ReduceScatter as one round of
    # 2 chunks a tree also reaches 1.0003: the one-round tries are not held to the 1.007; an
    # AllReduce, without the barrier and in chunks that cut its shares exactly, 1.0059, and in
    # one justified order 1.00024.)
    r = trees_only("smalter:4x4", collective, 512 * MIB, get_preset("paper"))
    rounds = [t for t in r.meta["tried"] if not t.get("one_round") and "order" not in t]
    fewest = [t for t in rounds if t["trees"] == 64]
    assert fewest
    apart = 1.005 if collective == "allreduce" else 1.007
    assert min(t["time"] for t in fewest) > apart * r.lower_bound
    assert r.lower_bound <= r.time <= 1.002 * r.lower_bound
    if collective == "allreduce":  # streams already: twice the parts are not tried
        justified = [t for t in r.meta["tried"] if t.get("order") == "justified"]
        assert min(t["time"] for t in justified if t["trees"] == 64) <= 1.0003 * r.lower_bound
    else:
        assert min(t["time"] for t in rounds if t["trees"] == 128) <= 1.002 * r.lower_bound


@pytest.mark.parametrize("preset", ["booksim", "paper"])
def test_smalter_5x5_allgather_runs_on_the_reducescatter_trees_reversed(preset):
    # the out-tree packing's list schedule runs 1.013 (booksim) / 1.023 (paper) of the bound at
    # 512 MiB; the in-tree packing reversed, with the ReduceScatter's schedule mirrored, streams.
    # The bound by hand: SMAlter 5x5's corner is entered by 3 links... the cut bound is 25/8
    # links (a corner of 3 links in, 24 shards to get: 3 x 25 / 24), so 512 MiB takes
    # 512 MiB x 8/25 / (4096/340) cycles
    from supermesh.trees.bounds.throughput import throughput_bound

    G = build("smalter:5x5")
    assert str(throughput_bound(G, "allgather").value) == "25/8"
    params = get_preset(preset)
    r = run_algorithm(G, "throughput", "allgather", 512 * MIB, params)
    assert r.lower_bound == pytest.approx(512 * MIB * 8 / 25 / params.link_bandwidth())
    assert r.lower_bound <= r.time <= 1.002 * r.lower_bound
    best = min(r.meta["tried"], key=lambda t: t["time"])
    assert "in-tree packing" in best["rule"]
    assert all(t["time"] > 1.01 * r.lower_bound for t in r.meta["tried"][:4])  # the out-trees


def test_a_run_that_streams_tries_no_other_part_count():
    r = trees_only("mesh:4x4", "allgather", 512 * MIB, get_preset())
    assert {t["trees"] for t in r.meta["tried"]} == {32}


def test_reversed_packings_pass_the_checker():
    # what other_packings hands the simulator is a packing of the run's own direction that the
    # independent checker (supermesh.verify) accepts: spanning trees, loads within the links
    from supermesh.sim.chunk_choice import tuned_program
    from supermesh.sim.packing_choice import other_packings
    from supermesh.trees.throughput.pack import pack_throughput
    from supermesh.verify.trees.packing import check_packing

    G, params = build("smalter:5x5"), get_preset("paper")
    p = pack_throughput(G, parts="auto")
    program, _ = tuned_program(G, [p], "allgather", 512 * MIB, params)
    others = other_packings(G, p, program, "allgather", params, {})
    assert [q.direction for q in others] == ["out"] * len(others)
    assert any("reversed" in q.stats["rule"] for q in others)
    for q in others:
        errors = [f for f in check_packing(G, q) if f.severity == "error"]
        assert errors == []


def test_a_run_short_of_the_bound_only_by_its_fill_tries_no_other_packing():
    # SMBi 4x4, 4 MiB (supermesh report's size): 1.0024 of the bound, above STREAMING, but the
    # excess is less than one chunk's transfer plus the tallest tree's 6 hops: the fill, which
    # another packing cannot remove. SMAlter 4x4 at the same size is short by its FIFO orders
    # (1.026 at best, as one round of 2 chunks a tree) and twice the parts bring it to 1.005
    params = get_preset("booksim")
    hop = params.hop_latency + params.link_release
    r = trees_only("smbi:4x4", "allgather", 4 * MIB, params)
    assert {t["trees"] for t in r.meta["tried"]} == {64}
    assert r.time > 1.002 * r.lower_bound
    assert r.time - r.lower_bound <= r.meta["chunk_bytes"] / params.link_bandwidth() + 6 * hop
    s = trees_only("smalter:4x4", "allgather", 4 * MIB, params)
    first = min(t["time"] for t in s.meta["tried"] if t["trees"] == 64)
    assert first > 1.02 * s.lower_bound
    assert s.time < 1.006 * s.lower_bound


def test_smbi_8x8_allgather_runs_its_chunks_as_one_round_at_the_bound():
    # each chiplet's 8 MiB goes down 4 trees of 2 MiB, and the busiest links carry 63 of the
    # 256 trees: the bound is 63 transfers of 2 MiB. One chunk a tree takes one slot more (64
    # transfers' time, 1.016 of it); chunks of a tree list-scheduled as one round lose that
    # slot over hundreds and stay within the 0.2%
    params = get_preset("paper")
    r = trees_only("smbi:8x8", "allgather", 512 * MIB, params)
    one_chunk = next(t["time"] for t in r.meta["tried"] if t["chunk_bytes"] == 2 * MIB)
    assert one_chunk == pytest.approx(64 * (2 * MIB / params.link_bandwidth() + 20.0))
    assert r.lower_bound == pytest.approx(63 * 2 * MIB / params.link_bandwidth())
    assert r.meta["one_round"] is True
    assert r.time <= 1.002 * r.lower_bound


def test_smbi_8x8_reducescatter_runs_the_allgather_trees_reversed_at_the_bound():
    # the ReduceScatter's own in-trees list-schedule to 1.0084 of the bound; the AllGather's
    # out-trees reversed arc by arc are its schedule mirrored in time, and reach what the
    # AllGather reaches (the test above)
    params = get_preset("paper")
    r = trees_only("smbi:8x8", "reducescatter", 512 * MIB, params)
    assert r.lower_bound == pytest.approx(63 * 2 * MIB / params.link_bandwidth())
    own = min(t["time"] for t in r.meta["tried"] if "reversed" not in t["rule"])
    assert own > 1.005 * r.lower_bound
    assert r.time <= 1.002 * r.lower_bound
    assert r.time == min(t["time"] for t in r.meta["tried"] if "reversed" in t["rule"])


def test_one_round_tries_go_on_while_each_beats_the_one_before_it():
    # SMBi 8x8 ReduceScatter 512 MiB, booksim, on the AllGather's trees reversed: rounds of
    # 36 KiB chunks run best of the pipelined tries; one round of 2 chunks a tree is a hair
    # slower than that but faster than one chunk a tree, and more chunks a tree reach
    # the bound. Held to the best, the tries stopped at 2 chunks (1.0074 of the bound)
    params = get_preset("booksim")
    r = trees_only("smbi:8x8", "reducescatter", 512 * MIB, params)
    assert r.lower_bound == pytest.approx(63 * 2 * MIB / params.link_bandwidth())
    assert r.time <= 1.001 * r.lower_bound
    assert r.meta["one_round"] is True
    mine = [t for t in r.meta["tried"] if "reversed" in t["rule"]]
    pipelined = min(t["time"] for t in mine if not t.get("one_round"))
    by_chunks = {2 * MIB // t["chunk_bytes"]: t["time"] for t in mine if t.get("one_round")}
    one_chunk = next(t["time"] for t in mine if t["chunk_bytes"] == 2 * MIB)
    assert pipelined < by_chunks[2] < one_chunk
    assert max(by_chunks) >= 4
    assert r.time == min(by_chunks.values())


def test_on_few_ranks_a_one_round_run_within_streaming_still_tries_other_packings():
    # SMAlter 4x4 ReduceScatter 64 MiB, paper: one round of 4 chunks a tree on the fewest
    # parts runs within 0.2% of the bound, its rounds do not; twice the parts run closer still
    params = get_preset("paper")
    r = trees_only("smalter:4x4", "reducescatter", 64 * MIB, params)
    first = [t for t in r.meta["tried"] if t["rule"] == "throughput, parts auto"]
    assert min(t["time"] for t in first) <= 1.002 * r.lower_bound
    assert min(t["time"] for t in first if not t.get("one_round")) > 1.002 * r.lower_bound
    assert r.time < min(t["time"] for t in first)
    assert r.time <= 1.001 * r.lower_bound
