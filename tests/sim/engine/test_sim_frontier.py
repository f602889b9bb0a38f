"""The engine's frontier path (wide groups, layer by layer) against the event oracle.

A throughput packing at one chunk per tree is one group of thousands of single-chunk blocks: the
engine solves it layer by layer of the transfer dependency graph. These tests force that path on
random programs (any counts, several groups, dependencies across groups, link costs alike or
not) and on real packings, and hold it to the event simulation transfer by transfer, including
the deadlocks it must report.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _programs import block_programs
from hypothesis import HealthCheck, given, settings

from supermesh.sim import (
    DeadlockError,
    PhaseBuilder,
    Program,
    get_preset,
    run_program,
    simulate_events,
)
from supermesh.sim.engine import frontier, timing
from supermesh.sim.link_costs import apply_link_costs
from supermesh.sim.packing import packing_program
from supermesh.topologies import build
from supermesh.trees.throughput.pack import pack_throughput


@pytest.fixture
def forced(monkeypatch):
    """Every group the level path does not take goes to the frontier path; returns its calls."""
    taken: list[tuple[int, int]] = []
    solve = frontier.solve_frontier

    def spy(run, lo, hi):
        done = solve(run, lo, hi)
        taken.extend([(lo, hi)] if done else [])
        return done

    monkeypatch.setattr(frontier, "FRONTIER_FROM", 0)
    monkeypatch.setattr(frontier, "FRONTIER_WIDTH", 0)
    monkeypatch.setattr(timing, "solve_periodic", lambda *_, **__: False)
    monkeypatch.setattr(timing, "solve_frontier", spy)
    return taken


def assert_same(program: Program) -> None:
    fast = run_program(program, keep_starts=True)
    slow = simulate_events(program)
    assert fast.end == pytest.approx(slow.end, abs=1e-9)
    for p, phase in enumerate(program.phases):
        assert fast.phases[p].done == pytest.approx(slow.phase_done[p], abs=1e-9)
        for b in range(phase.size):
            np.testing.assert_allclose(
                fast.phases[p].starts[b], slow.start[p][b], rtol=1e-12, atol=1e-9
            )
            assert fast.phases[p].first_start[b] == pytest.approx(slow.start[p][b][0])


def wide_programs():
    """Groups of blocks sharing arcs; dependencies on earlier blocks with at least their count,
    in the same group or an earlier one."""
    return block_programs(
        arcs=6, blocks=14, chunks=5, equal_counts=False, durations=(1.0, 2.5, 7.0, 1020.0)
    )


@given(wide_programs())
@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_frontier_path_equals_oracle(forced, program):
    forced.clear()
    assert_same(program)
    # every group the level path does not take went the frontier path
    others = 0
    for phase in program.phases:
        run = timing.PhaseRun(phase, len(program.arcs), 0.0, 0.0, False)
        edges = [0, *(np.flatnonzero(np.diff(phase.group)) + 1).tolist(), phase.size]
        others += sum(not timing.fits_levels(run, lo, hi) for lo, hi in itertools.pairwise(edges))
    assert len(forced) == others


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "allreduce"])
@pytest.mark.parametrize(("spec", "preset"), [("mesh:3x3", "paper"), ("smbi:4x4", "booksim")])
def test_one_chunk_per_tree_equals_oracle(forced, spec, preset, collective):
    G = build(spec)
    direction = "in" if collective == "reducescatter" else "out"
    packing = pack_throughput(G, direction=direction, parts=4)
    params = get_preset(preset)
    # one chunk per tree (the chunk size the simulator picks above 100 ranks)
    nbytes = G.number_of_nodes() * 4 * params.chunk_bytes
    program = apply_link_costs(G, packing_program(G, packing, collective, nbytes, params), params)
    assert max(int(ph.count.max()) for ph in program.phases) == 1
    assert_same(program)
    assert len(forced) == len(program.phases)


def test_samples_stand_for_every_transfer_once(forced):
    G = build("smbi:4x4")
    params = get_preset("booksim")
    packing = pack_throughput(G, parts=4)
    program = apply_link_costs(
        G, packing_program(G, packing, "allgather", 16 * 4 * params.chunk_bytes, params), params
    )
    tm = run_program(program)
    times, weights = tm.phases[0].samples.points()
    # one sample per single-chunk block, standing for its whole transfer
    assert len(times) == program.phases[0].size
    assert weights.sum() == pytest.approx(float(program.phases[0].duration.sum()))


def _two_blocks(deps_of_first: list[int], count: tuple[int, int] = (1, 1)) -> Program:
    idx: dict = {}
    pb = PhaseBuilder(idx)
    pb.add((0, 1, 0), count=count[0], duration=1.0, payload=1)
    pb.add((0, 1, 0), count=count[1], duration=1.0, payload=1)
    pb.set_deps(0, deps_of_first)
    return Program(list(idx), [pb.build(start=0.0)])


def test_frontier_reports_a_fifo_deadlock(forced):
    # block 0 waits for block 1, which waits behind block 0 on the same arc
    with pytest.raises(DeadlockError, match="never start"):
        run_program(_two_blocks([1]))


def test_frontier_reports_a_chunk_never_sent(forced):
    with pytest.raises(DeadlockError, match="block 0 waits for chunk 1 that block 1 never sends"):
        run_program(_two_blocks([1], count=(2, 1)))
