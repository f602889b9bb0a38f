"""Weighted packings in rate (verify/trees/rates.py): hand-built packings, dispatch, mutations."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.verify import check_disjoint, check_packing
from supermesh.verify.files import check_document
from supermesh.verify.trees.loads import rate_report
from supermesh.verify.trees.rates import check_weighted_packing, is_weighted_packing

MESH22 = build("mesh:2x2")  # 0 1 / 2 3, one link each way between grid neighbours
QUARTER = {0: 1, 1: 3, 3: 2, 2: 0}  # a quarter turn of the 2x2 grid


def codes(findings):
    return [f.code for f in findings]


def _turn(tree: Tree, times: int) -> Tree:
    arcs = tree.arcs
    root = tree.root
    for _ in range(times):
        arcs = tuple((QUARTER[u], QUARTER[v], k) for u, v, k in arcs)
        root = QUARTER[root]
    return Tree(root, arcs, tree.height, tree.share)


def hand_packing(claim: str = "8/3", **stats) -> TreePacking:
    """AllGather on the 2x2 mesh by hand: each rank sends half its data through each neighbour.

    Rank 0: tree A = 0->1, 0->2, 1->3 and tree B = 0->1, 0->2, 2->3, share 1/2 each; the other
    ranks are quarter turns. Arc u->v carries both trees of u (1/2 + 1/2) and one tree of the
    rank opposite v (1/2): 3/2 of a rank's data. At rate rho each rank sends rho/4 link units,
    so 3/2 * rho/4 <= 1 gives rho = 8/3, the cut bound (a corner: 2 links in, 3 ranks outside,
    4 * 2 / 3).
    """
    a = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2, 0.5)
    b = Tree(0, ((0, 1, 0), (0, 2, 0), (2, 3, 0)), 2, 0.5)
    trees = tuple(_turn(t, i) for i in range(4) for t in (a, b))
    doc = {"algbw_links": claim, "shares": ["1/2"] * 8} | stats
    return TreePacking(
        "mesh:2x2", "out", "feasible", (TreeSet(trees, 2),), 2, 2, method="colgen", stats=doc
    )


def test_hand_packing_rate_is_the_cut_bound():
    p = hand_packing()
    rep = rate_report(MESH22, p)
    assert rep.rate == Fraction(8, 3)
    assert set(rep.loads.values()) == {Fraction(3, 2)}  # every one of the 8 arcs
    assert len(rep.loads) == 8
    assert len(rep.busiest) == 8
    assert check_weighted_packing(MESH22, p) == []
    assert check_packing(MESH22, p) == []
    # the arc-disjointness check would wrongly fail it: the dispatch matters
    assert "arc-overused" in codes(check_disjoint(MESH22, p.sets[0]))


def test_claimed_rate_above_what_the_shares_allow():
    found = check_weighted_packing(MESH22, hand_packing("3"))
    assert codes(found).count("rate-overused") == 8
    assert "rate-claim-too-high" in codes(found)
    assert any("8/3" in f.message for f in found if f.code == "rate-claim-too-high")
    assert codes(check_weighted_packing(MESH22, hand_packing("5/2"))) == []  # below: fine


def test_shares_must_add_up_to_one_per_root():
    p = hand_packing()
    shares = ["1/2"] * 8
    shares[3] = "2/3"
    trees = list(p.trees)
    trees[3] = dataclasses.replace(trees[3], share=2 / 3)
    q = dataclasses.replace(p, sets=(TreeSet(tuple(trees), 2),), stats=p.stats | {"shares": shares})
    found = check_weighted_packing(MESH22, q)
    assert "share-sum" in codes(found)
    assert "rate-claim-too-high" in codes(found)  # 2/3 on its arcs: 5/3 > 3/2
    # a tree share that disagrees with the exact one in stats
    r = dataclasses.replace(p, sets=(TreeSet(tuple(trees), 2),))
    assert "share-mismatch" in codes(check_weighted_packing(MESH22, r))


def test_every_rank_roots_a_tree():
    p = hand_packing()
    q = dataclasses.replace(
        p, sets=(TreeSet(p.trees[:6], 2),), stats=p.stats | {"shares": ["1/2"] * 6}
    )
    found = check_weighted_packing(MESH22, q)
    assert any(f.code == "rank-without-tree" and "rank 2" in f.message for f in found)


def test_float_shares_without_stats():
    p = hand_packing()
    q = dataclasses.replace(p, stats={"algbw_links": "8/3"})
    assert rate_report(MESH22, q).exact is False
    assert check_weighted_packing(MESH22, q) == []
    third = [dataclasses.replace(t, share=1 / 3) for t in p.trees]
    r = dataclasses.replace(p, sets=(TreeSet(tuple(third), 2),), stats={"algbw_links": "8/3"})
    assert "share-sum" in codes(check_weighted_packing(MESH22, r))


def test_parallel_arcs_are_counted_separately():
    G = build("smbi:2x2")  # every link doubled: keys 0 and 1
    a = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2, 0.5)
    b = Tree(0, ((0, 1, 1), (0, 2, 1), (1, 3, 1)), 2, 0.5)
    spread = TreePacking("smbi:2x2", "out", "feasible", (TreeSet((a, b)),), span=(0, 1, 2, 3))
    # only rank 0 roots trees here: use the rate report (the loads) rather than the full check
    assert set(rate_report(G, spread).loads.values()) == {Fraction(1, 2)}
    same = dataclasses.replace(spread, sets=(TreeSet((a, a)),))
    assert set(rate_report(G, same).loads.values()) == {Fraction(1)}
    assert rate_report(G, same).rate == rate_report(G, spread).rate / 2


def test_bound_certificate_is_recounted():
    cert = {"set": [0], "direction": "entering", "bandwidth": "2", "ranks": 4, "ranks_outside": 3}
    good = hand_packing(optimum="8/3", bound_certificate=cert)
    assert check_weighted_packing(MESH22, good) == []
    wrong = hand_packing(optimum="3", bound_certificate=cert)
    assert "certificate-invalid" in codes(check_weighted_packing(MESH22, wrong))
    optimal = dataclasses.replace(good, status="optimal", stats=good.stats | {"algbw_links": "2"})
    assert "optimal-rate-gap" in codes(check_weighted_packing(MESH22, optimal))


def test_rate_view_sets_keep_the_link_share_check():
    half = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2, 0.5)
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((half, half)),), 2, 2)
    assert not is_weighted_packing(MESH22, p)  # ranks 1..3 root nothing: shares of a link
    assert check_packing(MESH22, p) == []


def test_verify_document_reports_the_rate():
    doc = hand_packing().to_json()
    report = check_document(json.loads(json.dumps(doc)))
    assert report.ok
    assert report.extra["rate"]["rate"] == "8/3"
    assert "allow 8/3" in report.summary
    doc["stats"]["algbw_links"] = "11/4"
    assert not check_document(doc).ok


# ---------------------------------------------------------------------------- properties
GRIDS = ("mesh:2x2", "mesh:3x3", "smbi:2x2", "smbi:3x3", "mesh:2x3")


@cache
def _made(spec: str, direction: str, parts: int | str | None) -> TreePacking:
    from supermesh.trees.throughput.pack import pack_throughput

    return pack_throughput(build(spec), direction=direction, parts=parts)


packings = st.tuples(
    st.sampled_from(GRIDS), st.sampled_from(("out", "in")), st.sampled_from((None, 2, "auto"))
)


@given(packings)
def test_throughput_packings_pass(case):
    spec, direction, parts = case
    G = build(spec)
    p = _made(spec, direction, parts)
    assert check_packing(G, p) == []
    assert rate_report(G, p).rate == Fraction(p.stats["algbw_links"])  # tight: nothing to spare


@given(packings, st.sampled_from(("share", "arc", "rate")), st.integers(0, 10**6), st.data())
def test_mutations_are_caught(case, kind, pick, data):
    spec, direction, parts = case
    G = build(spec)
    p = _made(spec, direction, parts)
    trees = list(p.trees)
    j = pick % len(trees)
    stats = dict(p.stats)
    if kind == "share":
        shares = list(stats["shares"])
        extra = data.draw(st.fractions(min_value=Fraction(1, 1000), max_value=1))
        new = Fraction(shares[j]) + extra
        shares[j] = str(new)
        trees[j] = dataclasses.replace(trees[j], share=float(new))
        stats["shares"] = shares
    elif kind == "arc":
        arcs = list(trees[j].arcs)
        arcs.pop(data.draw(st.integers(0, len(arcs) - 1)))
        trees[j] = dataclasses.replace(trees[j], arcs=tuple(arcs))
    else:
        extra = data.draw(st.fractions(min_value=Fraction(1, 10**6), max_value=1))
        stats["algbw_links"] = str(Fraction(stats["algbw_links"]) + extra)
    q = dataclasses.replace(p, sets=(TreeSet(tuple(trees), p.sets[0].lower_bound),), stats=stats)
    found = [f for f in check_packing(G, q) if f.is_error]
    expected = {"share": "share-sum", "arc": None, "rate": "rate-claim-too-high"}[kind]
    assert found
    if expected:
        assert expected in codes(found)


@pytest.mark.parametrize("spec", ["mesh:4x4", "smbi:4x4"])
def test_reference_bounds(spec):
    p = _made(spec, "out", None)
    want = {"mesh:4x4": Fraction(32, 15), "smbi:4x4": Fraction(64, 15)}[spec]
    assert rate_report(build(spec), p).rate == want  # the brief's numbers
    assert check_packing(build(spec), p) == []
