"""Schedule-table checker: hand-built defects by name, reference schedules, mutation properties."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.testing.examples import smbi_corner_trees
from supermesh.testing.mutations import drop_dependency, drop_entry, move_entry, swap_steps
from supermesh.testing.strategies import schedules, topology_specs
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.schedule import reverse_packing
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.model import Schedule
from supermesh.verify import check_deadlock, check_packing, check_schedule, errors

MESH22 = build("mesh:2x2")  # 0 1 / 2 3
# small random graphs with doubled links, and real topologies (greedy trees may be rejected there)
ANY_SCHEDULE = st.one_of(
    schedules(),
    st.sampled_from(["smbi:3x3", "mesh:3x3", "smalter:4x4", "smbi:2x4"])
    .map(build)
    .flatmap(schedules),
)
T0 = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
P0 = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((T0,)),))


def codes(findings):
    return sorted({f.code for f in errors(findings)})


def allreduce22(chunks=2):
    return build_schedule(MESH22, "allreduce", P0, chunks=chunks)


def edit(s, i, **changes):
    entries = list(s.entries)
    entries[i] = dataclasses.replace(entries[i], **changes)
    return dataclasses.replace(s, entries=tuple(entries))


def find(s, phase, src, dst):
    return next(e.id for e in s.entries if (e.phase, e.src, e.dst) == (phase, src, dst))


def test_reference_allreduce_of_the_brief_is_clean():
    # 4x4 SMBi, corner roots, 4 MiB: 86 chunks per tree (BRIEF section 4)
    G = build("smbi:4x4")
    p = smbi_corner_trees(4)
    s = build_schedule(G, "allreduce", p, nbytes=4 * 2**20)
    assert s.chunks == 86
    assert check_schedule(G, s, p) == []
    assert check_schedule(G, s, [p, reverse_packing(p)]) == []
    report = check_deadlock(G, s)
    assert report.deadlock_free
    assert "periodic" in report.argument


def test_hand_schedule_reads_as_expected():
    s = allreduce22()
    assert check_schedule(MESH22, s, P0) == []
    # rs: 3->1, 1->0 (waits for 3->1), 2->0; ag: 0->1, 0->2 (wait for the root's inputs), 1->3
    assert [(e.phase, e.src, e.dst, e.deps) for e in s.entries][:3] == [
        ("rs", 3, 1, ()),
        ("rs", 1, 0, (0,)),
        ("rs", 2, 0, ()),
    ]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda s: edit(s, 0, key=1), ["arc-missing"]),  # mesh links are single
        # node 1 then has no input and still claims to reduce (and waits for entry 0, which no
        # longer delivers to it); the root misses rank 3
        (
            lambda s: edit(s, 0, dst=9),
            ["chunk-incomplete", "dep-extra", "node-out-of-range", "op-mismatch", "table-mismatch"],
        ),
        (lambda s: edit(s, 1, deps=(0, 99)), ["dep-missing"]),
        (lambda s: edit(s, 1, deps=()), ["deps-incomplete"]),
        (lambda s: edit(s, 1, step=4), ["fifo-step"]),
        (lambda s: edit(s, 1, op="recv-send"), ["op-mismatch"]),  # rank 1 drops its own data
        (lambda s: edit(s, 3, on_recv="reduce"), ["op-mismatch"]),
        (lambda s: edit(s, 0, chunk_first=1, chunk_last=2), ["chunk-range", "dep-chunks"]),
        (lambda s: edit(s, 0, collective="allgather"), ["bad-field"]),
        (lambda s: edit(s, 0, id=7), ["dep-missing", "entry-id", "table-mismatch"]),
        # rank 3 dropped: its tree leaf would send data it does not have and receive data it
        # does not need (a chiplet that takes no part, as in TTO, may only relay)
        (lambda s: dataclasses.replace(s, ranks=(0, 1, 2)), ["op-mismatch", "relay-leaf"]),
        (lambda s: dataclasses.replace(s, ranks=(0, 1, 2, 3, 7)), ["ranks-mismatch"]),
        (lambda s: dataclasses.replace(s, roots=((3,),)), ["roots-mismatch"]),
        (lambda s: dataclasses.replace(s, tables={**s.tables, 3: (0,)}), ["table-mismatch"]),
        # deps is exactly the deliveries an entry needs: waiting for an unrelated one is wrong
        (lambda s: edit(s, 1, deps=(0, 4)), ["dep-extra"]),
        (lambda s: edit(s, 3, depth=2), ["depth-mismatch"]),  # 0->1 touches the root: depth 1
        (lambda s: dataclasses.replace(s, ranks=(1, 0, 2, 3)), ["ranks-order"]),
        (lambda s: dataclasses.replace(s, nbytes=10**9), ["chunks-mismatch"]),
    ],
)
def test_each_defect_is_named(mutate, expected):
    found = check_schedule(MESH22, mutate(allreduce22()))
    assert codes(found) == expected


def test_a_barrier_belongs_to_an_allreduce_which_may_go_without():
    # without it (a throughput AllReduce) the ag entries leaving the root wait for the rs
    # entries into it, which the deps already say: still clean and deadlock-free
    s = dataclasses.replace(allreduce22(), barrier=False)
    assert check_schedule(MESH22, s, P0) == []
    assert check_deadlock(MESH22, s).deadlock_free
    cast = build_schedule(MESH22, "broadcast", P0, chunks=2)
    assert not cast.barrier
    assert codes(check_schedule(MESH22, dataclasses.replace(cast, barrier=True))) == ["bad-field"]


def test_findings_point_at_the_entry_and_node():
    s = edit(allreduce22(), 1, deps=())
    (f,) = check_schedule(MESH22, s)
    assert (f.entry, f.node, f.set, f.tree) == (1, 1, 0, 0)
    assert "entry 1 (1->0)" in f.message
    assert "does not wait for entries [0]" in f.message


def test_lost_and_double_contributions_are_counted():
    s = allreduce22()
    # node 3 sends its partial sum to 1 and also to 2: rank 3 reaches the root twice
    extra = dataclasses.replace(s.entries[0], id=len(s.entries), dst=2, step=0)
    twice = dataclasses.replace(s, entries=(*s.entries, extra))
    found = check_schedule(MESH22, twice)
    assert "double-count" in codes(found)
    assert any(f.code == "double-count" and "ranks [3]" in f.message for f in found)
    # without 3->1 the root never sees rank 3; without 1->3 rank 3 never gets the result
    for phase, src, dst, code in (
        ("rs", 3, 1, "chunk-incomplete"),
        ("ag", 1, 3, "chunk-undelivered"),
    ):
        found = check_schedule(MESH22, drop_entry(s, find(s, phase, src, dst)))
        assert code in codes(found)
        assert any((f.code == code and f.node == 3) or "ranks [3]" in f.message for f in found)


def test_data_cycles_and_root_sends_are_caught():
    s = allreduce22()
    i = find(s, "rs", 1, 0)
    cyc = edit(s, i, dst=3, step=1, deps=(0,))  # 3 -> 1 -> 3: the root never hears from them
    assert {"cycle", "chunk-incomplete"} <= set(codes(check_schedule(MESH22, cyc)))
    j = find(s, "rs", 2, 0)
    assert "root-sends" in codes(check_schedule(MESH22, edit(s, j, src=0, dst=2, step=1)))
    k = find(s, "ag", 1, 3)
    twice = edit(s, k, src=2, dst=1, deps=(find(s, "ag", 0, 2),))
    assert "received-twice" in codes(check_schedule(MESH22, twice))


def test_chunk_ranges_must_cover_the_data_once():
    G = build("mesh:2x2")
    t1 = Tree(3, ((3, 1, 0), (3, 2, 0), (1, 0, 0)), 2)
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((T0, t1)),))
    s = build_schedule(
        G,
        "broadcast",
        TreePacking(
            "mesh:2x2",
            "out",
            "feasible",
            (TreeSet((T0, dataclasses.replace(T0, arcs=((0, 2, 0), (0, 1, 0), (2, 3, 0))))),),
        ),
        chunks=2,
    )
    assert check_schedule(G, s) == []
    moved = s
    for e in s.entries:
        if e.tree_index == 1:
            moved = edit(moved, e.id, chunk_first=0, chunk_last=1)
    found = check_schedule(G, moved)
    assert "chunk-coverage" in codes(found)
    assert any("chunks 0..1 are carried by more than one tree" in f.message for f in found)
    assert any("chunks 2..3 are carried by no tree" in f.message for f in found)
    # AllReduce must gather from each root what it reduced there
    ar = build_schedule(G, "allreduce", p, chunks=1)
    assert check_schedule(G, ar, p) == []
    swapped = ar
    for e in ar.entries:
        if e.phase == "ag":
            first = 1 - e.chunk_first
            swapped = edit(swapped, e.id, chunk_first=first, chunk_last=first)
    assert "phase-mismatch" in codes(check_schedule(G, swapped))


def test_schedule_must_match_the_trees_it_claims():
    s = allreduce22()
    other = TreePacking(
        "mesh:2x2", "out", "optimal", (TreeSet((Tree(0, ((0, 1, 0), (0, 2, 0), (2, 3, 0)), 2),)),)
    )
    found = check_schedule(MESH22, s, other)
    assert codes(found) == ["tree-mismatch"]
    assert {f.arc for f in found} == {(1, 3, 0), (2, 3, 0), (3, 1, 0), (3, 2, 0)}


def test_fifo_steps_across_root_sets():
    G = build("mesh:2x2")
    sets = []
    for r in range(4):  # each root a set of its own: BFS-like trees
        arcs = {
            0: ((0, 1, 0), (0, 2, 0), (1, 3, 0)),
            1: ((1, 0, 0), (1, 3, 0), (0, 2, 0)),
            2: ((2, 0, 0), (2, 3, 0), (0, 1, 0)),
            3: ((3, 1, 0), (3, 2, 0), (1, 0, 0)),
        }[r]
        sets.append(TreeSet((Tree(r, arcs, 2),)))
    p = TreePacking("mesh:2x2", "out", "feasible", tuple(sets))
    s = build_schedule(G, "allgather", p, chunks=2)
    assert check_schedule(G, s, p) == []
    a, b = s.fifos()[(0, 1, 0)][:2]
    found = check_schedule(G, swap_steps(s, a, b))
    assert codes(found) == ["fifo-order"]
    assert found[0].arc == (0, 1, 0)
    assert "against the order (phase, set, chunk, step)" in found[0].message


# ---- properties -------------------------------------------------------------------------------


@given(ANY_SCHEDULE)
def test_built_schedules_pass_every_checker(gps):
    G, packing, s = gps
    assert check_schedule(G, s, packing) == []
    assert check_deadlock(G, s).deadlock_free
    assert check_deadlock(G, s, buffers=None).deadlock_free


@given(schedules())
def test_json_round_trip(gps):
    G, _, s = gps
    back = Schedule.from_json(json.loads(json.dumps(s.to_json())))
    assert back == s
    assert check_schedule(G, back) == []


MUTATIONS = ("drop-dependency", "missing-link", "drop-entry", "swap-steps")


@given(ANY_SCHEDULE, st.sampled_from(MUTATIONS), st.data())
def test_mutated_schedules_are_caught(gps, mutation, data):
    G, _, s = gps
    if mutation == "drop-dependency":
        with_deps = [e for e in s.entries if e.deps]
        if not with_deps:  # a star of one-hop trees: nothing waits
            return
        e = data.draw(st.sampled_from(with_deps))
        bad = drop_dependency(s, e.id, data.draw(st.sampled_from(e.deps)))
        expect = "deps-incomplete"
    elif mutation == "missing-link":
        e = data.draw(st.sampled_from(s.entries))
        bad = move_entry(s, e.id, key=G.number_of_edges(e.src, e.dst))
        expect = "arc-missing"
    elif mutation == "drop-entry":
        e = data.draw(st.sampled_from(s.entries))
        bad = drop_entry(s, e.id)
        expect = "chunk-incomplete" if e.phase in ("rs", "reduce") else "chunk-undelivered"
    else:
        shared = [ids for ids in s.fifos().values() if len(ids) > 1]
        if not shared:
            return
        ids = data.draw(st.sampled_from(shared))
        i = data.draw(st.integers(0, len(ids) - 2))
        bad = swap_steps(s, ids[i], ids[i + 1])
        expect = "fifo-order"
    assert expect in codes(check_schedule(G, bad))


@settings(max_examples=max(15, settings.default.max_examples // 4))  # ci 15, nightly 250
@given(
    topology_specs(families=["smbi", "smalter", "mesh"], max_side=4, memory=False),
    st.sampled_from(["allreduce", "allgather", "broadcast"]),
    st.data(),
)
def test_every_packing_the_solver_returns_passes_every_checker(spec, collective, data):
    G = build(spec)
    n = G.number_of_nodes()
    if collective == "allgather":
        ranks = data.draw(st.permutations(range(n)))
        groups = [list(ranks[i : i + 4]) for i in range(0, n, 4)]
    elif collective == "broadcast":
        groups = [[data.draw(st.integers(0, n - 1))] * data.draw(st.integers(1, 3))]
    else:
        groups = [data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))]
    packs = [pack_trees(G, g, time_limit=5.0, workers=1) for g in groups]
    for p in packs:
        assert errors(check_packing(G, p)) == []
    if any(p.status == "infeasible" for p in packs):
        return  # its certificate was re-checked above
    sets = tuple(ts for p in packs for ts in p.sets)
    packing = dataclasses.replace(packs[0], sets=sets)
    s = build_schedule(G, collective, packing, chunks=2)
    assert check_schedule(G, s, packing) == []
    assert check_deadlock(G, s).deadlock_free
