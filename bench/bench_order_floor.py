"""How near an AllReduce's order comes to the best any order of its trees could do (issue 17).

Run: ``python3 bench/bench_order_floor.py [--families mesh,smbi,smalter] [--grids 4,5,8]
[--sizes 64,512] [--presets booksim,paper]``.

Target 1 of issue 17 asks a throughput AllReduce from 64 MiB to come within 0.2% of the cut
bound. For each cell this prints the run of ``-a throughput`` (its time over the bound, its chunk
and the packing it kept) and, for the undirected trees at the AllReduce bound that the search
tries first (:func:`~supermesh.sim.throughput_run.undirected_choice`), the *order floor* at every
chunk of a grid: 1-16 packets, every 4th packet to 64, every 16th to 256 (1 MiB at 4 KiB
packets), up to twice :data:`~supermesh.sim.justified_choice.JUSTIFIED_WORK` transfers. The
order floor of one chunk size is :func:`~supermesh.trees.schedule.timed.timed_floor` of the
transfers of that justified run, link costs applied: every link's transfers back to back, after
the earliest any of them can start and before the least time one of them leaves for the chain
after it. No FIFO order of those transfers is faster, so where the least floor over the grid is
above 1.002 of the bound, no order of these trees in equal chunks of any of those sizes meets
the target; where it is below, a better order could.

Columns: ``ratio`` the run over the bound, ``kept`` its packing's rule and chunk, ``floor`` the
least order floor over the bound and the chunk it is at, ``floor at kept`` the order floor of
the kept chunk (when the kept packing is the undirected one), ``verdict``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.justified_choice import JUSTIFIED_WORK, transfers
from supermesh.sim.link_costs import apply_link_costs, serial_capacity_network
from supermesh.sim.packing import packing_program
from supermesh.sim.throughput_run import undirected_choice
from supermesh.topologies import build
from supermesh.trees.schedule.timed import timed_floor

MIB = 1 << 20
TARGET = 1.002


def chunk_grid(packet: int) -> list[int]:
    """1-16 packets, every 4th to 64, every 16th to 256."""
    ks = list(range(1, 17)) + list(range(20, 65, 4)) + list(range(80, 257, 16))
    return [k * packet for k in ks]


def order_floor(G, packing, nbytes: int, params) -> float:
    """The timed floor of one justified AllReduce run's transfers (link costs applied)."""
    program = packing_program(
        G, packing, "allreduce", nbytes, params, barrier=False, order="justified"
    )
    costed = apply_link_costs(G, program, params)
    (phase,) = costed.phases
    deps = phase.deps
    return timed_floor(
        phase.arc, phase.duration, deps.start, deps.flat, phase.delay, release=costed.release
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="mesh,smbi,smalter")
    ap.add_argument("--grids", default="4,5,8")
    ap.add_argument("--sizes", default="64,512")
    ap.add_argument("--presets", default="booksim,paper")
    args = ap.parse_args()
    header = ["cell", "ratio", "kept", "floor", "floor at kept", "verdict", "s"]
    print("  ".join(header), flush=True)
    for grid in args.grids.split(","):
        for family in args.families.split(","):
            spec = f"{family}:{grid}x{grid}"
            G = build(spec)
            cache: dict = {}
            for preset in args.presets.split(","):
                params = get_preset(preset)
                packed = undirected_choice(serial_capacity_network(G, params), {})
                for mib in (int(s) for s in args.sizes.split(",")):
                    t0 = time.time()
                    nbytes = mib * MIB
                    run = run_algorithm(G, "throughput", "allreduce", nbytes, params, cache=cache)
                    bound = run.lower_bound
                    kept_chunk = int(run.meta.get("chunk_bytes", 0))
                    tried = run.meta.get("tried", [])
                    fastest = min(tried, key=lambda t: t.get("time", float("inf")), default={})
                    rule = str(fastest.get("rule", "-"))
                    kept = f"{'undirected' if rule == 'given' else rule[:24]} {kept_chunk}"
                    cell = f"{spec} {preset} {mib} MiB"
                    ratio = run.time / bound
                    if ratio <= TARGET or packed is None:
                        verdict = "meets" if ratio <= TARGET else "no undirected trees"
                        print("  ".join([cell, f"{ratio:.4f}", kept, "-", "-", verdict]))
                        continue
                    floors = {}
                    for c in chunk_grid(params.packet_bytes):
                        if transfers(packed.packing, nbytes, "allreduce", c) > 2 * JUSTIFIED_WORK:
                            continue
                        q = dataclasses.replace(params, chunk_bytes=c)
                        floors[c] = order_floor(G, packed.packing, nbytes, q) / bound
                    at = min(floors, key=floors.__getitem__)
                    at_kept = "-"
                    if rule == "given":  # the grid's floor where the kept chunk is on it
                        kept_floor = floors.get(kept_chunk)
                        if kept_floor is None:
                            q = dataclasses.replace(params, chunk_bytes=kept_chunk)
                            kept_floor = order_floor(G, packed.packing, nbytes, q) / bound
                        at_kept = f"{kept_floor:.4f}"
                    if floors[at] > TARGET:
                        verdict = "no order of these chunks meets it"
                    else:
                        verdict = "a better order could"
                    row = [cell, f"{ratio:.4f}", kept, f"{floors[at]:.4f} at {at}", at_kept]
                    row += [verdict, f"{time.time() - t0:.0f}"]
                    print("  ".join(row), flush=True)


if __name__ == "__main__":
    main()
