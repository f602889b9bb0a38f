"""``sweep``: tables within 80 columns; ``-o FILE``: a killed sweep started again keeps its
finished rows; ``--scheduler`` and ``--workers`` run the same rows elsewhere.

The resumed file must equal, byte for byte, the file of one uninterrupted run; a checkpoint of
other settings is refused (exit 2, one error and one hint line) and neither it nor the old
output is touched.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from supermesh.sim.presets import get_preset
from supermesh.sim.sweep import checkpoint_path, run_sweep, sweep_cases

ROOT = Path(__file__).resolve().parents[2]
# topology-major: each topology's first row waits for its trees (a CP-SAT solve), so a sweep
# killed after its first row has work left
SWEEP = ["sweep", "mesh:3x3", "smbi:4x4", "smalter:4x4", "mesh:4x4", "smbi:3x3"]
SWEEP += ["--sizes", "64KiB,1MiB", "-a", "pipeline", "--no-compare", "--time-limit", "10"]


def _kill_after_first_row(out: Path) -> int:
    """Start the sweep in a process, SIGKILL it once its checkpoint holds a finished row;
    return how many rows it holds then."""
    ckpt = checkpoint_path(out)
    code = "import sys; from supermesh.cli import main; main(sys.argv[1:])"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *SWEEP, "-q", "-o", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if ckpt.exists() and len(ckpt.read_text().splitlines()) >= 2:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.005)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    assert not out.exists()  # nothing written but the checkpoint
    return len(ckpt.read_text().splitlines()) - 1


@pytest.mark.slow
def test_a_killed_sweep_started_again_gives_the_rows_of_one_run(run_cli, tmp_path):
    whole = tmp_path / "whole.csv"
    assert run_cli(*SWEEP, "-o", str(whole))[0] == 0
    assert not checkpoint_path(whole).exists()  # removed once the file is written

    out = tmp_path / "rows.csv"
    kept = _kill_after_first_row(out)
    assert 1 <= kept < 10
    code, _, err = run_cli(*SWEEP, "-o", str(out))
    assert code == 0, err
    assert f"resuming: {kept} row{'s' if kept > 1 else ''} of 10 kept from" in err
    assert out.read_bytes() == whole.read_bytes()
    assert not checkpoint_path(out).exists()


def test_a_checkpoint_of_other_settings_is_refused_and_kept(run_cli, tmp_path):
    out = tmp_path / "rows.csv"
    out.write_text("the rows of an earlier sweep\n")
    ckpt = checkpoint_path(out)
    cases = sweep_cases(["mesh:3x3"], ["allreduce"], ["ring"], [1 << 16])
    run_sweep(cases, get_preset("paper"), time_limit=10, checkpoint=ckpt)  # killed, in effect
    before = ckpt.read_bytes()
    args = ["sweep", "mesh:3x3", "--sizes", "64KiB", "-a", "ring", "--time-limit", "10"]
    code, _out_text, err = run_cli(*args, "-o", str(out))  # booksim, not paper
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("error: ")
    assert "other settings" in lines[0]
    assert lines[1].startswith("hint: ")
    assert str(ckpt) in lines[1]
    assert ckpt.read_bytes() == before
    assert out.read_text() == "the rows of an earlier sweep\n"
    # the settings it was made with finish it
    code, _, err = run_cli(*args, "--preset", "paper", "-o", str(out))
    assert code == 0, err
    assert "resuming: 1 row of 1 kept" in err
    assert out.read_text().startswith("topology,")


def test_no_checkpoint_beside_a_device(run_cli, tmp_path):
    args = ["sweep", "mesh:2x2", "--sizes", "64KiB", "-a", "ring", "--no-compare", "-q"]
    code, _out, err = run_cli(*args, "-o", "/dev/null", "--format", "csv")
    assert code == 0, err
    assert not checkpoint_path("/dev/null").exists()


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--scheduler", "not a url"], "--scheduler 'not a url' is not a scheduler address"),
        (["--workers", "0"], "--workers '0' is out of range"),
        (["--workers", "²"], "--workers '²' is not a whole number"),
        (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "--workers does not apply"),
        (["-o", "/nonexistent/rows.csv"], "does not exist"),
    ],
)
def test_where_the_sweep_runs_is_checked_first(run_cli, extra, says):
    code, _out, err = run_cli("sweep", "mesh:2x2", "--sizes", "64KiB", "-a", "ring", *extra)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[1].startswith("hint: "), err
    assert says in lines[0], err


def _rows(run_cli, *extra: str) -> list[dict]:
    args = ["sweep", "mesh:3x3", "smbi:3x3", "--sizes", "64KiB", "-a", "ring,pipeline"]
    code, out, err = run_cli(*args, "--no-compare", "--json", "--time-limit", "10", *extra)
    assert code == 0, err
    rows: list[dict] = json.loads(out)["rows"]
    return rows


@pytest.mark.slow
def test_workers_and_a_dask_cluster_give_the_serial_rows(run_cli):
    from dask import distributed  # in the test extra

    serial = _rows(run_cli)
    assert _rows(run_cli, "--workers", "2") == serial
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        assert _rows(run_cli, "--scheduler", cluster.scheduler_address) == serial


def test_the_tables_fit_80_columns_untruncated(run_cli):
    specs = ["partial-smalter:4x4,io=east", "mesh:3x3"]
    wide = ["--sizes", "512MiB", "-c", "reducescatter", "-a", "ring", "--no-compare", "-q"]
    small = ["--sizes", "64KiB", "-c", "reducescatter", "-a", "ring", "-q"]  # with speedups
    for args in (wide, small):
        code, out, err = run_cli("sweep", *specs, *args)
        assert code == 0, err
        assert max(len(line) for line in out.splitlines()) <= 80, out
        assert "\u2026" not in out  # rich's ellipsis: nothing cut short
    assert out.count("speedup (baseline time / this time)") == 2  # one per topology
    assert "partial-smalter:4x4,io=east: speedup" in out
