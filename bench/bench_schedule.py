"""Schedule-table size per chiplet, in the compact encoding of ``supermesh.trees.schedule.size``.

Prints, for AllReduce (corner roots), ReduceScatter and AllGather (one tree per chiplet, in the
default root sets of ``supermesh schedule``) on 4x4 and 8x8 mesh / SMBi / SMAlter: tree count,
rows per chiplet, bytes per row and bytes per chiplet (max and mean) and for all chiplets, next
to the paper's 3.2 KB for a 64-chiplet topology (SuperMesh, MICRO 2025). The byte count does not
depend on the data size (one row covers every chunk of a tree on a link).

Run: ``python3 bench/bench_schedule.py``
"""

from __future__ import annotations

import time

from supermesh.topologies import build
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.collective import collective_trees
from supermesh.trees.schedule.size import TableEncoding, table_bytes

PAPER_BYTES = 3.2 * 1024


def main() -> None:
    cases = [(f"{fam}:{n}x{n}", coll) for n in (4, 8) for fam in ("mesh", "smbi", "smalter")
             for coll in ("allreduce", "reducescatter", "allgather")]  # fmt: skip
    head = (
        f"{'topology':<12} {'collective':<14} {'trees':>5} {'rows/chiplet':>14} {'B/row':>5} "
        f"{'B/chiplet':>15} {'B all':>7} {'vs 3.2 KB':>9}"
    )
    print(head)
    print("-" * len(head))
    combined: dict[str, list[int]] = {}
    for spec, coll in cases:
        G = build(spec)
        t0 = time.perf_counter()
        # the trees `supermesh schedule` uses (mesh AllReduce: TTO, one corner only relays)
        s = build_schedule(G, coll, collective_trees(G, coll, fast=True), nbytes=2**20)
        enc = TableEncoding.for_schedule(s)
        size = table_bytes(s, enc)
        rows = [len(ids) for ids in s.tables.values()]
        ntrees = sum(len(r) for r in s.roots)
        per = f"{max(rows)} / {sum(rows) / len(rows):.1f}"
        per_b = f"{max(size.values())} / {sum(size.values()) / len(size):.0f}"
        ratio = f"{max(size.values()) / PAPER_BYTES:.2f}" if len(rows) == 64 else "-"
        combined[spec] = [
            a + b for a, b in zip(combined.get(spec, [0] * len(rows)), size.values(), strict=True)
        ]
        print(
            f"{spec:<12} {coll:<14} {ntrees:>5} {per:>14} {enc.row_bytes:>5} {per_b:>15} "
            f"{sum(size.values()):>7} {ratio:>9}  ({time.perf_counter() - t0:.1f} s)"
        )
    print("\nrows/chiplet, B/chiplet: max / mean; 'vs 3.2 KB': largest 64-chiplet table / 3.2 KB.")
    for spec, sizes in combined.items():
        if len(sizes) == 64:
            print(
                f"{spec}: AllReduce + ReduceScatter + AllGather tables of one chiplet: "
                f"max {max(sizes)} B, mean {sum(sizes) / 64:.0f} B (paper: 3.2 KB per 64 chiplets)"
            )


if __name__ == "__main__":
    main()
