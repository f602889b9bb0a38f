"""A corpus of files the tool writes, one of each kind that matters, made by the CLI itself.

:func:`write_corpus` runs ``supermesh`` commands in this process (the same code path as a user's
shell) and writes their files into a directory: topologies and designs, tree files of every
method (out, in, TTO, infeasible with its certificate, root sets, weighted with equal parts and
with LP shares, memory chiplets relaying, the paper's Algorithm 1), schedules of every collective
(AllReduce, AllGather, ReduceScatter, Broadcast, TTO, weighted AllGather, AllReduce from a size;
the synthesisers' tables: TACOS with its own FIFO steps, TE-CCL, AllToAll routes direct and
TE-CCL), topologies with per-arc link costs,
``prove`` certificate files and a sweep CSV. The mutation campaign
(:mod:`supermesh.testing.mutations`) breaks these files one field at a time.

Examples
--------
>>> sorted(CORPUS)[:3]
['design', 'proof-mesh', 'proof-smbi']
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
from pathlib import Path

from supermesh.errors import SupermeshError

__all__ = ["CORPUS", "KIND_OF", "write_corpus"]

# name -> (command line, where the file comes from: "-o", "csv" (-o FILE.csv), "stdout", or a file
# under a -o DIR)
CORPUS: dict[str, tuple[str, str]] = {
    "topology": ("topo smbi:4x4", "-o"),
    "topology-hexamesh": ("topo hexamesh:r1,memory=south", "-o"),
    "topology-costs": ("topo smbi:3x3,bandwidth=2,latency=3,added-latency=0.5", "-o"),
    "design": ("design mesh:4x4 --target-trees 4", "-o"),
    "trees-out": ("trees smbi:4x4", "-o"),
    "trees-in": ("trees smbi:4x4 --direction in", "-o"),
    "trees-tto": ("trees mesh:4x4 --method tto", "-o"),
    "trees-infeasible": ("trees smalter:5x5 --roots sides --json", "stdout"),
    "trees-root-sets": ("trees smalter:4x4 --root-sets", "-o"),
    "trees-weighted-parts": ("trees smbi:4x4 --throughput --parts 2", "-o"),
    "trees-weighted-lp": ("trees smbi:3x3 --throughput", "-o"),
    "trees-memory": ("trees mesh:4x4,memory=south --method tto", "-o"),
    "trees-algorithm1": ("trees smbi:8x8 --roots sides --method algorithm1", "-o"),
    "schedule-allreduce": ("schedule smbi:4x4 -c allreduce --chunks 3", "-o"),
    "schedule-allgather": ("schedule smbi:4x4 -c allgather --chunks 2", "-o"),
    "schedule-reducescatter": ("schedule smbi:4x4 -c reducescatter --chunks 2", "-o"),
    "schedule-broadcast": ("schedule smbi:4x4 -c broadcast --chunks 3", "-o"),
    "schedule-tto": ("schedule mesh:4x4 -c allreduce -a tto --chunks 3", "-o"),
    "schedule-weighted": ("schedule smbi:4x4 -c allgather -a throughput --chunks 4", "-o"),
    "schedule-size": ("schedule smbi:4x4 -c allreduce --size 1MiB", "-o"),
    "schedule-tacos": ("schedule smbi:3x3 -c allgather -a tacos --chunks 2", "-o"),
    "schedule-tacos-allreduce": ("schedule mesh:3x3 -c allreduce -a tacos", "-o"),
    "schedule-teccl": ("schedule mesh:3x3 -c allgather -a teccl", "-o"),
    "schedule-alltoall": ("schedule smbi:3x3 -c alltoall -a direct", "-o"),
    "schedule-alltoall-teccl": ("schedule mesh:2x3 -c alltoall -a teccl", "-o"),
    "proof-smbi": ("prove smbi --grids 4 --workers 1", "smbi_4x4.json"),
    "proof-mesh": ("prove mesh --grids 3 --workers 1", "mesh_3x3.json"),
    "sweep": (
        "sweep mesh:3x3 smbi:3x3 --sizes 64KiB,1MiB -c allreduce -a pipeline,ring,tacos",
        "csv",
    ),
}
"""The corpus: name -> (``supermesh`` arguments, where the file is written)."""

KIND_OF = {name: "sweep" if name == "sweep" else name.split("-")[0] for name in CORPUS}
"""Corpus name -> the file kind (``topology``, ``design``, ``trees``, ``schedule``, ``proof``,
``sweep``)."""


def _run(argv: list[str]) -> str:
    from supermesh.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(argv)
        except SystemExit as exc:
            if exc.code not in (0, 1, None):
                raise SupermeshError(f"supermesh {' '.join(argv)} exited {exc.code}") from None
    return out.getvalue()


def write_corpus(directory: str | Path, names: list[str] | None = None) -> dict[str, Path]:
    """Write the corpus files into ``directory``: name -> path (``.json``; the sweep ``.csv``).

    Parameters
    ----------
    directory : str or Path
        Created if needed; files already there are overwritten.
    names : list of str, optional
        A part of :data:`CORPUS` (default: all of it).

    Returns
    -------
    dict
        Name -> the file written.

    Raises
    ------
    SupermeshError
        If a command fails.
    """
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name in names if names is not None else list(CORPUS):
        args, where = CORPUS[name]
        argv = args.split()
        target = root / (f"{name}.csv" if where == "csv" else f"{name}.json")
        if where in ("-o", "csv"):
            _run([*argv, "-o", str(target)])
        elif where == "stdout":
            target.write_text(_run(argv))
        else:
            with tempfile.TemporaryDirectory() as tmp:
                _run([*argv, "-o", tmp])
                shutil.copy(Path(tmp) / where, target)
        written[name] = target
    return written
