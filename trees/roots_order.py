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
the caller adds (best first, while time is left), it moves one set to another place while that
shortens the pipeline, and keeps the best order reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from supermesh.errors import SpecError
from supermesh.trees.heights import check_direction, tree_depths
from supermesh.trees.model import TreeSet

__all__ = ["order_sets", "pipeline_steps"]

Link = tuple[int, int, int]
Step = tuple[Link, tuple[int, int] | None, tuple[int, int]]


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


def _steps(plans: Sequence[list[Step]], chunks: int) -> int:
    free: dict[Link, int] = {}
    end = 0
    for plan in plans:
        for _ in range(chunks):
            have: dict[tuple[int, int], int] = {}
            for link, wait, done in plan:
                ready = have.get(wait, 0) if wait is not None else 0
                start = max(free.get(link, 0), ready)
                free[link] = start + 1
                if have.get(done, 0) < start + 1:
                    have[done] = start + 1
                end = max(end, start + 1)
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
    return _steps([_plan(ts, direction) for ts in sets], chunks)


def order_sets(
    sets: Sequence[TreeSet],
    *,
    chunks: int = 2,
    direction: str = "out",
    time_limit: float = 5.0,
    starts: Sequence[Sequence[int]] = (),
) -> tuple[list[int], int]:
    """A running order of the sets with few pipeline steps (local search, first improvement).

    Parameters
    ----------
    sets : sequence of TreeSet
    chunks : int
        Chunks per tree in the model.
    direction : {"out", "in"}
    time_limit : float
        Seconds for the search.
    starts : sequence of orders
        More orders to start from (besides the given order and tallest first).

    Returns
    -------
    order : list of int
        Indices into ``sets``.
    steps : int
        :func:`pipeline_steps` of that order.

    Examples
    --------
    >>> from supermesh.trees.model import Tree
    >>> chain = TreeSet((Tree(0, ((0, 1, 0), (1, 2, 0)), 2),))
    >>> hop = TreeSet((Tree(1, ((1, 2, 0),), 1),))  # needs link 1->2 before the chain does
    >>> pipeline_steps([chain, hop], chunks=1), pipeline_steps([hop, chain], chunks=1)
    (3, 2)
    >>> order_sets([chain, hop], chunks=1)
    ([1, 0], 2)
    """
    check_direction(direction)
    deadline = time.perf_counter() + time_limit
    plans = [_plan(ts, direction) for ts in sets]

    def cost(order: list[int]) -> int:
        return _steps([plans[i] for i in order], chunks)

    given = list(range(len(sets)))
    tallest = sorted(given, key=lambda i: (-sets[i].height, i))
    firsts = sorted(
        {tuple(o): cost(list(o)) for o in [given, tallest, *starts]}.items(),
        key=lambda item: (item[1], item[0]),
    )
    order, best = list(firsts[0][0]), firsts[0][1]
    for start, steps in firsts:  # a descent from each start, best start first
        if time.perf_counter() >= deadline:
            break
        local, low = _descend(list(start), steps, cost, deadline)
        if low < best:
            order, best = local, low
    return order, best


def _descend(
    order: list[int], best: int, cost: Callable[[list[int]], int], deadline: float
) -> tuple[list[int], int]:
    """Move one set to another place while that shortens the pipeline (first improvement)."""
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        for i in range(len(order)):
            for j in range(len(order)):
                if i == j or time.perf_counter() >= deadline:
                    continue
                trial = order[:i] + order[i + 1 :]
                trial.insert(j, order[i])
                steps = cost(trial)
                if steps < best:
                    order, best, improved = trial, steps, True
                    break
            if improved:
                break
    return order, best
