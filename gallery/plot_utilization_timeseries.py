"""Share of busy links over an AllReduce: 6x6 mesh (TTO) vs SMBi vs SMAlter.
=========================================================================

The paper's figure 18: pipelined AllReduce of 512 MiB on 6x6 networks; the y axis is the share of
all directed links busy at each moment (exact, integrated from every transfer's start time). The
pipeline fills in a few chunks, runs flat, and the dip in the middle is the barrier between the
reduce-scatter and the all-gather. TTO's three trees leave part of the mesh idle; four trees on
SMAlter, which adds only 4N links, keep nearly all links busy; SMBi's extra links outnumber what
four trees use. Set ``SUPERMESH_GALLERY_QUICK=1`` for 64 MiB.
"""

from supermesh.draw import draw_utilization_timeseries, gallery_output, gallery_quick, save_figure
from supermesh.draw.utilization import busy_timeseries
from supermesh.sim import evaluate, tree_program
from supermesh.sim.presets import get_preset
from supermesh.sim.tree_sets import tree_sets_for
from supermesh.topologies import build

# %%
# Simulate the AllReduce on each network and count the busy links over time.

nbytes = (64 if gallery_quick() else 512) << 20
params = get_preset("booksim")
runs = [("mesh:6x6", "tto", "Mesh 6x6 TTO"), ("smbi:6x6", "pipeline", "SMBi 6x6"),
        ("smalter:6x6", "pipeline", "SMAlter 6x6")]  # fmt: skip
results = []
for spec, algorithm, _ in runs:
    G = build(spec)
    trees = tree_sets_for(G, algorithm, "allreduce", time_limit=10)
    program = tree_program(G, trees, "allreduce", nbytes, params)
    result = evaluate(
        G, program, params, collective="allreduce", algorithm=algorithm, nbytes=nbytes, bins=0
    )
    result.timeseries = busy_timeseries(program, G.number_of_edges(), bins=200)
    results.append(result)

fig = draw_utilization_timeseries(
    results,
    labels=[label for *_, label in runs],
    title=f"Pipelined AllReduce of {nbytes >> 20} MiB: links busy over time",
)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names. The numbers it shows are printed and stored in the
# picture (PNG text ``supermesh-facts``), where a test compares them with a fresh run.
facts = {label: f"{r.time:,.0f} cycles" for (*_, label), r in zip(runs, results, strict=True)}
print(facts)
save_figure(fig, gallery_output(__file__), dpi=110, facts=facts)
