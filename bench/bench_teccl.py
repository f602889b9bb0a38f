"""TE-CCL benchmark: solve time and status per size and collective, and the AllToAll comparison.

Run: ``python3 bench/bench_teccl.py [--quick] [--time-limit SECONDS]``. Prints tables:

1. Solves: mesh, SMBi and SMAlter at 3x3 and 4x4 (``auto``: CP-SAT where the integer model is
   small) and 8x8 (``lp-rounding``: the LP relaxation guiding the list schedule), for the
   AllGather loop body (ReduceScatter and AllReduce reuse it on these symmetric networks) and the
   AllToAll one, with 1, 2 and 4 chunks per source: finish time in epochs, the proven lower
   bound, status, method and seconds.
2. The AllToAll comparison of the paper's Figure 21 (3x3, TE-CCL): simulated time (booksim
   preset) of mesh, SMBi and SMAlter at sizes from 64 KiB to 64 MiB per chiplet's buffer,
   the speedups over the mesh, and the concurrent-flow bound's speedup (the most any schedule
   can gain).
"""

from __future__ import annotations

import argparse
import time

from supermesh.sim import get_preset
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.multicommodity import alltoall_bound
from supermesh.sim.teccl import solve_teccl
from supermesh.topologies import build
from supermesh.units import format_size


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def solves(quick: bool, time_limit: float) -> None:
    rows = []
    sizes = ["3x3", "4x4"] if quick else ["3x3", "4x4", "8x8"]
    for size in sizes:
        for family in ("mesh", "smbi", "smalter"):
            G = build(f"{family}:{size}")
            for problem in ("allgather", "alltoall"):
                for k in (1, 2) if quick else (1, 2, 4):
                    if size == "8x8" and (problem == "alltoall" or k > 1):
                        method = "greedy"  # beyond the LP sizes of this machine
                    else:
                        method = "lp-rounding" if size == "8x8" else "auto"
                    t0 = time.perf_counter()
                    s = solve_teccl(G, problem, k, time_limit=time_limit, method=method)
                    seconds = time.perf_counter() - t0
                    rows.append(
                        [
                            f"{family}:{size}",
                            problem,
                            str(k),
                            str(s.epochs),
                            str(s.lower_bound),
                            s.status + (" (time limit)" if s.stats.get("stopped") else ""),
                            s.method,
                            f"{s.stats['variables']:,}",
                            f"{seconds:.1f}",
                        ]
                    )
                    print(" ".join(rows[-1]), flush=True)
    table(
        "TE-CCL loop bodies (epochs of one chunk transfer; RS and AR reuse the AllGather body)",
        ["topology", "problem", "K", "epochs", "bound", "status", "method", "variables", "s"],
        rows,
    )


def alltoall(quick: bool, time_limit: float) -> None:
    params = get_preset("booksim")
    sizes = [64 << 10, 1 << 20, 16 << 20] if quick else [64 << 10, 1 << 20, 4 << 20, 64 << 20]
    cache: dict = {}
    rows = []
    ratio = {}
    for fam in ("mesh", "smbi", "smalter"):
        ratio[fam] = alltoall_bound(build(f"{fam}:3x3")).value
    for nbytes in sizes:
        times = {}
        for fam in ("mesh", "smbi", "smalter"):
            G = build(f"{fam}:3x3")
            r = run_algorithm(
                G, "teccl", "alltoall", nbytes, params, cache=cache, time_limit=time_limit
            )
            d = run_algorithm(G, "direct", "alltoall", nbytes, params, cache=cache)
            times[fam] = (r.time, d.time, r.meta["teccl"]["a2a"])
        m = times["mesh"][0]
        rows.append(
            [
                format_size(nbytes),
                *(f"{times[f][0]:,.0f}" for f in ("mesh", "smbi", "smalter")),
                f"{m / times['smbi'][0]:.3f}",
                f"{m / times['smalter'][0]:.3f}",
                f"{times['mesh'][1] / times['smbi'][1]:.3f}",
                "/".join(
                    f"{times[f][2]['epochs']}:{times[f][2]['status'][0]}"
                    for f in ("mesh", "smbi", "smalter")
                ),
            ]
        )
    table(
        "AllToAll on 3x3 with TE-CCL (booksim cycles; size = each chiplet's buffer)",
        ["size", "mesh", "SMBi", "SMAlter", "SMBi x", "SMAlter x", "direct SMBi x", "epochs"],
        rows,
    )
    print(
        f"bound speedups (concurrent flow): SMBi {ratio['smbi'] / ratio['mesh']:.3f}x, "
        f"SMAlter {ratio['smalter'] / ratio['mesh']:.3f}x; paper (TE-CCL): up to 1.72x and 1.53x"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    solves(args.quick, args.time_limit)
    alltoall(args.quick, args.time_limit)


if __name__ == "__main__":
    main()
