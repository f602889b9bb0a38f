"""MSCCL XML export: a validator written from the RCCL/MSCCL parser's rules, plus an executor.

``validate`` parses the text with xml.etree and checks what the runtime parser reads (every
attribute, the limits, tb ids, peers, channels, buffer bounds, dependencies, matching sends and
receives per connection). ``execute`` runs the program symbolically for two loop iterations
(threadblocks in step order, a dependency waits for the named step of the same iteration,
connections hold one message) and checks the collective's result.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from _msccl import check_result, execute, validate
from _schedule_trees import greedy_trees, packing, rank_sets, side_trees
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.export.msccl import MscclLimits, msccl_program, msccl_xml
from supermesh.topologies import build
from supermesh.trees.schedule.build import build_schedule


def _allreduce_trees(spec):
    G = build(spec)
    R, C = G.graph["rows"], G.graph["cols"]
    corners = [0, C - 1, R * C - 1, (R - 1) * C]
    if spec.startswith("smbi"):
        return G, [side_trees(G, *corners)]
    if spec.startswith("smalter"):
        return G, [greedy_trees(G, corners[:3])]
    return G, [greedy_trees(G, [0, R * C - 1])]


CASES = ["mesh:3x3", "smbi:4x4", "smalter:4x4", "smbi:3x4"]


@pytest.mark.parametrize("spec", CASES)
@pytest.mark.parametrize("chunks", [1, 3])
def test_allreduce_xml_is_valid_and_correct(spec, chunks):
    G, sets = _allreduce_trees(spec)
    s = build_schedule(G, "allreduce", packing(G, sets), chunks=chunks)
    algo = validate(msccl_xml(s))
    ntrees = len(sets[0])
    assert int(algo.get("nchunksperloop")) == ntrees * chunks  # every tree kept
    check_result(algo, execute(algo))


@pytest.mark.parametrize("spec", CASES)
@pytest.mark.parametrize("coll", ["allgather", "reducescatter"])
def test_rank_set_collectives_xml(spec, coll):
    G = build(spec)
    sets = rank_sets(G, 4 if spec.startswith("smbi") else 2)
    direction = "out" if coll == "allgather" else "in"
    s = build_schedule(G, coll, packing(G, sets, direction), chunks=2)
    algo = validate(msccl_xml(s))
    check_result(algo, execute(algo))


def test_broadcast_and_reduce_xml():
    G = build("mesh:3x3")
    trees = greedy_trees(G, [4, 4])
    for coll in ("broadcast", "reduce"):
        s = build_schedule(G, coll, packing(G, [trees]), chunks=2)
        algo = validate(msccl_xml(s))
        check_result(algo, execute(algo), root=4)


def test_parallel_links_get_their_own_channels():
    G, sets = _allreduce_trees("smbi:4x4")
    s = build_schedule(G, "allreduce", packing(G, sets), chunks=2)
    prog = msccl_program(s)
    assert prog.nchannels == 2  # keys 0 and 1 of the doubled perimeter links
    used = {(e.src, e.dst, e.key) for e in s.entries}
    for g, tbs in prog.tbs.items():
        sends = {(g, tb.send, tb.chan) for tb in tbs if tb.send >= 0}
        assert sends == {(u, v, k) for u, v, k in used if u == g}


def test_step_limit_uses_loops_and_channel_groups():
    G = build("smbi:4x4")
    sets = rank_sets(G, 4)  # 4 sets share the links
    s = build_schedule(G, "allgather", packing(G, sets), chunks=40)
    prog = msccl_program(s, limits=MscclLimits(max_steps=8))
    assert prog.slots < 40  # chunks folded into loop iterations
    assert max(len(tb.steps) for tbs in prog.tbs.values() for tb in tbs) <= 8
    tight = msccl_program(s, chunks_per_loop=1, limits=MscclLimits(max_steps=1))
    assert tight.nchannels > 2  # sets split into channel groups
    algo = ET.fromstring(msccl_xml(s, chunks_per_loop=1, limits=MscclLimits(max_steps=1)))
    check_result(algo, execute(algo))


def test_limits_raise_with_a_hint():
    G, sets = _allreduce_trees("smbi:4x4")
    s = build_schedule(G, "allreduce", packing(G, sets), chunks=4)
    with pytest.raises(SpecError, match="channels exceed"):
        msccl_program(s, limits=MscclLimits(max_channels=1))
    with pytest.raises(SpecError, match="chunks per loop"):
        msccl_program(s, chunks_per_loop=100)
    with pytest.raises(SpecError, match="threadblocks"):
        msccl_program(s, limits=MscclLimits(max_threadblocks=2))


def test_validator_and_executor_catch_broken_programs():
    G, sets = _allreduce_trees("mesh:3x3")
    text = msccl_xml(build_schedule(G, "allreduce", packing(G, sets), chunks=2))
    no_bytes = text.replace(' maxBytes="', ' maxbytes="', 1)
    with pytest.raises(AssertionError, match="algo lacks maxBytes"):
        validate(no_bytes)
    algo = ET.fromstring(text)
    step = next(s for s in algo.iter("step") if s.get("type") == "r")
    step.set("type", "s")  # a receive turned into a send: connections no longer match
    with pytest.raises(AssertionError):
        validate(ET.tostring(algo, encoding="unicode").replace(" />", "/>"))
    algo = ET.fromstring(text)
    dep = next(s for s in algo.iter("step") if s.get("depid") != "-1" and s.get("type") == "s")
    dep.set("depid", "-1")
    dep.set("deps", "-1")  # send before the reduction is done
    with pytest.raises(AssertionError):
        check_result(algo, execute(algo))


def test_relay_chiplets_are_refused():
    G = build("mesh:2x2,memory=south")
    relay = max(G.nodes)
    assert G.nodes[relay]["kind"] == "memory"
    s = build_schedule(G, "broadcast", packing(G, [greedy_trees(G, [0])]), chunks=1)
    assert any(relay in (e.src, e.dst) for e in s.entries)  # the greedy tree reaches it
    with pytest.raises(SpecError, match="not a rank"):
        msccl_program(s)


@given(
    spec=st.sampled_from(["mesh:2x3", "mesh:3x3", "smbi:3x3", "smalter:4x4"]),
    coll=st.sampled_from(["allreduce", "reducescatter", "allgather", "broadcast", "reduce"]),
    chunks=st.integers(1, 3),
    picks=st.tuples(st.integers(0, 99), st.integers(0, 99)),
    max_steps=st.sampled_from([2, 4, 64]),
)
def test_every_export_is_valid_and_computes_the_collective(spec, coll, chunks, picks, max_steps):
    G = build(spec)
    n = G.number_of_nodes()
    a, b = picks[0] % n, picks[1] % n
    if coll in ("reducescatter", "allgather"):
        sets = rank_sets(G, 2, seed=a)
    else:
        sets = [greedy_trees(G, [a, a] if coll in ("broadcast", "reduce") else [a, b], seed=b)]
    direction = "in" if coll in ("reducescatter", "reduce") else "out"
    s = build_schedule(G, coll, packing(G, sets, direction), chunks=chunks)
    algo = validate(msccl_xml(s, limits=MscclLimits(max_steps=max_steps)))
    check_result(algo, execute(algo), root=a)
