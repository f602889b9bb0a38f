"""A schedule table tree by tree: its entries grouped, findings that name the tree, the phases.

What every check of :mod:`supermesh.verify.schedule` shares: the entries of one (phase, set,
tree) in id order (:func:`group_entries`), the entry that stands for a tree
(:func:`typical_entry`), a finding prefixed with the tree and chunks it concerns
(:func:`tree_finding`, :func:`where`), and the phases each collective runs (:data:`PHASES_OF`,
BRIEF section 4). Nothing here calls the schedule builder.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from supermesh.trees.schedule.model import Schedule, ScheduleEntry
from supermesh.verify.findings import Finding

__all__ = [
    "CAP",
    "IN_PHASES",
    "PER_RANK",
    "PHASES_OF",
    "group_entries",
    "tree_finding",
    "typical_entry",
    "where",
]

PHASES_OF: dict[str, tuple[str, ...]] = {
    "allreduce": ("rs", "ag"),
    "reducescatter": ("rs",),
    "allgather": ("ag",),
    "broadcast": ("bcast",),
    "reduce": ("reduce",),
}
"""Collective -> its phases (BRIEF section 4: AllReduce is RS, a barrier, then AG)."""
IN_PHASES = ("rs", "reduce")
PER_RANK = ("reducescatter", "allgather")
Group = tuple[str, int, int]
CAP = 5  # findings of one kind per tree


def where(e: ScheduleEntry) -> str:
    """``"rs set 0 tree 2 (root 5)"``: the tree an entry belongs to.

    Parameters
    ----------
    e : ScheduleEntry

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.trees.schedule.model import ScheduleEntry
    >>> e = ScheduleEntry(0, "reduce", "rs", 0, 2, 5, 0, 0, 1, 5, 0, 0, 1, (), "send", "reduce")
    >>> where(e)
    'rs set 0 tree 2 (root 5)'
    """
    return f"{e.phase} set {e.set_index} tree {e.tree_index} (root {e.root})"


def group_entries(s: Schedule) -> dict[Group, list[ScheduleEntry]]:
    """The entries of each (phase, set, tree), in id order.

    Parameters
    ----------
    s : Schedule

    Returns
    -------
    dict
        ``(phase, set, tree)`` -> its entries.

    Examples
    --------
    >>> from supermesh.trees.schedule.model import Schedule, ScheduleEntry
    >>> e = ScheduleEntry(0, "reduce", "reduce", 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, (), "send", "reduce")
    >>> s = Schedule("mesh:1x2", "reduce", 1, 12288, None, False, ((0,),), (0, 1), (e,), {})
    >>> {k: [x.id for x in v] for k, v in group_entries(s).items()}
    {('reduce', 0, 0): [0]}
    """
    out: dict[Group, list[ScheduleEntry]] = defaultdict(list)
    for e in s.entries:
        out[(e.phase, e.set_index, e.tree_index)].append(e)
    return dict(sorted(out.items()))


def typical_entry(es: list[ScheduleEntry]) -> ScheduleEntry:
    """The entry whose (root, chunk range) most entries of the tree share (ties: lowest id).

    Parameters
    ----------
    es : list of ScheduleEntry
        The entries of one tree (nonempty).

    Returns
    -------
    ScheduleEntry

    Examples
    --------
    >>> from supermesh.trees.schedule.model import ScheduleEntry
    >>> def entry(i, first):
    ...     return ScheduleEntry(i, "reduce", "reduce", 0, 0, 0, first, first, 1, 0, 0, 0, 1, (),
    ...                          "send", "reduce")
    >>> typical_entry([entry(0, 3), entry(1, 0), entry(2, 0)]).id
    1
    """
    votes = Counter((e.root, e.chunk_first, e.chunk_last) for e in es)
    best = max(votes.values())
    return next(e for e in es if votes[(e.root, e.chunk_first, e.chunk_last)] == best)


def tree_finding(
    code: str, e: ScheduleEntry, msg: str, severity: str = "error", **kw: Any
) -> Finding:
    """A finding about the tree of entry ``e``, its message prefixed with the tree and chunks.

    Parameters
    ----------
    code : str
    e : ScheduleEntry
    msg : str
    severity : {"error", "warning"}
    **kw
        Further :class:`~supermesh.verify.findings.Finding` fields.

    Returns
    -------
    Finding
        Naming the entry's set and tree.

    Examples
    --------
    >>> from supermesh.trees.schedule.model import ScheduleEntry
    >>> e = ScheduleEntry(0, "reduce", "rs", 0, 2, 5, 0, 0, 1, 5, 0, 0, 1, (), "send", "reduce")
    >>> tree_finding("bad-field", e, "a message").message.startswith("rs set 0 tree 2 (root 5)")
    True
    """
    return Finding(
        code,
        f"{where(e)}, chunks {e.chunk_first}..{e.chunk_last}: {msg}",
        severity,
        set=e.set_index,
        tree=e.tree_index,
        **kw,
    )
