"""Benchmark: height-optimal tree packing (``pack_trees``) on SMBi and SMAlter.

For each size and root choice (4 corners, one root per side) prints the status, the tallest tree,
the lower bound, what the brief says the optimum is, the wall time and the peak memory of the run
(each case runs in a fresh process so the memory is its own).

Known optima (BRIEF.md section 3): SMBi corners 2N-2 (the eccentricity bound), SMBi one root per
side at its bound, SMAlter mid-side roots bound + 1 at every even N from 6 to 64.

Usage::

    python bench/bench_packing.py                 # N = 4, 8, 16, 32, 64
    python bench/bench_packing.py --sizes 4 8 16  # a quicker subset
    python bench/bench_packing.py --method construct
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import time
from typing import Any


def _expected(family: str, roots: str, n: int, bound: int) -> str:
    if family == "smbi":
        return str(bound)
    if family == "smalter" and roots == "sides" and n % 2 == 0 and n >= 6:
        return str(bound + 1)
    return "?"


def _case(args: tuple[str, int, str, float, str]) -> dict[str, Any]:
    family, n, roots, limit, method = args
    from supermesh.topologies import build
    from supermesh.trees.bounds.heights import height_lower_bound
    from supermesh.trees.packing.construct import construct_trees
    from supermesh.trees.packing.search import pack_trees
    from supermesh.trees.rootspec import resolve_roots

    G = build(f"{family}:{n}x{n}")
    ids = resolve_roots(G, roots)
    start = time.perf_counter()
    p = construct_trees(G, ids) if method == "construct" else pack_trees(G, ids, time_limit=limit)
    wall = time.perf_counter() - start
    bound = height_lower_bound(G, ids) or 0
    return {
        "case": f"{family}:{n}x{n}",
        "roots": roots,
        "status": p.status,
        "height": p.objective,
        "lower": p.lower_bound,
        "ecc": bound,
        "expected": _expected(family, roots, n, bound),
        "seconds": wall,
        "limit": limit,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    ap.add_argument("--families", nargs="+", default=["smbi", "smalter"])
    ap.add_argument("--method", choices=["cpsat", "construct"], default="cpsat")
    opts = ap.parse_args(argv)
    head = (
        f"{'topology':<14}{'roots':<9}{'status':<10}{'height':>7}{'bound':>7}{'ecc':>6}"
        f"{'known':>7}{'time s':>9}{'target':>8}{'MiB':>8}"
    )
    print(head)
    print("-" * len(head))
    ctx = mp.get_context("spawn")
    misses = 0
    for family in opts.families:
        for n in opts.sizes:
            for roots in ("corners", "sides"):
                limit = 60.0 if n > 32 else 10.0
                with ctx.Pool(1) as pool:
                    r = pool.apply(_case, ((family, n, roots, limit, opts.method),))
                ok = r["status"] == "optimal" and r["seconds"] < r["limit"]
                ok = ok and (r["expected"] == "?" or str(r["height"]) == r["expected"])
                misses += not ok
                print(
                    f"{r['case']:<14}{r['roots']:<9}{r['status']:<10}{r['height']!s:>7}"
                    f"{r['lower']!s:>7}{r['ecc']:>6}{r['expected']:>7}{r['seconds']:>9.2f}"
                    f"{r['limit']:>8.0f}{r['rss_mib']:>8.0f}" + ("" if ok else "  MISS")
                )
                sys.stdout.flush()
    print(f"\n{misses} case(s) missed the target (status optimal, known optimum, time limit).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
