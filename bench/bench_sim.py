"""Simulator benchmark: speed, the three calibration points, the paper's sweep and its speedups.

Run: ``python3 bench/bench_sim.py [--quick] [--time-limit SECONDS] [--workers N] [--full-order]``.
Prints tables; times trees (built once per topology and collective kind by the trees engine,
:func:`supermesh.sim.sweep.build_trees`) apart from simulation. The sweep's topologies run in
parallel (``--workers``, default 2 local processes: trees first, then simulations), and its
ReduceScatter / AllGather root sets use the fast mode of
:func:`supermesh.trees.roots.sets.root_sets` (2 s running-order search instead of up to 20 s;
partition, heights and proofs unchanged) unless ``--full-order``.

1. 512 MiB AllReduce on 16x16 SMBi with the reference chunking (10,923 chunks per tree, 4 trees of
   height 30 over 1,020 arcs): target under 2 s.
2. BRIEF section 4's calibration points against the reference cycles: target within 1%.
3. The paper's sweep: mesh (TTO AllReduce, MultiTree ReduceScatter/AllGather), SMBi and SMAlter
   (pipelined trees) at 16, 25, 64 and 81 chiplets, AR/RS/AG, 1 MiB to 512 MiB; and 9 to 256
   chiplets at 375 KiB per chiplet (AllReduce; AllGather up to 81): target under 60 s.
4. SuperMesh over mesh TTO AllReduce speedups (the paper reports 1.18-1.33x).
"""

from __future__ import annotations

import argparse
import time

from supermesh.sim import get_preset
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.sweep import SweepCase, build_trees, run_sweep
from supermesh.sim.tree_sets import phase_trees_for, trees_key
from supermesh.topologies import build
from supermesh.units import format_size

CALIBRATION = [
    ("smbi:4x4", "pipeline", 4 << 20, 187_865),
    ("mesh:8x8", "tto", 512 << 20, 30_086_982),
    ("smbi:9x9", "pipeline", 1 << 20, 76_425),  # the reference's "SMAlter 9x9" ran on SMBi
]


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)))


def trees(cache: dict, spec: str, algorithm: str, collective: str, limit: float) -> float:
    """Build (and cache) the trees a case needs; return the seconds it took."""
    G = build(spec)
    key = trees_key(G, algorithm, collective)  # the key run_algorithm looks up
    if key is None or key in cache:
        return 0.0
    t0 = time.perf_counter()
    cache[key] = phase_trees_for(G, algorithm, collective, time_limit=limit)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="16 and 25 chiplets only")
    ap.add_argument("--time-limit", type=float, default=30.0, help="CP-SAT seconds per tree set")
    ap.add_argument("--workers", type=int, default=2, help="local processes for the sweep")
    ap.add_argument(
        "--full-order", action="store_true", help="root sets without the fast mode (slower)"
    )
    args = ap.parse_args()
    params = get_preset("booksim")
    cache: dict = {}

    # 1. speed
    spec = "smbi:16x16"
    t_trees = trees(cache, spec, "pipeline", "allreduce", args.time_limit)
    G = build(spec)
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = run_algorithm(G, "pipeline", "allreduce", 512 << 20, params, cache=cache, bound=False)
        runs.append(time.perf_counter() - t0)
    table(
        "1. 512 MiB AllReduce on 16x16 SMBi (target < 2 s)",
        ["chunks/tree", "transfers", "cycles", "sim s (best/first)", "trees s"],
        [
            [
                str(r.meta["chunks"][0]),
                f"{r.meta['transfers']:,}",
                f"{r.time:,.1f}",
                f"{min(runs):.3f} / {runs[0]:.3f}",
                f"{t_trees:.1f}",
            ]
        ],
    )

    # 2. calibration
    rows = []
    for spec, alg, nbytes, ref in CALIBRATION:
        trees(cache, spec, alg, "allreduce", args.time_limit)
        r = run_algorithm(build(spec), alg, "allreduce", nbytes, params, cache=cache, bound=False)
        rows.append(
            [
                spec,
                alg,
                format_size(nbytes),
                str(max(r.meta["heights"])),
                f"{r.time:,.1f}",
                f"{ref:,}",
                f"{100 * (r.time - ref) / ref:+.4f}%",
            ]
        )
    table(
        "2. calibration (target within 1%)",
        ["topology", "algorithm", "size", "height", "simulated", "reference", "error"],
        rows,
    )

    # 3. the paper's sweep
    sides = (4, 5) if args.quick else (4, 5, 8, 9)
    sizes = [1 << (20 + i) for i in range(10)]
    cases = []
    for n in sides:
        for fam in ("mesh", "smbi", "smalter"):
            for coll in ("allreduce", "reducescatter", "allgather"):
                alg = (
                    ("tto" if coll == "allreduce" else "multitree") if fam == "mesh" else "pipeline"
                )
                cases += [SweepCase(f"{fam}:{n}x{n}", coll, alg, s) for s in sizes]
    scal = range(3, 9) if args.quick else range(3, 17)
    for n in scal:
        for fam in ("mesh", "smbi", "smalter"):
            colls = ["allreduce"] + (["allgather"] if n <= 9 else [])
            for coll in colls:
                alg = (
                    ("tto" if coll == "allreduce" else "multitree") if fam == "mesh" else "pipeline"
                )
                cases.append(SweepCase(f"{fam}:{n}x{n}", coll, alg, n * n * 375 * 1024))
    t0 = time.perf_counter()
    per_topology = build_trees(
        cases,
        time_limit=args.time_limit,
        cache=cache,
        workers=args.workers,
        fast=not args.full_order,
    )
    t_trees = time.perf_counter() - t0
    keys = {trees_key(build(c.spec), c.algorithm, c.collective) for c in cases} - {None}
    missing = keys - set(cache)
    t0 = time.perf_counter()
    out = run_sweep(cases, params, cache=cache, time_limit=args.time_limit, workers=args.workers)
    t_sim = time.perf_counter() - t0
    errors = [r for r in out if r["error"]]
    slowest = max(per_topology, key=per_topology.get) if per_topology else "-"
    table(
        f"3. the paper's sweep (target < 60 s; {args.workers} workers, "
        f"{'full' if args.full_order else 'fast'} root-set order)",
        ["cases", "simulation s", "trees s", "total s", "trees s, sum", "slowest", "errors"],
        [
            [
                str(len(out)),
                f"{t_sim:.1f}",
                f"{t_trees:.1f}",
                f"{t_sim + t_trees:.1f}",
                f"{sum(per_topology.values()):.1f}",
                f"{slowest} {per_topology.get(slowest, 0):.1f}",
                str(len(errors) + len(missing)),
            ]
        ],
    )
    for r in errors[:5]:
        print("   error:", r["topology"], r["collective"], r["algorithm"], r["error"])

    # 4. speedups
    by = {(r["topology"], r["collective"], r["bytes"]): r for r in out if not r["error"]}
    rows = []
    for n in sides:
        for fam in ("smbi", "smalter"):
            sp = []
            for s in sizes:
                base = by.get((f"mesh:{n}x{n}", "allreduce", s))
                sm = by.get((f"{fam}:{n}x{n}", "allreduce", s))
                if base and sm:
                    sp.append(base["time"] / sm["time"])
            if sp:
                rows.append(
                    [
                        f"{fam}:{n}x{n}",
                        f"{sp[0]:.3f}",
                        f"{sp[-1]:.3f}",
                        f"{min(sp):.3f}-{max(sp):.3f}",
                    ]
                )
    for n in scal:
        for fam in ("smbi", "smalter"):
            s = n * n * 375 * 1024
            base = by.get((f"mesh:{n}x{n}", "allreduce", s))
            sm = by.get((f"{fam}:{n}x{n}", "allreduce", s))
            if base and sm:
                x = base["time"] / sm["time"]
                rows.append([f"{fam}:{n}x{n} @375KiB/chiplet", f"{x:.3f}", "", ""])
    table(
        "4. AllReduce speedup over mesh TTO (paper: 1.18-1.33x)",
        ["topology", "1 MiB", "512 MiB", "range"],
        rows,
    )


if __name__ == "__main__":
    main()
