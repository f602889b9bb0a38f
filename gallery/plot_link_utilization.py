"""Link utilisation during AllGather: 6x6 mesh vs 6x6 SMBi.
========================================================

The paper's figure 2. Each directed link is a line coloured and thickened by the share of the run
it was busy (the two directions of a link side by side, each to the right of its direction of
travel). On the mesh, disjoint trees come two at a time (a corner has only 2 links) and many
interior links idle; doubling the perimeter links (SMBi) lets four trees run per root set and
keeps almost every link busy. Pipelined AllGather of 64 MiB, every chiplet a root, in the root
sets ``root_sets`` chooses (partition and running order optimised; not the paper's one root per
side from the outside in), trees packed by CP-SAT with a short work budget (1 s per set: a set
may be taller than its optimal height).
"""

from matplotlib.figure import Figure

from supermesh.draw import (
    draw_utilization,
    gallery_output,
    gallery_quick,
    save_figure,
    utilization_colorbar,
)
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.presets import get_preset
from supermesh.topologies import build

# %%
# Simulate a 64 MiB AllGather on both networks and colour each link by the share of the run it
# was busy.

limit = 0.3 if gallery_quick() else 1.0  # CP-SAT seconds per root set
params = get_preset("booksim")
fig = Figure(figsize=(10.5, 4.9), layout="constrained")
axes = fig.subplots(1, 2)
facts = {}
for ax, spec in zip(axes, ("mesh:6x6", "smbi:6x6"), strict=True):
    G = build(spec)
    result = run_algorithm(G, "pipeline", "allgather", 64 << 20, params, time_limit=limit)
    sets = result.meta["sets"]
    facts[spec] = {
        "root sets": sets,
        "mean link utilization": f"{100 * result.mean_link_utilization:.0f}%",
        "max link utilization": f"{100 * result.max_link_utilization:.0f}%",
    }
    title = f"{G.graph['name']}: {sets} root sets, {result.time / 1e6:.2f} M cycles"
    draw_utilization(G, result, ax, colorbar=False, title=title)
utilization_colorbar(fig, list(axes))
fig.suptitle("Link utilisation during a pipelined AllGather of 64 MiB", fontsize=11)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names. The numbers it shows are printed and stored in the
# picture (PNG text ``supermesh-facts``), where a test compares them with a fresh run.
print(facts)
save_figure(fig, gallery_output(__file__), dpi=110, facts=facts)
