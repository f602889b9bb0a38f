"""Schedule tables: built from hand-made trees, checked by an independent chunk-level replay."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import replace

import pytest
from _schedule_trees import greedy_trees, packing, rank_sets, side_trees
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.export.table import CSV_HEADER, schedule_csv
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree
from supermesh.trees.schedule.build import build_schedule, chunks_for
from supermesh.trees.schedule.model import Schedule
from supermesh.trees.schedule.size import TableEncoding, table_bytes

IN_PHASES = ("rs", "reduce")


def replay(G, schedule: Schedule, trees_by_phase) -> dict:
    """Move every chunk through the link FIFOs, obeying deps, and check the data semantics.

    ``trees_by_phase`` maps a phase to its tree sets in data direction (from the test's own
    trees, not from the schedule). A chunk value is the set of ranks whose contribution it holds.
    Rounds are synchronous: every FIFO head that is ready at the start of a round moves in it.
    Returns the round of every (entry id, chunk) delivery. Raises AssertionError on a missing
    arc, a send before all inputs arrived, a double count, a deadlock, or a chiplet left without
    the data it needs.
    """
    ranks = compute_nodes(G)
    entries = schedule.entries
    for e in entries:
        assert G.has_edge(e.src, e.dst, e.key), f"entry {e.id} uses a missing arc"
    children = {}  # (phase, set, tree, node) -> tree children (in-trees: senders into node)
    for phase, sets in trees_by_phase.items():
        for si, trees in enumerate(sets):
            for ti, t in enumerate(trees):
                kids = defaultdict(set)
                for u, v, _ in t.arcs:
                    kids[v if phase in IN_PHASES else u].add(u if phase in IN_PHASES else v)
                children[(phase, si, ti)] = (t.root, kids)
    fifo = defaultdict(list)
    for e in entries:
        for x in range(e.chunk_first, e.chunk_last + 1):
            fifo[e.arc].append(((("rs", "ag", "bcast", "reduce").index(e.phase), e.set_index,
                                 x - e.chunk_first, e.step), e, x))  # fmt: skip
    for q in fifo.values():
        q.sort(key=lambda item: item[0])
    acc = defaultdict(frozenset)  # (phase, node, chunk) -> contributions reduced so far
    got = defaultdict(set)  # (phase, set, tree, node, chunk) -> senders heard from
    held = {}  # (node, chunk) -> value a node holds for out-tree phases
    total = sum(e.chunk_last - e.chunk_first + 1 for e in entries)
    rs_total = sum(e.chunk_last - e.chunk_first + 1 for e in entries if e.phase == "rs")
    heads = dict.fromkeys(fifo, 0)
    rounds = {}  # (entry id, chunk) -> round of delivery; a round moves every ready FIFO head
    while len(rounds) < total:
        ready = []
        rs_done = sum(1 for d in rounds if entries[d[0]].phase == "rs")
        for arc, q in fifo.items():
            if heads[arc] < len(q):
                _, e, x = q[heads[arc]]
                if any((d, x) not in rounds for d in e.deps):
                    continue
                if schedule.barrier and e.phase == "ag" and rs_done < rs_total:
                    continue
                ready.append((arc, e, x))
        assert ready, f"deadlock after {len(rounds)} of {total} chunk moves"
        now = 1 + max(rounds.values(), default=0)
        sent = {}
        for _, e, x in ready:  # every sender reads its state at the start of the round
            sent[(e.id, x)] = _send_value(e, x, ranks, children, acc, got, held, schedule)
        for arc, e, x in ready:
            _deliver(e, x, sent[(e.id, x)], acc, got, held)
            rounds[(e.id, x)] = now
            heads[arc] += 1
    _check_result(schedule, ranks, acc, held)
    return rounds


def _send_value(e, x, ranks, children, acc, got, held, schedule):
    root, kids = children[(e.phase, e.set_index, e.tree_index)]
    u = e.src
    if e.phase in IN_PHASES:
        need = kids.get(u, set())
        heard = got[(e.phase, e.set_index, e.tree_index, u, x)]
        assert heard == need, f"entry {e.id} sends chunk {x} before all inputs of {u}"
        return acc[(e.phase, u, x)] | ({u} if u in ranks else set())
    if u != root:
        assert (u, x) in held, f"entry {e.id}: {u} forwards chunk {x} it lacks"
        return held[(u, x)]
    if schedule.collective == "allreduce":
        value = acc[("rs", u, x)] | {u}
        assert value == set(ranks), f"root {u} sends chunk {x} unreduced"
        return value
    return frozenset({(u, x)})


def _deliver(e, x, value, acc, got, held):
    v = e.dst
    if e.phase in IN_PHASES:
        mine = acc[(e.phase, v, x)]
        assert not (mine & value), f"chunk {x} counted twice at {v}"
        acc[(e.phase, v, x)] = mine | value
        got[(e.phase, e.set_index, e.tree_index, v, x)].add(e.src)
    else:
        held[(v, x)] = value


def _check_result(schedule, ranks, acc, held) -> None:
    coll, C = schedule.collective, schedule.chunks
    full = set(ranks)
    trees = sorted({(e.set_index, e.tree_index, e.root, e.chunk_first) for e in schedule.entries})
    for _, _, root, first in trees:
        for x in range(first, first + C):
            if coll == "allreduce":
                assert acc[("rs", root, x)] | {root} == full
                for r in ranks:
                    assert r == root or held[(r, x)] == full, f"rank {r} lacks chunk {x}"
            elif coll in ("reducescatter", "reduce"):
                assert acc[(schedule.entries[0].phase, root, x)] | {root} == full
            else:
                for r in ranks:
                    assert r == root or held[(r, x)] == {(root, x)}, f"{r} lacks chunk {x}"


def _smbi_allreduce(spec="smbi:4x4", **kw):
    G = build(spec)
    R, C = G.graph["rows"], G.graph["cols"]
    trees = side_trees(G, 0, C - 1, R * C - 1, (R - 1) * C)
    return G, [trees], build_schedule(G, "allreduce", packing(G, [trees]), **kw)


def _in(sets):
    return [[Tree(t.root, tuple((v, u, k) for u, v, k in t.arcs), t.height) for t in s]
            for s in sets]  # fmt: skip


@pytest.mark.parametrize("chunks", [1, 3])
def test_allreduce_smbi_corner_trees(chunks):
    G, sets, s = _smbi_allreduce(chunks=chunks)
    assert s.barrier
    assert s.roots == ((0, 3, 15, 12),)
    assert len(s.entries) == 2 * 4 * 15  # 4 trees x 15 arcs, reduce-scatter and all-gather
    assert [e.chunk_first for e in s.entries if e.phase == "ag" and e.depth == 1][:1] == [0]
    replay(G, s, {"rs": _in(sets), "ag": sets})


@pytest.mark.parametrize(("spec", "size"), [("mesh:3x3", 2), ("smalter:4x4", 3), ("smbi:3x4", 2)])
def test_reducescatter_and_allgather_rank_sets(spec, size):
    G = build(spec)
    sets = rank_sets(G, size)
    for coll, phase, direction in (("allgather", "ag", "out"), ("reducescatter", "rs", "in")):
        s = build_schedule(G, coll, packing(G, sets, direction), chunks=2)
        assert sorted(r for rs in s.roots for r in rs) == compute_nodes(G)
        replay(G, s, {phase: sets if direction == "out" else _in(sets)})
        # the tree of root r carries block r
        assert all(e.chunk_first == 2 * e.root for e in s.entries)


def test_broadcast_and_reduce_share_one_root():
    G = build("mesh:3x3")
    trees = greedy_trees(G, [4, 4])
    b = build_schedule(G, "broadcast", packing(G, [trees]), chunks=3)
    replay(G, b, {"bcast": [trees]})
    r = build_schedule(G, "reduce", packing(G, [trees]), chunks=3)  # reversed out-trees
    replay(G, r, {"reduce": _in([trees])})
    assert {e.on_recv for e in r.entries} == {"reduce"}
    assert {e.phase for e in b.entries} == {"bcast"}


def test_allreduce_with_two_packings_and_fifo_steps():
    G = build("mesh:4x4")
    out = greedy_trees(G, [0, 15], seed=3)
    other = greedy_trees(G, [0, 15], seed=7)
    s = build_schedule(G, "allreduce", [packing(G, [out]), packing(G, [other], "in")], chunks=2)
    replay(G, s, {"rs": _in([other]), "ag": [out]})
    for arc, ids in s.fifos().items():
        assert [s.entries[i].step for i in ids] == list(range(len(ids)))
        assert all(s.entries[i].arc == arc for i in ids)
    assert all(d < e.id for e in s.entries for d in e.deps)


def test_tables_hold_every_row_of_each_chiplet():
    G, _, s = _smbi_allreduce(chunks=2)
    for node, ids in s.tables.items():
        assert list(ids) == sorted(e.id for e in s.entries if node in (e.src, e.dst))
    assert sum(len(ids) for ids in s.tables.values()) == 2 * len(s.entries)
    assert set(s.tables) == set(G.nodes)


def test_json_round_trip_is_lossless():
    _, _, s = _smbi_allreduce(nbytes=4 * 2**20)
    assert s.chunks == 86  # ceil(4 MiB / (4 * 12288)), BRIEF section 4
    doc = json.loads(json.dumps(s.to_json()))
    assert Schedule.from_json(doc) == s
    assert doc["format"] == "supermesh-schedule"
    assert doc["entries"][0]["set"] == 0


def test_csv_header_and_rows():
    _, _, s = _smbi_allreduce(chunks=2)
    rows = list(csv.reader(io.StringIO(schedule_csv(s))))
    assert tuple(rows[0]) == CSV_HEADER
    assert len(rows) - 1 == 2 * len(s.entries)  # one row per (chiplet, entry it sends/receives)
    first = dict(zip(rows[0], rows[1], strict=True))
    e = s.entries[int(first["id"])]
    assert (first["chiplet"], first["role"]) == (str(e.src), "send")
    assert first["deps"] == " ".join(map(str, e.deps))


def test_chunks_for_matches_the_brief():
    assert chunks_for("allreduce", 4 * 2**20, 4, 16, 12288) == 86
    assert chunks_for("reducescatter", 2**20, 64, 64, 12288) == 2
    assert chunks_for("allreduce", 1, 4, 16, 12288) == 1


def test_table_bytes_counts_rows_times_row_width():
    _, _, s = _smbi_allreduce(chunks=2)
    enc = TableEncoding.for_schedule(s)
    sizes = table_bytes(s, enc)
    assert sizes[0] == enc.header_bytes + len(s.tables[0]) * enc.row_bytes
    assert enc.row_bits == sum(enc.widths().values())
    assert (enc.widths()["src"], enc.widths()["key"]) == (4, 1)  # 16 chiplets, 2 parallel


@given(
    spec=st.sampled_from(["mesh:2x3", "mesh:3x3", "smbi:3x3", "smalter:4x4", "mesh:3x4"]),
    coll=st.sampled_from(["allreduce", "reducescatter", "allgather", "broadcast", "reduce"]),
    chunks=st.integers(1, 3),
    picks=st.tuples(st.integers(0, 99), st.integers(0, 99)),
)
def test_every_schedule_replays_correctly(spec, coll, chunks, picks):
    G = build(spec)
    n = G.number_of_nodes()
    a, b = picks[0] % n, picks[1] % n
    if coll in ("reducescatter", "allgather"):
        sets = rank_sets(G, 2, seed=a)
    else:
        sets = [greedy_trees(G, [a, a] if coll in ("broadcast", "reduce") else [a, b], seed=b)]
    direction = "in" if coll in ("reducescatter", "reduce") else "out"
    s = build_schedule(G, coll, packing(G, sets, direction), chunks=chunks)
    phase = {"allreduce": "rs", "reducescatter": "rs", "allgather": "ag"}.get(coll, coll)
    phase = "bcast" if coll == "broadcast" else phase
    trees = {phase: sets if direction == "out" else _in(sets)}
    if coll == "allreduce":
        trees = {"rs": _in(sets), "ag": sets}
    replay(G, s, trees)
    assert Schedule.from_json(json.loads(json.dumps(s.to_json()))) == s


# ---- the checker notices broken schedules (mutation tests) ---------------------------------


def test_replay_catches_a_dropped_dependency():
    G, sets, s = _smbi_allreduce(chunks=2)
    trees = {"rs": _in(sets), "ag": sets}
    rounds = replay(G, s, trees)
    # drop the dependency on the child whose chunk 0 arrives last: the sender then goes early
    victim, late = next(
        (e, d)
        for e in s.entries
        if e.phase == "rs"
        for d in e.deps
        if all(rounds[(d, e.chunk_first)] > rounds[(o, e.chunk_first)] for o in e.deps if o != d)
    )
    broken = list(s.entries)
    broken[victim.id] = replace(victim, deps=tuple(o for o in victim.deps if o != late))
    with pytest.raises(AssertionError, match="before all inputs"):
        replay(G, replace(s, entries=tuple(broken)), trees)


def test_replay_catches_a_missing_arc_and_a_deadlock():
    G, sets, s = _smbi_allreduce(chunks=1)
    broken = list(s.entries)
    broken[0] = replace(s.entries[0], key=5)
    with pytest.raises(AssertionError, match="missing arc"):
        replay(G, replace(s, entries=tuple(broken)), {"rs": _in(sets), "ag": sets})
    cyc = list(s.entries)
    cyc[0] = replace(s.entries[0], deps=(len(cyc) - 1,))
    with pytest.raises(AssertionError, match="deadlock"):
        replay(G, replace(s, entries=tuple(cyc)), {"rs": _in(sets), "ag": sets})


# ---- bad input ---------------------------------------------------------------------------------


def test_bad_inputs_raise_named_errors():
    G = build("mesh:3x3")
    trees = greedy_trees(G, [0, 8])
    with pytest.raises(SpecError, match="unknown collective"):
        build_schedule(G, "alltoall", packing(G, [trees]))
    with pytest.raises(TopologyError, match="one tree rooted at each"):
        build_schedule(G, "allgather", packing(G, [trees]))
    with pytest.raises(TopologyError, match="same chiplet"):
        build_schedule(G, "broadcast", packing(G, [trees]))
    with pytest.raises(TopologyError, match="does not have"):
        build_schedule(build("mesh:2x2"), "allreduce", packing(G, [trees]))
    half = Tree(0, trees[0].arcs[:3], 2)
    with pytest.raises(TopologyError, match="does not reach"):
        build_schedule(G, "allreduce", packing(G, [[half]]))
    with pytest.raises(SpecError, match=">= 1"):
        build_schedule(G, "allreduce", packing(G, [trees]), chunks=0)
    uni = build("smuni:3x3")
    assert (uni.has_edge(0, 1, 1), uni.has_edge(1, 0, 1)) == (True, False)  # one-way arc
    with pytest.raises(TopologyError, match="not symmetric"):
        build_schedule(uni, "allreduce", packing(uni, [[Tree(0, ((0, 1, 1),), 1)]]))
