"""Benchmark: family proofs (issue 7), ``supermesh prove smbi --sizes 2..64`` and friends.

Target: SMBi 2x2..64x64 (tree count with its Frank subpartition, corner and per-side heights,
one certificate file per size re-checked by verify/) in under 10 minutes on 2 cores, and the
all-sizes statements for SMBi and SMAlter at even sizes.

Run: ``python3 bench/bench_prove.py [--workers N] [RUN ...]`` where RUN is ``family=sizes``
(default: ``smbi=2..64 smalter=4..64:2 smalter=3..63:2``). Certificates go to a temporary
directory, removed at the end; each run is timed twice, cold and resumed (every file re-checked
and reused). Prints one table; load average and CPU count are printed because other jobs on the
machine change the times.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from supermesh.parallel import open_executor
from supermesh.trees.prove import prove_family

DEFAULT = ["smbi=2..64", "smalter=4..64:2", "smalter=3..63:2"]


def main(argv: list[str]) -> None:
    workers = 2
    if argv[:1] == ["--workers"]:
        workers, argv = int(argv[1]), argv[2:]
    runs = [a.split("=", 1) for a in (argv or DEFAULT)]
    print(f"cpus {os.cpu_count()}, workers {workers}, load average {os.getloadavg()[0]:.2f}")
    header = (
        f"{'family':<10} {'sizes':<12} {'n':>3} {'cold s':>8} {'resume s':>9} {'proven':>6} "
        f"{'max trees':>10} {'corners':>14} {'sides':>22} {'all sizes':>14}"
    )
    print(header)
    for family, sizes in runs:
        with tempfile.TemporaryDirectory() as out, open_executor(workers=workers) as ex:
            start = time.perf_counter()
            fp = prove_family(family, sizes, out_dir=out, executor=ex, time_limit=120)
            cold = time.perf_counter() - start
            start = time.perf_counter()
            again = prove_family(family, sizes, out_dir=out, executor=ex, time_limit=120)
            resumed = time.perf_counter() - start
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
            f"{family:<10} {sizes:<12} {len(fp.sizes):>3} {cold:>8.1f} {resumed:>9.1f} "
            f"{sum(s.proven for s in fp.sizes):>6} {counts!s:>10} "
            f"{','.join(kinds.get('corners', [])):>14} {','.join(kinds.get('sides', [])):>22} "
            f"{statement:>14}"
        )
        slow = max(fp.sizes, key=lambda s: s.seconds)
        print(
            f"  slowest size {slow.size}: {slow.seconds:.1f} s; "
            f"largest: {fp.sizes[-1].size} heights {fp.sizes[-1].heights}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
