"""The executor layer: order, resumption, failures, interrupts, and dask against local processes."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from supermesh.errors import SpecError, SupermeshError
from supermesh.parallel import (
    SerialExecutor,
    map_tasks,
    open_executor,
    remove_temporaries,
    run_tasks,
)
from supermesh.trees.prove.family import prove_family


def slow_square(x: int) -> int:
    time.sleep(0.05 * (4 - x))  # later items finish first
    return x * x


def fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x


def test_results_in_input_order_whatever_the_completion_order():
    with open_executor(workers=2) as ex:
        done = [r.index for r in run_tasks(slow_square, [0, 1, 2, 3], executor=ex, progress=False)]
        assert sorted(done) == [0, 1, 2, 3]
        assert map_tasks(slow_square, [0, 1, 2, 3], executor=ex, progress=False) == [0, 1, 4, 9]


def test_serial_executor_runs_in_this_process():
    seen = []
    out = map_tasks(seen.append, [1, 2], executor=SerialExecutor(), progress=False)
    assert out == [None, None]
    assert seen == [1, 2]


def test_skip_reuses_earlier_results_without_running():
    ran = []

    def task(x: int) -> int:
        ran.append(x)
        return -x

    results = list(
        run_tasks(task, [1, 2, 3], skip=lambda x: 100 if x == 2 else None, progress=False)
    )
    assert sorted((r.item, r.value, r.skipped) for r in results) == [
        (1, -1, False),
        (2, 100, True),
        (3, -3, False),
    ]
    assert ran == [1, 3]


def test_first_failure_propagates_and_pending_tasks_are_cancelled():
    started = []

    def task(x: int) -> int:
        started.append(x)
        return fail_on_three(x)

    with pytest.raises(ValueError, match="three"):
        list(run_tasks(task, range(1, 50), executor=SerialExecutor(), progress=False))
    assert started == [1, 2, 3]  # nothing after the failure was started


def test_interrupt_cancels_queued_work():
    pool = ThreadPoolExecutor(max_workers=1)
    pool.slots = 3  # type: ignore[attr-defined]
    started = []

    def task(x: int) -> int:
        started.append(x)
        if x == 0:
            raise KeyboardInterrupt
        time.sleep(0.05)
        return x

    with pytest.raises(KeyboardInterrupt):
        list(run_tasks(task, range(20), executor=pool, progress=False))
    pool.shutdown(wait=True)
    assert len(started) < 20  # the queue beyond the window was never submitted


def test_bad_worker_count_and_unreachable_scheduler():
    with pytest.raises(SpecError), open_executor(workers=0):
        pass
    with (
        pytest.raises(SupermeshError, match="cannot reach"),
        open_executor(scheduler="tcp://127.0.0.1:9"),
    ):
        pass


def test_dask_local_cluster_gives_the_same_proofs_as_local_processes():
    distributed = pytest.importorskip("dask.distributed")
    with open_executor(workers=2) as ex:
        local = prove_family("smalter", "3..6", executor=ex, time_limit=20)
    with (
        distributed.LocalCluster(
            processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0"
        ) as cluster,
        open_executor(scheduler=cluster.scheduler_address) as ex,
    ):
        assert ex.slots == 2  # type: ignore[attr-defined]
        remote = prove_family("smalter", "3..6", executor=ex, time_limit=20)
    strip = [dict(s.to_json(), seconds=0) for s in local.sizes]
    assert strip == [dict(s.to_json(), seconds=0) for s in remote.sizes]
    assert local.all_sizes == remote.all_sizes


def sleep_long(x: int) -> int:
    time.sleep(30)
    return x


def test_interrupt_stops_running_local_workers_without_waiting():
    calls = []

    def skip(x: int) -> None:
        calls.append(x)
        if x == 3:  # Ctrl-C while items 0..2 are in flight
            raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt), open_executor(workers=2) as ex:
        list(run_tasks(sleep_long, range(6), executor=ex, skip=skip, progress=False))
    assert time.perf_counter() - start < 15  # the 30 s tasks were stopped, not awaited
    assert calls == [0, 1, 2, 3]


def test_remove_temporaries_only_touches_the_write_temporaries(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / ".a.json.k2j4").write_text("{")
    (tmp_path / ".b.json.k2j4").write_text("{")
    assert remove_temporaries([tmp_path / "a.json"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".b.json.k2j4", "a.json"]
