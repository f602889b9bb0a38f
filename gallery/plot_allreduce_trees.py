"""AllReduce trees on the 4x4 SMBi and SMAlter: four arc-disjoint trees from the corners.
======================================================================================

The paper's figure 5. Each panel is one tree (rooted at a corner, height 6 = the corner's
eccentricity, so optimal); the number in a chiplet is its depth in that tree. The AllGather phase
sends chunks down these out-trees; the ReduceScatter phase runs on the same trees reversed. A tree
arc on an added link is dashed: where a link is doubled, two trees use it, one copy each, drawn
side by side. The trees are CP-SAT's (``pack_trees``), proven height-optimal.
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_trees, gallery_output, save_figure
from supermesh.topologies import build
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.rootspec import resolve_roots

# %%
# Pack four corner-rooted trees with CP-SAT on each network and draw one panel per tree.

fig = Figure(figsize=(9.6, 5.4), layout="constrained")
top, bottom = fig.subfigures(2, 1)
for sub, spec in ((top, "smbi:4x4"), (bottom, "smalter:4x4")):
    G = build(spec)
    packing = pack_trees(G, resolve_roots(G, "corners"), time_limit=10, seed=0)
    draw_trees(
        G,
        packing,
        sub,
        legend=sub is bottom,
        title=f"{G.graph['name']}: AllReduce trees, max height {packing.objective} "
        f"({packing.status}, bound {packing.lower_bound})",
    )

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
