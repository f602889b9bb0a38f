"""Repaired one-round list schedules: valid schedules, never longer, and at the load where known.

A schedule is checked from its slots alone: every transfer after the ones its data come from,
one transfer per link and slot, each link's FIFO in slot order, and no shorter than the two
lower bounds (the busiest link's transfers, the deepest tree's chain).
"""

from __future__ import annotations

import numpy as np
from _schedule_trees import shared_trees
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.sim.packing import tree_bytes
from supermesh.topologies import build
from supermesh.trees.schedule.forest import forest
from supermesh.trees.schedule.list_schedule import (
    lexsort,
    list_schedule,
    list_schedules,
    repaired_schedule,
)
from supermesh.trees.throughput.pack import pack_throughput


def check(f, arc, kind, s) -> None:
    slot = s.slot
    if kind == "forward":
        has = f.parent >= 0
        assert (slot[has] > slot[f.parent[has]]).all()
    else:
        for j in range(f.jobs):
            below = f.children_of(np.array([j]))
            assert (slot[j] > slot[below]).all()
    pairs = set(zip(arc.tolist(), slot.tolist(), strict=True))
    assert len(pairs) == f.jobs  # one transfer per link and slot
    for a in np.unique(arc):
        mine = np.flatnonzero(arc == a)
        assert sorted(mine, key=lambda j: slot[j]) == sorted(mine, key=lambda j: s.order[j])
        assert sorted(s.order[mine].tolist()) == list(range(len(mine)))
    assert s.length == slot.max() + 1
    assert s.length >= max(np.bincount(arc).max(), f.depth.max())


@given(shared_trees(), st.sampled_from(["forward", "reduce"]), st.integers(1, 12))
@settings(deadline=None, max_examples=60)
def test_a_repaired_schedule_is_a_schedule_and_never_longer(trees, kind, iterations):
    f = forest(trees)
    _, arc = f.arc_ids()
    first = repaired_schedule(f, arc, kind, 1)
    prio = -(f.below if kind == "forward" else f.depth)
    assert first.length == list_schedule(f, arc, kind, 1, (f.node, f.tree, prio)).length
    s = repaired_schedule(f, arc, kind, iterations, seed=iterations)
    check(f, arc, kind, s)
    assert s.length <= first.length


def test_smbi_8x8_at_8_chunks_a_tree_repairs_to_its_busiest_link():
    # 256 trees of 63 arcs, each 8 times: 504 transfers on every busiest link; longest way
    # first takes 513 slots, and the repair reaches 504, which no schedule can beat
    p = pack_throughput(build("smbi:8x8"), parts="auto")
    share = min(tree_bytes(list(p.trees), 512 << 20, "allgather"))
    assert share == 2 << 20  # 4 trees a root, each a quarter of a 64th
    f = forest([t for t in p.trees for _ in range(8)])
    _, arc = f.arc_ids()
    load = int(np.bincount(arc).max())
    assert load == 8 * 63
    assert repaired_schedule(f, arc, "forward", 1).length > load
    s = repaired_schedule(f, arc, "forward", 8)
    assert s.length == load
    check(f, arc, "forward", s)


keys_of = st.integers(0, 60).flatmap(
    lambda n: st.lists(
        st.one_of(
            st.lists(st.integers(-3, 3), min_size=n, max_size=n).map(np.array),
            st.lists(st.integers(0, 1 << 40), min_size=n, max_size=n).map(np.array),
            st.lists(st.sampled_from([0.0, 0.25, 0.5, -1.0]), min_size=n, max_size=n).map(np.array),
            st.lists(st.booleans(), min_size=n, max_size=n).map(np.array),
        ),
        min_size=1,
        max_size=5,
    )
)


@given(keys_of)
@settings(deadline=None, max_examples=300)
def test_lexsort_sorts_as_numpy_lexsort(keys):
    # wide integer keys force the re-ranking between keys; repeated values test the ties
    assert lexsort(keys).tolist() == np.lexsort(keys).tolist()


@given(shared_trees(), st.sampled_from(["forward", "reduce"]), st.integers(1, 5), st.randoms())
@settings(deadline=None, max_examples=60)
def test_schedules_run_together_are_each_the_schedule_alone(trees, kind, copies, rng):
    f = forest(trees)
    _, arc = f.arc_ids()
    keys = [(f.node, np.array([rng.random() for _ in range(f.jobs)])) for _ in range(copies)]
    together = list_schedules(f, arc, kind, keys)
    assert len(together) == copies
    for k, s in zip(keys, together, strict=True):
        alone = list_schedule(f, arc, kind, 1, k)
        check(f, arc, kind, s)
        assert s.length == alone.length
        assert s.order.tolist() == alone.order.tolist()
        assert s.slot.tolist() == alone.slot.tolist()
