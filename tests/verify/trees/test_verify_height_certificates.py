"""Height-cap certificates that `pack_trees(..., max_height=H)` returns are re-checked by BFS."""

from __future__ import annotations

import dataclasses

import pytest

from supermesh.topologies import build
from supermesh.trees.model import TreePacking
from supermesh.trees.packing.search import pack_trees
from supermesh.verify import check_certificate, check_document, check_packing


@pytest.mark.parametrize(("spec", "cap"), [("smbi:4x4", 4), ("smalter:6x6", 7), ("mesh:3x3", 2)])
def test_a_cap_below_a_corner_distance_is_proved_by_that_distance(spec: str, cap: int) -> None:
    G = build(spec)
    n = G.graph["rows"]
    corners = [0, n - 1, n * n - 1, n * n - n][: 2 if spec.startswith("mesh") else 4]
    packing = pack_trees(G, corners, max_height=cap)
    assert packing.status == "infeasible"
    # a corner's farthest chiplet is the opposite corner, 2(N-1) hops away: above the cap
    assert packing.certificate is not None
    assert packing.certificate["distance"] == 2 * (n - 1)
    assert check_certificate(G, packing) == []
    assert check_packing(G, packing) == []


def test_a_wrong_distance_or_a_reachable_node_is_caught() -> None:
    G = build("smbi:4x4")
    packing = pack_trees(G, [0, 3, 15, 12], max_height=4)
    assert packing.certificate is not None
    lie = dataclasses.replace(packing, certificate={**packing.certificate, "distance": 4})
    assert [f.code for f in check_certificate(G, lie)] == ["certificate-invalid"]
    near = {**packing.certificate, "node": 1, "distance": 1}
    assert [f.code for f in check_certificate(G, dataclasses.replace(packing, certificate=near))]


def test_a_solver_certificate_is_an_unproven_claim_not_a_proof() -> None:
    packing = TreePacking(
        "smbi:4x4",
        "out",
        "infeasible",
        certificate={"kind": "solver", "solver": "cpsat", "max_height": 6},
    )
    assert check_certificate(build("smbi:4x4"), packing) == []  # nothing contradicts it
    report = check_document(packing.to_json())
    assert report.ok
    assert report.verdict == "OK (1 claim unproven)"
    assert [(f.code, f.severity) for f in report.findings] == [("claim-unproven", "warning")]
    assert "cpsat" in report.findings[0].message
