"""Cut bounds against BRIEF section 5's numbers and against brute force over every node set."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from supermesh.sim import collective_bound, cut_bound, rank_connectivity
from supermesh.topologies import build, compute_nodes


def in_bandwidth(G, inside: set[int]) -> float:
    return sum(bw for u, v, bw in G.edges(data="bandwidth") if v in inside and u not in inside)


def brute_allgather(G, reverse: bool = False) -> float:
    """min over node sets S holding a rank and missing one: n B_in(S) / |ranks outside S|."""
    ranks = set(compute_nodes(G))
    nodes = sorted(G.nodes)
    best = float("inf")
    for size in range(1, len(nodes)):
        for combo in itertools.combinations(nodes, size):
            S = set(combo)
            if not S & ranks or ranks <= S:
                continue
            cut = (
                sum(bw for u, v, bw in G.edges(data="bandwidth") if u in S and v not in S)
                if reverse
                else in_bandwidth(G, S)
            )
            best = min(best, len(ranks) * cut / len(ranks - S))
    return best


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("mesh:4x4", Fraction(32, 15)),
        ("smbi:4x4", Fraction(64, 15)),
        ("smalter:4x4", Fraction(64, 15)),
        ("smbi:8x8", Fraction(256, 63)),
    ],
)
def test_allgather_bound_matches_the_brief(spec, expected):
    b = cut_bound(build(spec))
    assert b.value == pytest.approx(float(expected), rel=1e-12)
    cert = b.certificate
    assert cert["entering_bandwidth"] / cert["bytes_outside"] == pytest.approx(b.value / 1.0)
    assert round(b.value, 2) == round(float(expected), 2)


def test_smbi_8x8_is_about_4_06():
    assert f"{cut_bound(build('smbi:8x8')).value:.2f}" == "4.06"


@pytest.mark.parametrize("spec", ["mesh:2x3", "smbi:3x3", "smalter:3x3", "torus:3x3", "smuni:3x3"])
def test_allgather_and_reducescatter_bounds_equal_brute_force(spec):
    G = build(spec)
    n = len(compute_nodes(G))
    assert cut_bound(G).value * n == pytest.approx(brute_allgather(G) * n, rel=1e-9)
    rs = collective_bound(G, "reducescatter").value
    assert rs == pytest.approx(brute_allgather(G, reverse=True), rel=1e-9)


def test_bandwidths_weight_the_cut():
    G = build("mesh:2x3")
    for _, _, data in G.in_edges(0, data=True):
        data["bandwidth"] = 3.0
    assert cut_bound(G).value == pytest.approx(brute_allgather(G), rel=1e-9)


@pytest.mark.parametrize("spec", ["mesh:3x3", "smbi:3x3", "smuni:3x3", "mesh:2x4"])
def test_allreduce_bound_is_the_rank_cut(spec):
    G = build(spec)
    ranks = set(compute_nodes(G))
    nodes = sorted(G.nodes)
    brute = min(
        in_bandwidth(G, set(c))
        for size in range(1, len(nodes))
        for c in itertools.combinations(nodes, size)
        if set(c) & ranks and not ranks <= set(c)
    )
    assert rank_connectivity(G).value == pytest.approx(brute)
    # the AllReduce bound is the smaller of that cut and the volume: every arc over the
    # 2 (n - 1) transfers each element needs
    volume = G.number_of_edges() / (2 * (len(ranks) - 1))
    assert collective_bound(G, "allreduce").value == pytest.approx(min(brute, volume))


def test_broadcast_and_reduce_from_a_corner():
    G = build("smbi:4x4")
    assert collective_bound(G, "broadcast", roots=[0]).value == pytest.approx(4.0)
    assert collective_bound(G, "reduce", roots=[0]).value == pytest.approx(4.0)
    assert collective_bound(build("mesh:4x4"), "broadcast", roots=[5]).value == pytest.approx(2.0)
