"""Pipeline time of root sets run back to back, and a set order that shortens it.

Model (the reference simulation of BRIEF.md section 4, in steps of one chunk over one link).
Every directed link serves a FIFO of ``(set, chunk, tree)`` entries in set order, then chunk order,
then root first (AllGather, out-trees) or leaves first (ReduceScatter, in-trees). An entry holds
its link for one step and starts when the link is free and its data are there: out-trees, when
the parent has received the chunk; in-trees, when every child has delivered it. There is no
barrier between sets, so a set's fill overlaps the previous set's drain wherever they use
different links: the order of the sets changes the total, by as much as the heights do. Taking
every entry in the global ``(set, chunk, depth)`` order respects every FIFO and every dependency,
so one pass gives the exact finishing step of this model (:func:`pipeline_steps`). The reference
simulator's time is this count times the chunk time (1031.5 cycles with its BookSim preset) plus a
constant: ``bench/bench_roots.py`` prints both.

:func:`order_sets` searches the order: from each of the given order, tallest first and any orders
the caller adds (best first, while the budget lasts), it moves one set to another place while that
shortens the pipeline, and keeps the best order reached. The budget counts link entries simulated,
not seconds, so the order is the same on any machine under any load (a wall-clock limit far above
the budget stays as a safety net, and :class:`SetOrder` says if it fired).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from supermesh.errors import SpecError
from supermesh.trees.bounds.heights import check_direction, tree_depths
from supermesh.trees.model import TreeSet

__all__ = ["ORDER_WORK", "SetOrder", "order_sets", "pipeline_steps"]

ORDER_WORK = 50_000_000  # link entries the order search may simulate (about 5 to 15 s)
SAFETY_SECONDS = 600.0  # wall-clock safety net, far above what the default budget takes

Link = tuple[int, int, int]
Step = tuple[Link, tuple[int, int] | None, tuple[int, int]]


class Plan(NamedTuple):
    """One set's numbered link entries for one chunk, in FIFO order (see :func:`_compile`)."""

    entries: list[tuple[int, int, int]]
    slots: int


def _plan(ts: TreeSet, direction: str) -> list[Step]:
    """One set's link entries for one chunk, in FIFO order: (link, waits for, delivers to)."""
    steps: list[tuple[int, Step]] = []
    for i, tree in enumerate(ts.trees):
        if direction == "out":
            depth = tree_depths(tree.root, {v: u for u, v, _ in tree.arcs})
            for u, v, k in tree.arcs:
                wait = None if u == tree.root else (i, u)
                steps.append((depth[v], ((u, v, k), wait, (i, v))))
        else:
            depth = tree_depths(tree.root, {u: v for u, v, _ in tree.arcs})
            for u, v, k in tree.arcs:  # u is the child, v the parent
                steps.append((-depth[u], ((u, v, k), (i, u), (i, v))))
    steps.sort(key=lambda s: s[0])
    return [s for _, s in steps]


def _compile(sets: Sequence[TreeSet], direction: str) -> tuple[list[Plan], int]:
    """Every set's plan with links and (tree, node) pairs numbered, and the number of links.

    In a plan entry ``(link, waits, delivers)`` the pairs are numbered from 1 within the set;
    ``waits`` is 0 for an entry that is ready at once (the root's arcs of an out-tree).
    """
    links: dict[Link, int] = {}
    plans = []
    for ts in sets:
        slots: dict[tuple[int, int], int] = {}
        entries = []
        for link, wait, done in _plan(ts, direction):
            at = links.setdefault(link, len(links))
            w = 0 if wait is None else slots.setdefault(wait, len(slots) + 1)
            entries.append((at, w, slots.setdefault(done, len(slots) + 1)))
        plans.append(Plan(entries, len(slots) + 1))
    return plans, len(links)


def _run(plan: Plan, chunks: int, free: list[int], end: int) -> int:
    """Add one set's entries to the link state ``free`` (in place); the new last step."""
    for _ in range(chunks):
        have = [0] * plan.slots
        for link, wait, done in plan.entries:
            start = free[link]
            if have[wait] > start:
                start = have[wait]
            start += 1
            free[link] = start
            if have[done] < start:
                have[done] = start
            if start > end:
                end = start
    return end


def pipeline_steps(sets: Sequence[TreeSet], *, chunks: int = 2, direction: str = "out") -> int:
    """Steps until the last chunk arrives when the sets run back to back (module docstring).

    Parameters
    ----------
    sets : sequence of TreeSet
        In running order; the trees of one set must be arc-disjoint.
    chunks : int
        Chunks per tree.
    direction : {"out", "in"}
        Out-trees (AllGather, root first) or in-trees (ReduceScatter, leaves first; arcs stored
        child -> parent).

    Returns
    -------
    int

    Raises
    ------
    SpecError
        ``chunks`` below 1 or an unknown direction.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> chain = TreeSet((Tree(0, ((0, 1, 0), (1, 2, 0)), 2),))
    >>> pipeline_steps([chain], chunks=3)  # 2 hops, then one step per further chunk
    4
    >>> pipeline_steps([chain, chain], chunks=1)  # the second set follows one step behind
    3
    """
    check_direction(direction)
    if chunks < 1:
        raise SpecError(f"chunks = {chunks} must be at least 1", hint="e.g. chunks=2")
    plans, links = _compile(sets, direction)
    free, end = [0] * links, 0
    for plan in plans:
        end = _run(plan, chunks, free, end)
    return end


@dataclass(frozen=True)
class SetOrder:
    """A running order found by :func:`order_sets`, and how its search ended.

    Attributes
    ----------
    order : list of int
        Indices into the sets, in running order.
    steps : int
        :func:`pipeline_steps` of that order.
    trials : int
        Orders evaluated (starts and moves).
    work : int
        Link entries simulated, the unit of the budget (one entry is one chunk crossing one
        link; a full evaluation of ``n`` chiplets' trees is about ``n * (n - 1) * chunks``).
    stopped : {"converged", "budget", "time limit"}
        ``converged``: every descent reached an order no single move improves; ``budget``: the
        work budget ran out (the same inputs stop at the same trial on any machine);
        ``time limit``: the wall-clock safety net fired first, so this order may differ from
        run to run.
    """

    order: list[int]
    steps: int
    trials: int
    work: int
    stopped: str


@dataclass
class _Effort:
    """The work spent so far against the budget, and the wall-clock safety net."""

    budget: int
    deadline: float
    work: int = 0
    trials: int = 0
    timed_out: bool = False

    def spent(self) -> bool:
        if self.work >= self.budget:
            return True
        if time.perf_counter() >= self.deadline:
            self.timed_out = True
        return self.timed_out


def order_sets(
    sets: Sequence[TreeSet],
    *,
    chunks: int = 2,
    direction: str = "out",
    budget: int = ORDER_WORK,
    time_limit: float = SAFETY_SECONDS,
    starts: Sequence[Sequence[int]] = (),
) -> SetOrder:
    """A running order of the sets with few pipeline steps (local search, first improvement).

    From each start (the given order, tallest first and ``starts``; best first) it moves one set
    to another place while that shortens the pipeline, and keeps the best order reached. The
    search stops on a *work budget*, not on the clock, so the same inputs give the same order
    on any machine under any load. A move is evaluated from the first place it changes (the
    link state after each prefix of the current order is kept) and given up as soon as it
    reaches the best count: the answer is the one a full evaluation of every move would give.

    Parameters
    ----------
    sets : sequence of TreeSet
    chunks : int
        Chunks per tree in the model.
    direction : {"out", "in"}
    budget : int
        Link entries the search may simulate (see :class:`SetOrder`; 0.1 to 0.3 µs each). The
        default, 50 million (5 to 15 s), lets every descent converge on SMBi and SMAlter up to
        9x9 (4 million on 8x8, 28 million on 9x9 SMBi, 48 million on 9x9 SMAlter).
    time_limit : float
        Wall-clock safety net in seconds, meant to be far above what ``budget`` takes; if it
        fires, ``stopped`` says ``"time limit"``.
    starts : sequence of orders
        More orders to start from (permutations of ``range(len(sets))``).

    Returns
    -------
    SetOrder

    Raises
    ------
    SpecError
        ``chunks`` below 1, a negative budget, a time limit not above 0, an unknown direction or
        a start that is not a permutation of the sets.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> chain = TreeSet((Tree(0, ((0, 1, 0), (1, 2, 0)), 2),))
    >>> hop = TreeSet((Tree(1, ((1, 2, 0),), 1),))  # needs link 1->2 before the chain does
    >>> pipeline_steps([chain, hop], chunks=1), pipeline_steps([hop, chain], chunks=1)
    (3, 2)
    >>> found = order_sets([chain, hop], chunks=1)
    >>> found.order, found.steps, found.stopped
    ([1, 0], 2, 'converged')
    >>> order_sets([chain, hop], chunks=1, budget=0).stopped  # no move tried: the best start
    'budget'
    """
    check_direction(direction)
    if chunks < 1:
        raise SpecError(f"chunks = {chunks} must be at least 1", hint="e.g. chunks=2")
    if budget < 0:
        raise SpecError(f"order budget = {budget} must not be negative", hint=f"e.g. {ORDER_WORK}")
    if not time_limit > 0:
        raise SpecError(f"time limit = {time_limit} must be above 0 s", hint="e.g. 600")
    given = list(range(len(sets)))
    for start in starts:
        if sorted(start) != given:
            raise SpecError(
                f"start order {list(start)} is not a permutation of the {len(sets)} sets",
                hint=f"list each index 0..{len(sets) - 1} once",
            )
    effort = _Effort(budget, time.perf_counter() + time_limit)
    plans, links = _compile(sets, direction)
    tallest = sorted(given, key=lambda i: (-sets[i].height, i))
    firsts: dict[tuple[int, ...], int] = {}
    for o in (given, tallest, *starts):
        if tuple(o) not in firsts:
            effort.trials += 1
            firsts[tuple(o)] = _states(plans, links, chunks, list(o), effort)[-1][1]
    ranked = sorted(firsts.items(), key=lambda item: (item[1], item[0]))
    order, best = list(ranked[0][0]), ranked[0][1]
    converged = True
    for start, _ in ranked:  # a descent from each start, best start first
        if effort.spent():
            converged = False
            break
        local, low, done = _descend(plans, links, chunks, list(start), effort)
        if low < best:
            order, best = local, low
        if not done:
            converged = False
            break
    stopped = "converged" if converged else "time limit" if effort.timed_out else "budget"
    return SetOrder(order, best, effort.trials, effort.work, stopped)


State = tuple[list[int], int]


def _states(
    plans: Sequence[Plan], links: int, chunks: int, order: list[int], effort: _Effort
) -> list[State]:
    """The link state and last step after each prefix of ``order`` (``[0]``: nothing run)."""
    free, end = [0] * links, 0
    states: list[State] = [(list(free), 0)]
    for i in order:
        end = _run(plans[i], chunks, free, end)
        effort.work += len(plans[i].entries) * chunks
        states.append((list(free), end))
    return states


def _trial(
    plans: Sequence[Plan], chunks: int, trial: list[int], at: int, state: State, best: int,
    effort: _Effort,
) -> int:  # fmt: skip
    """Steps of ``trial`` from the state after its first ``at`` sets; ``>= best`` once hopeless."""
    free, end = list(state[0]), state[1]
    effort.trials += 1
    for i in trial[at:]:
        end = _run(plans[i], chunks, free, end)
        effort.work += len(plans[i].entries) * chunks
        if end >= best:  # the last step only grows: this trial cannot improve
            break
    return end


def _descend(
    plans: Sequence[Plan], links: int, chunks: int, order: list[int], effort: _Effort
) -> tuple[list[int], int, bool]:
    """Move one set to another place while that shortens the pipeline (first improvement).

    Returns the order reached, its steps, and whether no move improves it (``False`` when the
    budget or the safety net stopped the descent).
    """
    states = _states(plans, links, chunks, order, effort)
    best = states[-1][1]
    n = len(order)
    improved = True
    while improved:
        improved = False
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                if effort.spent():
                    return order, best, False
                trial = order[:i] + order[i + 1 :]
                trial.insert(j, order[i])
                at = min(i, j)  # trial[:at] == order[:at]
                if _trial(plans, chunks, trial, at, states[at], best, effort) < best:
                    order, improved = trial, True
                    states = _states(plans, links, chunks, order, effort)
                    best = states[-1][1]
                    break
            if improved:
                break
    return order, best, True
