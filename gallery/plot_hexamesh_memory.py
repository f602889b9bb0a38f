"""HexaMesh with memory chiplets: six arc-disjoint trees that span the compute chiplets.
=====================================================================================

A radius-2 HexaMesh (19 compute chiplets in a brick-wall hexagon, up to 6 links each) with memory
chiplets on all four sides. Memory chiplets are not ranks: a tree need only reach the compute
chiplets, and may relay through a memory chiplet (orange boxes with a depth in the tree panels;
grey ones are not used by that tree). Frank's theorem bounds the number of trees with free roots
at 6; CP-SAT packs six trees rooted at the hexagon's corners and proves height 5 optimal (the
eccentricity bound 4 is infeasible).
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_topology, draw_trees, gallery_output, save_figure
from supermesh.topologies import build
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.packing.search import pack_trees

# %%
# Count the trees with Frank's theorem (the most any roots allow), then pack that many at the
# lowest height.

G = build("hexamesh:r2,memory=north+east+south+west")
count = max_trees_free(G)  # the most trees any roots allow, with Frank's certificate
# height 5 bounds the search: the eccentricity bound 4 is proven infeasible, 5 is reached
packing = pack_trees(G, list(count.roots), max_height=5, time_limit=10, seed=0)

fig = Figure(figsize=(15.0, 6.6), layout="constrained")
left, right = fig.subfigures(1, 2, width_ratios=[1.0, 2.1])
draw_topology(G, left.subplots())
draw_trees(
    G,
    packing,
    right,
    ncols=3,
    title=f"{count.max_trees} trees (the most any roots allow), max height {packing.objective} "
    f"({packing.status}, lower bound {packing.lower_bound})",
)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
