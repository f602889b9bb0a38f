"""Benchmark: ReduceScatter / AllGather root sets (``root_sets``) against the paper's rule.

For each topology prints: ``k`` (roots per set) and the number of sets; our total of the set
heights, its lower bound and the status; the paper's rule (one root per side, outside in) packed
by the same solver, and with the paper's own Algorithm 1 trees (``stuck`` when it cannot finish);
whether any set of ours is taller than the paper's set of the same rank; the pipeline steps of the
FIFO model (one chunk per tree, sets in running order) for ours, the paper's rule and Algorithm 1;
the simulated AllGather of 1 MiB (``supermesh.sim``, BookSim preset, cycles) for ours and the
paper's rule; and the wall time of our ``root_sets`` call.

The issue's target: a whole 8x8 SMBi in under 60 s, no set taller than the paper's rule gives and
a strictly smaller total. On SMBi the paper's sets are symmetry orbits whose trees reach their
eccentricities once packed optimally, so with the same packer its total already equals the lower
bound (176 on 8x8) and nothing can be smaller; the strict gain is against the paper's procedure
(its Algorithm 1 trees), and in pipeline time through the running order.

Usage::

    python bench/bench_roots.py
    python bench/bench_roots.py --specs smbi:8x8 smalter:8x8
"""

from __future__ import annotations

import argparse
import sys
import time

DEFAULT = [
    "smbi:4x4",
    "smalter:4x4",
    "smalter:5x5",
    "smalter:6x6",
    "smbi:8x8",
    "smalter:8x8",
    "partial-smbi:6x6",
    "mesh:6x6",
]


def _fmt(x: object) -> str:
    return "-" if x is None else str(x)


def main(argv: list[str] | None = None) -> int:
    from supermesh.sim import simulate
    from supermesh.topologies import build
    from supermesh.trees.roots.order import pipeline_steps
    from supermesh.trees.roots.sets import root_sets
    from supermesh.verify import check_packing

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", nargs="+", default=DEFAULT)
    ap.add_argument("--time-limit", type=float, default=60.0)
    opts = ap.parse_args(argv)
    head = (
        f"{'topology':<18}{'k':>2}{'sets':>5}{'total':>7}{'bound':>7}{'status':>10}"
        f"{'paper':>7}{'alg.1':>7}{'taller':>8}{'steps':>7}{'paper':>7}{'alg.1':>7}"
        f"{'AG 1MiB':>10}{'paper':>10}{'time s':>8}"
    )
    print(head)
    print("-" * len(head))
    misses = 0
    for spec in opts.specs:
        G = build(spec)
        start = time.perf_counter()
        ours = root_sets(G, time_limit=opts.time_limit)
        wall = time.perf_counter() - start
        theirs = root_sets(G, method="paper", compare=False)
        bad = check_packing(G, ours) + check_packing(G, theirs)
        st, paper = ours.stats, ours.stats["paper"] or {}
        alg1 = paper.get("algorithm1_total")
        stuck = paper.get("algorithm1_stuck", 0)
        taller = {True: "no", False: "YES", None: "-"}[paper.get("no_set_taller")]
        sim_ours = simulate(G, ours, "allgather", 1 << 20, bound=False).time
        sim_paper = simulate(G, theirs, "allgather", 1 << 20, bound=False).time
        ok = not bad and paper.get("no_set_taller") is not False
        if spec == "smbi:8x8":
            ok = ok and wall < 60 and (alg1 is None or st["total"] < alg1)
        misses += not ok
        print(
            f"{spec:<18}{st['k']:>2}{len(ours.sets):>5}{st['total']:>7}"
            f"{st['total_lower_bound']:>7}{ours.status:>10}{_fmt(paper.get('total')):>7}"
            f"{(_fmt(alg1) if not stuck else f'{stuck} st'):>7}{taller:>8}"
            f"{st['pipeline_steps']:>7}{pipeline_steps(theirs.sets, chunks=1):>7}"
            f"{_fmt(paper.get('algorithm1_pipeline_steps')):>7}"
            f"{sim_ours:>10.0f}{sim_paper:>10.0f}{wall:>8.1f}"
            + ("" if ok else "  MISS")
            + (f"  {len(bad)} verify finding(s)" if bad else "")
        )
        sys.stdout.flush()
    print(
        "\nalg.1: the paper's Algorithm 1 trees on its sets ('N st': stuck on N sets); taller: a "
        "set of ours taller than the paper's of the same rank; steps: FIFO pipeline model, one "
        "chunk per tree; AG 1MiB: simulated AllGather, cycles."
    )
    print(f"{misses} case(s) missed the target.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
