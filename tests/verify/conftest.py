"""The corpus of tool outputs the verify tests share, written once per test run.

Under pytest-xdist every worker asks for it; the first one writes it (under a file lock) into a
directory all workers share, the others read it.
"""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from supermesh.testing.corpus import CORPUS, write_corpus


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, Path]:
    """Corpus name -> a file the tool wrote (see :mod:`supermesh.testing.corpus`)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base
    directory = shared / "verify-corpus"
    with open(shared / "verify-corpus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = directory / "complete"
        if not done.exists():
            write_corpus(directory)
            done.write_text("\n".join(CORPUS))
    return {
        name: directory / (f"{name}.csv" if name == "sweep" else f"{name}.json") for name in CORPUS
    }
