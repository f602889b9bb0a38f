"""List schedules of transfers with durations, their justification and their floor.

A schedule is checked from its start times alone: each transfer ``delay`` after the transfers it
waits for were delivered, one at a time on each link with ``release`` between them, and (a list
schedule) no link free while one of its transfers is ready, the lowest rank started first.
Justified schedules are valid, never longer than the first, and never shorter than the floor,
which is checked against the best schedule of small graphs (every order on every link).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.trees.schedule.timed import (
    timed_floor,
    timed_justified_schedule,
    timed_list_schedule,
)

EPS = 1e-9


@st.composite
def graphs(draw: st.DrawFn, max_jobs: int = 25) -> tuple[np.ndarray, ...]:
    """Transfers on a few links with durations and delays, each waiting for earlier ones."""
    n = draw(st.integers(1, max_jobs))
    links = draw(st.integers(1, 4))
    arc = np.array([draw(st.integers(0, links - 1)) for _ in range(n)], dtype=np.int64)
    dur = np.array([draw(st.sampled_from([0.5, 1.0, 2.0, 3.0, 7.0])) for _ in range(n)])
    delay = np.array([draw(st.sampled_from([0.0, 0.0, 0.5, 1.0])) for _ in range(n)])
    deps = [sorted(draw(st.sets(st.integers(0, j - 1), max_size=3))) if j else [] for j in range(n)]
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(d) for d in deps], out=start[1:])
    flat = np.array([x for d in deps for x in d], dtype=np.int64)
    return arc, dur, start, flat, delay


def deps_of(start: np.ndarray, flat: np.ndarray, j: int) -> list[int]:
    return flat[start[j] : start[j + 1]].tolist()


def ready_times(g, s: np.ndarray) -> list[float]:
    arc, dur, start, flat, delay = g
    return [
        max((s[d] + dur[d] + delay[j] for d in deps_of(start, flat, j)), default=0.0)
        for j in range(len(arc))
    ]


def check_valid(g, s: np.ndarray, length: float, release: float) -> None:
    arc, dur = g[0], g[1]
    ready = ready_times(g, s)
    assert all(s[j] >= ready[j] - EPS for j in range(len(arc)))
    for link in set(arc.tolist()):
        mine = sorted(np.flatnonzero(arc == link).tolist(), key=lambda j: s[j])
        for a, b in itertools.pairwise(mine):
            assert s[b] >= s[a] + dur[a] + release - EPS  # one at a time, with the release gap
    assert length == pytest.approx(float((s + dur).max()))


@given(graphs(), st.randoms(use_true_random=False), st.sampled_from([0.0, 1.0]))
@settings(max_examples=150, deadline=None)
def test_a_list_schedule_keeps_links_busy_and_starts_the_lowest_rank(g, rnd, release):
    arc, dur, start, flat, delay = g
    n = len(arc)
    rank = np.array([rnd.randint(0, 5) for _ in range(n)])
    sched = timed_list_schedule(arc, dur, start, flat, delay, rank, release=release)
    s = sched.start
    check_valid(g, s, sched.length, release)
    ready = ready_times(g, s)
    for j in range(n):
        if s[j] <= ready[j] + EPS:
            continue
        others = [k for k in np.flatnonzero(arc == arc[j]).tolist() if k != j]
        # from when j was ready until it started, its link was busy or releasing ...
        busy = sorted((s[k], s[k] + dur[k] + release) for k in others if s[k] < s[j])
        t = ready[j]
        for lo, hi in busy:
            if lo <= t + EPS:
                t = max(t, hi)
        assert t >= s[j] - EPS
        # ... and what it started meanwhile was ranked before j
        for k in others:
            if ready[j] - EPS <= s[k] < s[j] - EPS:
                assert (rank[k], k) < (rank[j], j)


@given(graphs(), st.randoms(use_true_random=False), st.sampled_from([0.0, 1.0]))
@settings(max_examples=150, deadline=None)
def test_a_justified_schedule_is_valid_never_longer_and_not_below_the_floor(g, rnd, release):
    arc, dur, start, flat, delay = g
    rank = np.array([rnd.randint(0, 5) for _ in range(len(arc))])
    first = timed_list_schedule(arc, dur, start, flat, delay, rank, release=release)
    s = timed_justified_schedule(arc, dur, start, flat, delay, rank, release=release)
    check_valid(g, s.start, s.length, release)
    assert s.length <= first.length + EPS
    floor = timed_floor(arc, dur, start, flat, delay, release=release)
    busiest = max(
        dur[arc == link].sum() + release * ((arc == link).sum() - 1) for link in set(arc.tolist())
    )
    assert s.length >= floor - EPS >= busiest - 2 * EPS


def best_length(g, release: float) -> float:
    """The shortest schedule: every order of every link, each timed as early as it allows."""
    arc, dur, start, flat, delay = g
    links = sorted(set(arc.tolist()))
    per_link = [np.flatnonzero(arc == link).tolist() for link in links]
    best = np.inf
    for orders in itertools.product(*(itertools.permutations(m) for m in per_link)):
        prev = {j: (o[i - 1] if i else -1) for o in orders for i, j in enumerate(o)}
        s = np.full(len(arc), np.nan)
        for _ in range(len(arc)):  # relax in rounds: an order against the deps never settles
            for j in range(len(arc)):
                waits = [*deps_of(start, flat, j), *([prev[j]] if prev[j] >= 0 else [])]
                if all(not np.isnan(s[d]) for d in waits):
                    s[j] = max(
                        [s[d] + dur[d] + delay[j] for d in deps_of(start, flat, j)]
                        + ([s[prev[j]] + dur[prev[j]] + release] if prev[j] >= 0 else [])
                        + [0.0]
                    )
        if not np.isnan(s).any():
            best = min(best, float((s + dur).max()))
    return best


@given(graphs(max_jobs=6), st.sampled_from([0.0, 1.0]))
@settings(max_examples=120, deadline=None)
def test_the_floor_is_at_most_the_best_schedule(g, release):
    arc, dur, start, flat, delay = g
    best = best_length(g, release)
    assert timed_floor(arc, dur, start, flat, delay, release=release) <= best + EPS
    s = timed_justified_schedule(arc, dur, start, flat, delay, np.arange(len(arc)), release=release)
    assert s.length >= best - EPS


def test_a_hand_example_a_short_transfer_first():
    """Link 0: a long transfer (3) and a short one (1); link 1 waits for the short one (2)."""
    arc, dur = np.array([0, 0, 1]), np.array([3.0, 1.0, 2.0])
    start, flat, delay = np.array([0, 0, 0, 1]), np.array([1]), np.zeros(3)
    assert timed_list_schedule(arc, dur, start, flat, delay, np.arange(3)).length == 6.0
    s = timed_justified_schedule(arc, dur, start, flat, delay, np.arange(3))
    assert s.length == 4.0  # short first: 1 + 2 on link 1 while link 0 sends the long one
    assert timed_floor(arc, dur, start, flat, delay) == 4.0  # link 0's 4, link 1's 1 + 2 + 0


def test_a_cycle_and_bad_arrays_are_refused():
    arc, dur, delay = np.array([0, 1]), np.ones(2), np.zeros(2)
    with pytest.raises(TopologyError):
        timed_list_schedule(arc, dur, np.array([0, 1, 2]), np.array([1, 0]), delay, np.zeros(2))
    with pytest.raises(SpecError):
        timed_list_schedule(arc, dur[:1], np.array([0, 0, 0]), np.zeros(0, int), delay, [0, 0])
    with pytest.raises(SpecError):
        timed_floor(arc, -dur, np.array([0, 0, 0]), np.zeros(0, int), delay)
    with pytest.raises(SpecError):  # the floor needs every transfer after those it waits for
        timed_floor(arc, dur, np.array([0, 1, 1]), np.array([1]), delay)
