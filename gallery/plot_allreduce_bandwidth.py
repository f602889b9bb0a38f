"""AllReduce bandwidth against data size: mesh (TTO) vs SMBi vs SMAlter.
=====================================================================

The paper's figure 9, from the calibrated link simulator (``booksim`` preset: 1 cycle = 1 ns).
The mesh runs TTO (three corner trees; the fourth corner only relays), SuperMesh runs four
corner-rooted trees. Top: algorithm bandwidth (bytes / completion time); bottom: speedup over the
mesh. The pipeline fills as the data grow, and four trees against three approach 4/3. Where SMBi
and SMAlter give the same times they share one line. Set ``SUPERMESH_GALLERY_QUICK=1`` to run
three sizes instead of ten.
"""

from matplotlib.figure import Figure

from supermesh.draw import draw_speedup, draw_sweep, gallery_output, gallery_quick, save_figure
from supermesh.sim.presets import get_preset
from supermesh.sim.sweep import run_sweep, sweep_cases

# %%
# Simulate every size on every network: TTO's three trees on the mesh, four corner trees on
# SuperMesh.

SIZES = (4, 5, 8, 9)
NAMES = {"mesh": "Mesh (TTO)", "smbi": "SMBi", "smalter": "SMAlter"}
exponents = (20, 24, 29) if gallery_quick() else range(20, 30)
nbytes = [1 << e for e in exponents]  # 1 MiB to 512 MiB

params = get_preset("booksim")
rows = []
for n in SIZES:
    cases = sweep_cases([f"mesh:{n}x{n}"], ["allreduce"], ["tto"], nbytes)
    cases += sweep_cases([f"smbi:{n}x{n}", f"smalter:{n}x{n}"], ["allreduce"], ["pipeline"], nbytes)
    rows += run_sweep(cases, params, time_limit=10)


def family(row):
    return NAMES[row["topology"].split(":")[0]]


fig = Figure(figsize=(13.0, 6.2), layout="constrained")
axes = fig.subplots(2, len(SIZES))
for j, n in enumerate(SIZES):
    mine = [r for r in rows if r["topology"].endswith(f":{n}x{n}")]
    draw_sweep(mine, axes[0, j], label=family, title=f"{n}x{n} ({n * n} chiplets)")
    draw_speedup(mine, "Mesh (TTO)", axes[1, j], label=family)
    axes[1, j].set_ylabel("speedup over Mesh (TTO) (×)")
fig.suptitle("AllReduce: SuperMesh vs mesh (simulated, booksim preset)", fontsize=11)

# %%
# The picture is saved next to the script (the README shows it), or into the folder that
# ``SUPERMESH_GALLERY_DIR`` names.
save_figure(fig, gallery_output(__file__), dpi=110)
