"""Deadlock analysis: standard orders are safe, constructed bad orders are caught with a fix."""

from __future__ import annotations

import json
from collections import defaultdict

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SupermeshError
from supermesh.testing.examples import smbi_corner_trees
from supermesh.testing.strategies import arborescences, multidigraphs, tree_sets
from supermesh.topologies import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule import reverse_packing
from supermesh.verify import (
    Transfer,
    TreeSchedule,
    check_deadlock,
    dependency_graph,
    fifo_orders,
    transfers,
    wait_for_graph,
)

MESH22 = build("mesh:2x2")  # ring 0 -> 1 -> 3 -> 2 -> 0 in both directions


def _run_model(G, schedule):
    """Independent token game of the model: start any hop whose waits are over; True if all ran.

    Written from the model's rules (FIFO heads, data, barrier, credits, cut-through hops), not
    from the wait-for graph, so the two cross-check each other.
    """
    fifos = fifo_orders(G, schedule)
    routes = schedule.routes or {}
    hops = {x: [tuple(h) for h in routes.get(x.arc, [x.arc])] for x in transfers(schedule)}
    started, done = set(), set()
    by_dst, by_src = defaultdict(list), defaultdict(list)
    for x in hops:
        by_dst[(x.phase, x.set, x.tree, x.chunk, x.arc[1])].append(x)
        by_src[(x.phase, x.set, x.tree, x.chunk, x.arc[0])].append(x)
    rs = [x for x in hops if x.phase == "rs"]

    def may_start(link, x):
        queue = fifos[link]
        if not all(y in done for y in queue[: queue.index(x)]):
            return False
        path = hops[x]
        j = path.index(link)
        if j > 0:
            return (path[j - 1], x) in started
        if not all(y in done for y in by_dst[(x.phase, x.set, x.tree, x.chunk, x.arc[0])]):
            return False
        if (
            schedule.collective == "allreduce"
            and x.phase == "ag"
            and not all(y in done for y in rs)
        ):
            return False
        if schedule.buffers is not None:
            into = [y for y in fifos[path[-1]] if hops[y][-1] == path[-1]]
            i = into.index(x)
            if i >= schedule.buffers:
                e = into[i - schedule.buffers]
                users = by_src[(e.phase, e.set, e.tree, e.chunk, e.arc[1])]
                if not all(y in done for y in (users or [e])):
                    return False
        return True

    progress = True
    while progress:
        progress = False
        for x, path in hops.items():
            for link in path:
                if (link, x) not in started and may_start(link, x):
                    started.add((link, x))
                    if all((h, x) in started for h in path):
                        done.add(x)
                    progress = True
    return len(done) == len(hops)


def _allreduce(p_out, chunks=3, **kw):
    return TreeSchedule("allreduce", reverse_packing(p_out), p_out, chunks=chunks, **kw)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("buffers", [1, 2, None])
def test_smbi_corner_allreduce_is_deadlock_free(n, buffers):
    G = build(f"smbi:{n}x{n}")
    s = _allreduce(smbi_corner_trees(n), buffers=buffers)
    report = check_deadlock(G, s)
    assert report.deadlock_free
    assert report.cycle is None
    assert "acyclic" in report.argument
    if n == 4 and buffers == 1:
        assert _run_model(G, s)


def _bfs_tree(G, root):
    depth, arcs, queue = {root: 0}, [], [root]
    for u in queue:
        for v in sorted(G.successors(u)):
            if v not in depth:
                depth[v] = depth[u] + 1
                arcs.append((u, v, 0))
                queue.append(v)
    return Tree(root, tuple(arcs), max(depth.values()))


@pytest.mark.parametrize("order", ["set", "chunk"])
@pytest.mark.parametrize("collective", ["allgather", "reducescatter"])
def test_rs_ag_root_sets_sharing_fifos_are_deadlock_free(order, collective):
    # every chiplet a root; sets share the link FIFOs with no barrier (BRIEF section 4)
    G = build("smbi:4x4")
    sets = tuple(TreeSet((_bfs_tree(G, r),)) for r in range(16))
    out = TreePacking("smbi:4x4", "out", "feasible", sets)
    s = (
        TreeSchedule(collective, out_trees=out, chunks=2, order=order)
        if collective == "allgather"
        else TreeSchedule(collective, in_trees=reverse_packing(out), chunks=2, order=order)
    )
    assert check_deadlock(G, s).deadlock_free


def _ring_sets():
    a = Tree(0, ((0, 1, 0), (1, 3, 0), (3, 2, 0)), 3)
    b = Tree(3, ((3, 2, 0), (2, 0, 0), (0, 1, 0)), 3)
    return TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a,)), TreeSet((b,))))


def test_opposite_fifo_orders_on_two_links_deadlock():
    p = _ring_sets()
    assert check_deadlock(
        MESH22, TreeSchedule("allgather", out_trees=p, buffers=None)
    ).deadlock_free
    first, second = (Transfer("ag", s, 0, 0, (0, 1, 0)) for s in (0, 1))
    bad = TreeSchedule("allgather", out_trees=p, buffers=None, fifo={(0, 1, 0): [second, first]})
    report = check_deadlock(MESH22, bad)
    assert not report.deadlock_free
    assert {link for link, _ in report.cycle} == {(0, 1, 0), (1, 3, 0), (3, 2, 0), (2, 0, 0)}
    assert "standard FIFO order" in report.fix
    assert [f.code for f in report.findings()] == ["deadlock-cycle"]
    assert not _run_model(MESH22, bad)
    json.dumps(report.to_json())


def test_chunk_order_reversed_deadlocks_only_with_one_slot():
    t = Tree(0, ((0, 1, 0), (1, 3, 0)), 2)
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    order = {(1, 3, 0): [Transfer("ag", 0, 0, c, (1, 3, 0)) for c in (1, 0)]}
    bad = TreeSchedule("broadcast", out_trees=p, chunks=2, fifo=order)
    report = check_deadlock(MESH22, bad)
    assert not report.deadlock_free
    assert "(buffer)" in report.argument
    assert not _run_model(MESH22, bad)
    for buffers in (2, None):
        s = TreeSchedule("broadcast", out_trees=p, chunks=2, fifo=order, buffers=buffers)
        assert check_deadlock(MESH22, s).deadlock_free
        assert _run_model(MESH22, s)


def test_gather_entry_ahead_of_reduce_entry_deadlocks_through_the_barrier():
    G = build("smbi:3x3")
    s = _allreduce(smbi_corner_trees(3), chunks=1, buffers=None)
    fifos = fifo_orders(G, s)
    link = next(k for k, q in fifos.items() if {x.phase for x in q} == {"rs", "ag"})
    q = fifos[link]
    bad = _allreduce(smbi_corner_trees(3), chunks=1, buffers=None, fifo={link: [q[-1], *q[:-1]]})
    report = check_deadlock(G, bad)
    assert not report.deadlock_free
    assert (None, None) in report.cycle
    assert "global barrier" in report.argument
    assert report.fix is not None
    assert not _run_model(G, bad)


def _two_hop_ring(own_first):
    ring = [0, 1, 3, 2]
    sets, routes = [], {}
    for i, a in enumerate(ring):
        b, c = ring[(i + 1) % 4], ring[(i + 2) % 4]
        sets.append(TreeSet((Tree(a, ((a, b, 0), (a, c, 0)), 1),)))
        routes[(a, c, 0)] = [(a, b, 0), (b, c, 0)]
    p = TreePacking("mesh:2x2", "out", "feasible", tuple(sets))
    s = TreeSchedule("allgather", out_trees=p, routes=routes, buffers=None)
    if not own_first:
        return s
    fifo = {
        link: sorted(q, key=lambda x: routes.get(x.arc, [x.arc])[0] != link)
        for link, q in fifo_orders(MESH22, s).items()
    }
    return TreeSchedule("allgather", out_trees=p, routes=routes, buffers=None, fifo=fifo)


def test_two_hop_sends_holding_their_first_link_deadlock():
    # the TPU note: a two-hop send holds its first link while it waits for the second; each chip
    # launching its own sends before forwarding others' closes a cycle around the ring
    assert check_deadlock(MESH22, _two_hop_ring(own_first=False)).deadlock_free
    bad = _two_hop_ring(own_first=True)
    report = check_deadlock(MESH22, bad)
    assert not report.deadlock_free
    # the cycle goes round the whole ring through second hops of two-hop sends
    assert {x.set for _, x in report.cycle} == {0, 1, 2, 3}
    assert sum(x.arc in bad.routes and link != x.arc for link, x in report.cycle) >= 2
    assert report.fix is not None
    assert not _run_model(MESH22, bad)


def test_dependency_graph_is_the_coarse_view():
    t = Tree(0, ((0, 1, 0), (1, 3, 0)), 2)
    p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    s = TreeSchedule("broadcast", out_trees=p, chunks=4, buffers=None)
    assert sorted(dependency_graph(MESH22, s).edges()) == [
        (("link", (1, 3, 0)), ("link", (0, 1, 0)))
    ]
    assert "channel dependency graph on 2 links" in check_deadlock(MESH22, s).argument
    # one slot per link: chunk c+1 on 0->1 waits for 1->3 to forward chunk c, which waited for
    # chunk c on 0->1: a CDG cycle through the buffer, which the wait-for graph resolves
    one = TreeSchedule("broadcast", out_trees=p, chunks=4)
    C = dependency_graph(MESH22, one)
    assert ("buffer", (0, 1, 0)) in C
    assert not nx.is_directed_acyclic_graph(C)
    W = wait_for_graph(MESH22, one)
    assert W.number_of_nodes() == 8
    assert nx.is_directed_acyclic_graph(W)
    assert "wait-for graph" in check_deadlock(MESH22, one).argument


def test_malformed_schedules_are_refused():
    p = _ring_sets()
    with pytest.raises(SupermeshError):
        TreeSchedule("allreduce", out_trees=p)
    with pytest.raises(SupermeshError):
        TreeSchedule("allgather", out_trees=p, chunks=0)
    with pytest.raises(SupermeshError):
        TreeSchedule("scatter", out_trees=p)
    bad_fifo = TreeSchedule("allgather", out_trees=p, fifo={(0, 1, 0): []})
    with pytest.raises(SupermeshError, match="permutation"):
        check_deadlock(MESH22, bad_fifo)
    far = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((Tree(0, ((0, 3, 0),), 1),)),))
    with pytest.raises(SupermeshError, match="no route"):
        check_deadlock(MESH22, TreeSchedule("broadcast", out_trees=far))
    with pytest.raises(SupermeshError, match="not a path"):
        check_deadlock(
            MESH22, TreeSchedule("broadcast", out_trees=far, routes={(0, 3, 0): [(0, 1, 0)]})
        )


@st.composite
def random_schedules(draw):
    G = draw(multidigraphs(max_nodes=5, max_arcs=6, symmetric=True, multiplicity=2))
    nsets = draw(st.integers(1, 2))
    sets = tuple(draw(tree_sets(G, k=draw(st.integers(1, 2)))) for _ in range(nsets))
    out = TreePacking("random", "out", "feasible", sets)
    collective = draw(st.sampled_from(["allgather", "allreduce", "reducescatter"]))
    kw = {
        "chunks": draw(st.integers(1, 2)),
        "buffers": draw(st.sampled_from([1, 2, None])),
        "order": draw(st.sampled_from(["set", "chunk"])),
    }
    inn = reverse_packing(out)
    base = TreeSchedule(
        collective,
        inn if collective != "allgather" else None,
        out if collective != "reducescatter" else None,
        **kw,
    )
    if draw(st.booleans()):
        fifo = {k: draw(st.permutations(q)) for k, q in fifo_orders(G, base).items()}
        base = TreeSchedule(base.collective, base.in_trees, base.out_trees, fifo=fifo, **kw)
    return G, base


@given(random_schedules())
def test_verdict_matches_the_token_game(gs):
    G, s = gs
    report = check_deadlock(G, s, max_fix_tries=2)
    assert report.deadlock_free == _run_model(G, s)
    if s.fifo is None:  # standard orders of disjoint sets are always safe
        assert report.deadlock_free


@given(st.data())
def test_single_tree_any_chunks_is_deadlock_free(data):
    G = data.draw(multidigraphs(max_nodes=6, max_arcs=10, symmetric=True))
    t = data.draw(arborescences(G))
    p = TreePacking("random", "out", "feasible", (TreeSet((t,)),))
    chunks = data.draw(st.integers(1, 4))
    assert check_deadlock(G, TreeSchedule("broadcast", out_trees=p, chunks=chunks)).deadlock_free
