"""Costs estimated before the work: baseline programs, prove's size lists, MSCCL steps.

Each estimate is held to the thing it estimates (the blocks of the program once built, the
steps the exporter would have written), and each refusal to its figure.
"""

from __future__ import annotations

import pytest

from supermesh.errors import ResourceError, SpecError
from supermesh.export.msccl import MscclLimits, msccl_program
from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.baselines.dispatch import baseline_program
from supermesh.sim.cost import baseline_blocks, check_baseline
from supermesh.topologies import build
from supermesh.trees.prove.family import MAX_SIDE, MAX_SIZES, parse_sizes
from supermesh.trees.schedule import build_schedule, collective_trees

BOOKSIM = get_preset("booksim")


@pytest.mark.parametrize(
    ("spec", "algorithm", "collective"),
    [
        ("mesh:4x4", "ring", "allreduce"),
        ("mesh:4x4", "bidir-ring", "allgather"),
        ("smbi:4x4", "multitree", "allgather"),
    ],
)
def test_baseline_estimate_is_the_block_count(spec: str, algorithm: str, collective: str) -> None:
    G = build(spec)
    program = baseline_program(G, algorithm, collective, 1 << 20, BOOKSIM)
    assert baseline_blocks(G, algorithm, collective) == sum(p.size for p in program.phases)


def test_direct_estimate_is_within_a_tenth() -> None:
    G = build("mesh:6x6")  # mean distance from 8 sampled sources, not all 36
    program = baseline_program(G, "direct", "allgather", 1 << 20, BOOKSIM)
    built = sum(p.size for p in program.phases)
    assert baseline_blocks(G, "direct", "allgather") == pytest.approx(built, rel=0.1)


def test_a_wafer_ring_is_refused_with_its_block_count() -> None:
    # 2 (n - 1) n blocks for n = 65,536: 8,589,803,520, by hand
    with pytest.raises(ResourceError, match="8,589,803,520 transfer blocks"):
        check_baseline(build("mesh:256x256"), "ring", "allreduce")
    with pytest.raises(ResourceError, match="GiB of memory"):
        run_algorithm(build("smbi:64x64"), "direct", "allgather", 64 << 20, BOOKSIM)


def test_alltoall_defaults_to_direct() -> None:
    r = run_algorithm(build("mesh:3x3"), None, "alltoall", 1 << 20, BOOKSIM)
    assert r.algorithm == "direct"


def test_prove_refuses_a_huge_size_list_before_building_it() -> None:
    with pytest.raises(ResourceError, match="99,999,999 sizes"):
        parse_sizes("2..100000000")
    with pytest.raises(ResourceError, match="above the largest grid"):
        parse_sizes(f"4,{MAX_SIDE + 1}")
    assert len(parse_sizes(f"2..{MAX_SIDE}")) == MAX_SIDE - 1 < MAX_SIZES


def test_msccl_refuses_before_building_steps() -> None:
    G = build("smbi:4x4")
    sched = build_schedule(G, "allreduce", collective_trees(G, "allreduce"), chunks=100_000)
    # the CLI's --max-steps 1000000000: one loop holds every chunk, 16 x 100,000 steps on a rank
    with pytest.raises(SpecError, match=r"at least [0-9,]+ steps make the XML larger"):
        msccl_program(sched, limits=MscclLimits(max_steps=10**9))
