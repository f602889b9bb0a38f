"""Benchmark: exact tree counts with certificates (trees/bounds) at 16x16, 32x32 and 64x64.

Target (issue 3): the exact count with certificate for SMBi 64x64 (4096 chiplets) with 4 given
roots in under 10 s. "Exact count" = the 4 corner roots are feasible (Edmonds, every node checked
by max-flow) and a 5th tree is impossible (certificate set found and re-counted).

Run: ``python3 bench/bench_bounds.py [SIZES...]`` (default 16 32 64). Prints one table; the last
line is the peak resident memory of the process.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable
from typing import Any

from supermesh.topologies import build
from supermesh.trees.bounds.counts import check_roots, edmonds_deficit, max_trees_from_root
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.rootspec import resolve_roots


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def exact_count(spec: str) -> tuple[str, float]:
    """Corners feasible + one more tree ruled out, with the certificate re-counted."""
    G, t_build = timed(lambda: build(spec))
    corners = resolve_roots(G, "corners")
    ok, t_ok = timed(lambda: check_roots(G, corners))
    five = [*corners, corners[0]]
    bad, t_bad = timed(lambda: check_roots(G, five))
    cert = bad.certificate
    recount = edmonds_deficit(G, cert["set"], five) if cert else None
    proved = cert is not None and recount == (cert["entering_arcs"], cert["required"])
    proved = proved and recount is not None and recount[0] < recount[1]
    first = "feasible" if ok.feasible else f"infeasible ({ok.certificate['set'][:3]})"
    answer = f"4: {first}; 5: ruled out by {cert['set'][:3] if cert else '-'}"
    answer += " (recount ok)" if proved else " (RECOUNT FAILED)"
    return answer, t_build + t_ok + t_bad


def main(sizes: list[int]) -> None:
    rows: list[tuple[str, str, str, float]] = []
    for N in sizes:
        for family in ("smbi", "smalter", "mesh"):
            spec = f"{family}:{N}x{N}"
            answer, seconds = exact_count(spec)
            rows.append((spec, "4 corner roots, exact", answer, seconds))
        G = build(f"smbi:{N}x{N}")
        b, seconds = timed(lambda G=G: max_trees_from_root(G, 0))
        rows.append((f"smbi:{N}x{N}", "one root (0)", f"max {b.max_trees}", seconds))
        b, seconds = timed(lambda G=G: max_trees_free(G))
        t = len(b.certificate["sets"])
        rows.append((f"smbi:{N}x{N}", "free roots", f"max {b.max_trees} ({t}-set proof)", seconds))
        b, seconds = timed(lambda G=G: check_roots(G, resolve_roots(G, "sides"), direction="in"))
        rows.append((f"smbi:{N}x{N}", "sides, in-trees", f"feasible={b.feasible}", seconds))
    width = max(len(r[2]) for r in rows)
    print(f"{'topology':<16} {'query':<24} {'answer':<{width}} {'seconds':>8}")
    for spec, query, answer, seconds in rows:
        print(f"{spec:<16} {query:<24} {answer:<{width}} {seconds:8.3f}")
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak memory (ru_maxrss): {peak_kib / 1024:.0f} MiB")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32, 64])
