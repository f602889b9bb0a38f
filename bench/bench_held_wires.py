"""Trees for held long wires: packed on the wires' bandwidth, on their held rates, and the run.

Run: ``python3 bench/bench_held_wires.py [--families butterdonut,...] [--sizes 1,64]
[--collectives allgather,...]``.

In the booksim preset a flit holds a link of latency ``l`` for ``l`` flit times, so the cut
bound counts a wire at ``b / l`` (:func:`~supermesh.sim.link_costs.serial_capacity_network`).
For every family with such wires (4x4), collective and size (MiB), side by side in one run:
the simulated time over that bound of the fewest-parts packing of the raw bandwidth (what a
throughput run had packed alone), of the packing of the held rates (its rule
:data:`~supermesh.sim.packing_choice.HELD_RULE`) and the other direction's reversed
(:func:`~supermesh.sim.packing_choice.held_rate_packings`), each at its best chunk size,
and of the whole ``-a throughput`` search, with the seconds the packings took and the rule the
search kept.
Simulated times do not depend on the machine's load; the seconds do.
"""

from __future__ import annotations

import argparse
import time

from supermesh.sim import get_preset
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.chunk_choice import tuned_program
from supermesh.sim.link_costs import serial_capacity_network
from supermesh.sim.packing_choice import fastest_try, held_rate_packings
from supermesh.topologies import build
from supermesh.trees.schedule.collective import natural_direction, throughput_packing

FAMILIES = "butterdonut,cmesh,double-butterfly,folded-torus,kite-medium,kite-small"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=FAMILIES)
    ap.add_argument("--sizes", default="1,64")
    ap.add_argument("--collectives", default="allgather,reducescatter,allreduce")
    args = ap.parse_args()
    params = get_preset("booksim")
    head = ("topology", "collective", "MiB", "raw", "s", "held", "reversed", "s", "run", "kept")
    rows = []
    for family in args.families.split(","):
        G = build(f"{family}:4x4")
        net = serial_capacity_network(G, params)
        for collective in args.collectives.split(","):
            direction = natural_direction(collective)
            start = time.perf_counter()
            raw = throughput_packing(G, direction, time_limit=60)
            took = {"raw": time.perf_counter() - start}
            start = time.perf_counter()
            held = held_rate_packings(G, net, direction, {}, time_limit=60)
            took["held"] = time.perf_counter() - start
            packings = {"raw": raw, "held": held[0], "reversed": held[-1]}
            for mib in (int(x) for x in args.sizes.split(",")):
                nbytes = mib << 20
                r = run_algorithm(G, "throughput", collective, nbytes, params)
                bound = r.lower_bound  # on the held rates, as sim reports it
                ratio = {}
                for name, p in packings.items():
                    prog, _ = tuned_program(G, [p], collective, nbytes, params)
                    ratio[name] = fastest_try(prog) / bound
                kept = min((t for t in r.meta["tried"] if t.get("time")), key=lambda t: t["time"])[
                    "rule"
                ]
                rows.append(
                    (
                        f"{family}:4x4",
                        collective,
                        str(mib),
                        f"{ratio['raw']:.4f}",
                        f"{took['raw']:.2f}",
                        f"{ratio['held']:.4f}",
                        f"{ratio['reversed']:.4f}" if len(held) > 1 else "-",
                        f"{took['held']:.2f}",
                        f"{r.time / bound:.4f}",
                        kept[:90],
                    )
                )
                print("  ".join(rows[-1]), flush=True)
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    print()
    for row in (head, tuple("-" * w for w in widths), *rows):
        print("  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
