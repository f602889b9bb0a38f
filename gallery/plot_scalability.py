"""Scalability of AllReduce from 9 to 256 chiplets (375 KiB per chiplet).
======================================================================

The paper's figure 11: N x N grids from 3x3 to 16x16 with a collective of 375 KiB times the
number of chiplets, simulated with the calibrated link model. Left: completion time normalised
to each topology's 3x3 run (the data grow with N, the time grows with them: no topology falls
behind); middle: algorithm bandwidth; right: SuperMesh's speedup over the mesh (TTO), which holds
at every size. Set ``SUPERMESH_GALLERY_QUICK=1`` to run three sizes instead of nine.
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_speedup, draw_sweep, gallery_output, gallery_quick, save_figure
from supermesh.sim.presets import get_preset
from supermesh.sim.sweep import run_sweep, sweep_cases

# %%
# Simulate AllReduce of 375 KiB per chiplet from 3x3 to 16x16 chiplets.

NAMES = {"mesh": "Mesh (TTO)", "smbi": "SMBi", "smalter": "SMAlter"}
sides = (3, 8, 16) if gallery_quick() else (3, 4, 5, 6, 8, 10, 12, 14, 16)
per_chiplet = [375 * 1024]

params = get_preset("booksim")
specs = [f"smbi:{n}x{n}" for n in sides] + [f"smalter:{n}x{n}" for n in sides]
cases = sweep_cases(
    [f"mesh:{n}x{n}" for n in sides], ["allreduce"], ["tto"], per_chiplet=per_chiplet
)
cases += sweep_cases(specs, ["allreduce"], ["pipeline"], per_chiplet=per_chiplet)
rows = run_sweep(cases, params, time_limit=10)


def family(row):
    return NAMES[row["topology"].split(":")[0]]


fig = Figure(figsize=(13.0, 3.8), layout="constrained")
left, middle, right = fig.subplots(1, 3)
draw_sweep(rows, left, x="chiplets", y="time", normalize=True, label=family)
left.set_ylabel("time / time at 3x3 (×)")
draw_sweep(rows, middle, x="chiplets", label=family)
draw_speedup(rows, "Mesh (TTO)", right, x="chiplets", label=family)
fig.suptitle("AllReduce of 375 KiB per chiplet, 9 to 256 chiplets (simulated)", fontsize=11)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
