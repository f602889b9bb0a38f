"""Energies counted by hand: 2x2 schedules, partial packets, concentrated routers, long links.

The constants are the ``dsent`` preset's (as its docstring lists them); every count (flits,
switch traversals, routers by ports, channels by length) is made here from the schedule and the
topology, and every time comes from a hand derivation or is passed in.
"""

from __future__ import annotations

import pytest
from _sim_trees import corner_trees

from supermesh.sim import evaluate, simulate, simulate_baseline
from supermesh.sim.energy import (
    NetworkActivity,
    energy_breakdown,
    get_energy_model,
    network_activity,
    router_ports,
)
from supermesh.sim.presets import get_preset
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.topologies import build
from supermesh.trees.model import Tree

STATIC, CLOCK, SWITCH, LINK_STATIC, LINK = 0.57995, 0.010988, 0.053991e-12, 0.0015960, 0.064809e-12
BITS = 2048  # a 256-byte flit
CHAIN = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)  # 0 -> 1 -> 3 on a 2x2 mesh


def by_hand(routers: float, channel_pitches: float, flit_pitches: int, switched: int, t: float):
    """The five parts in J: router static, switching, clock, link static, link dynamic."""
    return (
        STATIC * routers * t,
        SWITCH * BITS * switched,
        CLOCK * routers * t,
        LINK_STATIC * channel_pitches * t,
        LINK * BITS * flit_pitches,
    )


def parts(e) -> tuple[float, ...]:
    return (e.router_static, e.router_switching, e.router_clock, e.link_static, e.link_dynamic)


def test_broadcast_down_a_chain_on_the_2x2_mesh():
    r = simulate(build("mesh:2x2"), [[CHAIN]], "broadcast", 2 * 12288, bound=False)
    assert r.time == 3113.5  # chunk 2 leaves at 1032, two hops of 1031 and a 0.5 forward, drain 19
    # 2 chunks x 2 hops = 4 transfers of 3 packets of 17 flits; each hop switched by 2 routers
    assert r.activity.flits == 4 * 3 * 17 == 204
    assert r.activity.router_flits == 408
    # 4 routers of 2 links + the chiplet's port; 8 channels (4 links, both directions)
    assert r.activity.routers == ((3, 4),)
    assert r.activity.channels == ((1.0, 8),)
    expected = by_hand(4, 8, 204, 408, 3113.5e-9)
    assert parts(r.energy) == pytest.approx(expected, rel=1e-12)
    assert r.energy.total == pytest.approx(sum(expected), rel=1e-12)
    assert r.energy.router_dynamic == pytest.approx(expected[1] + expected[2], rel=1e-12)


def test_broadcast_by_the_papers_text():
    r = simulate(build("mesh:2x2"), [[CHAIN]], "broadcast", 2 * 12288, bound=False)
    e = r.energy_with("paper-text")
    # 1.75 pJ per bit of every flit over every hop; 0.58 W per router; nothing else
    assert e.link_dynamic == pytest.approx(204 * BITS * 1.75e-12, rel=1e-12)
    assert e.router_static == pytest.approx(4 * 0.58 * 3113.5e-9, rel=1e-12)
    assert e.router_dynamic == e.link_static == 0.0


def test_allreduce_on_four_corner_trees_of_the_2x2_smbi():
    G = build("smbi:2x2")
    trees = corner_trees(2)
    arcs = [a for t in trees for a in t.arcs]
    assert len(arcs) == len(set(arcs)) == 12
    assert all(G.has_edge(u, v, key=k) for u, v, k in arcs)
    r = simulate(G, [trees], "allreduce", 4 * 2 * 12288, bound=False)
    assert r.meta["chunks"] == [2]
    # reduce-scatter and all-gather: 4 trees x 3 edges x 2 chunks each, 51 flits a chunk
    flits = 2 * 4 * 3 * 2 * 51
    assert r.activity.flits == flits
    assert r.activity.routers == ((5, 4),)  # 2 doubled links + the chiplet's port
    assert r.activity.channels == ((1.0, 16),)
    expected = by_hand(4, 16, flits, 2 * flits, r.seconds)
    assert parts(r.energy) == pytest.approx(expected, rel=1e-12)


def test_a_short_last_packet_has_fewer_flits():
    # direct broadcast of 100 B from chiplet 0: 1 -> one hop, 2 -> one hop, 3 -> two hops;
    # 100 B is one body flit plus the head flit
    r = simulate_baseline(build("mesh:2x2"), "direct", "broadcast", 100, bound=False)
    assert r.activity.flits == 4 * 2
    assert r.activity.router_flits == 16
    assert r.energy.link_dynamic == pytest.approx(8 * BITS * LINK, rel=1e-12)


def test_a_concentrated_path_pays_two_switches_and_one_link():
    G = build("cmesh:4x4")  # routers 16..19 on a 2x2 grid, each serving a 2x2 block of chiplets
    assert sorted(G.successors(0)) == [16]
    assert G.has_edge(16, 17)
    assert G.has_edge(17, 2)
    assert G.edges[16, 17, 0]["latency"] == 2.0  # one router step is two chiplet pitches
    index: dict = {}
    pb = PhaseBuilder(index)
    a = pb.add((0, 16, 0), count=1, duration=1.0, payload=4096)
    b = pb.add((16, 17, 0), count=1, duration=1.0, payload=4096, deps=[a])
    pb.add((17, 2, 0), count=1, duration=1.0, payload=4096, deps=[b])
    program = Program(arcs=list(index), phases=[pb.build()])
    act = network_activity(G, program, get_preset())
    # chiplets hang on their routers: no router of their own, no link energy on the local ports
    assert act.routers == ((6, 4),)  # 4 chiplets + 2 router links
    assert act.channels == ((2.0, 8),)  # the 4 router links, both ways, 2 pitches each
    assert act.link_flits == ((2.0, 17),)
    assert act.router_flits == 2 * 17  # router 16 onto the link, router 17 to chiplet 2
    e = energy_breakdown(act, 1e-6, get_energy_model())
    assert parts(e) == pytest.approx(by_hand(4, 8 * 2, 17 * 2, 34, 1e-6), rel=1e-12)


def test_routers_above_six_ports_cost_in_proportion():
    ports = router_ports(build("cmesh:8x8"))
    # a 4x4 grid of routers, 4 chiplets each: corners 2 links, sides 3, the middle 4
    assert sorted(ports.values()) == [6] * 4 + [7] * 8 + [8] * 4
    act = NetworkActivity(((6, 4), (7, 8), (8, 4)), (), (), 0, BITS)
    e = energy_breakdown(act, 1.0, get_energy_model())
    assert e.router_static == pytest.approx(STATIC * (4 + 8 * 7 / 6 + 4 * 8 / 6), rel=1e-12)
    flat = energy_breakdown(act, 1.0, get_energy_model(router_ports=0))
    assert flat.router_static == pytest.approx(STATIC * 16, rel=1e-12)


def test_long_links_cost_in_proportion_to_their_length():
    G = build("folded-torus:4x4")
    ring = build("mesh:4x4")
    program = Program(arcs=[], phases=[])
    act = network_activity(G, program, get_preset())
    # each ring of 4: links 0-2 and 1-3 (2 pitches), 0-1 and 2-3 (1 pitch); 8 rings, both ways
    assert act.channels == ((1.0, 32), (2.0, 32))
    e = energy_breakdown(act, 1.0, get_energy_model())
    assert e.link_static == pytest.approx(LINK_STATIC * (32 + 2 * 32), rel=1e-12)
    alike = energy_breakdown(act, 1.0, get_energy_model(length_exponent=0.0))
    mesh = energy_breakdown(network_activity(ring, program, get_preset()), 1.0, get_energy_model())
    assert alike.link_static == pytest.approx(LINK_STATIC * 64, rel=1e-12)
    assert mesh.link_static == pytest.approx(LINK_STATIC * 48, rel=1e-12)


def test_links_shorter_than_a_pitch_count_as_one():
    G = build("hexamesh:r1")  # latency 1 on every link; check the floor with a shorter one
    for u, v, k in list(G.edges(keys=True))[:2]:
        G.edges[u, v, k]["latency"] = 0.5
    act = network_activity(G, Program(arcs=[], phases=[]), get_preset())
    e = energy_breakdown(act, 1.0, get_energy_model())
    assert e.link_static == pytest.approx(LINK_STATIC * G.number_of_edges(), rel=1e-12)


def test_the_paper_preset_counts_whole_packets_as_flits():
    params = get_preset("paper")  # 4096-byte flits, no head flit
    r = simulate(build("mesh:2x2"), [[CHAIN]], "broadcast", 2 * 12288, params=params, bound=False)
    assert r.activity.flits == 4 * 3
    assert r.activity.flit_bits == 4096 * 8
    assert r.energy.link_dynamic == pytest.approx(12 * 4096 * 8 * LINK, rel=1e-12)


def test_a_longer_run_leaks_more_and_switches_the_same():
    G = build("mesh:2x2")
    fast = simulate(G, [[CHAIN]], "broadcast", 2 * 12288, bound=False)
    slow = simulate(
        G,
        [[CHAIN]],
        "broadcast",
        2 * 12288,
        params=get_preset(hop_latency=1011.0),
        bound=False,
    )
    assert slow.time > fast.time
    assert slow.energy.router_switching == fast.energy.router_switching
    assert slow.energy.link_dynamic == fast.energy.link_dynamic
    ratio = slow.seconds / fast.seconds
    for name in ("router_static", "router_clock", "link_static"):
        assert getattr(slow.energy, name) == pytest.approx(ratio * getattr(fast.energy, name))


def test_every_program_is_charged_the_same_way():
    """evaluate() on a program made by hand gets the same activity as network_activity."""
    G = build("mesh:2x2")
    index: dict = {}
    pb = PhaseBuilder(index)
    pb.add((0, 1, 0), count=3, duration=10.0, payload=12288)
    pb.add((1, 0, 0), count=1, duration=10.0, payload=5000)
    program = Program(arcs=list(index), phases=[pb.build()])
    params = get_preset()
    r = evaluate(G, program, params, collective="broadcast", algorithm="hand", nbytes=1)
    assert r.activity == network_activity(G, program, params)
    # 3 chunks of 51 flits, and 5000 B = one packet of 16 + 1 and one of 4 + 1 flits
    assert r.activity.flits == 3 * 51 + 17 + 5
