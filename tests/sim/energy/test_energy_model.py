"""The energy model's data: constants, spec strings, JSON, and the activity of random programs
recounted transfer by transfer by an independent loop."""

from __future__ import annotations

import pytest
from _energy_recount import recount
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import InputFileError, SpecError, TopologyError
from supermesh.sim import simulate_baseline
from supermesh.sim.energy import (
    ENERGY_FIELDS,
    ENERGY_MODELS,
    EnergyBreakdown,
    EnergyModel,
    NetworkActivity,
    energy_breakdown,
    energy_model_from_text,
    get_energy_model,
    network_activity,
)
from supermesh.sim.presets import get_preset
from supermesh.sim.program import PhaseBuilder, Program
from supermesh.testing.strategies import topologies
from supermesh.topologies import build


def test_both_named_models_exist_and_every_constant_is_documented():
    assert set(ENERGY_MODELS) == {"dsent", "paper-text"}
    assert get_energy_model().name == "dsent"  # the default
    fields = set(EnergyModel.__dataclass_fields__) - {"name"}
    assert fields == set(ENERGY_FIELDS)
    text = get_energy_model("paper-text")
    assert text.link_pj_per_bit == 1.75
    assert text.router_pj_per_bit == text.link_static_watts == text.router_clock_watts == 0


def test_dsent_link_energy_is_far_below_the_papers_text():
    # issue 19: about 0.13 nJ per 256-byte flit hop, 0.065 pJ/bit, against 1.75 pJ/bit
    dsent = get_energy_model("dsent")
    assert dsent.link_pj_per_bit * 2048 * 1e-3 == pytest.approx(0.1327, rel=1e-3)  # nJ
    assert 25 < 1.75 / dsent.link_pj_per_bit < 29


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("dsent", "router_ports", 6),
        ("dsent,router_ports=0", "router_ports", 0),
        (" paper-text , link_pj_per_bit = 0.5 ", "link_pj_per_bit", 0.5),
        ("dsent,length_exponent=0", "length_exponent", 0.0),
    ],
)
def test_spec_strings(text, field, value):
    m = energy_model_from_text(text)
    assert getattr(m, field) == value
    assert energy_model_from_text(m.name) == m  # the name is a spec that gives the model back


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("nosuch", "unknown energy model"),
        ("dsent,router_static_watts", "is not KEY=VALUE"),
        ("dsent,watts=1", "unknown energy constant"),
        ("dsent,router_static_watts=-1", "finite number >= 0"),
        ("dsent,router_static_watts=nan", "finite number >= 0"),
        ("dsent,router_static_watts=inf", "finite number >= 0"),
        ("dsent,router_static_watts=1e400", "finite number >= 0"),
        ("dsent,router_static_watts=²", "finite number >= 0"),
        ("dsent,router_ports=2.5", "whole number"),
        ("dsent,length_exponent=7", "above 3"),
    ],
)
def test_bad_spec_strings_say_what_is_wrong(text, says):
    with pytest.raises(SpecError, match=says) as info:
        energy_model_from_text(text)
    assert info.value.hint


def test_bad_constants_are_refused():
    with pytest.raises(SpecError, match="not a number"):
        EnergyModel("x", "1", 0, 0, 0, 0)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="needs a name"):
        EnergyModel("", 1, 0, 0, 0, 0)
    with pytest.raises(SpecError, match="unknown energy constant"):
        get_energy_model(watts=3)
    with pytest.raises(SpecError, match="unknown energy constant"):
        EnergyModel.from_json({**get_energy_model().to_json(), "extra": 1})
    with pytest.raises(SpecError, match="needs every constant"):
        EnergyModel.from_json({"name": "x"})


def test_json_round_trips():
    m = get_energy_model("dsent", link_pj_per_bit=0.2)
    assert EnergyModel.from_json(m.to_json()) == m
    r = simulate_baseline(build("kite-small:4x4"), "ring", "allgather", 1 << 16)
    assert NetworkActivity.from_json(r.activity.to_json()) == r.activity
    assert EnergyBreakdown.from_json(r.energy.to_json()) == r.energy
    with pytest.raises(InputFileError):
        NetworkActivity.from_json({"routers": []})
    with pytest.raises(InputFileError):
        EnergyBreakdown.from_json({"router_static_joules": "x"})


def test_the_json_breakdown_adds_up():
    r = simulate_baseline(build("smbi:3x3"), "bidir-ring", "allreduce", 1 << 18)
    doc = r.to_json()["energy"]
    parts = ("router_static", "router_dynamic", "link_static", "link_dynamic")
    assert doc["model"] == "dsent"
    assert doc["total_joules"] == pytest.approx(sum(doc[f"{p}_joules"] for p in parts))
    assert doc["router_dynamic_joules"] == pytest.approx(
        doc["router_switching_joules"] + doc["router_clock_joules"]
    )
    for p in parts:
        assert doc["power_watts"][p] == pytest.approx(doc[f"{p}_joules"] / r.seconds)
    assert doc["flits"] == r.activity.flits > 0
    assert doc["routers"] == 9
    assert doc["channels"] == 24 + 16  # 12 mesh links and 8 doubled perimeter links, both ways
    assert doc["constants"] == get_energy_model().to_json()


def test_a_program_for_another_topology_is_refused():
    index: dict = {}
    pb = PhaseBuilder(index)
    pb.add((0, 5, 0), count=1, duration=1.0, payload=1)
    program = Program(arcs=list(index), phases=[pb.build()])
    with pytest.raises(TopologyError, match="does not have"):
        network_activity(build("mesh:2x2"), program, get_preset())


def test_a_bad_length_is_refused():
    G = build("mesh:2x2")
    G.edges[0, 1, 0]["latency"] = -1.0
    with pytest.raises(TopologyError, match="latency"):
        network_activity(G, Program(arcs=[], phases=[]), get_preset())


@st.composite
def random_programs(draw):
    G = draw(topologies(max_side=4))
    arcs = list(G.edges(keys=True))
    index: dict = {}
    phases = []
    for _ in range(draw(st.integers(1, 2))):
        pb = PhaseBuilder(index)
        for _ in range(draw(st.integers(0, 6))):
            pb.add(
                draw(st.sampled_from(arcs)),
                count=draw(st.integers(0, 4)),
                duration=1.0,
                payload=draw(st.integers(0, 30000)),
            )
        phases.append(pb.build())
    return G, Program(arcs=list(index), phases=phases)


@given(random_programs(), st.sampled_from(["booksim", "paper"]))
def test_the_activity_of_any_program_matches_a_recount(case, preset):
    G, program = case
    params = get_preset(preset)
    act = network_activity(G, program, params)
    routers, channels, hops, switched = recount(G, program, params)
    assert dict(act.routers) == routers
    assert dict(act.channels) == channels
    assert dict(act.link_flits) == hops
    assert act.router_flits == switched
    assert act.flit_bits == 8 * params.flit_bytes


@given(
    random_programs(),
    st.lists(st.floats(0, 10, allow_nan=False), min_size=5, max_size=5),
    st.integers(0, 8),
    st.floats(0, 2),
    st.floats(0, 1e-3),
)
def test_the_breakdown_is_the_formula(case, constants, ports, exponent, seconds):
    G, program = case
    params = get_preset()
    model = EnergyModel("random", *constants, router_ports=ports, length_exponent=exponent)
    e = energy_breakdown(network_activity(G, program, params), seconds, model)
    routers, channels, hops, switched = recount(G, program, params)
    radix = sum(c * (p / ports if ports and p > ports else 1.0) for p, c in routers.items())
    pitches = sum(c * max(1.0, x) ** exponent for x, c in channels.items())
    flit_pitches = sum(f * max(1.0, x) ** exponent for x, f in hops.items())
    rs, rc, rpj, ls, lpj = constants
    assert e.router_static == pytest.approx(rs * radix * seconds)
    assert e.router_clock == pytest.approx(rc * radix * seconds)
    assert e.router_switching == pytest.approx(rpj * 1e-12 * 2048 * switched)
    assert e.link_static == pytest.approx(ls * pitches * seconds)
    assert e.link_dynamic == pytest.approx(lpj * 1e-12 * 2048 * flit_pitches)
