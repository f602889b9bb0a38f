"""Baselines, root grouping, presets and the result record, checked by hand counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.sim import (
    baseline_program,
    get_preset,
    multitree_trees,
    route,
    run_program,
    simulate_baseline,
)
from supermesh.sim.baselines.routes import grid_cycle, grid_cycle_but_corner
from supermesh.topologies import build


def adjacent(cols: int, a: int, b: int) -> bool:
    (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
    return abs(ra - rb) + abs(ca - cb) == 1


@given(st.integers(2, 9), st.integers(2, 9))
def test_grid_cycles(rows, cols):
    cycle = grid_cycle(rows, cols)
    if rows % 2 and cols % 2:
        assert cycle is None
        cycle = grid_cycle_but_corner(rows, cols)
        assert sorted(cycle) == list(range(rows * cols - 1))
    else:
        assert cycle is not None
        assert sorted(cycle) == list(range(rows * cols))
    assert all(adjacent(cols, a, b) for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=False))


def test_ring_allreduce_closed_form():
    """16 ranks, blocks of one chunk: 30 dependent steps, each a 1031-cycle hop plus a wait:
    the aggregation (reduce-scatter and the first all-gather step), then the link's release
    (the next block is there before the link is free again)."""
    p = get_preset()
    r = simulate_baseline(build("mesh:4x4"), "ring", "allreduce", 16 * 12288, bound=False)
    n, D = 16, p.chunk_time()
    last = p.reduce_start + (2 * n - 3) * D + (n - 1) * p.reduce_delay
    last += (n - 2) * max(p.forward_delay, p.link_release) + D
    assert r.time == pytest.approx(last + p.drain)


def test_bidirectional_ring_halves_the_big_transfers():
    G = build("mesh:4x4")
    one = simulate_baseline(G, "ring", "allgather", 64 << 20, bound=False).time
    two = simulate_baseline(G, "bidir-ring", "allgather", 64 << 20, bound=False).time
    assert two == pytest.approx(one / 2, rel=0.01)


def test_odd_bidirectional_ring_uses_both_corner_links():
    G = build("mesh:3x3")
    prog = baseline_program(G, "bidir-ring", "allreduce", 1 << 20, get_preset())
    used = {prog.arcs[a] for a in prog.phases[0].arc}
    assert {(8, 5, 0), (5, 8, 0), (8, 7, 0), (7, 8, 0)} <= used
    assert prog.meta["ring"] == 8  # the ring skips the corner
    assert run_program(prog).end > 0


def test_direct_sends_every_flow_over_its_route():
    G = build("mesh:3x3")
    prog = baseline_program(G, "direct", "allgather", 9 * 4096, get_preset())
    hops = sum(len(route(G, u, v)) for u in range(9) for v in range(9) if u != v)
    assert prog.transfers == hops
    assert prog.meta["flows"] == 72


@pytest.mark.parametrize("spec", ["mesh:4x4", "smbi:3x3", "smalter:4x4"])
def test_multitree_trees_span_and_share_no_arc_in_a_step(spec):
    G = build(spec)
    trees = multitree_trees(G)
    by_step: dict = {}
    for root, edges in trees.items():
        reached = {root: 0}
        for u, v, k, step in sorted(edges, key=lambda e: e[3]):
            assert u in reached
            assert reached[u] < step
            assert v not in reached
            reached[v] = step
            assert G.has_edge(u, v, key=k)
            by_step.setdefault((u, v, k, step), []).append(root)
        assert sorted(reached) == sorted(G.nodes)
    assert all(len(rs) == 1 for rs in by_step.values())


def test_unknown_names():
    G = build("mesh:3x3")
    with pytest.raises(SpecError):
        baseline_program(G, "butterfly", "allreduce", 1, get_preset())
    with pytest.raises(SpecError):
        baseline_program(G, "ring", "alltoall", 1, get_preset())
    with pytest.raises(SpecError):
        get_preset("booksim2")
    with pytest.raises(SpecError):
        get_preset("booksim", nonsense=1)


def test_presets():
    b, p = get_preset("booksim"), get_preset("paper")
    assert b.serialisation(12288) == 3 * 17 * 20
    assert b.chunk_period() == 1032
    assert p.chunk_time() == pytest.approx(12288 / 25 + 20)
    assert p.link_bandwidth() == pytest.approx(25.0)
    assert get_preset("booksim", cut_through=True).cut_through


def test_result_record_and_energy():
    G = build("mesh:2x2")
    r = simulate_baseline(G, "ring", "allreduce", 4 * 4096)
    doc = r.to_json()
    # 6 steps x 4 links, one packet of 17 flits of 2048 bits each; by the paper's text, 1.75 pJ
    # per bit per hop and 4 routers leaking 0.58 W for the run
    assert doc["energy"]["flits"] == 24 * 17
    paper = r.energy_with("paper-text")
    assert paper.link_dynamic == pytest.approx(24 * 17 * 2048 * 1.75e-12)
    assert paper.router_static == pytest.approx(4 * 0.58 * r.time * 1e-9)
    busy = sum(link["busy"] for link in doc["links"])
    assert busy == pytest.approx(24 * (340 + 11))
    assert doc["algbw_bytes_per_cycle"] == pytest.approx(4 * 4096 / r.time)
    assert doc["max_link_utilization"] == pytest.approx(6 * 351 / r.time)
