"""Closed-form corner constructions: independent checks for N = 2..20 and rectangles.

Every packing is checked by :mod:`supermesh.verify` (which never calls the tree code) and by a
recount here (arc use per pair <= parallel copies, every tree reaches its span by BFS, heights
equal the hand-computed corner eccentricity R + C - 2).
"""

from __future__ import annotations

from collections import Counter, deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SolverError, SpecError
from supermesh.topologies import build
from supermesh.trees.packing.closedform import (
    corner_trees,
    mesh_three_corner_trees,
    partial_three_corner_trees,
    smalter_corner_trees,
    smalter_side_trees,
    smuni_corner_trees,
    three_corner_trees,
)
from supermesh.trees.packing.corners import omitted_corner, undoubled_perimeter
from supermesh.trees.packing.geodesic import geodesic_packing
from supermesh.verify import check_packing, errors

SQUARES = range(2, 21)
RECTS = [(2, 7), (3, 8), (4, 9), (6, 4), (5, 2), (7, 10), (10, 3)]


def recount(G, packing) -> None:
    """Independent recount: arc budget, reachability, heights (no supermesh code involved)."""
    use = Counter((u, v) for t in packing.trees for u, v, _ in t.arcs)
    mult = Counter((u, v) for u, v in G.edges())
    assert all(n <= mult[p] for p, n in use.items())
    keys = Counter((u, v, k) for t in packing.trees for u, v, k in t.arcs)
    assert max(keys.values()) == 1  # no topology arc used twice
    span = packing.span or [n for n, d in G.nodes(data="kind") if d == "compute"]
    for t in packing.trees:
        step: dict[int, list[int]] = {}
        for u, v, _ in t.arcs:
            a, b = (u, v) if packing.direction == "out" else (v, u)
            step.setdefault(a, []).append(b)
        depth = {t.root: 0}
        queue = deque([t.root])
        while queue:
            x = queue.popleft()
            for y in step.get(x, ()):
                assert y not in depth
                depth[y] = depth[x] + 1
                queue.append(y)
        assert set(span) <= depth.keys()
        assert max(depth.values()) == t.height


def check(packing, rows: int, cols: int, n_trees: int) -> None:
    G = build(packing.topology)
    assert errors(check_packing(G, packing)) == []
    recount(G, packing)
    assert len(packing.trees) == n_trees
    assert packing.status == "optimal"
    assert packing.objective == packing.lower_bound == rows + cols - 2


@pytest.mark.parametrize("n", SQUARES)
def test_square_constructions(n):
    for direction in ("out", "in"):
        check(smalter_corner_trees(n, n, direction=direction), n, n, 4)
        check(smuni_corner_trees(n, n, direction=direction), n, n, 4)
        check(mesh_three_corner_trees(n, n, direction=direction), n, n, 3)
        check(partial_three_corner_trees(n, n, direction=direction), n, n, 3)
        check(partial_three_corner_trees(n, n, alternate=True, direction=direction), n, n, 3)
    check(smalter_corner_trees(n, n, corners=4), n, n, 4)
    check(smuni_corner_trees(n, n, way="ccw"), n, n, 4)
    check(corner_trees(build(f"smbi:{n}x{n}")), n, n, 4)


@pytest.mark.parametrize(("rows", "cols"), RECTS)
def test_rectangular_constructions(rows, cols):
    check(smalter_corner_trees(rows, cols), rows, cols, 4)
    check(smuni_corner_trees(rows, cols), rows, cols, 4)
    check(mesh_three_corner_trees(rows, cols), rows, cols, 3)
    for io in ("north", "east", "south", "west"):
        for alternate in (False, True):
            check(partial_three_corner_trees(rows, cols, alternate=alternate, io=io), rows, cols, 3)


@given(st.integers(2, 14), st.integers(2, 14), st.sampled_from(["out", "in"]))
def test_smalter_corners_any_rectangle(rows, cols, direction):
    check(smalter_corner_trees(rows, cols, direction=direction), rows, cols, 4)


def test_mesh_relay_corner_left_out_and_used_as_relay():
    p = mesh_three_corner_trees(6, 6)
    bl = 30
    assert bl not in p.span
    assert len(p.span) == 35
    assert [t.root for t in p.trees] == [0, 5, 35]
    # BL relays: it is inside some tree (the corner criterion's three-corner case says TL, BR)
    relayed = [t.root for t in p.trees if any(bl in (u, v) for u, v, _ in t.arcs)]
    assert relayed == [0, 35]


def test_criterion_matches_the_families():
    for n in SQUARES:
        for spec in (f"smbi:{n}x{n}", f"smalter:{n}x{n}", f"smuni:{n}x{n}"):
            assert undoubled_perimeter(build(spec)) == []
        mesh = build(f"mesh:{n}x{n}")
        assert len(undoubled_perimeter(mesh)) == 4 * (n - 1)
        partial = build(f"partial-smbi:{n}x{n}")
        south = {(n - 1) * n + c for c in range(n)}
        # the I/O side's corners keep the doubled links of the east and west sides
        assert set(undoubled_perimeter(partial)) == south - {(n - 1) * n, n * n - 1}


def test_corner_trees_refuse_where_the_criterion_fails():
    with pytest.raises(SolverError):
        corner_trees(build("mesh:4x4"))
    with pytest.raises(SolverError):
        corner_trees(build("partial-smalter:6x6"))


def test_omitted_corner_follows_the_io_side():
    assert omitted_corner(build("partial-smbi:4x5")) == 15  # south: BL
    assert omitted_corner(build("partial-smbi:4x5,io=north")) == 4  # TR
    assert omitted_corner(build("partial-smbi:4x5,io=east")) == 19  # BR
    assert omitted_corner(build("partial-smbi:4x5,io=west")) == 0  # TL
    p = three_corner_trees(build("partial-smalter:5x5,io=east"))
    assert sorted(t.root for t in p.trees) == [0, 4, 20]
    assert p.span is None


def test_geodesic_fails_where_shortest_path_trees_cannot_exist():
    # mesh: 4 corners cannot even be packed; SMAlter even, mid-side roots: the optimum is
    # eccentricity + 1 (brief, measured 6..64), so no geodesic packing can exist.
    assert geodesic_packing(build("mesh:5x5"), [0, 4, 24, 20]) is None
    for n in (6, 8, 10):
        G = build(f"smalter:{n}x{n}")
        sides = [n // 2, (n // 2 + 1) * n - 1, n * n - 1 - n // 2, (n - 1 - n // 2) * n]
        assert geodesic_packing(G, sides) is None


def test_geodesic_on_smbi_sides_reaches_the_eccentricity():
    for n in (5, 8, 11):
        G = build(f"smbi:{n}x{n}")
        sides = [n // 2, (n // 2 + 1) * n - 1, n * n - 1 - n // 2, (n - 1 - n // 2) * n]
        p = geodesic_packing(G, sides)
        assert p is not None
        assert errors(check_packing(G, p)) == []
        # hand count: the north root (0, n//2) is n//2 + (n-1) hops from the far corner
        assert p.objective == max(n // 2, n - 1 - n // 2) + n - 1


@pytest.mark.parametrize("n", range(4, 21, 2))
def test_smalter_side_trees_height_three_halves_n(n):
    for direction in ("out", "in"):
        p = smalter_side_trees(n, direction=direction)
        G = build(p.topology)
        assert errors(check_packing(G, p)) == []
        recount(G, p)
        # hand count: the north root (0, n/2) is n/2 + n - 1 hops from (n-1, 0)
        assert p.lower_bound == n // 2 + n - 1
        assert p.objective == 3 * n // 2
        assert [t.root for t in p.trees] == [
            n // 2,
            (n // 2 + 1) * n - 1,
            n * n - 1 - n // 2,
            (n // 2 - 1) * n,
        ]


def test_smalter_side_trees_need_an_even_size():
    with pytest.raises(SpecError):
        smalter_side_trees(7)
