"""TE-CCL and AllToAll in the simulator: replays against the oracle, bounds as floors, the CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from supermesh.errors import SpecError
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.bounds import collective_bound
from supermesh.sim.multicommodity import alltoall_bound, concurrent_flow_ratio
from supermesh.sim.oracle import simulate_events
from supermesh.sim.presets import get_preset
from supermesh.sim.teccl import teccl_program
from supermesh.sim.teccl.collective import teccl_solutions
from supermesh.sim.teccl.replay import phase_sends
from supermesh.topologies import build, compute_nodes

PARAMS = get_preset("booksim")


@pytest.mark.parametrize(
    ("spec", "collective"),
    [
        ("mesh:3x3", "allgather"),
        ("smbi:3x3", "reducescatter"),
        ("smalter:4x4", "allreduce"),
        ("mesh:3x3", "alltoall"),
        ("smbi:3x3", "alltoall"),
    ],
)
def test_replay_is_causal_and_matches_the_oracle(spec, collective):
    G = build(spec)
    prog = teccl_program(G, collective, 256 << 10, PARAMS, time_limit=10)
    from supermesh.sim.engine.timing import run_program

    fast = run_program(prog)
    events = simulate_events(prog)
    assert fast.end == pytest.approx(events.end, rel=1e-12)
    # causality, read off the event times: no transfer starts before what it waits for arrived
    for p, phase in enumerate(prog.phases):
        for b in range(phase.size):
            for d in phase.deps[b]:
                assert (events.start[p][b] >= events.finish[p][d] + phase.delay[b] - 1e-9).all()


@pytest.mark.parametrize("collective", ["allgather", "reducescatter", "alltoall"])
@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:3x3", "smalter:3x3", "smbi:4x4"])
def test_the_bound_is_a_floor(spec, collective):
    r = run_algorithm(build(spec), "teccl", collective, 4 << 20, PARAMS, time_limit=5)
    assert r.lower_bound is not None
    assert r.time >= r.lower_bound


def test_reduce_scatter_runs_the_gather_backwards():
    G = build("smbi:3x3")
    sols = teccl_solutions(G, "reducescatter", 1 << 20, PARAMS.chunk_bytes, time_limit=10)
    rs = sols["rs"]
    last = rs.epochs - 1
    mirrored = {(last - s.epoch, s.chunk, (s.arc[1], s.arc[0], s.arc[2])) for s in rs.sends}
    assert {(t, s.chunk, s.arc) for t, s, _ in phase_sends(rs, "rs")} == mirrored


def test_alltoall_bound_by_hand():
    # 3x3 mesh: the left column (3 ranks) must receive 3 x 6 blocks over 3 links: lambda 1/6;
    # SMBi doubles the two perimeter links into it: 5 / 18
    for spec, lam in (("mesh:3x3", Fraction(1, 6)), ("smbi:3x3", Fraction(5, 18))):
        G = build(spec)
        b = alltoall_bound(G)
        assert b.certificate["lambda"] == pytest.approx(float(lam), rel=1e-9)
        assert b.value == pytest.approx(9 * float(lam), rel=1e-9)
        cut = set(b.certificate["cut"]["set"])
        ranks = compute_nodes(G)
        inside = len(cut & set(ranks))
        entering = sum(1 for u, v in G.edges() if v in cut and u not in cut)
        assert entering / (inside * (len(ranks) - inside)) == pytest.approx(float(lam))
        lengths = {(u, v, k): w for u, v, k, w in b.certificate["lengths"]}
        assert concurrent_flow_ratio(G, lengths, ranks) == pytest.approx(float(lam), rel=1e-9)
        assert collective_bound(G, "alltoall").value == pytest.approx(b.value)


def test_any_lengths_bound_the_flow():
    # weak duality: every length function gives an upper bound at least the optimum
    G = build("smalter:4x4")
    best = alltoall_bound(G).certificate["lambda"]
    rng = np.random.default_rng(0)
    for _ in range(5):
        lengths = {a: float(rng.random()) for a in G.edges(keys=True)}
        assert concurrent_flow_ratio(G, lengths, compute_nodes(G)) >= best - 1e-12


def test_alltoall_direct_takes_dimension_order_routes():
    G = build("mesh:3x3")
    r = run_algorithm(G, "direct", "alltoall", 9 * 12288, PARAMS)
    hops = sum(nx.shortest_path_length(nx.DiGraph(G), u, v) for u in G for v in G if u != v)
    assert r.meta["transfers"] == hops == 144


def test_alltoall_refuses_tree_algorithms():
    with pytest.raises(SpecError, match="no AllToAll"):
        run_algorithm(build("mesh:3x3"), "pipeline", "alltoall", 1 << 20, PARAMS)
    with pytest.raises(SpecError, match="TE-CCL is offered"):
        run_algorithm(build("mesh:3x3"), "teccl", "broadcast", 1 << 20, PARAMS)


def test_cli_sim_alltoall(run_cli):
    code, out, _ = run_cli(
        "sim", "smbi:3x3", "-c", "alltoall", "-a", "teccl", "-s", "1MiB", "--json",
        "--no-links",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["collective"] == "alltoall"
    assert doc["meta"]["teccl"]["a2a"]["status"] in ("optimal", "feasible")
    assert doc["bound"]["certificate"]["lengths"]
    assert doc["cycles"] >= doc["lower_bound"]
    code, _, err = run_cli("sim", "mesh:3x3", "-c", "alltoall", "-a", "ring")
    assert code == 2
    assert "error:" in err
    assert "Traceback" not in err
