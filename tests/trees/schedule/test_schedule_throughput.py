"""Weighted schedule tables from throughput packings: several trees per rank, shares of its data.

Checked against facts recomputed here, not against the builder: every chunk of every rank's
block is carried by exactly one tree (a recount over the entries), a chunk-level replay of the
FIFOs delivers / reduces every chunk exactly once, each link's step order is the order the
simulator's packing program uses, the exports keep every tree and its share, and the verifier
catches broken tables.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from fractions import Fraction
from functools import cache

import pytest
from _msccl import check_result, execute, validate
from _schedule_trees import packing, rank_sets
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.export.msccl import MscclLimits, msccl_program, msccl_xml
from supermesh.export.table import CSV_HEADER, schedule_csv
from supermesh.sim.packing import packing_program
from supermesh.sim.presets import get_preset
from supermesh.testing.mutations import drop_entry, swap_steps
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.model import Schedule
from supermesh.trees.schedule.size import TableEncoding, table_bytes
from supermesh.trees.schedule.weighted import split_block
from supermesh.trees.throughput.pack import pack_throughput
from supermesh.verify import check_schedule
from supermesh.verify.deadlock.analysis import check_deadlock
from supermesh.verify.deadlock.fifo import is_periodic, table_model
from supermesh.verify.files import check_file

COLLS = ("allgather", "reducescatter", "allreduce")
PHASES = {"allgather": ("ag",), "reducescatter": ("rs",), "allreduce": ("rs", "ag")}
CASES = [("mesh:3x3", 2), ("mesh:3x3", 3), ("mesh:3x3", None), ("mesh:4x4", 4), ("smbi:4x4", 4),
         ("smbi:4x4", None)]  # fmt: skip


@cache
def _packing(spec: str, parts: int | None, direction: str) -> TreePacking:
    return pack_throughput(build(spec), direction=direction, parts=parts)


def _case(spec: str, parts: int | None, coll: str) -> tuple:
    G = build(spec)
    return G, _packing(spec, parts, "in" if coll == "reducescatter" else "out")


def errors(findings) -> list[str]:
    return sorted({f.code for f in findings if f.is_error})


def recount_blocks(s: Schedule, p: TreePacking) -> None:
    """Every chunk of every root's block in exactly one tree, counts in proportion to shares."""
    ranks = list(s.ranks)
    trees = {(si, ti): t for si, ts in enumerate(p.sets) for ti, t in enumerate(ts.trees)}
    roots = sorted({t.root for t in trees.values()}, key=ranks.index)
    for phase in PHASES[s.collective]:
        rng = {}
        for e in s.entries:
            if e.phase == phase:
                assert rng.setdefault((e.set_index, e.tree_index), (e.chunk_first, e.chunk_last)) \
                    == (e.chunk_first, e.chunk_last), "one tree, two ranges"  # fmt: skip
        assert set(rng) == set(trees), "a tree of the packing has no entries (or one too many)"
        for b, r in enumerate(roots):
            block = range(b * s.chunks, (b + 1) * s.chunks)
            mine = [k for k, t in trees.items() if t.root == r]
            carried = Counter(x for k in mine for x in range(rng[k][0], rng[k][1] + 1))
            assert carried == Counter(block), f"root {r}: block not carried exactly once"
            total = sum(Fraction(trees[k].share) for k in mine)
            quota = {k: s.chunks * Fraction(trees[k].share) / total for k in mine}
            for k in mine:  # within one chunk of the exact share, unless a tiny share forced
                n = rng[k][1] - rng[k][0] + 1  # a chunk onto every tree
                assert n >= 1
                assert min(quota.values()) < 1 or abs(n - quota[k]) < 1


def replay(s: Schedule) -> bool:
    """Move every chunk through the link FIFOs (order: phase, set, chunk index, step).

    Returns False if the FIFOs get stuck (a deadlock with a receive slot per row, which never
    holds a link: see supermesh.verify.deadlock.fifo); asserts that every chunk is delivered and
    every reduction holds each rank once.
    """
    order = {"rs": 0, "ag": 1}
    fifo = defaultdict(list)
    for e in s.entries:
        for c in range(e.chunk_last - e.chunk_first + 1):
            fifo[e.arc].append(((order[e.phase], e.set_index, c, e.step), e, e.chunk_first + c))
    for q in fifo.values():
        q.sort(key=lambda item: item[0])
    ranks = set(s.ranks)
    acc = defaultdict(Counter)  # (phase, set, tree, node, chunk) -> contributions received
    held = {}  # (node, chunk) -> value (out-tree phases)
    done = set()
    heads = dict.fromkeys(fifo, 0)
    total = sum(len(q) for q in fifo.values())
    rs_total = sum(1 for q in fifo.values() for k, _, _ in q if k[0] == 0)
    while len(done) < total:
        moved = 0
        rs_done = sum(1 for e_id, _ in done if s.entries[e_id].phase == "rs")
        for arc, q in fifo.items():
            while heads[arc] < len(q):
                _, e, x = q[heads[arc]]
                if any((d, x) not in done for d in e.deps):
                    break
                if s.barrier and e.phase == "ag" and rs_done < rs_total:
                    break
                t = (e.set_index, e.tree_index)
                if e.phase == "rs":
                    value = acc[("rs", *t, e.src, x)] + Counter([e.src] if e.src in ranks else [])
                    acc[("rs", *t, e.dst, x)] += value
                elif e.src == e.root:
                    value = ("sum", x) if s.collective == "allreduce" else (e.root, x)
                    if s.collective == "allreduce":
                        got = acc[("rs", *t, e.root, x)] + Counter([e.root])
                        assert got == Counter(ranks), f"root {e.root} sends chunk {x} unreduced"
                    held[(e.dst, x)] = value
                else:
                    held[(e.dst, x)] = held[(e.src, x)]
                done.add((e.id, x))
                heads[arc] += 1
                moved += 1
        if not moved:
            return False
    for e in s.entries:
        for x in range(e.chunk_first, e.chunk_last + 1):
            t = (e.set_index, e.tree_index)
            if s.collective in ("reducescatter", "allreduce"):
                assert acc[("rs", *t, e.root, x)] + Counter([e.root]) == Counter(ranks)
            if s.collective in ("allgather", "allreduce"):
                want = ("sum", x) if s.collective == "allreduce" else (e.root, x)
                assert all(held[(r, x)] == want for r in ranks - {e.root})
    return True


@pytest.mark.parametrize(("spec", "parts"), CASES)
@pytest.mark.parametrize("coll", COLLS)
def test_weighted_tables_verify_replay_and_round_trip(spec, parts, coll):
    G, p = _case(spec, parts, coll)
    s = build_schedule(G, coll, p, nbytes=1 << 20)
    assert s.shares is not None
    n = len(compute_nodes(G))
    # each rank's block is its data in whole chunks (at least one per tree), nothing more
    most = max(sum(1 for t in p.trees if t.root == r) for r in {t.root for t in p.trees})
    assert s.chunks == max(math.ceil((1 << 20) / (n * 12288)), most)
    if parts:  # equal shares: chunk counts differ by at most one
        sizes = {e.chunk_last - e.chunk_first + 1 for e in s.entries}
        assert sizes <= {s.chunks // parts, -(-s.chunks // parts)}
    assert sorted(r for rs in s.roots for r in rs) == sorted(t.root for t in p.trees)
    recount_blocks(s, p)
    assert replay(s)
    assert check_schedule(G, s, p) == []
    report = check_deadlock(G, s, max_fix_tries=0)
    assert report.deadlock_free, report.argument
    assert "receive slot(s) per link and tree" in report.argument
    assert Schedule.from_json(json.loads(json.dumps(s.to_json()))) == s


def _branches(arcs: list, deps: list) -> list[frozenset]:
    """Per transfer, the arcs of its branch: transfers joined by same-phase dependencies.

    A dependency joins a transfer to its parent's (out-trees) or children's (in-trees), so a
    branch is one subtree hanging from a root, with its arc at the root: a name for the
    transfer's tree that both the table and the simulator's program carry.
    """
    parent = list(range(len(arcs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for b, ds in enumerate(deps):
        for d in ds:
            parent[find(b)] = find(d)
    members = defaultdict(set)
    for b, a in enumerate(arcs):
        members[find(b)].add(a)
    return [frozenset(members[find(b)]) for b in range(len(arcs))]


def test_fifo_steps_are_the_simulated_order():
    params = get_preset("booksim")
    for spec, parts, coll, per_tree in [("smbi:4x4", 4, "allgather", 12),
                                        ("mesh:3x3", 2, "reducescatter", 3),
                                        ("mesh:4x4", 4, "allreduce", 5)]:  # fmt: skip
        G, p = _case(spec, parts, coll)
        n = len(compute_nodes(G))
        nbytes = n * parts * per_tree * params.chunk_bytes
        s = build_schedule(G, coll, p, nbytes=nbytes, chunk_bytes=params.chunk_bytes)
        assert {e.chunk_last - e.chunk_first + 1 for e in s.entries} == {per_tree}
        prog = packing_program(G, p, coll, nbytes, params, order="schedule")
        assert [ph.label for ph in prog.phases] == [
            "reduce" if phase == "rs" else "forward" for phase in PHASES[coll]
        ]
        for phase, ph in zip(PHASES[coll], prog.phases, strict=True):
            arcs = [prog.arcs[int(a)] for a in ph.arc]
            sim = defaultdict(list)  # blocks of one arc are served in block order
            for a, branch in zip(arcs, _branches(arcs, ph.deps), strict=True):
                sim[a].append(branch)
            es = [e for e in s.entries if e.phase == phase]
            index = {e.id: i for i, e in enumerate(es)}
            deps = [[index[d] for d in e.deps if d in index] for e in es]
            branch = dict(
                zip((e.id for e in es), _branches([e.arc for e in es], deps), strict=True)
            )
            table = defaultdict(list)
            for e in sorted(es, key=lambda e: e.step):
                table[e.arc].append(branch[e.id])
            assert table == sim, f"{spec} {coll} {phase}: link orders differ from the simulator"
            assert max(len(q) for q in table.values()) > 3  # links really are shared


def test_arc_disjoint_sets_keep_the_id_order():
    G = build("mesh:3x3")
    s = build_schedule(G, "allgather", packing(G, rank_sets(G, 2)), chunks=3)
    assert s.shares is None
    fifos = s.fifos()
    assert max(len(ids) for ids in fifos.values()) > 1  # sets share links, trees of a set don't
    for ids in fifos.values():
        assert ids == sorted(ids)  # steps in id order, as before weighted tables


def test_csv_keeps_every_tree_and_its_share():
    G, p = _case("smbi:4x4", None, "allgather")
    s = build_schedule(G, "allgather", p, chunks=40)
    rows = list(csv.DictReader(io.StringIO(schedule_csv(s))))
    assert tuple(rows[0]) == (*CSV_HEADER, "share")
    trees = {(si, ti): t for si, ts in enumerate(p.sets) for ti, t in enumerate(ts.trees)}
    seen = {}
    for r in rows:
        key = (int(r["set"]), int(r["tree"]))
        assert float(r["share"]) == trees[key].share
        seen[key] = int(r["chunk_last"]) - int(r["chunk_first"]) + 1
    assert set(seen) == set(trees)
    per_root = Counter()
    for key, n in seen.items():
        per_root[trees[key].root] += n
    assert set(per_root.values()) == {40}  # the trees of a root carry its whole block


@pytest.mark.parametrize(("spec", "parts"), [("mesh:3x3", 2), ("mesh:3x3", None),
                                             ("smbi:4x4", 4)])  # fmt: skip
@pytest.mark.parametrize("coll", COLLS)
def test_msccl_keeps_every_tree_and_computes_the_collective(spec, parts, coll):
    G, p = _case(spec, parts, coll)
    s = build_schedule(G, coll, p, chunks=2 * (parts or 4))
    text = msccl_xml(s, limits=MscclLimits(max_steps=128))
    algo = validate(text)
    check_result(algo, execute(algo))
    # every tree keeps its share of each loop: slots of a tree / slots of its block
    prog = msccl_program(s, limits=MscclLimits(max_steps=128))
    S = prog.slots
    for e in s.entries:
        n = e.chunk_last - e.chunk_first + 1
        assert Fraction(n * S, s.chunks).denominator == 1
    nblocks = len({r for rs in s.roots for r in rs})
    assert prog.nchunksperloop == nblocks * S


def test_msccl_loops_only_where_the_fifo_order_repeats():
    G, p = _case("smbi:4x4", 4, "allgather")
    s = build_schedule(G, "allgather", p, chunks=40)  # 10 chunks per tree
    prog = msccl_program(s)
    assert prog.slots % 4 == 0  # loops of whole trees
    assert prog.slots < 40  # the table folded into several loops
    with pytest.raises(SpecError, match="not a multiple of 4"):
        msccl_program(s, chunks_per_loop=6)
    algo = ET.fromstring(msccl_xml(s))
    check_result(algo, execute(algo))
    G, p = _case("smbi:4x4", None, "allgather")
    s = build_schedule(G, "allgather", p, chunks=64)
    counts = Counter(e.arc for e in s.entries)
    assert max(counts.values()) > 1
    with pytest.raises(SpecError, match="different chunk counts") as info:
        msccl_program(s)  # whole table in one loop: too many steps for 64
    assert "parts=K" in (info.value.hint or "")


def test_bad_shares_and_chunks_raise_named_errors():
    G, p = _case("mesh:3x3", 2, "allgather")
    trees = list(p.sets[0].trees)
    trees[0] = dataclasses.replace(trees[0], share=0.7)
    with pytest.raises(SpecError, match="add up to"):
        build_schedule(G, "allgather", dataclasses.replace(p, sets=(TreeSet(tuple(trees)),)))
    with pytest.raises(SpecError, match="every tree needs a chunk"):
        build_schedule(G, "allgather", p, chunks=1)
    seen = Counter()
    flipped = []
    for t in p.trees:  # the same trees as in-trees, shares 3/4 and 1/4 instead of 1/2
        seen[t.root] += 1
        arcs = tuple((v, u, k) for u, v, k in t.arcs)
        flipped.append(Tree(t.root, arcs, t.height, 0.75 if seen[t.root] == 1 else 0.25))
    other = dataclasses.replace(p, direction="in", sets=(TreeSet(tuple(flipped)),))
    assert check_schedule(G, build_schedule(G, "reducescatter", other, chunks=4), other) == []
    with pytest.raises(TopologyError, match="shares differ"):
        build_schedule(G, "allreduce", [p, other])
    lone = dataclasses.replace(p, sets=(TreeSet(tuple(t for t in p.trees if t.root != 4)),))
    with pytest.raises(TopologyError, match="every one of the 9 ranks"):
        build_schedule(G, "allgather", lone)


def test_split_block_rule():
    assert split_block(12, [0.25] * 4) == [3] * 4
    assert split_block(10, [1 / 3] * 3) == [4, 3, 3]  # ties: the earlier tree
    assert split_block(7, [0.5, 0.25, 0.25]) == [3, 2, 2]  # 3.5, 1.75, 1.75: rests .5 .75 .75
    assert split_block(4, [0.97, 0.01, 0.01, 0.01]) == [1, 1, 1, 1]


def test_verifier_catches_broken_weighted_tables():
    G, p = _case("mesh:3x3", 2, "allgather")
    s = build_schedule(G, "allgather", p, chunks=4)
    assert check_schedule(G, s, p) == []
    leaf = next(e for e in s.entries if not any(e.id in d.deps for d in s.entries))
    assert "chunk-undelivered" in errors(check_schedule(G, drop_entry(s, leaf.id)))
    doubled = [list(x) for x in s.shares]
    doubled[0][0] *= 2
    bad = dataclasses.replace(s, shares=tuple(tuple(x) for x in doubled))
    assert "share-mismatch" in errors(check_schedule(G, bad))
    # a tree that takes its sibling's chunks: two trees carry them, its own part is lost
    e0 = s.entries[0]
    sib = next(e for e in s.entries if e.root == e0.root and e.tree_index != e0.tree_index)
    moved = tuple(dataclasses.replace(e, chunk_first=sib.chunk_first, chunk_last=sib.chunk_last)
                  if e.tree_index == e0.tree_index else e for e in s.entries)  # fmt: skip
    found = errors(check_schedule(G, dataclasses.replace(s, entries=moved)))
    assert "chunk-coverage" in found
    assert "chunk-range" in found


def _restep(s: Schedule, key) -> Schedule:
    by_link = defaultdict(list)
    for e in s.entries:
        by_link[e.arc].append(e)
    step = {e.id: i for es in by_link.values() for i, e in enumerate(sorted(es, key=key))}
    return dataclasses.replace(
        s, entries=tuple(dataclasses.replace(e, step=step[e.id]) for e in s.entries)
    )


@pytest.mark.parametrize("coll", COLLS)
def test_reordered_fifos_deadlock_and_are_caught(coll):
    G, p = _case("mesh:3x3", 2, coll)
    s = build_schedule(G, coll, p, chunks=2)
    # swaps of neighbouring steps: the verifier's verdict is the replay's (on this table no single
    # swap deadlocks: an exhaustive search of all 400 swaps per collective found none, since a
    # cycle needs a ring of links each serving the later hop first)
    links = defaultdict(list)
    for e in sorted(s.entries, key=lambda e: e.step):
        links[e.arc].append(e.id)
    for ids in list(links.values())[::3]:
        bad = swap_steps(s, ids[0], ids[1])
        assert check_deadlock(G, bad, max_fix_tries=0).deadlock_free == replay(bad)
    # every link serving its FIFO backwards: a ring of links each waiting for the next
    rev = _restep(s, lambda e: (e.phase != "rs", -e.step))
    assert not replay(rev)
    report = check_deadlock(G, rev, max_fix_tries=0)
    assert not report.deadlock_free
    assert report.cycle
    full = check_deadlock(G, rev, max_fix_tries=0, periodic=False)
    assert not full.deadlock_free  # the 2-chunk analysis agrees with every chunk unrolled


def test_one_slot_per_link_is_not_enough():
    # the reason the tables give each (link, tree) row its own receive slot
    G, p = _case("mesh:3x3", 2, "allgather")
    s = build_schedule(G, "allgather", p, chunks=4)
    per_link = table_model(s, buffers=1, slots="link")
    assert not check_deadlock(G, per_link, max_fix_tries=0).deadlock_free
    assert check_deadlock(G, table_model(s, buffers=None), max_fix_tries=0).deadlock_free


def test_table_size_counts_every_tree_row():
    G, p = _case("smbi:4x4", 4, "allreduce")
    s = build_schedule(G, "allreduce", p, chunks=8)
    rows = Counter()
    for t in p.trees:  # each tree arc is a row at both ends, once per phase (rs and ag)
        for u, v, _ in t.arcs:
            rows[u] += 2
            rows[v] += 2
    enc = TableEncoding.for_schedule(s)
    assert enc.widths()["tree"] == math.ceil(math.log2(len(p.trees)))  # 64 trees in one set
    sizes = table_bytes(s, enc)
    assert {n: (b - enc.header_bytes) // enc.row_bytes for n, b in sizes.items()} == dict(rows)
    plain = build_schedule(G, "allreduce", _packing("smbi:4x4", None, "out"), chunks=8)
    assert sum(table_bytes(plain).values()) > 0


def _reweighted(p: TreePacking, draw) -> TreePacking:
    trees = defaultdict(list)
    for t in p.trees:
        trees[t.root].append(t)
    out = []
    for r in sorted(trees):
        keep = draw(st.lists(st.sampled_from(range(len(trees[r]))), min_size=1, unique=True))
        weights = [draw(st.integers(1, 20)) for _ in keep]
        out += [dataclasses.replace(trees[r][i], share=w / sum(weights))
                for i, w in zip(keep, weights, strict=True)]  # fmt: skip
    return dataclasses.replace(p, sets=(TreeSet(tuple(out)),))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(COLLS), st.integers(4, 30), st.data())
def test_random_shares_give_valid_tables(coll, chunks, data):
    G, base = _case("mesh:3x3", 4, coll)
    p = _reweighted(base, data.draw)
    s = build_schedule(G, coll, p, chunks=chunks)
    arcs = [a for t in p.trees for a in t.arcs]
    several = any(n > 1 for n in Counter(t.root for t in p.trees).values())
    assert s.shares is not None  # several trees per root, or trees sharing links
    assert several or len(arcs) > len(set(arcs))
    recount_blocks(s, p)
    assert replay(s)
    assert errors(check_schedule(G, s, p)) == []
    assert is_periodic(s)  # row slots: 2 chunks per entry suffice even with unequal counts
    assert check_deadlock(G, s, max_fix_tries=0).deadlock_free
    # the 2-chunk analysis against every chunk unrolled and the replay, on a reordered table
    shuffled = _restep(s, lambda e: (e.phase != "rs", (e.step * 7919 + e.id) % 101, e.id))
    free = check_deadlock(G, shuffled, max_fix_tries=0).deadlock_free
    assert free == check_deadlock(G, shuffled, max_fix_tries=0, periodic=False).deadlock_free
    assert free == replay(shuffled)
    assert Schedule.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_packings_of_trees_made_here():
    # a weighted packing built by hand (no solver): two trees per corner of a 2x2 mesh
    G = build("mesh:2x2")
    # root r's tree goes along its row first ("row", share 3/4) or its column first (1/4)
    row = {0: "01 13 02", 1: "10 02 13", 2: "23 31 20", 3: "32 20 31"}
    col = {0: "02 23 01", 1: "13 32 10", 2: "20 01 23", 3: "31 10 32"}

    def arcs(text: str) -> tuple:
        return tuple((int(x[0]), int(x[1]), 0) for x in text.split())

    trees = [
        Tree(r, arcs(t[r]), 2, share) for r in range(4) for t, share in ((row, 0.75), (col, 0.25))
    ]
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet(tuple(trees)),))
    s = build_schedule(G, "allgather", p, chunks=4)
    assert [(e.root, e.chunk_first, e.chunk_last) for e in s.entries if e.src == e.root][:4] == [
        (0, 0, 2), (0, 0, 2), (0, 3, 3), (0, 3, 3)]  # fmt: skip
    assert replay(s)
    assert check_schedule(G, s, p) == []


def test_verify_file_reads_and_passes_a_weighted_table(tmp_path):
    G, p = _case("smbi:4x4", 4, "allreduce")
    s = build_schedule(G, "allreduce", p, nbytes=4 << 20)
    path = tmp_path / "ar.json"
    path.write_text(json.dumps(s.to_json()))
    report = check_file(path)
    assert report.ok, [f.message for f in report.findings]
    assert report.findings == ()
    assert report.extra["deadlock"]["deadlock_free"]
    doubled = s.to_json()
    doubled["shares"][0][5] *= 2
    path.write_text(json.dumps(doubled))
    assert "share-mismatch" in errors(check_file(path).findings)
