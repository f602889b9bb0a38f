"""SuperMesh against TACOS: AllReduce, ReduceScatter and AllGather bandwidth against size.
=======================================================================================

The paper's figures 9 and 10 with TACOS in them, from the calibrated link simulator (``booksim``
preset). Per grid: the mesh with its own trees (TTO for AllReduce: three corner trees; the
pipelined root-set trees for ReduceScatter / AllGather), TACOS (Won et al., MICRO 2024:
greedy link-chunk matching, without the public code's echo and with every parallel link its
own link) on the mesh and on SMBi, and SMBi's pipelined trees and weighted throughput trees.
TACOS is a strong baseline here: with its two defects removed it runs within a few percent of
the cut bound at large sizes, so the topology, not the algorithm, sets most of the gap, and at
small sizes TACOS (no pipeline fill) beats the trees. Set ``SUPERMESH_GALLERY_QUICK=1`` for
the 4x4 grid and two sizes.
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_sweep, gallery_output, gallery_quick, save_figure
from supermesh.sim.presets import get_preset
from supermesh.sim.sweep import run_sweep, sweep_cases

# %%
# The grid: sizes, collectives and the five series (seeded TACOS, so the same every run).
QUICK = gallery_quick()
GRIDS = (4,) if QUICK else (4, 5, 8, 9)
nbytes = [1 << e for e in ((20, 23) if QUICK else (20, 23, 26, 29))]  # 1 MiB .. 512 MiB
COLLECTIVES = ("allreduce", "reducescatter", "allgather")
NAMES = {
    ("mesh", "tto"): "Mesh TTO",
    ("mesh", "pipeline"): "Mesh trees",
    ("mesh", "tacos"): "TACOS on mesh",
    ("smbi", "tacos"): "TACOS on SMBi",
    ("smbi", "pipeline"): "SMBi pipeline",
    ("smbi", "throughput"): "SMBi throughput",
}

params = get_preset("booksim")
rows = []
for n in GRIDS:
    mesh, sm = f"mesh:{n}x{n}", f"smbi:{n}x{n}"
    cases = sweep_cases([mesh], ["allreduce"], ["tto"], nbytes)
    cases += sweep_cases([mesh], ["reducescatter", "allgather"], ["pipeline"], nbytes)
    cases += sweep_cases([mesh, sm], list(COLLECTIVES), ["tacos"], nbytes)
    cases += sweep_cases([sm], list(COLLECTIVES), ["pipeline", "throughput"], nbytes)
    rows += run_sweep(cases, params, time_limit=2 if QUICK else 20)


def series(row):
    return NAMES[(row["topology"].split(":")[0], row["algorithm"])]


# %%
# One panel per collective and grid: algorithm bandwidth (bytes / completion time).
fig = Figure(figsize=(3.3 * len(GRIDS), 8.4), layout="constrained")
axes = fig.subplots(len(COLLECTIVES), len(GRIDS), squeeze=False)
for i, collective in enumerate(COLLECTIVES):
    for j, n in enumerate(GRIDS):
        mine = [
            r for r in rows if r["collective"] == collective and r["topology"].endswith(f":{n}x{n}")
        ]
        draw_sweep(
            mine,
            axes[i, j],
            label=series,
            legend=j == 0,
            title=f"{collective}, {n}x{n}",
        )
fig.suptitle("SuperMesh vs TACOS (simulated, booksim preset)", fontsize=11)

save_figure(fig, gallery_output(__file__), dpi=100)

# %%
# The speedups the paper quotes, from the same runs: SMBi pipeline over TACOS on the mesh and on
# SMBi, at the smallest and the largest size.
time_of = {(r["topology"], r["collective"], r["algorithm"], r["bytes"]): r["time"] for r in rows}
for collective in COLLECTIVES:
    for n in GRIDS:
        cells = []
        for size in (nbytes[0], nbytes[-1]):
            sm = time_of.get((f"smbi:{n}x{n}", collective, "pipeline", size))
            on_mesh = time_of.get((f"mesh:{n}x{n}", collective, "tacos", size))
            on_sm = time_of.get((f"smbi:{n}x{n}", collective, "tacos", size))
            if sm and on_mesh and on_sm:
                cells.append(f"{size >> 20} MiB: {on_mesh / sm:.2f}x / {on_sm / sm:.2f}x")
        print(f"{collective} {n}x{n} SMBi pipeline vs TACOS on mesh / on SMBi:", "; ".join(cells))
