"""Height-optimal packing (CP-SAT): known optima, status semantics, certificates, determinism.

Every produced packing is re-checked by :func:`supermesh.verify.check_packing`, which recounts
arcs and depths without calling the code under test. Expected heights come from BRIEF.md
(SMBi corners 2N-2, SMBi one root per side at the eccentricity bound, SMAlter even N >= 6 with
mid-side roots at bound + 1) and from hand-counted Manhattan distances.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies import build
from supermesh.trees.packing.search import pack_trees
from supermesh.verify import check_packing


def corners(n: int, m: int | None = None) -> list[int]:
    m = n if m is None else m
    return [0, m - 1, n * m - 1, (n - 1) * m]


def sides(n: int) -> list[int]:
    """(0, n//2), (n//2, n-1), (n-1, n-1-n//2), (n-1-n//2, 0): the rootspec 'sides'."""
    h = n // 2
    return [h, h * n + n - 1, (n - 1) * n + (n - 1 - h), (n - 1 - h) * n]


def manhattan_ecc(n: int, root: int) -> int:
    r, c = divmod(root, n)
    return max(r, n - 1 - r) + max(c, n - 1 - c)


def assert_valid(G, p) -> None:
    findings = check_packing(G, p)
    assert findings == [], [str(f) for f in findings]


@pytest.mark.parametrize("n", range(3, 9))
def test_smbi_corners_reach_2n_minus_2(n):
    G = build(f"smbi:{n}x{n}")
    p = pack_trees(G, corners(n))
    assert_valid(G, p)
    assert (p.status, p.objective, p.lower_bound) == ("optimal", 2 * n - 2, 2 * n - 2)
    assert [t.height for t in p.trees] == [2 * n - 2] * 4


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_smbi_sides_reach_bound(n):
    G = build(f"smbi:{n}x{n}")
    roots = sides(n)
    p = pack_trees(G, roots)
    assert_valid(G, p)
    bound = max(manhattan_ecc(n, r) for r in roots)
    assert (p.status, p.objective, p.lower_bound) == ("optimal", bound, bound)


@pytest.mark.parametrize("n", [6, 8])
def test_smalter_mid_side_needs_bound_plus_one(n):
    G = build(f"smalter:{n}x{n}")
    roots = sides(n)
    p = pack_trees(G, roots)
    assert_valid(G, p)
    bound = max(manhattan_ecc(n, r) for r in roots)  # 3N/2 - 1
    assert bound == 3 * n // 2 - 1
    assert p.status == "optimal"
    assert p.objective == bound + 1
    assert p.lower_bound == bound + 1  # the bound itself was proven infeasible
    assert any(r["status"] == "infeasible" and r["max_height"] == bound for r in p.stats["runs"])


def test_tiny_time_limit_is_never_called_optimal_above_the_bound():
    G = build("smalter:8x8")
    p = pack_trees(G, sides(8), time_limit=1e-4)
    assert_valid(G, p)
    assert p.status == "feasible"  # warm start only, 12 > 11 unproven
    assert (p.objective, p.lower_bound, p.stats["gap"]) == (12, 11, 1)
    assert p.stats["stopped"] == "work budget"  # 1e-4 s buys no CP-SAT work at all
    assert p.stats["runs"] == []


def test_tiny_time_limit_optimal_when_bound_met():
    G = build("smbi:6x6")
    p = pack_trees(G, corners(6), time_limit=1e-4)
    assert (p.status, p.objective, p.lower_bound) == ("optimal", 10, 10)


def test_no_time_and_no_warm_start_raises():
    with pytest.raises(SolverError):
        pack_trees(build("smalter:6x6"), sides(6), time_limit=1e-4, warm_start=False)


def test_cold_start_finds_the_same_optimum():
    G = build("smalter:6x6")
    p = pack_trees(G, sides(6), warm_start=False)
    assert_valid(G, p)
    assert (p.status, p.objective) == ("optimal", 9)


def test_deterministic_json():
    G = build("smalter:8x8")

    def doc():
        d = pack_trees(G, corners(8)).to_json()
        d.pop("stats")  # wall times
        return json.dumps(d, sort_keys=True)

    assert doc() == doc()


def test_deterministic_json_with_statistics():
    """Everything but wall times repeats, the work each solve spent included."""
    G = build("smalter:8x8")

    def doc():
        p = pack_trees(G, sides(8))
        assert p.stats["stopped"] == "done"
        assert all(r["work"] > 0 for r in p.stats["runs"])
        return json.dumps(p.to_json(timings=False), sort_keys=True)

    assert doc() == doc()


def test_mesh_four_corners_infeasible_with_certificate():
    G = build("mesh:4x4")
    p = pack_trees(G, corners(4))
    assert p.status == "infeasible"
    assert p.sets == ()
    cert = p.certificate
    inside = set(cert["set"])
    entering = sum(1 for u, v in G.edges() if v in inside and u not in inside)
    required = sum(r not in inside for r in corners(4))
    assert cert["entering_arcs"] == entering < required == cert["required"]
    assert_valid(G, p)


@pytest.mark.parametrize("roots", [[2, 14, 22, 10], [0, 4, 24, 12], [6, 8, 16, 18]])
def test_smalter_odd_non_corner_roots_infeasible(roots):
    G = build("smalter:5x5")
    p = pack_trees(G, roots)
    assert p.status == "infeasible"
    inside = set(p.certificate["set"])
    entering = sum(1 for u, v in G.edges() if v in inside and u not in inside)
    assert entering == p.certificate["entering_arcs"] < p.certificate["required"]


def test_smalter_odd_corners_use_every_arc():
    G = build("smalter:5x5")
    p = pack_trees(G, corners(5))
    assert_valid(G, p)
    assert p.status == "optimal"
    assert sum(len(t.arcs) for t in p.trees) == G.number_of_edges()  # BRIEF: every arc used


def test_in_direction_stores_child_to_parent_arcs():
    G = build("smalter:6x6")
    p = pack_trees(G, corners(6), direction="in")
    assert_valid(G, p)
    assert p.direction == "in"
    assert p.status == "optimal"
    assert p.objective == 10
    for t in p.trees:
        assert not any(src == t.root for src, _, _ in t.arcs)  # the root only receives
        senders = [src for src, _, _ in t.arcs]
        assert len(senders) == len(set(senders)) == 35  # each other node sends exactly once


def test_max_height_below_eccentricity_is_infeasible():
    p = pack_trees(build("smbi:4x4"), corners(4), max_height=5)
    assert p.status == "infeasible"
    assert p.certificate["distance"] == 6
    assert p.certificate["max_height"] == 5


def test_max_height_proved_infeasible_by_cpsat():
    G = build("smalter:6x6")
    p = pack_trees(G, sides(6), max_height=8)  # bound 8, optimum 9
    assert p.status == "infeasible"
    assert p.certificate["solver"] == "cpsat"
    assert p.certificate["max_height"] == 8


def test_steiner_span_mesh_three_corners():
    G = build("mesh:5x5")
    span = [v for v in range(25) if v != 20]
    p = pack_trees(G, [0, 24, 4], span=span)
    assert_valid(G, p)
    assert p.status == "optimal"
    assert p.objective == 8
    assert p.span == tuple(span)


def test_balance_equalises_heights():
    G = build("hexamesh:r2")
    p = pack_trees(G, [4, 9, 14])
    assert_valid(G, p)
    hs = [t.height for t in p.trees]
    assert p.status == "optimal"
    assert max(hs) == p.objective
    assert max(hs) - min(hs) == 0


def test_bad_root_is_a_user_error():
    with pytest.raises(TopologyError):
        pack_trees(build("smbi:3x3"), [0, 99])


@settings(max_examples=25, deadline=None)
@given(
    family=st.sampled_from(["smbi", "smalter"]),
    rows=st.integers(2, 6),
    cols=st.integers(2, 6),
    data=st.data(),
)
def test_random_roots_valid_or_certified(family, rows, cols, data):
    G = build(f"{family}:{rows}x{cols}")
    k = data.draw(st.integers(1, 4))
    roots = data.draw(st.lists(st.integers(0, rows * cols - 1), min_size=k, max_size=k))
    direction = data.draw(st.sampled_from(["out", "in"]))
    p = pack_trees(G, roots, direction=direction, time_limit=5)
    assert_valid(G, p)
    if p.status == "infeasible":
        assert "set" in p.certificate
    else:
        assert [t.root for t in p.trees] == roots
        if p.status == "optimal":
            assert p.objective == p.lower_bound
