"""Benchmark: the design tool (``supermesh.trees.design.optimise.design``) on N x N meshes.

Target: 4 arc-disjoint spanning trees for any 4 roots. For each N and each setting it prints the
status, the links added, the proven lower bound, the hand-counted minimum, the number of
chiplets that end with more links than the base's largest (``above``: the 5-link chiplets of
odd N), the cutting-plane rounds and cuts, and the wall time.

Settings (candidates / port budget in links per chiplet, router radix = links + 1):

- ``perim/4``   perimeter-parallel, 4 links: even N needs 2N links (SMAlter); odd N is
  impossible (parity round the perimeter).
- ``perim/5``   perimeter-parallel, 5 links: even N still 2N; odd N needs 2N + 2 and four
  5-link chiplets (the bipartite count: one colour of the perimeter needs 2N + 2 link ends).
- ``any/5 cold`` any-parallel, 5 links, no warm start: the solver alone.
- ``2xN k=3``   a 2 x N mesh, 3 trees, any-parallel, 4 links, no warm start: here the one-node
  conditions are not enough (they allow 2 links; the minimum is N + 1), so the max-flow cuts
  of the lazy loop do the work (``rounds`` > 1).

Usage::

    python bench/bench_design.py                # N = 4 .. 16
    python bench/bench_design.py --sizes 4 5 8  # a subset
"""

from __future__ import annotations

import argparse
import time
from typing import Any

SETTINGS: dict[str, dict[str, Any]] = {
    "perim/4": {"add": "perimeter-parallel", "max_links": 4},
    "perim/5": {"add": "perimeter-parallel", "max_links": 5},
    "any/5 cold": {"add": "any-parallel", "max_links": 5, "warm_start": False},
    "2xN k=3": {"add": "any-parallel", "max_links": 4, "warm_start": False},
}


def _base(n: int, setting: str) -> tuple[str, int]:
    """(spec, trees) of a run: N x N for 4 trees, or 2 x N for 3 trees (cuts needed)."""
    return (f"mesh:2x{n}", 3) if setting.startswith("2xN") else (f"mesh:{n}x{n}", 4)


def _expected(n: int, setting: str) -> str:
    if setting.startswith("2xN"):
        return str(n + 1)  # one link across each of the N-1 column cuts, one more per end
    if n % 2 == 0:
        return str(2 * n)
    return "infeasible" if setting == "perim/4" else str(2 * n + 2)


def run(sizes: list[int], time_limit: float) -> list[dict[str, Any]]:
    """Run every setting on every size and return one row per run."""
    from supermesh.topologies import build
    from supermesh.trees.design.optimise import design

    rows = []
    for n in sizes:
        for name, kw in SETTINGS.items():
            spec, trees = _base(n, name)
            G = build(spec)
            start = time.perf_counter()
            r = design(G, trees=trees, time_limit=time_limit, **kw)
            wall = time.perf_counter() - start
            rows.append(
                {
                    "n": n,
                    "setting": name,
                    "status": r.status,
                    "links": len(r.additions) if r.cost is not None else "-",
                    "lower": r.lower_bound if r.lower_bound is not None else "-",
                    "expected": _expected(n, name),
                    "five": len(r.ports.get("above_base", [])) if r.cost is not None else "-",
                    "rounds": r.stats["rounds"],
                    "cuts": r.stats["cuts"],
                    "seconds": wall,
                }
            )
    return rows


def main() -> None:
    """Parse the sizes, run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(range(4, 17)))
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    head = (
        f"{'N':>3} {'setting':<11} {'status':<10} {'links':>5} {'lower':>5} {'expected':>10} "
        f"{'above':>6} {'rounds':>6} {'cuts':>5} {'seconds':>8}"
    )
    print(head)
    print("-" * len(head))
    for row in run(args.sizes, args.time_limit):
        print(
            f"{row['n']:>3} {row['setting']:<11} {row['status']:<10} {row['links']!s:>5} "
            f"{row['lower']!s:>5} {row['expected']:>10} {row['five']!s:>6} {row['rounds']:>6} "
            f"{row['cuts']:>5} {row['seconds']:>8.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
