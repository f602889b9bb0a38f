"""Benchmark: family proofs (issue 7), ``supermesh prove smbi --grids 2..64`` and friends.

Target: SMBi 2x2..64x64 (tree count with its Frank subpartition, corner and per-side heights,
one certificate file per size re-checked by verify/) in under 10 minutes on 2 cores, and the
all-sizes statements for SMBi and SMAlter at even sizes.

Run: ``python3 bench/bench_prove.py [--workers N] [RUN ...]`` where RUN is ``family=sizes``
(default: ``smbi=2..64 smalter=4..64:2 smalter=3..63:2``). Certificates go to a temporary
directory, removed at the end; each run is timed cold (wall and CPU seconds, workers included)
and resumed (every file re-checked and reused). Prints one table; the load average is printed
because other jobs on the machine stretch wall times (CPU seconds / 2 estimates the wall time
on 2 idle cores).
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time

from supermesh.parallel import open_executor
from supermesh.trees.prove.family import FamilyProof, prove_family

DEFAULT = ["smbi=2..64", "smalter=4..64:2", "smalter=3..63:2"]


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(family: str, sizes: str, out: str, workers: int) -> tuple[FamilyProof, float, float]:
    """Wall and CPU seconds (this process and its reaped workers) of one prove_family call."""
    cpu, start = _cpu(), time.perf_counter()
    with open_executor(workers=workers) as ex:
        fp = prove_family(family, sizes, out_dir=out, executor=ex, time_limit=120)
    return fp, time.perf_counter() - start, _cpu() - cpu


def main(argv: list[str]) -> None:
    workers = 2
    if argv[:1] == ["--workers"]:
        workers, argv = int(argv[1]), argv[2:]
    runs = [a.split("=", 1) for a in (argv or DEFAULT)]
    print(f"cpus {os.cpu_count()}, workers {workers}, load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'family':<10} {'sizes':<10} {'n':>3} {'wall s':>7} {'cpu s':>7} {'resume':>7} "
        f"{'proven':>6} {'max':>6} {'corners':>22} {'sides':>36} {'all sizes':>12}"
    )
    for family, sizes in runs:
        with tempfile.TemporaryDirectory() as out:
            fp, wall, cpu = _timed(family, sizes, out, workers)
            again, resumed, _ = _timed(family, sizes, out, workers)
        assert all(s.reused for s in again.sizes)
        counts = sorted({s.max_trees for s in fp.sizes})
        kinds = {
            name: sorted(
                {
                    f"{c.status}/{c.bound or '-'}"
                    for s in fp.sizes
                    for n, c in s.choices.items()
                    if n == name
                }
            )
            for name in fp.roots
        }
        a = fp.all_sizes
        statement = "none" if a is None else f"{len(a['checked'])} ok, {len(a['contradicted'])} x"
        print(
            f"{family:<10} {sizes:<10} {len(fp.sizes):>3} {wall:>7.1f} {cpu:>7.1f} "
            f"{resumed:>7.1f} {sum(s.proven for s in fp.sizes):>6} {counts!s:>6} "
            f"{','.join(kinds.get('corners', [])):>22} {','.join(kinds.get('sides', [])):>36} "
            f"{statement:>12}"
        )
        slow = max(fp.sizes, key=lambda s: s.seconds)
        print(
            f"  slowest size {slow.size}: {slow.seconds:.1f} s; "
            f"largest: {fp.sizes[-1].size} heights {fp.sizes[-1].heights}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
