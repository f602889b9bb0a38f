"""Schedule tables as CSV: one row per (chiplet, table entry), chiplet by chiplet.

Every entry appears twice: in the table of its source (``role = send``) and of its destination
(``role = recv``), so the file has ``2 * len(schedule.entries)`` data rows. Rows are ordered by
chiplet, then entry id. Columns (header line first)::

    chiplet, role, id, collective, phase, set, tree, root, chunk_first, chunk_last,
    src, dst, key, step, depth, deps, op, on_recv

``chiplet``
    The node whose table holds the row. ``role``: ``send`` if it is ``src``, ``recv`` if ``dst``.
``id`` .. ``on_recv``
    The entry fields of :mod:`supermesh.trees.schedule.build` (same names as the JSON form):
    ``chunk_first``/``chunk_last`` the inclusive global chunk range, ``key`` the parallel link,
    ``step`` the position in the link's FIFO, ``deps`` the entry ids this one waits for,
    space-separated (empty when none), ``op`` what the sender does, ``on_recv`` what the receiver
    does (``reduce`` or ``store``).
``share``
    Only in the CSV of a weighted table (several trees per root, ``Schedule.shares``): a last
    column with the share of its root's data the row's tree carries (``repr`` of the float); the
    tree's chunks are ``chunk_first .. chunk_last``, its part of the root's block. Other tables
    have exactly the columns above.
``dest``
    Only in the CSV of an AllToAll (route) table, after ``share``: the destination of the row's
    route (``root`` is its source).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from supermesh.trees.schedule.model import FIELDS, Schedule

__all__ = ["CSV_HEADER", "rows_csv", "schedule_csv"]

CSV_HEADER: tuple[str, ...] = ("chiplet", "role", *FIELDS)
"""The header line of :func:`schedule_csv`."""


def schedule_csv(schedule: Schedule) -> str:
    """Return the per-chiplet schedule tables as CSV text (columns in the module docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> text = schedule_csv(build_schedule(build("mesh:2x2"), "broadcast", p, chunks=2))
    >>> print(text.splitlines()[1])
    0,send,0,broadcast,bcast,0,0,0,0,1,0,1,0,0,1,,send,store
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    shares = schedule.shares
    header = CSV_HEADER if shares is None else (*CSV_HEADER, "share")
    writer.writerow((*header, "dest") if schedule.dests is not None else header)
    for chiplet, ids in sorted(schedule.tables.items()):
        for i in ids:
            e = schedule.entries[i]
            doc = e.to_json()
            doc["deps"] = " ".join(str(d) for d in e.deps)
            role = "send" if e.src == chiplet else "recv"
            row = [chiplet, role, *(doc[f] for f in FIELDS)]
            if shares is not None:  # blank where a malformed file lacks the share
                row.append(_share(shares, e.set_index, e.tree_index))
            if schedule.dests is not None:
                row.append(_share(schedule.dests, e.set_index, e.tree_index))
            writer.writerow(row)
    return out.getvalue()


def _share(shares: tuple[tuple[float, ...], ...], si: int, ti: int) -> str:
    ok = 0 <= si < len(shares) and 0 <= ti < len(shares[si])
    return repr(shares[si][ti]) if ok else ""


def rows_csv(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> str:
    """Rows as CSV text with a header line; a missing or None value is an empty cell.

    Parameters
    ----------
    rows : iterable of mapping
        E.g. the rows of :func:`supermesh.sim.sweep.run_sweep`.
    fields : sequence of str
        The columns, in order (e.g. :data:`supermesh.sim.sweep.ROW_FIELDS`).

    Returns
    -------
    str

    Examples
    --------
    >>> rows_csv([{"a": 1, "b": None}], ["a", "b"])
    'a,b\\n1,\\n'
    """
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in fields})
    return buf.getvalue()
