"""Drawings of simulation results: utilisation maps and series, the pipeline Gantt, sweep curves."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

from supermesh.draw import (
    draw_pipeline,
    draw_speedup,
    draw_sweep,
    draw_utilization,
    draw_utilization_timeseries,
    pipeline_timeline,
    save_figure,
)
from supermesh.draw.utilization import busy_timeseries
from supermesh.errors import SupermeshError, TopologyError
from supermesh.sim import evaluate, get_preset, simulate, tree_program
from supermesh.topologies import build
from supermesh.trees.model import Tree

CHAIN = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)  # 0 -> 1 -> 3 on a 2x2 mesh
STAR = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (2, 3, 0)), height=2)


def utilization_lines(fig: Figure) -> LineCollection:
    (coll,) = [c for c in fig.axes[0].collections if c.get_gid() == "utilization"]
    return coll


# ------------------------------------------------------------------ utilisation on the layout
def test_one_line_per_arc_and_busier_is_thicker():
    G = build("smbi:3x3")
    shares = {(0, 1, 0): 1.0, (1, 0, 0): 0.25, (0, 1, 1): 0.5}
    fig = draw_utilization(G, shares)
    coll = utilization_lines(fig)
    assert len(coll.get_segments()) == G.number_of_edges() == 40
    widths = sorted(coll.get_linewidths())
    assert widths[-1] > widths[-2] > widths[-3] > widths[0] == widths[-4]  # three busy arcs
    assert len(fig.axes) == 2  # the drawing and its colour bar
    assert "link utilisation" in fig.axes[1].get_ylabel()


def test_the_two_directions_and_parallel_links_are_apart():
    G = build("smbi:2x2")
    coll = utilization_lines(draw_utilization(G, {}, labels=False, colorbar=False))
    mids = np.array([np.asarray(s).mean(axis=0) for s in coll.get_segments()])
    # the 0-1 link (0 at (0, 0), 1 at (1, 0)): 2 copies x 2 directions = 4 parallel lines
    ys = sorted(float(y) for x, y in mids if abs(x - 0.5) < 1e-6 and abs(y) < 0.4)
    assert len(ys) == 4
    assert min(np.diff(ys)) > 0.05


def test_utilisation_from_a_result_matches_hand_count():
    G = build("mesh:2x2")
    r = simulate(G, [[CHAIN]], "broadcast", 2 * 12288, bound=False)
    # two chunks on each of the two arcs, 1031 cycles each, over the 3113.5-cycle run
    assert r.utilization[(0, 1, 0)] == pytest.approx(2 * 1031 / 3113.5)
    fig = draw_utilization(G, r)
    assert "pipeline broadcast" in fig.axes[0].get_title()
    note = [t.get_text() for t in fig.axes[0].texts if "mean" in t.get_text()]
    assert note
    assert f"max {round(100 * 2 * 1031 / 3113.5)}%" in note[0]


def test_utilisation_input_is_checked():
    G = build("mesh:2x2")
    with pytest.raises(TopologyError, match="0->3"):
        draw_utilization(G, {(0, 3, 0): 0.5})
    with pytest.raises(SupermeshError, match=r"-0\.1"):
        draw_utilization(G, {(0, 1, 0): -0.1})
    with pytest.raises(SupermeshError, match="vmax"):
        draw_utilization(G, {}, vmax=0)


# ------------------------------------------------------------------ utilisation over time
def test_busy_timeseries_integrates_to_the_busy_time():
    G = build("mesh:2x2")
    params = get_preset("booksim")
    program = tree_program(G, [[STAR], [CHAIN]], "allreduce", 5 * 12288, params)
    r = evaluate(G, program, params, collective="allreduce", algorithm="x", nbytes=1, bound=False)
    series = busy_timeseries(program, G.number_of_edges(), bins=37)
    width = r.time / 37
    total = sum(series["utilization"]) * width * G.number_of_edges()
    assert total == pytest.approx(sum(r.arc_busy.values()))  # exact: no sampling error
    assert max(series["utilization"]) <= 1.0
    with pytest.raises(SupermeshError):
        busy_timeseries(program, 12, bins=0)


def test_timeseries_lines_labels_and_units():
    G = build("mesh:2x2")
    runs = [
        simulate(G, [[CHAIN]], "broadcast", 8 * 12288, bound=False),
        simulate(G, [[STAR]], "broadcast", 8 * 12288, bound=False),
    ]
    fig = draw_utilization_timeseries(runs, labels=["chain", "star"])
    ax = fig.axes[0]
    assert len(ax.lines) == 2
    assert next(t.get_text() for t in ax.get_legend().get_texts()).startswith("chain (mean ")
    assert ax.get_xlabel() == "time (cycles)"
    assert "%" in ax.get_ylabel()
    for line in ax.lines:
        assert min(line.get_ydata()) >= 0
        assert max(line.get_ydata()) <= 100
    with pytest.raises(SupermeshError, match="1 labels for 2 results"):
        draw_utilization_timeseries(runs, labels=["one"])
    with pytest.raises(SupermeshError, match="no time series"):
        draw_utilization_timeseries(simulate(G, [[CHAIN]], "broadcast", 12288, bins=0))


# ------------------------------------------------------------------ pipeline Gantt
def test_timeline_hand_computed_chain():
    tl = pipeline_timeline(build("mesh:2x2"), [[CHAIN]], "broadcast", chunks=2)
    got = [(t.arc, t.chunk, t.start, t.end, t.depth) for t in tl.transfers]
    # 1031 cycles a chunk hop, the next chunk 1 cycle after delivery, forward 0.5 after arrival
    assert got == [
        ((0, 1, 0), 0, 0.0, 1031.0, 1),
        ((0, 1, 0), 1, 1032.0, 2063.0, 1),
        ((1, 3, 0), 0, 1031.5, 2062.5, 2),
        ((1, 3, 0), 1, 2063.5, 3094.5, 2),
    ]


def test_timeline_invariants_on_a_set_of_trees():
    G = build("smbi:3x3")
    a = Tree(0, ((0, 1, 0), (1, 2, 0), (0, 3, 0), (3, 6, 0), (1, 4, 0), (4, 7, 0), (2, 5, 0),
                 (5, 8, 0)), 4)  # fmt: skip
    b = Tree(8, ((8, 7, 0), (7, 6, 0), (8, 5, 1), (5, 2, 1), (2, 1, 1), (1, 0, 1), (7, 4, 0),
                 (4, 3, 0)), 5)  # fmt: skip
    tl = pipeline_timeline(G, [[a, b]], "allreduce", chunks=3)
    assert len(tl.transfers) == 2 * 3 * (8 + 8)  # two phases, 3 chunks, 16 tree arcs
    by_arc: dict = {}
    for t in tl.transfers:
        by_arc.setdefault((t.phase, t.arc), []).append(t)
    for items in by_arc.values():  # a link carries one chunk at a time
        items.sort(key=lambda t: t.start)
        assert all(p.end <= q.start for p, q in itertools.pairwise(items))
    forward = {(t.tree, t.arc[1], t.chunk): t for t in tl.transfers if t.phase == "forward"}
    for t in tl.transfers:  # a chunk leaves a node only after it arrived there
        if t.phase == "forward" and (t.tree, t.arc[0], t.chunk) in forward:
            assert forward[t.tree, t.arc[0], t.chunk].end <= t.start
    reduce_end = max(t.end for t in tl.transfers if t.phase == "reduce")
    assert min(t.start for t in tl.transfers if t.phase == "forward") > reduce_end  # barrier


def test_gantt_bars_rows_and_errors():
    G = build("smbi:3x3")
    a = Tree(0, ((0, 1, 0), (1, 2, 0)), 2)
    b = Tree(0, ((0, 1, 1), (1, 2, 1)), 2)
    tl = pipeline_timeline(G, [[a, b]], "broadcast", chunks=4)
    fig = draw_pipeline(tl)
    ax = fig.axes[0]
    bars = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bars) == 2  # one colour per tree
    assert sum(len(c.get_paths()) for c in bars) == 4 * 4  # 4 arcs x 4 chunks
    assert len(ax.get_yticks()) == 4
    assert {t.get_text() for t in ax.texts if t.get_gid() == "chunk"} == {"1", "2", "3", "4"}
    assert ax.get_xlabel() == "time (cycles)"
    fig = draw_pipeline(tl, of_tree=1)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["0→1 #1", "1→2 #1"]
    with pytest.raises(SupermeshError, match="tree 5"):
        draw_pipeline(tl, of_tree=5)
    with pytest.raises(SupermeshError, match="color_by"):
        draw_pipeline(tl, color_by="chunk")
    with pytest.raises(SupermeshError, match="exactly one"):
        pipeline_timeline(G, [[a]], "broadcast", nbytes=1, chunks=1)
    with pytest.raises(SupermeshError, match="two trees of set 0 use arc"):
        pipeline_timeline(G, [[a, a]], "broadcast", chunks=1)


# ------------------------------------------------------------------ sweep curves
def rows_for(topology, algorithm, gbps, sizes=(1 << 20, 1 << 22, 1 << 24), chiplets=16):
    return [
        {"topology": topology, "algorithm": algorithm, "collective": "allreduce",
         "chiplets": chiplets, "bytes": b, "seconds": b / (gbps * 1e9), "error": None}
        for b in sizes
    ]  # fmt: skip


def test_sweep_bandwidth_values_and_merged_equal_series():
    rows = rows_for("mesh:4x4", "tto", 15.0) + rows_for("smbi:4x4", "pipeline", 20.0)
    rows += rows_for("smalter:4x4", "pipeline", 20.0)
    rows.append(dict(rows[0], bytes=1 << 26, error="no trees", seconds=None))
    fig = draw_sweep(rows, label=lambda r: r["topology"].split(":")[0])
    ax = fig.axes[0]
    assert [list(np.round(line.get_ydata(), 6)) for line in ax.lines] == [[15.0] * 3, [20.0] * 3]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["mesh", "smbi = smalter"]
    assert ax.get_ylabel() == "algorithm bandwidth (GB/s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1MiB", "4MiB", "16MiB"]
    fig = draw_sweep(rows, y="time", normalize=True)
    assert list(fig.axes[0].lines[0].get_ydata()) == [1.0, 4.0, 16.0]


def test_speedup_and_scaling_axes():
    rows = rows_for("mesh:4x4", "tto", 15.0) + rows_for("smbi:4x4", "pipeline", 20.0)
    fig = draw_speedup(rows, "mesh:4x4 tto allreduce")
    ax = fig.axes[0]
    assert np.allclose(ax.lines[1].get_ydata(), 4 / 3)
    assert "speedup" in ax.get_ylabel()
    with pytest.raises(SupermeshError, match="baseline 'ring'") as err:
        draw_speedup(rows, "ring")
    assert "mesh:4x4 tto allreduce" in (err.value.hint or "")
    scaling = rows_for("mesh:3x3", "tto", 15.0, sizes=(9 << 10,), chiplets=9)
    scaling += rows_for("mesh:8x8", "tto", 16.0, sizes=(64 << 10,), chiplets=64)
    fig = draw_sweep(scaling, x="chiplets")
    assert fig.axes[0].get_xlabel() == "compute chiplets"
    assert list(fig.axes[0].lines[0].get_xdata()) == [9.0, 64.0]
    with pytest.raises(SupermeshError, match="no usable"):
        draw_sweep([dict(scaling[0], error="boom")])
    with pytest.raises(SupermeshError, match="'seconds'"):
        draw_sweep(scaling, x="seconds")


@pytest.mark.parametrize(
    ("ext", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_save_formats(tmp_path, ext, magic):
    tl = pipeline_timeline(build("mesh:2x2"), [[CHAIN]], "broadcast", chunks=2)
    path = tmp_path / f"gantt.{ext}"
    save_figure(draw_pipeline(tl), path)
    assert path.read_bytes().startswith(magic)
    with pytest.raises(SupermeshError, match="bmp"):
        save_figure(draw_utilization(build("mesh:2x2"), {}), tmp_path / "u.bmp")
