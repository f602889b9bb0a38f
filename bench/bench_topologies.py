"""Benchmark: building, measuring, exporting and drawing topologies of growing size.

Run: ``python3 bench/bench_topologies.py [SIZES...]`` (default 8 16 32 64). Prints one table:
seconds to build, to compute the metrics (bisection skipped above 20 nodes: it is a heuristic
there), to write the BookSim anynet text and to draw (not saved).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from supermesh.draw import draw_topology
from supermesh.export import anynet_text
from supermesh.topologies import build, metrics

FAMILIES = [
    "mesh",
    "smbi",
    "smalter",
    "torus",
    "folded-torus",
    "kite-small",
    "double-butterfly",
    "cmesh",
]


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main(sizes: list[int]) -> None:
    print(f"{'spec':24s} {'nodes':>6s} {'arcs':>7s} {'build':>7s} {'metrics':>8s} "
          f"{'anynet':>7s} {'draw':>7s}")  # fmt: skip
    specs = [f"{f}:{n}x{n}" for n in sizes for f in FAMILIES]
    specs += [f"hexamesh:r{r}" for r in (2, 4, 8, 16)]
    for spec in specs:
        G, t_build = timed(lambda s=spec: build(s))
        _, t_metrics = timed(lambda G=G: metrics(G, bisection=G.number_of_nodes() <= 20))
        _, t_anynet = timed(lambda G=G: anynet_text(G))
        _, t_draw = timed(lambda G=G: draw_topology(G))
        print(
            f"{spec:24s} {G.number_of_nodes():6d} {G.number_of_edges():7d} {t_build:7.3f} "
            f"{t_metrics:8.3f} {t_anynet:7.3f} {t_draw:7.3f}"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [8, 16, 32, 64])
