"""SuperMesh variants side by side: mesh, SMBi, SMAlter (even and odd size).
=========================================================================

The paper's figure 4. SMBi doubles every perimeter link (corners get 4 links, border chiplets 5);
SMAlter doubles every other perimeter link starting at the corners, so on an even grid every
chiplet has exactly 4 links; on an odd grid each side ends on an undoubled link and one corner per
side keeps 3. Added links are red; parallel links are drawn side by side.
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_topology, gallery_output, save_figure
from supermesh.topologies import build

# %%
# Build each variant and draw it with its count of added links; one legend for all panels.

SPECS = ("mesh:4x4", "smbi:4x4", "smalter:4x4", "smalter:5x5")

fig = Figure(figsize=(12.5, 3.9), layout="constrained")
axes = fig.subplots(1, len(SPECS), gridspec_kw={"width_ratios": [4, 4, 4, 5]})
handles, labels = [], []
for ax, spec in zip(axes, SPECS, strict=True):
    G = build(spec)
    added = sum(1 for *_, c in G.edges(data="cls") if c == "added") // 2
    low, high = min(d for _, d in G.out_degree()), max(d for _, d in G.out_degree())
    per = f"{low}" if low == high else f"{low} to {high}"
    draw_topology(G, ax, title=f"{G.graph['name']}\n{added} added links, {per} links per chiplet")
    legend = ax.get_legend()
    for h, t in zip(legend.legend_handles, [t.get_text() for t in legend.get_texts()], strict=True):
        if t not in labels:
            handles.append(h)
            labels.append(t)
    legend.remove()
fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), frameon=False)
fig.suptitle("Mesh and the SuperMesh variants", fontsize=11)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
