"""TE-CCL's solver against hand-counted finish times, brute force, and an independent checker."""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest

from supermesh.sim.teccl import Send, TecclSolution, solve_teccl
from supermesh.sim.teccl.gather import gather_milp
from supermesh.sim.teccl.network import network_of
from supermesh.topologies import build, compute_nodes


def check_solution(G, sol: TecclSolution) -> None:
    """An independent check of a loop body: capacity, causality, delivery (no solver code)."""
    arcs = set(G.edges(keys=True))
    if sol.reversed:
        arcs = {(v, u, k) for u, v, k in arcs}
    ranks = compute_nodes(G)
    n, k = len(ranks), sol.chunks
    load: dict = defaultdict(int)
    have: dict = {}  # (chunk, node) -> epoch from which it is held
    if sol.problem == "allgather":
        for c in range(n * k):
            have[(c, ranks[c // k])] = 0
    else:
        for r in range(n):
            for q in range(n):
                if r != q:
                    for j in range(k):
                        have[((r * n + q) * k + j, ranks[r])] = 0
    for s in sorted(sol.sends):
        assert s.arc in arcs, f"{s} is not on an arc"
        load[(s.arc, s.epoch)] += 1
        u, v, _ = s.arc
        assert have.get((s.chunk, u), 10**9) <= s.epoch, f"{s}: {u} does not hold the chunk yet"
        assert (s.chunk, v) not in have, f"{s}: {v} receives the chunk a second time"
        have[(s.chunk, v)] = s.epoch + 1
        if sol.problem == "alltoall":
            del have[(s.chunk, u)]  # point to point: the chunk moves on
    assert max(load.values()) <= 1, "an arc carries two chunks in one epoch"
    last = max(s.epoch for s in sol.sends) + 1
    assert last == sol.epochs
    if sol.problem == "allgather":
        for c in range(n * k):
            assert all((c, r) in have for r in ranks), f"chunk {c} misses a rank"
    else:
        for r in range(n):
            for q in range(n):
                for j in range(k) if r != q else ():
                    assert ((r * n + q) * k + j, ranks[q]) in have, f"block {r}->{q} lost"


# finish times counted by hand (epochs of one chunk over one link)
HAND = [
    # 2x2 mesh AllGather: the diagonal chunk needs 2 hops; 3 chunks over 2 links in: 2 epochs
    ("mesh:2x2", "allgather", 1, 2),
    # 2 chunks each: 6 to receive over 2 links in: 3 epochs
    ("mesh:2x2", "allgather", 2, 3),
    # AllToAll: 8 one-hop and 4 two-hop blocks = 16 hops on 8 arcs: 2 epochs (4 with 2 chunks)
    ("mesh:2x2", "alltoall", 1, 2),
    ("mesh:2x2", "alltoall", 2, 4),
    # 3x3 mesh AllGather: corner to corner is 4 hops
    ("mesh:3x3", "allgather", 1, 4),
    # 2 chunks: a corner receives 16 over 2 links in: 8 epochs
    ("mesh:3x3", "allgather", 2, 8),
    # 3x3 mesh AllToAll: the left column sends 18 blocks over 3 links: 6 epochs
    ("mesh:3x3", "alltoall", 1, 6),
    # SMBi 3x3: corner to corner still 4 hops; the left column's cut has 5 arcs: ceil(18/5) = 4
    ("smbi:3x3", "alltoall", 1, 4),
]


@pytest.mark.parametrize(("spec", "problem", "chunks", "epochs"), HAND)
def test_hand_counted_finish_times(spec, problem, chunks, epochs):
    G = build(spec)
    sol = solve_teccl(G, problem, chunks, time_limit=60)
    check_solution(G, sol)
    assert (sol.epochs, sol.lower_bound, sol.status) == (epochs, epochs, "optimal")


def brute_force_gather(net, chunks: int) -> int:
    """Smallest AllGather finish time by breadth-first search over the holdings.

    Sending a useful chunk on an idle arc never delays anything (copies are free), so every
    epoch uses each arc whenever it has a candidate: the search branches over which one.
    """
    n = net.size
    pos = [net.index[r] for r in net.ranks]
    start = frozenset((c, pos[c // chunks]) for c in range(n * chunks))
    goal = {(c, p) for c in range(n * chunks) for p in pos}
    ends = [(net.index[a[0]], net.index[a[1]]) for a in net.arcs]
    level, t = {start}, 0
    while True:
        if any(goal <= s for s in level):
            return t
        nxt = set()
        for state in level:
            options = []
            for u, v in ends:
                cand = [c for c in range(n * chunks) if (c, u) in state and (c, v) not in state]
                options.append([(c, v) for c in cand] or [None])
            for pick in itertools.product(*options):
                nxt.add(state | {p for p in pick if p is not None})
        level, t = nxt, t + 1


@pytest.mark.parametrize(("spec", "chunks"), [("mesh:2x2", 1), ("mesh:2x2", 2), ("smbi:2x2", 1)])
def test_milp_optimum_equals_brute_force(spec, chunks):
    net = network_of(build(spec))
    best = brute_force_gather(net, chunks)
    # the integer model proves the horizon before the optimum infeasible and finds the optimum
    assert gather_milp(net, chunks, best - 1, work=5, seconds=30)[0].outcome == "infeasible"
    answer, sends = gather_milp(net, chunks, best, work=5, seconds=30)
    assert answer.outcome == "feasible"
    assert max(s.epoch for s in sends) + 1 == best
    assert solve_teccl(build(spec), "allgather", chunks).epochs == best


@pytest.mark.parametrize("method", ["milp", "lp-rounding", "greedy"])
@pytest.mark.parametrize(
    ("spec", "problem"),
    [("smalter:3x3", "alltoall"), ("mesh:3x3", "allgather"), ("smbi:4x4", "allgather")],
)
def test_every_method_gives_a_valid_schedule_and_a_true_bound(spec, problem, method):
    G = build(spec)
    sol = solve_teccl(G, problem, 2, time_limit=20, method=method)
    check_solution(G, sol)
    assert sol.lower_bound <= sol.epochs
    assert (sol.status == "optimal") == (sol.lower_bound == sol.epochs)


def test_reduce_scatter_is_solved_on_the_reversed_network():
    G = build("smbi:3x3")
    sol = solve_teccl(G, "allgather", 1, reverse=True)
    assert sol.reversed
    check_solution(G, sol)


def test_a_limited_solve_says_so():
    # 4x4 mesh AllToAll: the concurrent-flow bound is 16 epochs per chunk; a tiny budget cannot
    # close the gap, and the answer must not claim optimality
    G = build("mesh:4x4")
    sol = solve_teccl(G, "alltoall", 1, time_limit=1, method="milp")
    check_solution(G, sol)
    assert sol.lower_bound == 16
    assert sol.status == "feasible"
    assert sol.epochs > sol.lower_bound


def test_json_round_trip():
    sol = solve_teccl(build("mesh:2x2"), "alltoall", 2)
    again = TecclSolution.from_json(sol.to_json())
    assert again == sol
    assert again.sends[0] == Send(0, again.sends[0].chunk, again.sends[0].arc)
