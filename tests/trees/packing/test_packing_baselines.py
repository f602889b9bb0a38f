"""Baselines: TTO on the mesh and the SuperMesh paper's Algorithm 1."""

from __future__ import annotations

from collections import deque

import pytest

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies import build
from supermesh.trees.packing.baselines import algorithm1, tto, tto_roots
from supermesh.verify import check_packing


def reached(tree, direction: str) -> set[int]:
    """Nodes connected to the root along the tree's own arcs (independent BFS)."""
    step: dict[int, list[int]] = {}
    for u, v, _ in tree.arcs:
        a, b = (u, v) if direction == "out" else (v, u)
        step.setdefault(a, []).append(b)
    seen = {tree.root}
    queue = deque([tree.root])
    while queue:
        x = queue.popleft()
        for y in step.get(x, []):
            if y not in seen:
                seen.add(y)
                queue.append(y)
    return seen


@pytest.mark.parametrize("n", range(3, 11))
def test_tto_reaches_every_span_chiplet(n):
    G = build(f"mesh:{n}x{n}")
    p = tto(G)
    assert check_packing(G, p) == []
    left_out = (n - 1) * n  # bottom-left corner
    assert p.span == tuple(v for v in range(n * n) if v != left_out)
    assert [t.root for t in p.trees] == [0, n * n - 1, n - 1]
    for t in p.trees:  # the reference artifact's middle tree missed a corner: not here
        assert set(p.span) <= reached(t, "out")
    assert p.objective == 2 * n - 2
    assert p.status == "optimal"


def test_tto_8x8_height_matches_the_reference_calibration():
    p = tto(build("mesh:8x8"))
    assert max(t.height for t in p.trees) == 14  # BRIEF section 4: 8x8 mesh TTO, height 14


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (2, 5), (4, 7), (6, 3)])
@pytest.mark.parametrize("direction", ["out", "in"])
def test_tto_rectangles_and_directions(rows, cols, direction):
    G = build(f"mesh:{rows}x{cols}")
    p = tto(G, direction=direction)
    assert check_packing(G, p) == []
    for t in p.trees:
        assert set(p.span) <= reached(t, direction)
    assert p.objective == rows + cols - 2


def test_tto_roots_and_left_out_corner():
    assert tto_roots(build("mesh:4x4")) == ([0, 15, 3], 12)


def test_tto_needs_a_grid():
    with pytest.raises(TopologyError):
        tto(build("hexamesh:r2"))


def test_tto_runs_on_smbi_too():
    G = build("smbi:5x5")
    assert check_packing(G, tto(G)) == []


@pytest.mark.parametrize("n", [3, 4, 6, 8])
def test_algorithm1_smbi_corners(n):
    G = build(f"smbi:{n}x{n}")
    p = algorithm1(G, [0, n - 1, n * n - 1, (n - 1) * n])
    assert check_packing(G, p) == []
    assert p.method == "algorithm1"
    assert len(p.trees) == 4
    assert p.objective >= 2 * n - 2


def test_algorithm1_smbi_sides_is_above_the_optimum():
    G = build("smbi:8x8")
    p = algorithm1(G, [4, 39, 59, 24])
    assert check_packing(G, p) == []
    assert p.status == "feasible"
    assert p.objective > p.lower_bound == 11


def test_algorithm1_can_get_stuck():
    with pytest.raises(SolverError, match="stuck"):
        algorithm1(build("smalter:6x6"), [0, 5, 35, 30])


def test_algorithm1_infeasible_roots_get_a_certificate():
    p = algorithm1(build("mesh:4x4"), [0, 3, 15, 12])
    assert p.status == "infeasible"
    assert p.certificate["entering_arcs"] < p.certificate["required"]
