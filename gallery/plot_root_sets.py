"""AllGather root sets with their tree heights on the 6x6 SMAlter.
===============================================================

The paper's figure 8. In a pipelined ReduceScatter or AllGather every chiplet is the root of its
own share; roots run in sets of four arc-disjoint trees, one set after another. ``root_sets``
partitions the chiplets (here it ends with the paper's rule: one root per side, from the outer
ring inwards) and packs each set with CP-SAT at its proven-optimal height, shown in the legend
(with the lower bound where a set could not be proven).
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
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
