"""Speedups against the mesh and against TACOS, held to the times simulated one by one."""

from __future__ import annotations

import pytest

from supermesh.sim import get_preset, run_algorithm, run_sweep, sweep_cases
from supermesh.sim.compare import add_speedups, mesh_spec_for
from supermesh.topologies import build


def test_mesh_spec_for():
    assert mesh_spec_for("smalter:5x5") == "mesh:5x5"
    assert mesh_spec_for("partial-smbi:4x6,io=east") == "mesh:4x6"
    assert mesh_spec_for("hexamesh:3-4-3") is None


def test_speedups_are_the_ratios_of_separate_runs():
    params = get_preset()
    size = 1 << 20
    cases = sweep_cases(["smbi:4x4", "mesh:4x4"], ["allgather"], ["pipeline", "tacos"], [size])
    rows = add_speedups(run_sweep(cases, params), params)
    by = {(r["topology"], r["algorithm"]): r for r in rows}

    def t(spec: str, alg: str) -> float:
        return run_algorithm(build(spec), alg, "allgather", size, params, bound=False).time

    sm = by[("smbi:4x4", "pipeline")]
    assert sm["speedup_vs_mesh"] == pytest.approx(t("mesh:4x4", "pipeline") / sm["time"], 1e-4)
    assert sm["speedup_vs_tacos"] == pytest.approx(t("smbi:4x4", "tacos") / sm["time"], 1e-4)
    assert by[("mesh:4x4", "pipeline")]["speedup_vs_mesh"] == 1.0  # the mesh against itself
    assert by[("smbi:4x4", "tacos")]["speedup_vs_tacos"] == 1.0
    # the doubled perimeter doubles a corner's links: TACOS on SMBi is about twice as fast
    assert by[("smbi:4x4", "tacos")]["speedup_vs_mesh"] > 1.8


def test_no_baseline_where_none_exists():
    params = get_preset()
    rows = run_sweep(
        sweep_cases(["hexamesh:3-4-3"], ["broadcast"], ["pipeline"], [1 << 16]), params
    )
    out = add_speedups(rows, params)
    assert out[0]["speedup_vs_mesh"] is None  # no grid
    assert out[0]["speedup_vs_tacos"] is None  # TACOS does not synthesise broadcasts
