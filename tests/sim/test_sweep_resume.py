"""Sweeps resumed and on a dask cluster: the same rows as one uninterrupted local run.

The independent fact is the serial sweep itself: a sweep killed after some rows and started
again with the same checkpoint must simulate only the rest and return exactly the serial rows;
a sweep on a dask LocalCluster must return them too.
"""

from __future__ import annotations

import json

import pytest

from supermesh.sim import get_preset
from supermesh.sim.sweep import SweepCase, checkpoint_path, run_sweep

CASES = [
    SweepCase(spec, "allreduce", alg, size)
    for spec, alg in (("smbi:4x4", "pipeline"), ("mesh:4x4", "tto"), ("mesh:3x3", "ring"))
    for size in (1 << 20, 1 << 22)
]


class Killed(Exception):
    pass


def test_a_killed_sweep_resumes_with_the_same_rows(tmp_path):
    params = get_preset("booksim")
    serial = run_sweep(CASES, params, time_limit=10)
    ckpt = checkpoint_path(tmp_path / "ar.csv")
    seen: list = []

    def die_after_three(row):
        seen.append(row)
        if len(seen) == 3:
            raise Killed

    with pytest.raises(Killed):
        run_sweep(CASES, params, time_limit=10, checkpoint=ckpt, on_row=die_after_three)
    assert len(ckpt.read_text().splitlines()) == 1 + 3  # the settings, then three rows
    redone: list = []
    resumed = run_sweep(CASES, params, time_limit=10, checkpoint=ckpt, on_row=redone.append)
    assert resumed == serial
    assert len(redone) == len(CASES) - 3  # only the rows the killed run had not finished


def test_a_checkpoint_of_other_settings_is_not_reused(tmp_path):
    ckpt = tmp_path / "rows.jsonl"
    run_sweep(CASES[:2], get_preset("booksim"), time_limit=10, checkpoint=ckpt)
    redone: list = []
    rows = run_sweep(
        CASES[:2], get_preset("paper"), time_limit=10, checkpoint=ckpt, on_row=redone.append
    )
    assert len(redone) == 2
    assert rows == run_sweep(CASES[:2], get_preset("paper"), time_limit=10)
    assert json.loads(ckpt.read_text().splitlines()[0])["sweep"]["params"]["name"] == "paper"


def test_a_half_written_last_line_is_simulated_again(tmp_path):
    params = get_preset("booksim")
    ckpt = tmp_path / "rows.jsonl"
    run_sweep(CASES[:3], params, time_limit=10, checkpoint=ckpt)
    lines = ckpt.read_text().splitlines()
    ckpt.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    redone: list = []
    rows = run_sweep(CASES[:3], params, time_limit=10, checkpoint=ckpt, on_row=redone.append)
    assert len(redone) == 1
    assert rows == run_sweep(CASES[:3], params, time_limit=10)


def test_a_sweep_on_a_dask_cluster_gives_the_serial_rows():
    from dask import distributed  # in the test extra

    params = get_preset("booksim")
    serial = run_sweep(CASES, params, time_limit=10)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        rows = run_sweep(CASES, params, time_limit=10, scheduler=cluster.scheduler_address)
    assert rows == serial
