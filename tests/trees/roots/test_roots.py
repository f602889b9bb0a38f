"""Root sets for ReduceScatter / AllGather (trees/roots): partitions, set sizes, heights, baseline.

Facts come from outside the code under test: every produced packing is re-checked by
:func:`supermesh.verify.check_packing` (it recounts arcs, disjointness and depths); set sizes from
BRIEF.md section 3 (mesh 2, SMBi 4, SMAlter even 4, odd SMAlter 4 only with the 4 corners, so 3)
and Edmonds' condition counted arc by arc; eccentricities from Manhattan distances on the grid;
the partition lower bound against brute force over every partition of small lists; the paper's
rule against the side of each chiplet read from its coordinates.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.counts import check_roots
from supermesh.trees.bounds.heights import working_network
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.roots.order import ORDER_WORK, pipeline_steps
from supermesh.trees.roots.paper import paper_root_sets
from supermesh.trees.roots.sets import root_sets
from supermesh.trees.roots.size import partition_lower_bound, root_set_size
from supermesh.trees.roots.symmetry import grid_symmetries, orbit_of, orbit_parents
from supermesh.verify import check_packing

_CACHE: dict[tuple[str, str, str], TreePacking] = {}


def solved(spec: str, method: str = "optimise", direction: str = "out") -> TreePacking:
    """One root_sets call per (spec, method, direction) for the whole module."""
    key = (spec, method, direction)
    if key not in _CACHE:
        _CACHE[key] = root_sets(build(spec), method=method, direction=direction, time_limit=20)
    return _CACHE[key]


def manhattan_ecc(rows: int, cols: int, v: int) -> int:
    r, c = divmod(v, cols)
    return max(r, rows - 1 - r) + max(c, cols - 1 - c)


def count_entering(G, members) -> int:
    inside = set(members)
    return sum(1 for u, v in G.edges() if v in inside and u not in inside)


def assert_valid(G, p: TreePacking) -> None:
    findings = check_packing(G, p)
    assert findings == [], [str(f) for f in findings]


def side_of(n: int, v: int) -> set[str]:
    r, c = divmod(v, n)
    sides = {"north": r == 0, "south": r == n - 1, "west": c == 0, "east": c == n - 1}
    return {s for s, on in sides.items() if on}


# ----------------------------------------------------------------------------- set size


@pytest.mark.parametrize(
    ("spec", "k"),
    [
        ("mesh:4x4", 2),
        ("mesh:5x5", 2),
        ("smbi:4x4", 4),
        ("smbi:5x5", 4),
        ("smalter:4x4", 4),
        ("smalter:6x6", 4),
        ("smalter:5x5", 3),
        ("smalter:7x7", 3),
        ("partial-smbi:4x4", 3),
    ],
)
def test_set_size_matches_theory(spec, k):
    assert root_set_size(build(spec)).k == k


@pytest.mark.parametrize("n", [5, 7])
def test_odd_smalter_four_roots_need_every_corner(n):
    """Edmonds, counted by hand: a corner has 3 in-arcs, so 4 trees need it as a root."""
    G = build(f"smalter:{n}x{n}")
    corners = [0, n - 1, n * n - 1, n * n - n]
    assert check_roots(G, corners).feasible
    for corner in corners:
        assert count_entering(G, [corner]) == 3
    others = [v for v in range(n * n) if v not in corners]
    for v in others[:: max(1, len(others) // 6)]:
        roots = [c for c in corners if c != corners[v % 4]] + [v]
        bad = check_roots(G, roots)
        assert not bad.feasible
        cert = bad.certificate
        assert cert is not None
        assert count_entering(G, cert["set"]) == cert["entering_arcs"] < cert["required"]
        assert cert["required"] == sum(r not in cert["set"] for r in roots)


def test_size_certificate_is_a_real_cut():
    G = build("smalter:5x5")
    cert = root_set_size(G).certificate
    assert cert is not None
    assert cert["kind"] == "root-sets"
    (v,) = cert["set"]
    assert count_entering(G, [v]) == cert["entering_arcs"] < cert["required"] == 4
    assert v not in cert["roots"]
    assert cert["full_sets"] >= 2


def test_given_k_too_large_is_infeasible_with_checked_certificate():
    G = build("smalter:5x5")
    p = root_sets(G, k=4)
    assert p.status == "infeasible"
    assert not p.sets
    assert_valid(G, p)  # verify re-counts the certificate's cut
    mesh = build("mesh:4x4")
    q = root_sets(mesh, k=3)
    assert q.status == "infeasible"
    assert_valid(mesh, q)


def test_bad_arguments():
    G = build("smbi:3x3")
    with pytest.raises(SpecError):
        root_sets(G, k=0)
    with pytest.raises(SpecError):
        root_sets(G, k=10)
    with pytest.raises(SpecError):
        root_sets(G, method="random")
    with pytest.raises(SpecError):
        root_sets(G, direction="sideways")
    with pytest.raises(TopologyError):
        paper_root_sets(build("hexamesh:r1"))


# ------------------------------------------------------------------------ lower bound


def brute_min_sum_of_max(values: list[int], k: int) -> int:
    """Smallest sum of set maxima over every partition into sets of k (the last smaller)."""

    def full_sets(left: tuple[int, ...]) -> int:
        if not left:
            return 0
        first, rest = left[0], left[1:]
        return min(
            max(values[i] for i in (first, *others))
            + full_sets(tuple(x for x in rest if x not in others))
            for others in itertools.combinations(rest, k - 1)
        )

    items = tuple(range(len(values)))
    small = len(values) % k
    if not small:
        return full_sets(items)
    return min(
        max(values[i] for i in group) + full_sets(tuple(x for x in items if x not in group))
        for group in itertools.combinations(items, small)
    )


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=8), st.integers(1, 4))
def test_partition_lower_bound_is_brute_force_optimum(values, k):
    ecc = dict(enumerate(values))
    assert partition_lower_bound(ecc, k) == brute_min_sum_of_max(values, k)


# --------------------------------------------------------------------- the paper's rule


def test_paper_rule_4x4_by_hand():
    # outer ring: corners, then the next chiplet clockwise on each side, ...; then the inner ring
    assert paper_root_sets(build("smbi:4x4")) == [
        [0, 3, 15, 12],
        [1, 7, 14, 8],
        [2, 11, 13, 4],
        [5, 6, 10, 9],
    ]


@pytest.mark.parametrize("n", [4, 6, 8])
def test_paper_rule_one_root_per_side_outside_in(n):
    sets = paper_root_sets(build(f"smalter:{n}x{n}"))
    assert sorted(v for s in sets for v in s) == list(range(n * n))
    depth = [min(v // n, v % n, n - 1 - v // n, n - 1 - v % n) for v in range(n * n)]
    assert [depth[s[0]] for s in sets] == sorted(depth[s[0]] for s in sets)  # outside in
    for s in sets:
        assert len(s) == 4
        assert len({depth[v] for v in s}) == 1
        if depth[s[0]] == 0 and 0 not in s:  # off the corners: four different sides
            assert len(set().union(*(side_of(n, v) for v in s))) == 4


def test_paper_rule_odd_smalter_three_different_sides():
    sets = paper_root_sets(build("smalter:5x5"))
    assert [len(s) for s in sets] == [3] * 8 + [1]
    for s in sets[:5]:  # the outer ring (16 chiplets): three sides in every set
        assert all(side_of(5, v) for v in s)
        assert len(set().union(*(side_of(5, v) for v in s))) >= 3


# --------------------------------------------------------------------------- root sets


@pytest.mark.parametrize(
    "spec",
    ["smbi:4x4", "smalter:4x4", "smbi:6x6", "smalter:6x6", "smalter:5x5", "mesh:4x4"],
)
def test_sets_partition_chiplets_and_verify(spec):
    G = build(spec)
    p = solved(spec)
    assert_valid(G, p)
    roots = sorted(r for s in p.sets for r in s.roots)
    assert roots == compute_nodes(G)
    k = root_set_size(G).k
    sizes = sorted((len(s.trees) for s in p.sets), reverse=True)  # one set may be smaller
    assert all(x == k for x in sizes[:-1])
    assert 1 <= sizes[-1] <= k
    assert len(sizes) == -(-len(roots) // k)
    assert p.stats["total"] == sum(s.height for s in p.sets) >= p.stats["total_lower_bound"]


@pytest.mark.parametrize("spec", ["smbi:4x4", "smalter:4x4", "smbi:6x6", "smalter:6x6"])
def test_no_worse_than_paper_rule(spec):
    G = build(spec)
    ours = solved(spec)
    theirs = solved(spec, method="paper")
    assert_valid(G, theirs)
    assert sorted(r for s in theirs.sets for r in s.roots) == compute_nodes(G)
    assert ours.stats["total"] <= theirs.stats["total"]
    mine = sorted((s.height for s in ours.sets), reverse=True)
    paper = sorted((s.height for s in theirs.sets), reverse=True)
    assert all(a <= b for a, b in zip(mine, paper, strict=True))
    assert ours.stats["paper"]["total"] == theirs.stats["total"]


def test_smalter_5x5_beats_paper_rule():
    ours, theirs = solved("smalter:5x5"), solved("smalter:5x5", method="paper")
    assert ours.stats["total"] < theirs.stats["total"]


@pytest.mark.parametrize("n", [4, 6])
def test_smbi_reaches_manhattan_bound(n):
    """SMBi: every tree off the centre is a shortest-path tree (height = Manhattan eccentricity);
    the four centre chiplets are the only set of 4 with eccentricity n and, on 4x4 and 6x6,
    need one more (CP-SAT proves it): the total is the eccentricity bound + 1, proven optimal."""
    p = solved(f"smbi:{n}x{n}")
    ecc = {v: manhattan_ecc(n, n, v) for v in range(n * n)}
    assert p.stats["total"] == partition_lower_bound(ecc, 4) + 1
    assert p.status == "optimal"
    centre = sorted(v for v in ecc if ecc[v] == n)
    assert len(centre) == 4
    for ts in p.sets:
        want = [ecc[t.root] + (ts.roots == centre) for t in ts.trees]
        assert [t.height for t in ts.trees] == want


def test_in_direction_and_determinism():
    G = build("smalter:4x4")
    a = root_sets(G, direction="in", time_limit=20)
    b = root_sets(G, direction="in", time_limit=20)
    assert_valid(G, a)
    assert a.direction == "in"
    assert [s.roots for s in a.sets] == [s.roots for s in b.sets]
    assert [[t.arcs for t in s.trees] for s in a.sets] == [
        [t.arcs for t in s.trees] for s in b.sets
    ]


def test_json_round_trip_keeps_sets():
    p = solved("smbi:4x4")
    doc = json.loads(json.dumps(p.to_json()))
    assert len(doc["sets"]) == 4
    assert TreePacking.from_json(doc) == p


# ---------------------------------------------------------------------------- symmetry


def test_symmetries_and_orbit_trees():
    G = build("smbi:6x6")
    net = working_network(G)
    syms = grid_symmetries(G, net)
    assert len(syms) == 7
    odd = build("smalter:5x5")
    assert len(grid_symmetries(odd, working_network(odd))) == 3  # turns only
    memory = build("smbi:4x4,memory=south")
    assert grid_symmetries(memory, working_network(memory)) == []
    turn = orbit_of([7, 10, 28, 25], syms)  # (1, 1) turned clockwise
    assert turn is not None
    height = manhattan_ecc(6, 6, 7)
    trees = orbit_parents(net, 7, turn, 4, height, time_limit=10)
    assert trees is not None
    roots = [7, turn[7], turn[turn[7]], turn[turn[turn[7]]]]
    p = TreePacking(
        "smbi:6x6", "out", "optimal", (TreeSet(net.trees(roots, trees), height),), height, height
    )
    assert_valid(G, p)


def test_orbit_solve_reports_its_work():
    """The symmetric solve spends CP-SAT work, not seconds: cut by a tiny budget it repeats
    exactly and says so; with room it finds trees of the bound (checked by verify) and reports
    the work it spent."""
    from supermesh.trees.bounds.heights import bfs_distances
    from supermesh.trees.roots.symmetry import orbit_solve

    G = build("smbi:8x8")
    net = working_network(G)
    turn = orbit_of([9, 14, 54, 49], grid_symmetries(G, net))  # (1, 1) turned round
    assert turn is not None
    height = max(bfs_distances(net, 9).values())
    cut = [orbit_solve(net, 9, turn, 4, height, time_limit=60, deterministic_time=1e-3)]
    cut.append(orbit_solve(net, 9, turn, 4, height, time_limit=60, deterministic_time=1e-3))
    assert cut[0] == cut[1]
    assert cut[0].parents is None
    assert cut[0].cut == "work budget"
    found = orbit_solve(net, 9, turn, 4, height, time_limit=60, deterministic_time=1.0)
    assert found.cut is None
    assert 0 < found.work < 1.0
    assert found.parents is not None
    assert orbit_parents(net, 9, turn, 4, height, time_limit=60, deterministic_time=1.0) == (
        found.parents
    )
    roots = [9, turn[9], turn[turn[9]], turn[turn[turn[9]]]]
    p = TreePacking(
        "smbi:8x8", "out", "optimal", (TreeSet(net.trees(roots, found.parents), height),),
        height, height,
    )  # fmt: skip
    assert_valid(G, p)


def test_partition_search_spends_a_work_budget():
    """``partition_search`` reports the work budget (0.03 per worker and second, 2 workers,
    20 s) and the work spent, at least the fixed charge for every probe; these small grids end
    the search before it."""
    from supermesh.trees.cpsat import DTIME_PER_WORKER_SECOND
    from supermesh.trees.roots.search import PROBE_WORK

    for spec in ["smbi:4x4", "smalter:6x6"]:
        st = solved(spec).stats
        search = st["partition_search"]
        assert search["budget"] == pytest.approx(DTIME_PER_WORKER_SECOND * 2 * 20)
        assert search["stopped"] == "done"
        assert search["probes"] == st["solves"] > 0
        assert search["work"] >= search["probes"] * PROBE_WORK * len(build(spec)) - 1e-6
        assert search["work"] <= search["budget"]
        assert st["time_limit_hit"] is False
        assert st["undecided_probes"] == 0


# ---------------------------------------------------------------------- pipeline order


def test_pipeline_steps_by_hand():
    chain = TreeSet((Tree(0, ((0, 1, 0), (1, 2, 0)), 2),))
    for chunks in (1, 3, 5):  # alone: the height, then one step per further chunk
        assert pipeline_steps([chain], chunks=chunks) == 2 + chunks - 1
    # no barrier: the second set's chunks follow the first set's on every link
    assert pipeline_steps([chain, chain], chunks=2) == 2 + 4 - 1
    up = TreeSet((Tree(0, ((2, 1, 0), (1, 0, 0)), 2),))  # the in-tree: leaves first
    assert pipeline_steps([up], chunks=3, direction="in") == 4
    fork = TreeSet((Tree(1, ((1, 2, 0),), 1),))  # needs link 1->2 at step 0
    assert pipeline_steps([chain, fork], chunks=1) == 3
    assert pipeline_steps([fork, chain], chunks=1) == 2


def test_pipeline_model_predicts_the_simulator():
    """supermesh.sim (cycle-level, written separately) differs by a fixed time per step."""
    import random

    from supermesh.sim import simulate

    G = build("smbi:4x4")
    sets = list(solved("smbi:4x4").sets)
    rng = random.Random(5)
    orders = [sets, sets[::-1], *(rng.sample(sets, len(sets)) for _ in range(4))]
    steps = [pipeline_steps(o, chunks=6) for o in orders]  # 1 MiB on 16 chiplets: 6 chunks
    times = [simulate(G, o, "allgather", 1 << 20, bound=False).time for o in orders]
    assert len(set(steps)) > 1
    pairs = [(s, t) for s, t in zip(steps, times, strict=True) if s != steps[0]]
    slopes = {round((t - times[0]) / (s - steps[0]), 6) for s, t in pairs}
    assert len(slopes) == 1
    assert slopes.pop() > 0


@pytest.mark.parametrize("spec", ["smbi:4x4", "smalter:4x4", "smbi:6x6", "smalter:6x6"])
def test_running_order_beats_paper_order(spec):
    ours = solved(spec)
    theirs = solved(spec, method="paper")
    assert ours.stats["pipeline_steps"] == pipeline_steps(ours.sets, chunks=1)
    assert ours.stats["pipeline_steps"] < pipeline_steps(theirs.sets, chunks=1)


def test_order_search_budget_reported():
    """The order search stops on its work budget (not the clock) and says how it ended."""
    for spec in ["smbi:4x4", "smalter:4x4", "smbi:6x6", "smalter:6x6"]:
        st = solved(spec).stats
        assert st["order_search"]["budget"] == ORDER_WORK
        assert st["order_search"]["stopped"] == "converged"
        assert 0 < st["order_search"]["work"] <= ORDER_WORK
        assert st["time_limit_hit"] is False
    G = build("smbi:6x6")
    full = solved("smbi:6x6")
    cut = root_sets(G, order_budget=0, compare=False, time_limit=20)
    assert_valid(G, cut)
    assert cut.stats["order_search"]["stopped"] == "budget"
    assert cut.stats["pipeline_steps"] == pipeline_steps(cut.sets, chunks=1)
    assert cut.stats["pipeline_steps"] > full.stats["pipeline_steps"]  # the search does work
    with pytest.raises(SpecError):
        root_sets(G, order_budget=-1)


def test_verify_notices_trees_of_two_sets_mixed():
    """Mutation: one set's tree moved into another set breaks disjointness there."""
    G = build("smbi:4x4")
    p = solved("smbi:4x4")
    a, b = p.sets[0], p.sets[1]
    mixed = TreeSet((*a.trees[:-1], b.trees[0]))
    broken = TreePacking(p.topology, p.direction, "feasible", (mixed, *p.sets[1:]), None,
                         max(t.height for s in p.sets for t in s.trees))  # fmt: skip
    assert any(f.code for f in check_packing(G, broken))


# --------------------------------------------------------------------------------- CLI


def test_cli_root_sets_json_and_file(run_cli, tmp_path):
    target = tmp_path / "sets.json"
    code, out, _ = run_cli("trees", "smbi:4x4", "--root-sets", "--json", "-o", str(target))
    assert code == 0
    doc = json.loads(out)
    assert doc == json.loads(target.read_text())
    assert len(doc["sets"]) == 4
    assert doc["method"] == "root-sets:optimise"
    assert_valid(build("smbi:4x4"), TreePacking.from_json(doc))


def test_cli_root_sets_table_and_errors(run_cli):
    code, out, _ = run_cli("trees", "smalter:5x5", "--root-sets", "--method", "paper")
    assert code == 0
    assert "root sets of 3" in out
    assert "paper's rule" in out
    code, out, _ = run_cli("trees", "smalter:5x5", "--root-sets", "--k", "4", "--json")
    assert code == 1
    assert json.loads(out)["status"] == "infeasible"
    code, _, err = run_cli("trees", "smbi:4x4", "--method", "paper")
    assert code == 2
    assert "--root-sets" in err
    code, _, err = run_cli("trees", "smbi:4x4", "--root-sets", "--roots", "sides")
    assert code == 2
    assert "error:" in err


@pytest.mark.slow
def test_smbi_8x8_whole_target():
    """The issue's target (its time is measured by bench/bench_roots.py): 8x8 SMBi root sets
    proven optimal (total = the Manhattan bound 176), no set taller than the paper's rule's."""
    G = build("smbi:8x8")
    p = root_sets(G, time_limit=60)
    assert_valid(G, p)
    ecc = {v: manhattan_ecc(8, 8, v) for v in range(64)}
    assert p.status == "optimal"
    assert p.stats["total"] == partition_lower_bound(ecc, 4) == 176
    assert p.stats["paper"]["no_set_taller"]
