"""AllGather root sets with their tree heights on the 6x6 SMAlter.

The paper's figure 8. In a pipelined ReduceScatter or AllGather every chiplet is the root of its
own share; roots run in sets of four arc-disjoint trees, one set after another. The roots are
grouped one per side, from the outer ring inwards (``supermesh.sim.algorithms.ring_root_sets``);
each set's trees are packed by CP-SAT with the smallest maximum height, shown in the legend with
the proven lower bound when the solver did not close the gap in its time limit.
"""

from supermesh.draw import draw_root_sets, gallery_output, gallery_quick, save_figure
from supermesh.sim.algorithms import ring_root_sets
from supermesh.topologies import build
from supermesh.trees.packing import pack_trees

G = build("smalter:6x6")
limit = 0.3 if gallery_quick() else 2.0  # CP-SAT seconds per set
sets = [pack_trees(G, roots, time_limit=limit, seed=0).sets[0] for roots in ring_root_sets(6, 6)]
fig = draw_root_sets(
    G, sets, title="SMAlter 6x6: root sets of a pipelined AllGather (one colour per set)"
)

save_figure(fig, gallery_output(__file__), dpi=110)
