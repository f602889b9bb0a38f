"""Throughput-optimal ReduceScatter / AllGather: bounds, packings, heights and simulated times.

Run: ``python3 bench/bench_throughput.py [--quick] [--workers N]``. Prints four tables:

1. The exact cut bound (links of algorithm bandwidth) and the weighted packing that reaches it,
   with its tallest tree against the diameter, mesh / SMBi / SMAlter from 4x4 to 16x16
   (``--quick``: up to 8x8). Target: the bound reached, tallest tree <= diameter + 1.
2. AllGather of 512 MiB in simulation (``booksim`` and ``paper`` presets) with equal-part trees
   (the part count the simulator picks:
   :func:`supermesh.trees.schedule.collective.throughput_packing`) and the list-scheduled FIFO order
   (:func:`supermesh.sim.packing.simulate_packing`); the same trees in the
   reference's depth order for comparison. "eff" divides by the rate a link really moves
   chunks at in the preset (12288 B per 1032 cycles, or per 511.52 ns: every chunk hop also
   pays its hop latency), "raw" by the preset's raw link bandwidth, which is what the
   simulator's ``lower_bound`` uses and which no chunked schedule can reach (at most 98.8% /
   96.1%). Target: eff >= 99% of the bound.
3. ReduceScatter on 8x8 SMBi (``booksim``), 1 MiB to 512 MiB: these trees against the
   AllReduce the simulator's ``pipeline`` runs (4 corner trees) and the paper's root sets.
   Targets: 1 MiB no slower than half the AllReduce; never slower than the root sets.
4. The knob: rate against per-root height caps (``root_slack``) on SMAlter.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.packing import simulate_packing
from supermesh.topologies import build
from supermesh.trees.schedule.collective import throughput_packing
from supermesh.trees.throughput.pack import pack_throughput

MIB = 1 << 20


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n{title}", flush=True)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=False)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)), flush=True)


def diameter(G) -> int:
    import networkx as nx

    return max(max(d.values()) for _, d in nx.all_pairs_shortest_path_length(nx.DiGraph(G)))


def packings(sizes: list[int], workers: int) -> None:
    rows = []
    for n in sizes:
        for family in ("mesh", "smbi", "smalter"):
            spec = f"{family}:{n}x{n}"
            G = build(spec)
            t0 = time.perf_counter()
            p = pack_throughput(G, workers=workers)
            dt = time.perf_counter() - t0
            s = p.stats
            rows.append(
                [
                    spec,
                    s["optimum"],
                    f"{s['optimum_float']:.4f}",
                    str(s["bound_certificate"]["set"]),
                    p.status,
                    f"{s['rate_fraction']:.6f}",
                    f"{p.objective} / {diameter(G)}",
                    str(s["max_trees_per_root"]),
                    f"{dt:.1f}",
                ]
            )
    table(
        "1. Cut bound (AllGather = ReduceScatter here) and the weighted packing reaching it",
        [
            "topology",
            "bound",
            "links",
            "cut",
            "status",
            "rate/bound",
            "height/diam",
            "trees/rank",
            "s",
        ],
        rows,
    )


def allgather(specs: list[str], cache: dict) -> None:
    rows = []
    nbytes = 512 * MIB
    for spec in specs:
        G = build(spec)
        p = throughput_packing(G, "out", nbytes=nbytes, memo=cache.setdefault((spec, "out"), {}))
        opt = float(Fraction(p.stats["optimum"]))
        for preset in ("booksim", "paper"):
            params = get_preset(preset)
            eff = params.chunk_bytes / params.chunk_period()
            for order in ("schedule", "depth"):
                if order == "depth" and preset == "paper":
                    continue
                t0 = time.perf_counter()
                r = simulate_packing(G, p, "allgather", nbytes, params=params, order=order)
                links = nbytes / r.time / eff
                rows.append(
                    [
                        spec,
                        preset,
                        str(p.stats["parts"]["parts"]),
                        p.stats["parts"]["algbw_links"],
                        order,
                        f"{r.reported_time():.6g}",
                        f"{links:.4f}",
                        f"{links / opt:.2%}",
                        f"{nbytes / r.time / params.link_bandwidth() / opt:.2%}",
                        f"{time.perf_counter() - t0:.0f}",
                    ]
                )
    table(
        "2. AllGather 512 MiB, equal-part trees: links of algorithm bandwidth",
        [
            "topology",
            "preset",
            "K",
            "trees' rate",
            "FIFO order",
            "time",
            "links(eff)",
            "eff/bound",
            "raw/bound",
            "sim s",
        ],
        rows,
    )


def reducescatter(spec: str, sizes: list[int]) -> None:
    G = build(spec)
    params = get_preset("booksim")
    memo: dict = {}  # part count -> packing, shared over the sizes as the simulator shares it
    sim_cache: dict = {}
    rows = []
    for mib in sizes:
        nbytes = mib * MIB
        p = throughput_packing(G, "in", nbytes=nbytes, memo=memo)
        ours = simulate_packing(G, p, "reducescatter", nbytes, params=params).time
        ar = run_algorithm(G, "pipeline", "allreduce", nbytes, params, cache=sim_cache).time
        paper = run_algorithm(G, "paper", "reducescatter", nbytes, params, cache=sim_cache).time
        rows.append(
            [
                f"{mib} MiB",
                str(p.stats["parts"]["parts"]),
                f"{ours:.0f}",
                f"{ar / 2:.0f}",
                f"{ours / (ar / 2):.3f}",
                f"{paper:.0f}",
                f"{paper / ours:.2f}x",
            ]
        )
    loads = {k: v.stats["parts"]["max_load"] for k, v in sorted(memo.items())}
    print(f"\nReduceScatter trees on {spec}: part count -> trees on the busiest link:", flush=True)
    print("  " + ", ".join(f"{k}: {v}" for k, v in loads.items()), flush=True)
    table(
        f"3. ReduceScatter on {spec}, booksim cycles",
        [
            "size",
            "K",
            "these trees",
            "AllReduce/2",
            "ours/(AR/2)",
            "paper root sets",
            "speedup vs paper",
        ],
        rows,
    )


def knob(specs: list[str], workers: int) -> None:
    rows = []
    for spec in specs:
        G = build(spec)
        for slack in (0, 1, 2, None):
            p = pack_throughput(G, root_slack=slack, workers=workers)
            heights = [t.height for t in p.trees]
            rows.append(
                [
                    spec,
                    "none" if slack is None else str(slack),
                    f"{p.stats['rate_fraction']:.4f}",
                    str(max(heights)),
                    f"{sum(heights) / len(heights):.2f}",
                ]
            )
    table(
        "4. Per-root height caps (eccentricity + slack) against the rate",
        ["topology", "root slack", "rate/bound", "max height", "mean height"],
        rows,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="up to 8x8; fewer sizes")
    ap.add_argument("--workers", type=int, default=1, help="CP-SAT workers")
    args = ap.parse_args()
    start = time.perf_counter()
    cache: dict = {}
    packings([4, 8] if args.quick else [4, 5, 8, 12, 16], args.workers)
    allgather(["mesh:4x4", "smbi:4x4", "smalter:4x4", "smbi:8x8", "smalter:8x8"], cache)
    sizes = [1, 4, 32, 512] if args.quick else [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    reducescatter("smbi:8x8", sizes)
    knob(["smalter:4x4", "smalter:8x8"], args.workers)
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
