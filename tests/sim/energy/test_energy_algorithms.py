"""Energy of every algorithm the simulator runs, and the paper's energy claims on SuperMesh.

Every named algorithm reaches the result through the same assembly, so its energy is that of its
own transfer list: the program each run simulates is captured and recounted independently. The
paper's third claim (SuperMesh finishes an AllReduce with 0.72-0.84x the mesh's energy, SMBi
above SMAlter, and the time saved is what saves it) is checked on sizes where it is cheap.
"""

from __future__ import annotations

import pytest
from _energy_recount import recount

import supermesh.sim.run as sim_run
from supermesh.sim import ALGORITHMS, run_algorithm
from supermesh.sim.presets import get_preset
from supermesh.topologies import build

CASES = [
    ("pipeline", "smbi:4x4", "allreduce"),
    ("pipeline", "smalter:5x5", "reducescatter"),
    ("pipeline", "smbi:3x3", "broadcast"),
    ("tto", "mesh:4x4", "allreduce"),
    ("paper", "smbi:4x4", "allgather"),
    ("throughput", "smbi:4x4", "allreduce"),
    ("ring", "mesh:3x3", "allreduce"),
    ("bidir-ring", "smalter:4x4", "allgather"),
    ("direct", "kite-small:4x4", "reducescatter"),
    ("multitree", "cmesh:4x4", "allreduce"),
]
# the synthesisers of issue 16, once they are in the simulator
CASES += [(a, "mesh:3x3", "allgather") for a in ("tacos", "teccl") if a in ALGORITHMS]


def test_the_cases_cover_every_algorithm():
    assert {a for a, _, _ in CASES} == set(ALGORITHMS)


@pytest.mark.parametrize(("algorithm", "spec", "collective"), CASES)
def test_energy_follows_the_simulated_transfers(monkeypatch, algorithm, spec, collective):
    seen = []
    assemble = sim_run.assemble

    def spy(G, program, *args, **kwargs):
        seen.append(program)
        return assemble(G, program, *args, **kwargs)

    monkeypatch.setattr(sim_run, "assemble", spy)
    G, params = build(spec), get_preset()
    r = run_algorithm(G, algorithm, collective, 1 << 20, params, bound=False, time_limit=10)
    (program,) = seen
    routers, channels, hops, switched = recount(G, program, params)
    assert dict(r.activity.routers) == routers
    assert dict(r.activity.channels) == channels
    assert dict(r.activity.link_flits) == hops
    assert r.activity.router_flits == switched
    e = r.energy
    assert e.router_static > 0
    assert e.link_dynamic > 0
    assert e.total == pytest.approx(
        e.router_static + e.router_dynamic + e.link_static + e.link_dynamic
    )


@pytest.fixture(scope="module")
def allreduce():
    params = get_preset()
    out = {}
    for n in (4, 5, 8):
        cache: dict = {}
        for family, algorithm in (("mesh", "tto"), ("smbi", "pipeline"), ("smalter", "pipeline")):
            G = build(f"{family}:{n}x{n}")
            for size in (1 << 20, 64 << 20):
                out[family, n, size] = run_algorithm(
                    G, algorithm, "allreduce", size, params, cache=cache, bound=False, bins=0
                )
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [4, 5, 8])
@pytest.mark.parametrize("size", [1 << 20, 64 << 20])
def test_supermesh_uses_what_the_paper_says_of_the_mesh_energy(allreduce, n, size):
    mesh = allreduce["mesh", n, size]
    smbi, smalter = allreduce["smbi", n, size], allreduce["smalter", n, size]
    for r in (smbi, smalter):
        ratio = r.energy.ratio(mesh.energy)
        assert 0.72 <= ratio <= 0.85
        # static router power dominates: the energy ratio is the time ratio times the power
        # ratio, a few percent above 1 (the reference's 8x8 runs: 42.67 W / 41.46 W = 1.029)
        assert 1.0 <= ratio / (r.time / mesh.time) < 1.04
        # the paper's text (1.75 pJ/bit) overstates link energy: a smaller saving
        paper = r.energy_with("paper-text").ratio(mesh.energy_with("paper-text"))
        assert ratio < paper < 0.92
    assert smbi.energy.total > smalter.energy.total  # same time, more links
