"""Topology drawings: every link visible, none through a chiplet, legend inside, atomic saves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from supermesh.draw import draw_topology, save_figure
from supermesh.draw.common import ARC_STYLES
from supermesh.draw.topology import node_boxes
from supermesh.errors import SupermeshError
from supermesh.topologies import build


def segments_by_class(fig: Figure) -> dict[str, list[np.ndarray]]:
    colour = {style.color: cls for cls, style in ARC_STYLES.items()}
    out: dict[str, list[np.ndarray]] = {}
    for coll in fig.axes[0].collections:
        if isinstance(coll, LineCollection):
            rgba = coll.get_colors()[0]
            hexcol = "#{:02x}{:02x}{:02x}".format(*(round(255 * x) for x in rgba[:3]))
            out[colour[hexcol]] = [np.asarray(s) for s in coll.get_segments()]
    return out


def the_legend(fig: Figure):
    (legend,) = fig.legends or [fig.axes[0].get_legend()]
    return legend


def legend_labels(fig: Figure) -> list[str]:
    return [t.get_text() for t in the_legend(fig).get_texts()]


def test_no_pyplot_state_and_a_figure_back():
    before = plt.get_fignums()
    fig = draw_topology(build("mesh:3x3"))
    assert isinstance(fig, Figure)
    assert plt.get_fignums() == before


def test_parallel_links_are_separate_lanes():
    fig = draw_topology(build("smbi:4x4"))
    segs = segments_by_class(fig)
    assert len(segs["mesh"]) == 24
    assert len(segs["added"]) == 12
    # the two lanes of every doubled link are apart: no added lane lies on a mesh line
    for lane in segs["added"]:
        gaps = [np.min(np.linalg.norm(lane[:, None] - m[None], axis=2)) for m in segs["mesh"]]
        assert min(gaps) > 0.1
    assert legend_labels(fig) == ["compute chiplet", "mesh link", "added link"]


def test_one_way_arcs_get_arrows():
    fig = draw_topology(build("smuni:4x4"))
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 12
    assert "one-way link" in legend_labels(fig)
    assert not any(
        isinstance(p, FancyArrowPatch) for p in draw_topology(build("smbi:3x3")).axes[0].patches
    )


@pytest.mark.parametrize(
    "spec",
    [
        "torus:4x4",
        "folded-torus:6x6",
        "kite-small:4x4",
        "kite-medium:5x5",
        "double-butterfly:8x8",
        "butterdonut:8x8",
        "cmesh:8x8",
        "hexamesh:r2,memory=north+east+south+west",
        "smalter:5x5,corners=4,memory=west",
    ],
)
def test_no_link_runs_through_a_chiplet(spec):
    G = build(spec)
    fig = draw_topology(G)
    boxes = node_boxes(G)
    centres = np.array([G.nodes[n]["pos"] for n in sorted(G)])
    halves = np.array([boxes[n] for n in sorted(G)])
    lanes = [s for segs in segments_by_class(fig).values() for s in segs]
    assert lanes
    diamond = np.array([G.nodes[n]["kind"] == "router" for n in sorted(G)])  # routers
    for pts in lanes:
        dx = np.abs(pts[:, None, 0] - centres[None, :, 0]) / halves[None, :, 0]
        dy = np.abs(pts[:, None, 1] - centres[None, :, 1]) / halves[None, :, 1]
        inside = np.where(diamond[None, :], dx + dy < 1 - 1e-9, (dx < 1 - 1e-9) & (dy < 1 - 1e-9))
        assert not np.any(inside)


def test_every_link_is_drawn_once_per_lane():
    for spec in ("smbi:3x4", "smuni:3x3", "hexamesh:3-4-3,memory=south", "cmesh:4x4"):
        G = build(spec)
        fig = draw_topology(G)
        drawn = sum(len(s) for s in segments_by_class(fig).values())
        # a lane is a two-way link (two opposite arcs with one key) or a one-way arc
        one_way = sum(1 for u, v, k in G.edges(keys=True) if not G.has_edge(v, u, k))
        assert drawn == (G.number_of_edges() - one_way) // 2 + one_way, spec


def test_kinds_in_legend_and_legend_inside_the_canvas():
    fig = draw_topology(build("cmesh:4x4"))
    assert legend_labels(fig)[:2] == ["compute chiplet", "router"]
    fig = draw_topology(build("hexamesh:r2,memory=south"))
    assert {"memory chiplet", "memory link"} <= set(legend_labels(fig))
    FigureCanvasAgg(fig).draw()
    box, page = the_legend(fig).get_window_extent(), fig.bbox
    assert page.x0 <= box.x0
    assert box.x1 <= page.x1
    assert page.y0 <= box.y0
    assert box.y1 <= page.y1


def test_labels_title_and_axes_argument():
    G = build("mesh:3x3")
    assert len(draw_topology(G).axes[0].texts) == 9
    assert len(draw_topology(G, labels=False).axes[0].texts) == 0
    assert len(draw_topology(build("mesh:17x17")).axes[0].texts) == 0  # too many to read
    assert draw_topology(G).axes[0].get_title() == "Mesh 3x3"
    fig = Figure()
    ax = fig.add_subplot()
    assert draw_topology(G, ax, title="mine") is fig
    assert ax.get_title() == "mine"
    assert ax.get_legend() is not None  # in the caller's axes, not a figure legend
    assert fig.legends == []


@pytest.mark.parametrize(
    ("ext", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_save_formats(tmp_path, ext, magic):
    path = tmp_path / "sub" / f"mesh.{ext}"
    path.parent.mkdir()
    save_figure(draw_topology(build("mesh:2x2")), path)
    assert path.read_bytes().startswith(magic)
    assert [p.name for p in path.parent.iterdir()] == [path.name]


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_the_same_drawing_gives_the_same_bytes(tmp_path, ext):
    """Same inputs, same files: no date, and no random names (svg's clip paths)."""
    texts = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.{ext}"
        save_figure(draw_topology(build("smbi:3x3")), path)
        texts.append(path.read_bytes())
    assert texts[0] == texts[1]


def test_save_rejects_other_extensions(tmp_path):
    with pytest.raises(SupermeshError, match="jpg"):
        save_figure(draw_topology(build("mesh:2x2")), tmp_path / "mesh.jpg")
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "mesh.png"
    path.write_bytes(b"old")
    fig = draw_topology(build("mesh:2x2"))

    def boom(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(fig, "savefig", boom)
    with pytest.raises(RuntimeError):
        save_figure(fig, path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["mesh.png"]
