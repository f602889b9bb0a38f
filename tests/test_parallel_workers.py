"""Local workers: as many as the work and the cores allow, and none outliving its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from supermesh.parallel import open_executor, worker_count


def test_worker_count_caps_at_tasks_and_cores():
    cores = os.cpu_count() or 1
    assert worker_count(30, tasks=2) == min(2, cores)
    assert worker_count(None, tasks=1) == 1
    assert worker_count(1, tasks=100) == 1
    assert worker_count(10**6) == cores


def test_thirty_workers_for_two_tasks_start_at_most_two():
    with open_executor(workers=30, tasks=2) as ex:
        assert ex.slots <= 2


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited but is not yet reaped
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_a_killed_parent(tmp_path, how):
    # a parent that starts two workers on long tasks, writes their pids, then waits forever
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys, time
            from supermesh.parallel import open_executor

            def pid_then_sleep(_):
                with open({str(tmp_path)!r} + f"/w{{os.getpid()}}", "w"):
                    pass
                time.sleep(300)

            with open_executor(workers=2, tasks=2) as ex:
                futures = [ex.submit(pid_then_sleep, i) for i in range(2)]
                time.sleep(300)
            """
        )
    )
    parent = subprocess.Popen([sys.executable, str(script)])
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < min(2, os.cpu_count() or 1):
        workers = [int(p.name[1:]) for p in tmp_path.glob("w*")]
        time.sleep(0.2)
    assert workers, "the workers never started"
    parent.send_signal(how)
    parent.wait(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers)
