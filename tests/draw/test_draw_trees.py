"""Tree and root-set drawings: one panel per tree, arcs on their own lanes, depths, legends."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from supermesh.draw import draw_root_sets, draw_topology, draw_trees, save_figure, tree_depth_map
from supermesh.draw.common import tree_color
from supermesh.draw.geometry import LANE_GAP, arc_lanes, drawn_lanes
from supermesh.errors import SupermeshError, TopologyError
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet


def bfs_tree(G, root: int, used: set | None = None) -> Tree:
    """A BFS out-tree from ``root`` over arcs not in ``used`` (lowest key first); test helper."""
    used = set() if used is None else used
    seen, frontier, arcs = {root}, [root], []
    while frontier:
        nxt = []
        for u in frontier:
            for _, v, k in sorted(G.out_edges(u, keys=True)):
                if v not in seen and (u, v, k) not in used:
                    seen.add(v)
                    arcs.append((u, v, k))
                    nxt.append(v)
        frontier = nxt
    depth = tree_depth_map(Tree(root, tuple(arcs), 0), "out")
    return Tree(root, tuple(arcs), max(depth.values()))


@pytest.fixture(scope="module")
def smbi4():
    G = build("smbi:4x4")
    first = bfs_tree(G, 0)
    second = bfs_tree(G, 15, used=set(first.arcs))
    return G, [first, second]


def tree_collection(ax) -> LineCollection:
    (coll,) = [c for c in ax.collections if c.get_gid() == "tree"]
    return coll


def depth_texts(ax) -> dict[tuple[float, float], str]:
    return {t.get_position(): t.get_text() for t in ax.texts if t.get_gid() == "depth"}


def test_one_panel_per_tree_with_one_segment_per_arc(smbi4):
    G, trees = smbi4
    fig = draw_trees(G, trees)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    for i, (ax, tree) in enumerate(zip(fig.axes, trees, strict=True)):
        coll = tree_collection(ax)
        assert len(coll.get_segments()) == len(tree.arcs) == 15  # a spanning tree of 16
        assert to_hex(coll.get_colors()[0]) == tree_color(i)
        assert len(depth_texts(ax)) == 16  # every chiplet of the span gets its depth
        assert f"root {tree.root}" in ax.get_title()


def test_depth_labels_are_hop_counts(smbi4):
    G, trees = smbi4
    fig = draw_trees(G, trees, labels=False)
    # BFS from a corner of a grid: the depth of (r, c) is its Manhattan distance to the corner
    labels = depth_texts(fig.axes[0])
    for n in G:
        r, c = G.nodes[n]["row"], G.nodes[n]["col"]
        assert labels[tuple(G.nodes[n]["pos"])] == str(r + c)
    labels = depth_texts(fig.axes[1])
    assert labels[tuple(G.nodes[0]["pos"])] == "6"  # corner 0 is 6 hops from corner 15


def test_two_trees_on_a_doubled_link_are_separate_lines():
    G = build("smbi:3x3")
    a = Tree(0, ((0, 1, 0), (1, 2, 0)), 2)
    b = Tree(0, ((0, 1, 1), (1, 2, 1)), 2)
    fig = draw_trees(G, [a, b])
    one, two = (tree_collection(ax).get_segments() for ax in fig.axes)
    for p, q in zip(one, two, strict=True):
        gap = np.min(np.linalg.norm(np.asarray(p)[:, None] - np.asarray(q)[None], axis=2))
        assert gap == pytest.approx(LANE_GAP, abs=0.02)  # side by side, one lane apart


def test_added_links_are_dashed_and_roots_highlighted(smbi4):
    G, _ = smbi4
    first = bfs_tree(G, 0)
    trees = [first, bfs_tree(G, 3, used=set(first.arcs))]
    fig = draw_trees(G, trees)
    seen = []
    for ax, tree in zip(fig.axes, trees, strict=True):
        styles = tree_collection(ax).get_linestyles()
        added = [G.edges[a]["cls"] == "added" for a in tree.arcs]
        dashed = [dashes is not None for _, dashes in styles]
        assert dashed == added
        seen += added
        (boxes,) = [c for c in ax.collections if isinstance(c, PatchCollection)]
        widths = boxes.get_linewidths()
        assert widths[sorted(G).index(tree.root)] > max(np.delete(widths, tree.root))
    assert any(seen)
    assert not all(seen)


def test_in_trees_and_packings():
    G = build("smalter:4x4")
    out = bfs_tree(G, 5)
    inward = Tree(5, tuple((v, u, k) for u, v, k in out.arcs), out.height)
    assert tree_depth_map(inward) == tree_depth_map(out)  # direction read off the arcs
    packing = TreePacking(
        "smalter:4x4", "in", "feasible", sets=(TreeSet((inward,)), TreeSet((inward,)))
    )
    fig = draw_trees(G, packing, ncols=1)
    assert len(fig.axes) == 2
    # numbered within its set from 0, as the schedule tables' set / tree columns number it
    assert fig.axes[1].get_title().startswith("set 1, tree 0")


def test_bad_trees_are_rejected():
    G = build("mesh:3x3")
    with pytest.raises(TopologyError, match="0->4"):
        draw_trees(G, [Tree(0, ((0, 4, 0),), 1)])  # no diagonal link
    with pytest.raises(TopologyError, match="do not form a tree"):
        draw_trees(G, [Tree(0, ((0, 1, 0), (1, 0, 0)), 1)], direction="out")
    with pytest.raises(SupermeshError, match="nothing to draw"):
        draw_trees(G, [])
    fig = Figure()
    fig.add_subplot()
    with pytest.raises(SupermeshError, match="already has axes"):
        draw_trees(G, [bfs_tree(G, 0)], fig)


def test_subfigures_and_legend_inside_the_canvas(smbi4):
    G, trees = smbi4
    fig = Figure(figsize=(8, 6), layout="constrained")
    top, bottom = fig.subfigures(2, 1)
    assert draw_trees(G, trees, top, legend=False) is fig
    assert draw_trees(G, trees, bottom) is fig
    assert len(fig.axes) == 4
    assert top.legends == []
    assert len(bottom.legends) == 1
    FigureCanvasAgg(fig).draw()
    box, page = bottom.legends[0].get_window_extent(), fig.bbox
    assert page.x0 <= box.x0
    assert box.x1 <= page.x1
    assert page.y0 <= box.y0


def test_lanes_are_where_draw_topology_draws_links():
    G = build("smbi:3x4")
    mine = sorted(np.round(lane.points(), 6).tobytes() for lane in drawn_lanes(arc_lanes(G)))
    fig = draw_topology(G)
    theirs = []
    for coll in fig.axes[0].collections:
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                seg = np.asarray(seg)
                theirs.append(min(np.round(seg, 6).tobytes(), np.round(seg[::-1], 6).tobytes()))
    mine = sorted(
        min(m, np.round(np.frombuffer(m).reshape(-1, 2)[::-1], 6).tobytes()) for m in mine
    )
    assert mine == sorted(theirs)


def test_root_sets_legend_heights_and_labels():
    G = build("smalter:4x4")
    sets = [TreeSet((bfs_tree(G, 0),), lower_bound=5), [1, 7, 14, 8]]
    fig = draw_root_sets(G, sets)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    height = sets[0].height
    assert labels[0] == f"set 0: roots 0; height {height} (bound 5)"
    assert labels[1] == "set 1: roots 1, 7, 14, 8"
    assert labels[2:] == ["mesh link", "added link"]
    marks = {t.get_text() for t in fig.axes[0].texts if t.get_gid() == "set"}
    assert marks == {"S0", "S1"}
    assert sum(t.get_gid() == "set" for t in fig.axes[0].texts) == 5  # one per root
    with pytest.raises(SupermeshError, match="2 heights for 1 sets"):
        draw_root_sets(G, [[0]], heights=[1, 2])
    with pytest.raises(TopologyError, match="root 99"):
        draw_root_sets(G, [[99]])
    fig = Figure()
    ax = fig.add_subplot()
    assert draw_root_sets(G, [[0, 3]], ax) is fig
    assert ax.get_legend() is not None
    assert fig.legends == []


@pytest.mark.parametrize(
    ("ext", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_save_formats(tmp_path, smbi4, ext, magic):
    G, trees = smbi4
    path = tmp_path / f"trees.{ext}"
    save_figure(draw_trees(G, trees[:1]), path)
    assert path.read_bytes().startswith(magic)


def test_bad_extension(tmp_path, smbi4):
    G, _trees = smbi4
    with pytest.raises(SupermeshError, match="gif"):
        save_figure(draw_root_sets(G, [[0]]), tmp_path / "sets.gif")
    assert list(tmp_path.iterdir()) == []
