"""Break valid trees and schedules (the Python objects) on purpose: each must be caught.

Each function returns a new object (the dataclasses are frozen). Used by the mutation-style
property tests: mutate a valid set, assert :func:`supermesh.verify.check_packing` finds an error;
mutate a valid schedule table, assert :func:`supermesh.verify.check_schedule` does.

Examples
--------
>>> from supermesh.trees.model import Tree
>>> change_height(Tree(0, ((0, 1, 0),), 1), 2).height
3
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from supermesh.trees.model import Tree, TreeSet
from supermesh.trees.schedule.model import Schedule, ScheduleEntry

__all__ = [
    "change_height",
    "drop_dependency",
    "drop_entry",
    "drop_node",
    "move_arc",
    "move_entry",
    "remove_arc",
    "swap_steps",
]


def move_arc(tree_set: TreeSet, src: int, index: int, dst: int) -> TreeSet:
    """Move arc number ``index`` of tree ``src`` into tree ``dst`` (a second user of the arc).

    Examples
    --------
    >>> a, b = Tree(0, ((0, 1, 0),), 1), Tree(1, ((1, 0, 0),), 1)
    >>> [t.arcs for t in move_arc(TreeSet((a, b)), 0, 0, 1).trees]
    [(), ((0, 1, 0), (1, 0, 0))]
    """
    trees = list(tree_set.trees)
    arc = trees[src].arcs[index]
    trees[src] = dataclasses.replace(
        trees[src], arcs=tuple(a for i, a in enumerate(trees[src].arcs) if i != index)
    )
    trees[dst] = dataclasses.replace(trees[dst], arcs=(*trees[dst].arcs, arc))
    return dataclasses.replace(tree_set, trees=tuple(trees))


def drop_node(tree: Tree, node: int) -> Tree:
    """Remove every arc that touches ``node``.

    Examples
    --------
    >>> drop_node(Tree(0, ((0, 1, 0), (1, 2, 0)), 2), 2).arcs
    ((0, 1, 0),)
    """
    return dataclasses.replace(tree, arcs=tuple(a for a in tree.arcs if node not in a[:2]))


def remove_arc(tree: Tree, index: int) -> Tree:
    """Remove arc number ``index``.

    Examples
    --------
    >>> remove_arc(Tree(0, ((0, 1, 0), (1, 2, 0)), 2), 0).arcs
    ((1, 2, 0),)
    """
    return dataclasses.replace(tree, arcs=tree.arcs[:index] + tree.arcs[index + 1 :])


def change_height(tree: Tree, delta: int) -> Tree:
    """Claim a height ``delta`` away from the stated one."""
    return dataclasses.replace(tree, height=tree.height + delta)


def _with(schedule: Schedule, entries: list[ScheduleEntry], *, retable: bool = False) -> Schedule:
    tables = schedule.tables
    if retable:
        rows: dict[int, list[int]] = defaultdict(list)
        for e in entries:
            rows[e.src].append(e.id)
            rows[e.dst].append(e.id)
        tables = {n: tuple(sorted(rows.get(n, ()))) for n in schedule.tables}
    return dataclasses.replace(schedule, entries=tuple(entries), tables=tables)


def drop_dependency(schedule: Schedule, entry: int, dep: int) -> Schedule:
    """Entry ``entry`` no longer waits for entry ``dep``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreePacking
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> s = build_schedule(build("mesh:2x2"), "broadcast",
    ...                    TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),)))
    >>> s.entries[2].deps, drop_dependency(s, 2, 0).entries[2].deps
    ((0,), ())
    """
    entries = list(schedule.entries)
    e = entries[entry]
    entries[entry] = dataclasses.replace(e, deps=tuple(d for d in e.deps if d != dep))
    return _with(schedule, entries)


def move_entry(schedule: Schedule, entry: int, *, key: int) -> Schedule:
    """Entry ``entry`` claims the parallel link ``key`` between the same chiplets."""
    entries = list(schedule.entries)
    entries[entry] = dataclasses.replace(entries[entry], key=key)
    return _with(schedule, entries)


def drop_entry(schedule: Schedule, entry: int) -> Schedule:
    """Remove entry ``entry``, renumbering ids, dependencies, FIFO steps and tables to match.

    Only the data flow is broken: ids, steps and tables stay consistent, so a checker must see
    that some chunk no longer arrives.
    """
    gone = schedule.entries[entry]
    new_id = {e.id: i for i, e in enumerate(e for e in schedule.entries if e.id != gone.id)}
    entries = []
    for e in schedule.entries:
        if e.id == gone.id:
            continue
        step = e.step - (e.arc == gone.arc and e.step > gone.step)
        deps = tuple(new_id[d] for d in e.deps if d != gone.id)
        entries.append(dataclasses.replace(e, id=new_id[e.id], step=step, deps=deps))
    return _with(schedule, entries, retable=True)


def swap_steps(schedule: Schedule, a: int, b: int) -> Schedule:
    """Exchange the FIFO steps of entries ``a`` and ``b`` (which should share a link)."""
    entries = list(schedule.entries)
    ea, eb = entries[a], entries[b]
    entries[a], entries[b] = (
        dataclasses.replace(ea, step=eb.step),
        dataclasses.replace(eb, step=ea.step),
    )
    return _with(schedule, entries)
