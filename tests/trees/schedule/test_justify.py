"""Unit-job list schedules over any dependency graph, and their justification.

A schedule is checked from its slots alone: each job after the jobs it waits for, one job per
link and slot, and (a list schedule) no link idle while one of its jobs is ready, the lowest
rank sent first. Justified schedules are valid, never longer than the first list schedule, and
never shorter than the floor, which is checked against every schedule of small graphs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.schedule.justify import justified_schedule, slot_floor, unit_list_schedule


@st.composite
def graphs(draw: st.DrawFn, max_jobs: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jobs on a few links, each waiting for some earlier-numbered jobs."""
    n = draw(st.integers(1, max_jobs))
    links = draw(st.integers(1, 4))
    arc = np.array([draw(st.integers(0, links - 1)) for _ in range(n)], dtype=np.int64)
    deps = [sorted(draw(st.sets(st.integers(0, j - 1), max_size=3))) if j else [] for j in range(n)]
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(d) for d in deps], out=start[1:])
    flat = np.array([x for d in deps for x in d], dtype=np.int64)
    return arc, start, flat


def deps_of(start: np.ndarray, flat: np.ndarray, j: int) -> list[int]:
    return flat[start[j] : start[j + 1]].tolist()


def check_valid(arc, start, flat, slot, length) -> None:
    n = len(arc)
    for j in range(n):
        assert all(slot[j] > slot[d] for d in deps_of(start, flat, j))
    assert len(set(zip(arc.tolist(), slot.tolist(), strict=True))) == n  # one job a link-slot
    assert length == slot.max() + 1


@given(graphs(), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_a_list_schedule_keeps_links_busy_and_sends_the_lowest_rank(g, rnd):
    arc, start, flat = g
    n = len(arc)
    rank = np.array([rnd.randint(0, 5) for _ in range(n)])
    s = unit_list_schedule(arc, start, flat, rank)
    check_valid(arc, start, flat, s.slot, s.length)
    ready = [max((s.slot[d] + 1 for d in deps_of(start, flat, j)), default=0) for j in range(n)]
    sent = {(int(arc[j]), int(s.slot[j])): j for j in range(n)}
    for j in range(n):
        for t in range(ready[j], int(s.slot[j])):
            other = sent.get((int(arc[j]), t))
            assert other is not None  # the link was busy while j waited
            assert (rank[other], other) < (rank[j], j)  # with a job ranked before j


@given(graphs(), st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_a_justified_schedule_is_valid_never_longer_and_not_below_the_floor(g, rnd):
    arc, start, flat = g
    rank = np.array([rnd.randint(0, 5) for _ in range(len(arc))])
    first = unit_list_schedule(arc, start, flat, rank)
    s = justified_schedule(arc, start, flat, rank)
    check_valid(arc, start, flat, s.slot, s.length)
    assert s.length <= first.length
    assert s.length >= slot_floor(arc, start, flat) >= np.bincount(arc).max()


def shortest(arc, start, flat) -> int:
    """The shortest schedule, by trying every slot of every job."""
    n = len(arc)
    for length in range(1, n + 1):
        for slots in itertools.product(range(length), repeat=n):
            if len(set(zip(arc.tolist(), slots, strict=True))) < n:
                continue
            if all(slots[j] > slots[d] for j in range(n) for d in deps_of(start, flat, j)):
                return length
    raise AssertionError("n slots always suffice for a graph numbered in order")


@given(graphs(max_jobs=6))
@settings(max_examples=80, deadline=None)
def test_the_floor_is_at_most_the_shortest_schedule(g):
    arc, start, flat = g
    best = shortest(arc, start, flat)
    assert slot_floor(arc, start, flat) <= best
    assert justified_schedule(arc, start, flat, np.zeros(len(arc))).length >= best


def test_justification_sends_the_job_with_work_after_it_first():
    # link 0: jobs 0 and 1; job 2 (link 1) waits for 1, job 3 (link 0) for 2. Ranked 0, 1, 2, 3
    # link 0 sends 0, 1, -, 3: 4 slots; 1 first lets 2 run beside 0: 3 slots, the floor
    arc = np.array([0, 0, 1, 0])
    start, flat = np.array([0, 0, 0, 1, 2]), np.array([1, 2])
    assert unit_list_schedule(arc, start, flat, np.arange(4)).length == 4
    s = justified_schedule(arc, start, flat, np.arange(4))
    assert s.slot.tolist() == [1, 0, 1, 2]
    assert slot_floor(arc, start, flat) == 3


def test_a_cycle_and_bad_arrays_are_refused():
    arc = np.array([0, 1])
    with pytest.raises(TopologyError):
        unit_list_schedule(arc, np.array([0, 1, 2]), np.array([1, 0]), np.zeros(2))
    with pytest.raises(SpecError):
        unit_list_schedule(arc, np.array([0, 0]), np.zeros(0, dtype=int), np.zeros(2))
    with pytest.raises(SpecError):
        unit_list_schedule(arc, np.array([0, 1, 1]), np.array([5]), np.zeros(2))
    with pytest.raises(SpecError):
        slot_floor(arc, np.array([0, 1, 1]), np.array([1]))  # job 0 waits for a later job
