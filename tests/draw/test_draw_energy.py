"""Energy by component as stacked bars (the paper's Figures 14 and 15)."""

from __future__ import annotations

import numpy as np
import pytest

from supermesh.draw import draw_energy, energy_bars
from supermesh.errors import SupermeshError
from supermesh.sim import simulate_baseline
from supermesh.sim.energy import COMPONENTS
from supermesh.topologies import build


@pytest.fixture(scope="module")
def runs():
    return {
        name: simulate_baseline(build(f"{name}:4x4"), "bidir-ring", "allreduce", 1 << 20)
        for name in ("mesh", "smbi")
    }


def test_bars_are_the_components(runs):
    labels, table = energy_bars(runs)
    assert labels == ["mesh", "smbi"]
    for row, r in zip(table, runs.values(), strict=True):
        assert row.tolist() == pytest.approx([1e3 * r.energy.component(c) for c in COMPONENTS])


def test_normalised_bars_divide_by_the_baselines_total(runs):
    _, table = energy_bars(runs, baseline="mesh")
    mesh, smbi = runs["mesh"].energy, runs["smbi"].energy
    assert table[0].sum() == pytest.approx(1.0)
    assert table[1].sum() == pytest.approx(smbi.total / mesh.total)
    assert table[1][0] == pytest.approx(smbi.router_static / mesh.total)


def test_power_is_energy_over_the_run(runs):
    _, table = energy_bars(runs, quantity="power")
    for row, r in zip(table, runs.values(), strict=True):
        assert row.sum() == pytest.approx(r.energy.total / r.seconds)


def test_another_model_can_be_drawn(runs):
    _, dsent = energy_bars(runs)
    _, text = energy_bars(runs, model="paper-text")
    link = COMPONENTS.index("link_dynamic")
    assert text[0][link] / dsent[0][link] == pytest.approx(1.75 / 0.064809)
    assert text[0][COMPONENTS.index("link_static")] == 0


def test_the_drawing_stacks_four_segments_per_bar_with_the_total_on_top(runs):
    fig = draw_energy(runs, baseline="mesh", title="t")
    ax = fig.axes[0]
    assert len(ax.patches) == 2 * 4
    _, table = energy_bars(runs, baseline="mesh")
    heights = np.array([p.get_height() for p in ax.patches]).reshape(4, 2).T
    assert heights == pytest.approx(table)
    tops = [t.get_text() for t in ax.texts]
    assert tops == [f"{table[0].sum():.2f}×", f"{table[1].sum():.2f}×"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "router static",
        "router dynamic",
        "link static",
        "link dynamic",
    ]
    assert "mesh" in ax.get_ylabel()


def test_absolute_bars_are_in_millijoules(runs):
    ax = draw_energy(list(runs.items()), legend=False).axes[0]
    assert ax.get_ylabel() == "energy (mJ)"
    assert ax.get_legend() is None
    assert ax.texts[0].get_text().endswith(" mJ")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"baseline": "torus"}, "not one of the bars"), ({"quantity": "heat"}, "quantity")],
)
def test_bad_requests(runs, kwargs, message):
    with pytest.raises(SupermeshError, match=message):
        draw_energy(runs, **kwargs)
    with pytest.raises(SupermeshError, match="no runs"):
        energy_bars({})
