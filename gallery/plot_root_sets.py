"""AllGather root sets with their tree heights on the 6x6 SMAlter.
===============================================================

The paper's figure 8. In a pipelined ReduceScatter or AllGather every chiplet is the root of its
own share; roots run in sets of four arc-disjoint trees, one set after another. ``root_sets``
chooses the partition (the smallest sum of set heights it can prove) and the running order (the
fewest pipeline steps, the sets sharing the link FIFOs without a barrier); it need not follow the
paper's rule of one root per side from the outer ring inwards. Each set is packed with CP-SAT at
its proven-optimal height, shown in the legend in running order (with the lower bound where a set
could not be proven); ``S0`` marks the roots of set 0, which runs first.
"""

from supermesh.draw import draw_root_sets, gallery_output, save_figure
from supermesh.topologies import build
from supermesh.trees.roots.sets import root_sets

# %%
# Partition the chiplets into root sets and pack each set at its optimal height.

G = build("smalter:6x6")
packing = root_sets(G, seed=0)
total, bound = packing.stats["total"], packing.stats["total_lower_bound"]
fig = draw_root_sets(
    G,
    packing,
    title=f"SMAlter 6x6: AllGather root sets (sum of set heights {total}, bound {bound})",
)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names. The numbers it shows are printed and stored in the
# picture (PNG text ``supermesh-facts``), where a test compares them with a fresh run.
facts = {
    "sets": [list(s.roots) for s in packing.sets],
    "heights": [s.height for s in packing.sets],
    "total": total,
    "bound": bound,
}
print(facts)
save_figure(fig, gallery_output(__file__), dpi=110, facts=facts)
