"""Pictures say what they draw: legends name each family's links, trees and sets are numbered
from 0 as in the tables, node ids are legible at print size."""

from __future__ import annotations

import pytest

from supermesh.draw import draw_root_sets, draw_topology, draw_trees
from supermesh.topologies import build
from supermesh.trees.packing.construct import construct_trees
from supermesh.trees.roots.sets import root_sets


def legend_texts(fig) -> list[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


@pytest.mark.parametrize(
    ("spec", "present", "absent"),
    [
        ("cmesh:4x4", {"chiplet-router link", "unit-length link"}, {"mesh link", "long link"}),
        ("hexamesh:r2", {"chiplet link"}, {"mesh link"}),
        ("hexamesh:r1,memory=south", {"chiplet link", "memory link"}, {"mesh link"}),
        ("torus:4x4", {"mesh link", "wrap-around link"}, {"long link (over 1 pitch)"}),
        ("kite-small:4x4", {"unit-length link", "long link (over 1 pitch)"}, {"mesh link"}),
        ("smbi:4x4", {"mesh link", "added link"}, {"other link"}),
    ],
)
def test_legends_name_the_links_of_each_family(spec, present, absent):
    texts = set(legend_texts(draw_topology(build(spec))))
    assert present <= texts, texts
    assert not (absent & texts), texts


def test_trees_are_numbered_from_zero_as_in_the_tables():
    G = build("smbi:4x4")
    fig = draw_trees(G, construct_trees(G, [0, 3, 15, 12]))
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles[0].startswith("tree 0: root 0")
    assert titles[3].startswith("tree 3: root 12")


def test_trees_of_several_sets_are_numbered_within_their_set():
    """Panel titles say "set S, tree T" for the T-th tree of the S-th set of the packing, the
    numbering of the schedule tables' set and tree columns (not a count over all panels)."""
    G = build("smbi:3x3")
    packing = root_sets(G, method="paper")
    assert len(packing.sets) > 1
    assert len(packing.sets[0].trees) > 1
    expected = [
        f"set {s}, tree {t}: root {tree.root}, height {tree.height}"
        for s, tree_set in enumerate(packing.sets)
        for t, tree in enumerate(tree_set.trees)
    ]
    fig = draw_trees(G, packing)
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == expected


def test_root_sets_are_numbered_from_zero():
    G = build("smbi:4x4")
    fig = draw_root_sets(G, root_sets(G, method="paper"))
    marks = {t.get_text() for t in fig.axes[0].texts if t.get_gid() == "set"}
    assert min(marks) == "S0"
    assert legend_texts(fig)[0].startswith("set 0: roots")


@pytest.mark.parametrize("spec", ["smbi:4x4", "mesh:8x8"])
def test_node_ids_are_legible(spec):
    G = build(spec)
    fig = draw_trees(G, construct_trees(G, [0]))
    ids = [t for ax in fig.axes for t in ax.texts if t.get_text() == "5" and t.get_gid() != "depth"]
    assert ids
    assert min(t.get_fontsize() for t in ids) >= 6.0
    fig = draw_topology(G)
    sizes = [t.get_fontsize() for t in fig.axes[0].texts if t.get_text().isdigit()]
    assert min(sizes) >= 6.0
