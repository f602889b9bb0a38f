"""Run independent tasks (proofs per size, simulation sweeps) on one machine or a cluster.

Every backend is a standard :class:`concurrent.futures.Executor`:

- a local :class:`~concurrent.futures.ProcessPoolExecutor` (the default, one worker per CPU);
- a dask.distributed cluster, when a scheduler address is given (``tcp://host:8786``); dask is
  an optional extra (``pip install 'supermesh[dask]'``) imported only then;
- :class:`SerialExecutor`, which runs each task in the calling process (debugging, tests,
  ``--workers 1``).

:func:`run_tasks` feeds items to an executor a few at a time, yields results as they complete
(with a progress bar on stderr when it is a terminal), reuses results a ``skip`` callable
vouches for (resuming an interrupted sweep), and on an interrupt or a failing task cancels what
is still pending before re-raising. :func:`map_tasks` returns the results in input order, so
output never depends on completion order. Tasks must write their files atomically
(:func:`supermesh.topologies.io.write_text_atomic`): then an interrupt leaves no partial file.
Local workers ignore Ctrl-C; the parent handles it, cancels the queue and stops the workers
(a worker stopped in the middle of a write may leave the write's hidden temporary file, which
the caller removes: :func:`remove_temporaries`).

Examples
--------
>>> with open_executor(workers=1) as ex:
...     map_tasks(abs, [-2, 1, -3], executor=ex, progress=False)
[2, 1, 3]
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from supermesh.errors import SpecError, SupermeshError

__all__ = [
    "SerialExecutor",
    "TaskResult",
    "map_tasks",
    "open_executor",
    "remove_temporaries",
    "run_tasks",
    "worker_count",
]

T = TypeVar("T")
R = TypeVar("R")


class SerialExecutor(Executor):
    """Run every task at submission, in the calling process (a debugging executor).

    Examples
    --------
    >>> SerialExecutor().submit(pow, 2, 5).result()
    32
    """

    slots = 1
    window = 1  # tasks run at submission: queue nothing ahead

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        """Run ``fn(*args, **kwargs)`` now; return a finished future (result or exception)."""
        future: Future[R] = Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # delivered through the future, like any executor
            future.set_exception(exc)
        return future


class _Sized(Executor):
    """An executor that also says how many tasks it runs at once (``slots``)."""

    def __init__(self, inner: Executor, slots: int, close: Callable[[], None] | None = None):
        self.inner, self.slots, self._close = inner, max(1, slots), close
        self.window = int(getattr(inner, "window", 2 * self.slots))
        self._done = False

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Shut down; ``wait=False`` also stops local worker processes still running a task."""
        if self._done:
            return
        self._done = True
        try:
            if isinstance(self.inner, ProcessPoolExecutor):
                running = list(getattr(self.inner, "_processes", {}).values())
                self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)
                if not wait:
                    for process in running:
                        process.terminate()
            else:
                self.inner.shutdown(wait=wait)
        finally:
            if self._close is not None:
                self._close()


def _worker_start(parent: int) -> None:
    """Worker initializer: Ctrl-C is the parent's to handle, and the worker dies with it.

    A parent stopped by SIGTERM or SIGKILL cannot stop its workers, which the system then gives
    to process 1 and which would go on running (and writing files). So each worker asks Linux
    to kill it when its parent dies (``PR_SET_PDEATHSIG``) and, on any system, watches its
    parent's pid and exits once it changes.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no usable libc: the watch below still holds
            pass

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def worker_count(workers: int | None, tasks: int | None = None) -> int:
    """Local processes worth starting: what was asked for, at most the cores and the tasks.

    Examples
    --------
    >>> worker_count(30, tasks=2) <= 2, worker_count(1, tasks=10)
    (True, 1)
    """
    n = workers or os.cpu_count() or 1
    n = min(n, os.cpu_count() or 1)
    if tasks is not None:
        n = min(n, max(tasks, 1))
    return max(n, 1)


def _dask(scheduler: Any) -> _Sized:
    try:
        from dask.distributed import Client
    except ImportError:
        raise SupermeshError(
            f"--scheduler {scheduler} needs dask.distributed, which is not installed",
            hint="pip install 'supermesh[dask]', or drop --scheduler to use local processes",
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise SupermeshError(
            f"cannot reach the dask scheduler at {scheduler}: {exc}",
            hint="start one with `dask scheduler` and `dask worker ADDRESS`, or fix the address",
        ) from None
    slots = sum(client.nthreads().values()) or 1
    return _Sized(client.get_executor(pure=False), slots, client.close)


@contextmanager
def open_executor(
    *, workers: int | None = None, scheduler: Any = None, tasks: int | None = None
) -> Iterator[Executor]:
    """The executor for a run, shut down (pending work cancelled) when the block ends.

    Parameters
    ----------
    workers : int, optional
        Local processes (default: ``os.cpu_count()``), never more than the cores nor than
        ``tasks`` (:func:`worker_count`); ``1`` runs everything in this process
        (:class:`SerialExecutor`). Ignored with a scheduler. Local workers die with this
        process, also when it is killed.
    tasks : int, optional
        How many tasks there are (caps the local workers).
    scheduler : str or dask cluster, optional
        A dask.distributed scheduler address (``tcp://host:8786``) or cluster object; tasks then
        run on its workers, which need supermesh installed.

    Yields
    ------
    concurrent.futures.Executor
        With a ``slots`` attribute: how many tasks it runs at once.

    Raises
    ------
    SpecError
        ``workers`` below 1.
    SupermeshError
        dask is missing or the scheduler cannot be reached.

    Examples
    --------
    >>> with open_executor(workers=1) as ex:
    ...     ex.submit(len, "abc").result(), ex.slots
    (3, 1)
    """
    if workers is not None and workers < 1:
        raise SpecError(f"--workers {workers} is not a positive number", hint="e.g. --workers 2")
    n = worker_count(workers, tasks)
    if scheduler is not None:
        executor = _dask(scheduler)
    elif n == 1:
        executor = _Sized(SerialExecutor(), 1)
    else:
        pool = ProcessPoolExecutor(
            max_workers=n, initializer=_worker_start, initargs=(os.getpid(),)
        )
        executor = _Sized(pool, n)
    failed = False
    try:
        yield executor
    except BaseException:
        failed = True
        raise
    finally:
        executor.shutdown(wait=not failed, cancel_futures=True)


@dataclass(frozen=True)
class TaskResult(Generic[T, R]):
    """One finished task.

    Attributes
    ----------
    index : int
        Position of the item in the input.
    item : object
        The input item.
    value : object
        What the task returned (or what ``skip`` vouched for).
    skipped : bool
        The value came from ``skip`` (an earlier run), not from running the task.
    """

    index: int
    item: T
    value: R
    skipped: bool = False


def _progress(enabled: bool, total: int, description: str) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    console = Console(file=sys.stderr)
    return Progress(
        f"[bold]{description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not enabled or not console.is_terminal,
    )


def run_tasks(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    executor: Executor | None = None,
    progress: bool = True,
    skip: Callable[[T], R | None] | None = None,
    description: str = "tasks",
) -> Iterator[TaskResult[T, R]]:
    """Run ``fn(item)`` for every item and yield the results as they complete.

    Parameters
    ----------
    fn : callable
        A picklable top-level function (process pools and dask send it to other processes).
    items : iterable
        Picklable inputs.
    executor : concurrent.futures.Executor, optional
        Where to run (default: a :class:`SerialExecutor`). Its ``window`` attribute, if any,
        is how many tasks are submitted ahead (default: twice its ``slots``, else 2).
    progress : bool
        Show a progress bar on stderr (never when stderr is not a terminal).
    skip : callable, optional
        ``skip(item)`` returns an earlier result to reuse (after re-checking it) or ``None`` to
        run the task; called in this process before submitting.
    description : str
        Label of the progress bar.

    Yields
    ------
    TaskResult
        In completion order; sort by ``index`` (or use :func:`map_tasks`) for a stable order.

    Raises
    ------
    Exception
        The first exception a task raised, after cancelling the tasks not yet started.
    KeyboardInterrupt
        Re-raised after cancelling pending tasks and shutting the executor down without waiting
        (local workers still running are stopped); the CLI turns it into exit status 130.

    Examples
    --------
    >>> sorted(r.value for r in run_tasks(len, ["a", "bcd"], progress=False))
    [1, 3]
    """
    todo = list(enumerate(items))
    executor = executor if executor is not None else SerialExecutor()
    window = int(getattr(executor, "window", 2 * int(getattr(executor, "slots", 1))))
    pending: dict[Future[R], tuple[int, T]] = {}
    with _progress(progress, len(todo), description) as bar:
        task = bar.add_task(description, total=len(todo))
        queue = iter(todo)
        try:
            while True:
                for index, item in queue:
                    reused = skip(item) if skip is not None else None
                    if reused is not None:
                        bar.advance(task)
                        yield TaskResult(index, item, reused, skipped=True)
                        continue
                    pending[executor.submit(fn, item)] = (index, item)
                    if len(pending) >= window:
                        break
                if not pending:
                    return
                done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: pending[f][0]):
                    index, item = pending.pop(future)
                    value = future.result()
                    bar.advance(task)
                    yield TaskResult(index, item, value)
        except BaseException as exc:
            for future in pending:
                future.cancel()
            if isinstance(exc, KeyboardInterrupt):
                executor.shutdown(wait=False, cancel_futures=True)  # stop running tasks too
            raise


def map_tasks(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    executor: Executor | None = None,
    progress: bool = True,
    skip: Callable[[T], R | None] | None = None,
    description: str = "tasks",
) -> list[R]:
    """:func:`run_tasks`, collected in input order (deterministic whatever the completion order).

    Examples
    --------
    >>> map_tasks(str.upper, ["b", "a"], progress=False)
    ['B', 'A']
    """
    results = list(
        run_tasks(
            fn, items, executor=executor, progress=progress, skip=skip, description=description
        )
    )
    return [r.value for r in sorted(results, key=lambda r: r.index)]


def remove_temporaries(paths: Iterable[str | os.PathLike[str]]) -> int:
    """Delete the temporary files an interrupted atomic write of ``paths`` may have left.

    :func:`supermesh.topologies.io.write_text_atomic` writes ``.NAME.XXXX`` beside ``NAME`` and
    renames it; a process killed in between leaves it behind. Returns how many were removed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / ".a.json.x1y2").write_text("{")
    >>> remove_temporaries([d / "a.json"]), list(d.iterdir())
    (1, [])
    """
    removed = 0
    for path in paths:
        target = Path(path)
        if target.parent.is_dir():
            for stray in target.parent.glob(f".{target.name}.*"):
                stray.unlink(missing_ok=True)
                removed += 1
    return removed
