"""Throughput-optimal AllGather: link loads, the rate-height trade-off, weighted trees, bandwidth.
===============================================================================================

(a) The 4x4 SMBi at the optimal rate 64/15 links (ForestColl's cut bound): every chiplet roots
several trees carrying weighted shares of its data, all at once; each directed link is coloured
by its exact load, and the bottleneck cut (a corner, fed by 4 arcs) is shaded: its links run at
100%. (b) On the 8x8 SMAlter, rate against tree height: the height-optimal packing reaches the
bound at the diameter; capping each tree at its root's eccentricity (``root_slack=0``) lowers the
trees but costs rate; the same LP with no height cap (ForestColl also ignores heights) grows
taller trees for nothing; the paper's root sets (sets of 4 arc-disjoint trees, one set after
another) reach n / (number of sets) links. (c) The trees of corner 0 in (a), with their shares.
(d) Simulated AllGather (booksim preset) on the 4x4 SMBi: throughput trees (equal parts, part
count chosen per size) against the paper's root sets and the cut bound (percentages: share of
the bound at the largest size). Set ``SUPERMESH_GALLERY_QUICK=1`` for three sizes instead of
five.
"""

from fractions import Fraction

from matplotlib.figure import Figure

from supermesh.draw import (
    TradeoffPoint,
    draw_link_load,
    draw_root_trees,
    draw_sweep,
    draw_tradeoff,
    gallery_output,
    gallery_quick,
    save_figure,
    tradeoff_point,
)
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.packing import simulate_packing
from supermesh.sim.presets import get_preset
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.throughput import throughput_bound
from supermesh.trees.model import TreePacking, TreeSet
from supermesh.trees.roots.paper import paper_root_sets
from supermesh.trees.throughput.exact import exact_shares
from supermesh.trees.throughput.lp import column_generation
from supermesh.trees.throughput.model import Network, Progress
from supermesh.trees.throughput.pack import pack_throughput
from supermesh.trees.throughput.rates import choose_parts

# %%
# Four panels: the link loads of the throughput-optimal packing, the rate-height trade-off, the
# trees of one rank, and the simulated AllGather bandwidth against the paper's root sets.

fig = Figure(figsize=(14.0, 9.6), layout="constrained")
top, bottom = fig.subfigures(2, 1, height_ratios=[1.0, 0.95])
sub_a, sub_c = top.subfigures(1, 2, width_ratios=[1.0, 1.55])
ax_b, ax_d = bottom.subplots(1, 2)

# (a) link loads at the optimal rate, with the cut
G = build("smbi:4x4")
packing = pack_throughput(G)
draw_link_load(G, packing, sub_a.subplots(), title="(a) SMBi 4x4: link load at 64/15 links")

# (c) the trees of one corner rank
count = sum(1 for t in packing.trees if t.root == 0)
draw_root_trees(G, packing, 0, sub_c, title=f"(c) the {count} trees of corner 0 in (a)")

# (b) rate against height on the 8x8 SMAlter
G8 = build("smalter:8x8")
bound8 = throughput_bound(G8).value
ranks = compute_nodes(G8)
points = [
    tradeoff_point(G8, pack_throughput(G8), "height-optimal"),
    tradeoff_point(G8, pack_throughput(G8, root_slack=0), "root_slack=0"),
]
# the same column generation with the height cap lifted to n - 1 (heights left to chance)
net = Network.build(G8, ranks, "out", True)
progress = Progress()
column_generation(net, len(net.nodes) - 1, float(bound8) / len(ranks), progress, deadline=1e12)
trees, shares, rate = exact_shares(net, progress, len(net.nodes) - 1)
free = TreePacking(
    "smalter:8x8", "out", "feasible", sets=(TreeSet(tuple(trees)),), stats={"shares": shares}
)
points.append(tradeoff_point(G8, free, "no height cap"))
# the paper's scheme: each set of 4 arc-disjoint trees moves 4 ranks' data (M / n each) in the
# time one link moves M / n, and sets run one after another: rate = n / (number of sets)
sets = paper_root_sets(G8, k=4)
points.append(TradeoffPoint("paper's root sets", Fraction(len(ranks), len(sets)), bound8))
draw_tradeoff(points, ax_b, title=f"(b) SMAlter 8x8: rate against tree height (bound {bound8})")

# (d) AllGather bandwidth against size on the 4x4 SMBi
params = get_preset("booksim")
bound4 = throughput_bound(G).value
exponents = (20, 24, 26) if gallery_quick() else (20, 22, 24, 26, 29)
by_parts: dict[int, TreePacking] = {}
rows = []
for e in exponents:
    nbytes = 1 << e
    k = choose_parts(bound4, len(compute_nodes(G)), nbytes, params.chunk_bytes)
    if k not in by_parts:
        by_parts[k] = pack_throughput(G, parts=k)
    runs = (
        ("throughput trees", simulate_packing(G, by_parts[k], "allgather", nbytes, params=params)),
        ("paper's root sets", run_algorithm(G, "paper", "allgather", nbytes, params)),
    )
    for name, r in runs:
        rows.append({"label": name, "bytes": nbytes, "seconds": r.seconds, "error": None})
    lower = r.lower_bound * params.seconds_per_unit
    rows.append({"label": f"cut bound ({bound4} links)", "bytes": nbytes, "seconds": lower})
draw_sweep(rows, ax_d, label=lambda row: row["label"], legend=False)
ax_d.lines[-1].set(color="#303030", marker="", ls="--")
for line in ax_d.lines[:2]:  # each schedule's share of the bound at the largest size
    x, y = line.get_xydata()[-1]
    ax_d.annotate(
        f"{y / ax_d.lines[-1].get_ydata()[-1]:.1%}",
        (x, y),
        xytext=(0, -11),
        textcoords="offset points",
        ha="center",
        fontsize=8,
        color=line.get_color(),
    )
ax_d.legend(fontsize=8, loc="lower right")
ax_d.set_title("(d) SMBi 4x4: simulated AllGather (booksim preset)", fontsize=10)

fig.suptitle("Throughput-optimal AllGather with bounded tree heights", fontsize=12)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
