"""Throughput drawings: exact link loads (hand counts on a 2x2 ring), the cut, the trade-off
plot, one rank's weighted trees, determinism and bad input."""

from __future__ import annotations

from fractions import Fraction

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from supermesh.draw import (
    TradeoffPoint,
    draw_link_load,
    draw_root_trees,
    draw_tradeoff,
    draw_trees,
    link_loads,
    save_figure,
    tradeoff_point,
)
from supermesh.draw.utilization import CMAP
from supermesh.errors import SupermeshError, TopologyError
from supermesh.sim.tree_sets import tree_sets_for
from supermesh.topologies import build
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.throughput.pack import pack_throughput

# mesh:2x2 is the ring 0 - 1 - 3 - 2 - 0 (node = 2 row + col), every link one arc each way
CW = {0: 1, 1: 3, 3: 2, 2: 0}  # clockwise successor
CCW = {v: u for u, v in CW.items()}


def path(root: int, step: dict[int, int], share: float) -> Tree:
    """The 3-arc path from ``root`` around the ring (an out-tree of height 3)."""
    arcs, u = [], root
    for _ in range(3):
        arcs.append((u, step[u], 0))
        u = step[u]
    return Tree(root, tuple(arcs), 3, share)


def ring_packing(shares: dict[int, tuple[Fraction, Fraction]], **stats) -> TreePacking:
    """Each root: a clockwise and a counter-clockwise path with the given exact shares."""
    trees, exact = [], []
    for r in range(4):
        cw, ccw = shares[r]
        trees += [path(r, CW, float(cw)), path(r, CCW, float(ccw))]
        exact += [str(cw), str(ccw)]
    return TreePacking(
        "mesh:2x2",
        "out",
        "feasible",
        sets=(TreeSet(tuple(trees)),),
        method="colgen",
        stats={"shares": exact, **stats},
    )


HALF = (Fraction(1, 2), Fraction(1, 2))


@pytest.fixture(scope="module")
def ring():
    return build("mesh:2x2")


@pytest.fixture(scope="module")
def smbi4():
    G = build("smbi:4x4")
    return G, pack_throughput(G)


def test_equal_halves_load_every_arc_fully_at_the_cut_bound(ring):
    # a clockwise arc lies on the clockwise paths of the 3 roots it does not enter: shares
    # 3 x 1/2 = 3/2 per unit bandwidth, so the rate is n / (3/2) = 8/3 = 4 * 2 / 3, the cut
    # bound of a single node (2 arcs in, 3 ranks outside)
    loads = link_loads(ring, ring_packing(dict.fromkeys(range(4), HALF)))
    assert loads.reachable == loads.rate == Fraction(8, 3)
    assert throughput_bound(ring).value == Fraction(8, 3)
    assert set(loads.loads.values()) == {Fraction(1)}
    assert len(loads.loads) == 8
    assert loads.max_load == 1
    assert len(loads.busiest) == 8


def test_unequal_shares_hand_count(ring):
    shares = dict.fromkeys(range(4), HALF) | {0: (Fraction(3, 4), Fraction(1, 4))}
    loads = link_loads(ring, ring_packing(shares))
    # root 0's clockwise path holds the 3 clockwise arcs not entering 0; each also lies on the
    # clockwise paths of 2 other roots: 3/4 + 1/2 + 1/2 = 7/4 (the busiest)
    assert loads.reachable == Fraction(4) / Fraction(7, 4) == Fraction(16, 7)
    assert loads.loads[0, 1, 0] == 1
    assert loads.busiest == [(0, 1, 0), (1, 3, 0), (3, 2, 0)]
    # arc 2->0 enters 0: roots 1, 3, 2 -> 3/2; arc 0->2: counter-clockwise of 0, 1, 3 -> 5/4
    assert loads.loads[2, 0, 0] == Fraction(16, 7) / 4 * Fraction(3, 2) == Fraction(6, 7)
    assert loads.loads[0, 2, 0] == Fraction(5, 7)
    # a stated rate is taken as given: the cut bound overloads arc 0->1
    stated = link_loads(ring, ring_packing(shares, algbw_links="8/3"))
    assert stated.rate == Fraction(8, 3)
    assert stated.loads[0, 1, 0] == Fraction(8, 3) / 4 * Fraction(7, 4) == Fraction(7, 6)
    assert link_loads(ring, ring_packing(shares), rate="8/3").max_load == Fraction(7, 6)


def test_optimal_packing_saturates_the_cut(smbi4):
    G, packing = smbi4
    loads = link_loads(G, packing)
    bound = throughput_bound(G)
    assert loads.rate == loads.reachable == bound.value == Fraction(64, 15)
    assert loads.max_load == 1
    inside = set(bound.certificate["set"])
    entering = [a for a in loads.loads if a[1] in inside and a[0] not in inside]
    assert len(entering) == bound.certificate["arcs"] == 4
    # the cut is tight at the optimum: every arc into it carries its full bandwidth
    assert all(loads.loads[a] == 1 for a in entering)


def test_paper_root_sets_reach_four_links_on_smbi4x4(smbi4):
    G, _ = smbi4
    sets = tree_sets_for(G, "paper", "allgather")
    packing = TreePacking("smbi:4x4", "out", "feasible", sets=tuple(sets))
    point = tradeoff_point(G, packing, "paper")
    # 4 sets of 4 arc-disjoint trees, run in turn: n / (number of sets) = 16 / 4 links
    assert len(sets) == 4
    assert point.rate == 4
    assert point.fraction == 4 / (64 / 15) == 0.9375
    assert link_loads(G, packing).max_load == 1


def test_link_load_figure(smbi4):
    G, packing = smbi4
    fig = draw_link_load(G, packing)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    (coll,) = [c for c in ax.collections if c.get_gid() == "utilization"]
    assert len(coll.get_segments()) == G.number_of_edges()
    # the busiest arcs are drawn last (on top) in the colour of 100%
    assert to_hex(coll.get_colors()[-1]) == to_hex(CMAP(1.0))
    cut = [p for p in ax.patches if p.get_gid() == "cut-node"]
    assert len(cut) == len(throughput_bound(G).certificate["set"]) == 1
    legend = ax.get_legend().get_texts()[0].get_text()
    assert "S = {0}" in legend
    assert "16·4/15 = 64/15" in legend
    assert "64/15" in ax.get_title()
    assert "100.0% of the bound" in ax.get_title()
    assert len(fig.axes) == 2  # the drawing and its colour bar
    no_cut = draw_link_load(G, packing, cut=False, colorbar=False)
    assert not [p for p in no_cut.axes[0].patches if p.get_gid()]
    assert len(no_cut.axes) == 1


def test_root_trees_panels_titles_and_merging(ring):
    packing = ring_packing(dict.fromkeys(range(4), HALF))
    fig = draw_root_trees(ring, packing, 2)
    assert [ax.get_title() for ax in fig.axes[:2]] == ["share 1/2 = 50.0%, height 3"] * 2
    # the same tree twice is drawn once with its shares added
    twice = path(0, CW, 0.25)
    dup = TreePacking(
        "mesh:2x2",
        "out",
        "feasible",
        sets=(TreeSet((twice, twice, path(0, CCW, 0.5))),),
    )
    titles = [ax.get_title() for ax in draw_root_trees(ring, dup, 0, legend=False).axes]
    assert titles == ["share 1/2 = 50.0%, height 3 (×2)", "share 1/2 = 50.0%, height 3"]
    separate = draw_root_trees(ring, dup, 0, merge=False, legend=False)
    assert len(separate.axes) == 3


def test_root_trees_max_panels_on_a_real_packing(smbi4):
    G, packing = smbi4
    mine = [t for t in packing.trees if t.root == 0]
    fig = draw_root_trees(G, packing, 0, max_panels=3, legend=False)
    assert len(fig.axes) == 3
    assert f"(first 3 of {len(mine)} trees)" in fig._suptitle.get_text()
    # panels come largest share first; the shares of the root add up to 1
    exact = zip(packing.stats["shares"], packing.trees, strict=True)
    shares = [Fraction(s) for s, t in exact if t.root == 0]
    assert sum(shares) == 1
    assert fig.axes[0].get_title().startswith(f"share {max(shares)} = ")


def test_draw_trees_shows_shares_only_when_weighted(ring):
    weighted = [path(0, CW, 0.5), path(0, CCW, 0.5)]
    fig = draw_trees(ring, weighted, legend=False)
    assert fig.axes[0].get_title() == "tree 0: root 0, height 3, share 0.5"
    plain = draw_trees(ring, [path(0, CW, 1.0)], legend=False)
    assert "share" not in plain.axes[0].get_title()
    one = draw_trees(ring, weighted, legend=False, max_panels=1, titles=["mine"])
    assert [ax.get_title() for ax in one.axes] == ["mine"]
    assert one._suptitle.get_text().endswith("(first 1 of 2 trees)")


def test_tradeoff_plot(ring):
    point = tradeoff_point(ring, ring_packing(dict.fromkeys(range(4), HALF)), "ring")
    assert (point.rate, point.fraction, point.max_height, point.mean_height) == (
        Fraction(8, 3),
        1.0,
        3,
        3.0,
    )
    ref = TradeoffPoint("reference", Fraction(2), Fraction(8, 3))
    fig = draw_tradeoff([point, ref], title="t")
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels[0].startswith("cut bound")
    assert labels[1] == "ring: 2.67 links = 100.0%, tallest 3, mean 3"
    assert labels[2] == "reference: 2 links = 75.0%"
    assert ax.lines[1].get_xydata().tolist() == [[3.0, 1.0]]
    assert ax.lines[2].get_ydata()[0] == 0.75


def test_same_bytes_twice(tmp_path, ring, smbi4):
    G, packing = smbi4

    def render(name: str) -> bytes:
        fig = Figure(figsize=(10, 4), layout="constrained")
        left, right = fig.subfigures(1, 2)
        draw_link_load(G, packing, left.subplots())
        draw_root_trees(ring, ring_packing(dict.fromkeys(range(4), HALF)), 0, right)
        save_figure(fig, tmp_path / name, dpi=60)
        return (tmp_path / name).read_bytes()

    assert render("a.png") == render("b.png")


def test_bad_input(ring, smbi4):
    good = ring_packing(dict.fromkeys(range(4), HALF))
    with pytest.raises(SupermeshError, match="expected a TreePacking"):
        link_loads(ring, list(good.trees))  # type: ignore[arg-type]
    with pytest.raises(SupermeshError, match="rate -1 is not a positive"):
        link_loads(ring, good, rate=-1)
    with pytest.raises(SupermeshError, match="rate 'fast' is not a positive"):
        link_loads(ring, good, rate="fast")
    zero = ring_packing(dict.fromkeys(range(4), HALF) | {1: (Fraction(1), Fraction(0))})
    with pytest.raises(SupermeshError, match="share 0, which is not positive"):
        link_loads(ring, zero)
    empty = TreePacking("mesh:2x2", "out", "infeasible")
    with pytest.raises(SupermeshError, match="holds no trees"):
        draw_link_load(ring, empty)
    packing = smbi4[1]
    with pytest.raises(TopologyError, match="does not have"):
        link_loads(ring, packing)  # a 4x4 packing on the 2x2
    with pytest.raises(TopologyError, match="chiplet 7 roots no tree"):
        draw_root_trees(ring, good, 7)
    with pytest.raises(SupermeshError, match="max_panels must be a positive integer"):
        draw_root_trees(ring, good, 0, max_panels=0)
    with pytest.raises(SupermeshError, match="max_panels must be a positive integer"):
        draw_trees(ring, list(good.trees), max_panels=0)
    with pytest.raises(SupermeshError, match="2 titles for 1 panels"):
        draw_trees(ring, list(good.trees), max_panels=1, titles=["a", "b"])
    with pytest.raises(SupermeshError, match="no trade-off points"):
        draw_tradeoff([])
    with pytest.raises(SupermeshError, match="expected TradeoffPoint"):
        draw_tradeoff([good])  # type: ignore[list-item]
    with pytest.raises(SupermeshError, match="both must be > 0"):
        draw_tradeoff([TradeoffPoint("x", Fraction(0), Fraction(1))])
