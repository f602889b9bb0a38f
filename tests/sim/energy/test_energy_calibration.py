"""The ``dsent`` energy model against the reference's DSENT output for its three calibration runs.

AllReduce of 512 MiB on 8x8 with the booksim timing; power in W over the run, flits are link flit
traversals (issue 19). The model is checked twice: on the reference's own counts (its cycles and
flits, the networks' routers and channels counted by hand), and on this simulator's runs of the
same schedules (the trees of ``test_sim_calibration``), whose flits must equal the reference's.
The reference's other runs are held back and appear nowhere here.
"""

from __future__ import annotations

import pytest
from _sim_trees import corner_trees

from supermesh.sim import run_algorithm, simulate
from supermesh.sim.energy import (
    COMPONENTS,
    NetworkActivity,
    energy_breakdown,
    get_energy_model,
)
from supermesh.sim.presets import get_preset
from supermesh.topologies import build
from supermesh.trees.packing.search import pack_trees

# network: cycles, (router static, router dynamic, link static, link dynamic) W, flits, energy J
REFERENCE = {
    "mesh": (30_086_982, (37.117, 2.756, 0.3575, 1.232), 279_279_264, 1.2475),
    "smbi": (22_571_976, (37.117, 3.454, 0.4469, 1.651), 280_764_792, 0.9631),
    "smalter": (22_571_981, (37.117, 3.454, 0.3575, 1.651), 280_764_792, 0.9611),
}
# hand counts on 8x8: 2 x 8 x 7 links of the mesh = 224 arcs; SMBi doubles the 28 perimeter links
# (+56 arcs), SMAlter every other one from each corner, 4 per side (+32). Routers: the 64 chiplets,
# ports = links + the chiplet's own; mesh corners 2 + 1, border 3 + 1, interior 4 + 1; SMBi
# corners 4 + 1, border 5 + 1; SMAlter (even N) every chiplet 4 + 1
CHANNELS = {"mesh": 224, "smbi": 280, "smalter": 256}
ROUTERS = {
    "mesh": ((3, 4), (4, 24), (5, 36)),
    "smbi": ((5, 40), (6, 24)),
    "smalter": ((5, 64),),
}
TOLERANCE = 0.005


def rel(value: float, reference: float) -> float:
    return abs(value - reference) / reference


def reference_activity(network: str) -> NetworkActivity:
    flits = REFERENCE[network][2]
    # every transfer is one hop between two chiplets: switched by both of their routers
    return NetworkActivity(
        ROUTERS[network], ((1.0, CHANNELS[network]),), ((1.0, flits),), 2 * flits, 2048
    )


def watts(network: str, activity: NetworkActivity, seconds: float) -> dict[str, float]:
    return energy_breakdown(activity, seconds, get_energy_model("dsent")).power(seconds)


@pytest.mark.parametrize("network", ["mesh", "smbi"])
def test_the_reference_counts_give_every_component(network):
    cycles, power, _, energy = REFERENCE[network]
    got = watts(network, reference_activity(network), cycles * 1e-9)
    for name, expected in zip(COMPONENTS, power, strict=True):
        assert rel(got[name], expected) < TOLERANCE, name
    assert rel(got["total"] * cycles * 1e-9, energy) < TOLERANCE


def test_smalter_link_static_charges_all_its_channels():
    # the reference's 0.3575 W is the mesh's 224 channels; SMAlter 8x8 has 256 and the model
    # charges them all, so that one component is 256/224 of the reference's, the total within 0.5%
    cycles, power, _, energy = REFERENCE["smalter"]
    got = watts("smalter", reference_activity("smalter"), cycles * 1e-9)
    for name, expected in zip(COMPONENTS, power, strict=True):
        if name == "link_static":
            expected *= 256 / 224
        assert rel(got[name], expected) < TOLERANCE, name
    assert rel(got["total"] * cycles * 1e-9, energy) < TOLERANCE


def test_the_constants_follow_from_the_table():
    """Refit each constant from the reference's numbers in closed form (the presets' docstring)."""
    m = get_energy_model("dsent")
    seconds = {k: v[0] * 1e-9 for k, v in REFERENCE.items()}
    assert rel(m.router_static_watts, 37.117 / 64) < 1e-4
    static = (REFERENCE["mesh"][1][2] + REFERENCE["smbi"][1][2]) / (224 + 280)
    assert rel(m.link_static_watts, static) < 1e-4
    for network, (_, power, flits, _) in REFERENCE.items():
        per_bit = power[3] * seconds[network] / (flits * 2048) * 1e12
        assert rel(m.link_pj_per_bit, per_bit) < 1e-4, network
    # router dynamic = a x 2 x flits x 2048 + c x 64 x T, solved on the mesh and SMBi runs
    (tm, fm, em), (ts, fs, es) = (
        (seconds[k], REFERENCE[k][2], REFERENCE[k][1][1] * seconds[k]) for k in ("mesh", "smbi")
    )
    det = 2 * 2048 * fm * 64 * ts - 2 * 2048 * fs * 64 * tm
    a = (em * 64 * ts - es * 64 * tm) / det
    c = (2 * 2048 * fm * es - 2 * 2048 * fs * em) / det
    assert rel(m.router_pj_per_bit, a * 1e12) < 1e-4
    assert rel(m.router_clock_watts, c) < 1e-4


@pytest.fixture(scope="module")
def simulated():
    G = build("mesh:8x8")
    span = [v for v in range(64) if v != 56]  # TTO: the bottom-left corner only relays
    tto = pack_trees(G, [0, 7, 63], direction="out", span=span, time_limit=60)
    assert tto.status == "optimal"
    runs = {"mesh": simulate(G, [list(tto.trees)], "allreduce", 512 << 20, bound=False)}
    runs["smbi"] = simulate(
        build("smbi:8x8"), [corner_trees(8)], "allreduce", 512 << 20, bound=False
    )
    runs["smalter"] = run_algorithm(
        build("smalter:8x8"), "pipeline", "allreduce", 512 << 20, get_preset(), bound=False
    )
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("network", ["mesh", "smbi", "smalter"])
def test_the_simulated_runs_move_the_reference_flits(simulated, network):
    r = simulated[network]
    cycles, power, flits, energy = REFERENCE[network]
    assert r.activity.flits == flits
    assert r.activity.router_flits == 2 * flits
    assert r.activity.routers == ROUTERS[network]
    assert r.activity.n_channels == CHANNELS[network]
    assert rel(r.time, cycles) < 1e-5
    got = r.energy.power(r.seconds)
    for name, expected in zip(COMPONENTS, power, strict=True):
        if network == "smalter" and name == "link_static":
            expected *= 256 / 224  # see test_smalter_link_static_charges_all_its_channels
        assert rel(got[name], expected) < TOLERANCE, name
    assert rel(r.energy.total, energy) < TOLERANCE


@pytest.mark.slow
def test_smbi_spends_more_than_smalter_for_its_extra_links(simulated):
    smbi, smalter = simulated["smbi"].energy, simulated["smalter"].energy
    assert smbi.total > smalter.total
    assert smbi.link_static > smalter.link_static
    assert smbi.router_static == pytest.approx(smalter.router_static)
    # the reference's own ratios: 0.9631 / 1.2475 and 0.9611 / 1.2475
    mesh = simulated["mesh"].energy
    assert smbi.ratio(mesh) == pytest.approx(0.9631 / 1.2475, rel=TOLERANCE)
    assert smalter.ratio(mesh) == pytest.approx(0.9611 / 1.2475, rel=TOLERANCE)
