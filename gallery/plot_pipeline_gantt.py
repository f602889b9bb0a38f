"""The pipeline over time: chunks on the links of one AllGather tree (4x4 SMAlter).
================================================================================

The paper's figure 7. Pipelined AllGather on the 4x4 SMAlter with its four root sets (one root
per side, outside in), three chunks per tree. The rows are the links of the tree rooted at
chiplet 1, by depth; each bar is one chunk crossing that link, coloured by the root set it
belongs to. As soon as chunk 1 has crossed a link, chunk 2 follows on the same link while chunk 1
moves one level down; the sets queue on each link in order, without a barrier between them.
"""

from supermesh.draw import draw_pipeline, gallery_output, pipeline_timeline, save_figure
from supermesh.topologies import build
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.roots.paper import paper_root_sets

# %%
# Pack the paper's root sets, then lay out which chunk each link carries when.

G = build("smalter:4x4")
sets = [pack_trees(G, roots, time_limit=5, seed=0).sets[0] for roots in paper_root_sets(G)]
timeline = pipeline_timeline(G, sets, "allgather", chunks=3)
tree = timeline.roots.index(1)
fig = draw_pipeline(
    timeline,
    of_tree=tree,
    title=f"SMAlter 4x4, pipelined AllGather, {len(sets)} root sets, 3 chunks per tree",
)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
