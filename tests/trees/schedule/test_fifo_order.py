"""The FIFO order of shared links (a list schedule on bit sets) against a plain one written here.

:func:`fifo_order` keeps each link's waiting transfers as bits and takes the lowest; the
reference below is the schedule as its docstring states it, slot by slot with a heap per link.
Both must give every link the same order on random trees sharing links, in both directions and
for any number of rounds; the forest must refuse what an OrientedTree refuses.
"""

from __future__ import annotations

import heapq
import random

import numpy as np
import pytest
from _schedule_trees import shared_trees
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import TopologyError
from supermesh.trees.model import Tree
from supermesh.trees.schedule.fifo import REPAIR_WORK, fifo_order, fifo_orders
from supermesh.trees.schedule.forest import forest
from supermesh.trees.schedule.list_schedule import list_schedule, repaired_schedule


def reference(trees: list[Tree], kind: str, rounds: int) -> dict[tuple[int, int], int]:
    """Slot by slot: each link sends its best ready transfer of its current round."""
    parent = [{v: (u, v, k) for u, v, k in t.arcs} for t in trees]
    children = [{} for _ in trees]
    for ti, t in enumerate(trees):
        for u, v, _ in t.arcs:
            children[ti].setdefault(u, []).append(v)

    def depth(ti: int, v: int) -> int:
        return 0 if v == trees[ti].root else 1 + depth(ti, parent[ti][v][0])

    def below(ti: int, v: int) -> int:
        return max((1 + below(ti, c) for c in children[ti].get(v, ())), default=0)

    jobs = [(ti, v) for ti in range(len(trees)) for v in parent[ti]]
    key = {
        (ti, v): (-(below(ti, v) if kind == "forward" else depth(ti, v)), ti, v) for ti, v in jobs
    }
    arc = {(ti, v): parent[ti][v] for ti, v in jobs}
    per_arc: dict = {}
    for j in jobs:
        per_arc[arc[j]] = per_arc.get(arc[j], 0) + 1
    if kind == "forward":
        need = {j: int(arc[j][0] != trees[j[0]].root) for j in jobs}
    else:
        need = {(ti, v): len(children[ti].get(v, ())) for ti, v in jobs}
    left = {(j, c): need[j] for j in jobs for c in range(rounds)}
    ready = [(j, c) for (j, c), k in left.items() if k == 0]
    waiting: dict = {a: [] for a in per_arc}
    sent = dict.fromkeys(per_arc, 0)
    keep = max(0, rounds - 2)
    out = {}
    while any(sent[a] < rounds * per_arc[a] for a in per_arc):
        for j, c in ready:
            heapq.heappush(waiting[arc[j]], ((c, *key[j]), j))
        ready = []
        for a, heap in waiting.items():
            if not heap or heap[0][0][0] != sent[a] // per_arc[a]:
                continue
            (c, *_), j = heapq.heappop(heap)
            if c == keep:
                out[j] = sent[a] - keep * per_arc[a]
            sent[a] += 1
            ti, v = j
            if kind == "forward":
                ready += [((ti, w), c) for w in children[ti].get(v, ())]
            elif parent[ti][v][0] != trees[ti].root:
                up = (ti, parent[ti][v][0])
                left[(up, c)] -= 1
                if left[(up, c)] == 0:
                    ready.append((up, c))
    return out


@given(shared_trees(), st.sampled_from(["forward", "reduce"]), st.integers(1, 4))
@settings(deadline=None)
def test_fifo_order_is_the_stated_list_schedule(trees, kind, rounds):
    f = forest(trees)
    got = fifo_order(f, kind, rounds=rounds, tries=0)
    mine = dict(zip(zip(f.tree.tolist(), f.node.tolist(), strict=True), got.tolist(), strict=True))
    assert mine == reference(trees, kind, rounds)


def test_forest_refuses_what_a_tree_cannot_be():
    with pytest.raises(TopologyError, match="twice"):
        forest([Tree(0, ((0, 1, 0), (0, 1, 1)), 1)])
    with pytest.raises(TopologyError, match="hangs from nothing"):
        forest([Tree(0, ((2, 1, 0),), 1)])
    with pytest.raises(TopologyError, match="cycle"):
        forest([Tree(0, ((0, 1, 0), (2, 3, 0), (3, 2, 0)), 1)])


def test_forest_reverses_stored_in_trees():
    f = forest([Tree(2, ((0, 1, 0), (1, 2, 0)), 2)], "in")  # 0 -> 1 -> 2, root 2
    assert (f.up.tolist(), f.node.tolist(), f.depth.tolist()) == ([1, 2], [0, 1], [2, 1])


def one_round_reference(f, kind, tries):
    """The stated choice without stopping early: each kind's tied schedules (longest way
    first, then ``tries`` random ties), the other kind's run backwards, then both repairs;
    a later candidate replaces the best only where strictly shorter."""
    _, arc = f.arc_ids()
    on_arc = np.bincount(arc)
    repairs = min(tries, REPAIR_WORK // f.jobs - 1)

    def tied(k):
        prio = -(f.below + 1 if k == "forward" else f.depth)
        rng = random.Random(0)
        best = list_schedule(f, arc, k, 1, (f.node, f.tree, prio))
        for _ in range(tries):
            noise = np.array([rng.random() for _ in range(f.jobs)])
            s = list_schedule(f, arc, k, 1, (f.node, f.tree, noise, prio))
            if s.length < best.length:
                best = s
        return best

    other = "reduce" if kind == "forward" else "forward"
    found = [(kind, tied(kind)), (other, tied(other))]
    if repairs:
        found += [(k, repaired_schedule(f, arc, k, 1 + repairs, 0)) for k in (kind, other)]
    best_order, best_length = None, None
    for k, s in found:
        if best_length is None or s.length < best_length:
            best_order = s.order if k == kind else on_arc[arc] - 1 - s.order
            best_length = s.length
    return best_order


@given(shared_trees(), st.integers(0, 6))
@settings(deadline=None, max_examples=40)
def test_one_round_orders_are_the_stated_choice_for_both_kinds_at_once(trees, tries):
    # stopping at the floor and sharing the schedules of an AllReduce's two kinds must not
    # change what either kind chooses
    f = forest(trees)
    both = fifo_orders(f, ("reduce", "forward"), tries=tries)
    for kind in ("forward", "reduce"):
        assert both[kind].tolist() == one_round_reference(f, kind, tries).tolist()


@given(shared_trees(), st.integers(1, 3), st.integers(0, 6))
@settings(deadline=None, max_examples=40)
def test_an_allreduces_two_orders_are_each_kinds_order_alone(trees, rounds, tries):
    # the two kinds share their schedules; sharing must not change what either chooses
    f = forest(trees)
    both = fifo_orders(f, ("reduce", "forward"), rounds=rounds, tries=tries)
    for kind in ("forward", "reduce"):
        alone = fifo_orders(f, (kind,), rounds=rounds, tries=tries)[kind]
        assert both[kind].tolist() == alone.tolist()
