"""The hop-latency floor of an AllReduce in chunks, and the justified search it prunes.

The floor is checked by hand on mesh 4x4 and against simulated runs of every chunk size tried
(no run in chunks of at most ``c`` bytes beats it); the search is checked to skip exactly the
chunks whose floor loses to a try already made, and to keep the same answer.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.sim import get_preset, run_algorithm, run_program
from supermesh.sim.justified_choice import chunked_floor, justified_tries
from supermesh.sim.link_costs import apply_link_costs
from supermesh.sim.packing import packing_program
from supermesh.sim.throughput_run import undirected_choice
from supermesh.topologies import build
from supermesh.trees.schedule.collective import throughput_packing


def test_mesh_4x4_floor_by_hand():
    # 16 ranks: 30 transfers of every element over 48 links; 64 MiB in 32 KiB chunks, paper
    # preset: 2,048 chunks, each 30 times 1,310.72 + 20 ns
    paper = get_preset("paper")
    floor = chunked_floor(build("mesh:4x4"), 64 << 20, paper, 32 << 10)
    assert floor == pytest.approx(30 * 2048 * (32768 / 25 + 20) / 48)


def test_no_floor_where_it_does_not_hold():
    paper = get_preset("paper")
    assert chunked_floor(build("cmesh:4x4"), 1 << 20, paper, 4096) == 0  # routers
    assert chunked_floor(build("folded-torus:4x4"), 1 << 20, paper, 4096) == 0  # long wires


@settings(max_examples=12, deadline=None)
@given(
    spec=st.sampled_from(["mesh:3x3", "mesh:4x4", "smbi:4x4"]),
    packets=st.integers(1, 64),
    preset=st.sampled_from(["paper", "booksim"]),
)
def test_no_run_beats_the_floor(spec, packets, preset):
    G = build(spec)
    params = get_preset(preset)
    chunk = packets * params.packet_bytes
    q = dataclasses.replace(params, chunk_bytes=chunk)
    nbytes = 4 << 20
    for packing in (undirected_choice(G).packing, throughput_packing(G, "out")):
        prog = packing_program(G, packing, "allreduce", nbytes, q, order="justified", barrier=False)
        end = run_program(apply_link_costs(G, prog, q)).end
        assert end >= chunked_floor(G, nbytes, params, chunk)


def test_the_search_skips_chunks_whose_floor_loses():
    # a fake run of chunk c: 1000 + c + 5e8 / c, never below its floor 5e8 / c (its hops)
    p = throughput_packing(build("mesh:4x4"), "out")
    paper = get_preset("paper")
    seen: list[int] = []

    def time(c):
        return 1000.0 + c + 5e8 / c

    def attempt(packing, c, *rest):
        seen.append(c)
        return time(c)

    justified_tries(attempt, [(p, 4096, 1e9)], 4 << 20, paper, ramps=False)
    unpruned = list(seen)
    seen.clear()
    justified_tries(attempt, [(p, 4096, 1e9)], 4 << 20, paper, ramps=False, floor=lambda c: 5e8 / c)
    # each try's floor was below every try before it
    for i, c in enumerate(seen[1:], start=1):
        assert 5e8 / c < min(time(x) for x in seen[:i])
    assert min(seen, key=time) == min(unpruned, key=time)  # the same fastest try
    assert 8192 in unpruned
    assert 8192 not in seen  # its floor, 61,035, loses to 32 KiB's 49,026


def test_pruning_keeps_the_answer():
    # mesh 4x4 AllReduce, 8 MiB, paper: the kept run is the same with the floor and without
    import supermesh.sim.chunk_choice as cc

    G = build("mesh:4x4")
    paper = get_preset("paper")
    pruned = run_algorithm(G, "throughput", "allreduce", 8 << 20, paper)
    original = cc.chunked_floor
    cc.chunked_floor = lambda *a: 0.0
    try:
        plain = run_algorithm(G, "throughput", "allreduce", 8 << 20, paper)
    finally:
        cc.chunked_floor = original
    assert pruned.time == plain.time
    assert len(pruned.meta["tried"]) <= len(plain.meta["tried"])
