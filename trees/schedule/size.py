"""How many bytes each chiplet's schedule table takes in a stated compact binary encoding.

A table is a header (collective 3 bits, chunks per tree 16 bits, row count 13 bits: 4 bytes;
the two counts widen when a schedule needs more) and one fixed-width row per entry the chiplet
sends or receives. Each row is padded to whole bytes. Field widths (bits), derived from the
schedule by :meth:`TableEncoding.for_schedule`:

=========  ==============================  ==================================================
field      width                           why
=========  ==============================  ==================================================
phase      2                               rs / ag / bcast / reduce
role       1                               this chiplet sends or receives the entry
op         2                               send / recv-send / recv-reduce-send
set        ceil(log2 sets)                 which tree set (0 bits with one set)
tree       ceil(log2 trees per set)        which tree in the set
chunks     2 x max(16, ceil(log2 chunk ids))  first and last chunk id
src, dst   ceil(log2 nodes) each           chiplet ids
key        ceil(log2 parallel links)       0 on a mesh, 1 on SuperMesh
step       ceil(log2 (longest FIFO))       position in the link FIFO
deps       max in-degree (arcs)            bitmask over the sender's incoming links: which
                                           arrivals (of the same tree and chunk) it waits for
=========  ==============================  ==================================================

Weighted tables (throughput packings, :mod:`supermesh.trees.schedule.build`) are counted the same
way, row by row: every tree has its own rows (one per arc it uses at each end, repeated trees
included), so a packing with ``K`` trees per rank has about ``K`` times the rows of one tree per
rank; the ``tree`` field grows to ``ceil(log2 (n * K))`` bits since one set holds every tree, and
each row's chunk range is that tree's part of its root's block, so the shares need no field of
their own.

The paper reports 3.2 KB of schedule table for 64 chiplets (SuperMesh, MICRO 2025, section 5);
``bench/bench_schedule.py`` compares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from supermesh.trees.schedule.model import Schedule

__all__ = ["TableEncoding", "table_bytes"]


def _bits(count: int) -> int:
    """Bits to tell ``count`` values apart (0 for a single value)."""
    return max(0, math.ceil(math.log2(count))) if count > 1 else 0


@dataclass(frozen=True)
class TableEncoding:
    """Field widths in bits of one table row, plus the header size (see the module docstring)."""

    set_bits: int
    tree_bits: int
    node_bits: int
    key_bits: int
    step_bits: int
    deps_bits: int
    header_bytes: int = 4
    chunk_bits: int = 16

    def widths(self) -> dict[str, int]:
        """Field name -> width in bits, in row order."""
        return {
            "phase": 2,
            "role": 1,
            "op": 2,
            "set": self.set_bits,
            "tree": self.tree_bits,
            "chunks": 2 * self.chunk_bits,
            "src": self.node_bits,
            "dst": self.node_bits,
            "key": self.key_bits,
            "step": self.step_bits,
            "deps": self.deps_bits,
        }

    @property
    def row_bits(self) -> int:
        """Bits per row before padding."""
        return sum(self.widths().values())

    @property
    def row_bytes(self) -> int:
        """Bytes per row (padded to whole bytes)."""
        return math.ceil(self.row_bits / 8)

    @classmethod
    def for_schedule(cls, schedule: Schedule) -> TableEncoding:
        """The narrowest widths that can hold every row of ``schedule``.

        Examples
        --------
        >>> from supermesh.topologies import build
        >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
        >>> from supermesh.trees.schedule.build import build_schedule
        >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
        >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
        >>> enc = TableEncoding.for_schedule(build_schedule(build("mesh:2x2"), "reduce", p))
        >>> enc.node_bits, enc.row_bits, enc.row_bytes
        (2, 43, 6)
        """
        entries = schedule.entries
        nsets = 1 + max((e.set_index for e in entries), default=0)
        per_set = 1 + max((e.tree_index for e in entries), default=0)
        nodes = 1 + max(schedule.tables, default=0)
        keys = 1 + max((e.key for e in entries), default=0)
        fifo = 1 + max((e.step for e in entries), default=0)
        indeg: dict[int, set[tuple[int, int, int]]] = {}
        for e in entries:
            indeg.setdefault(e.dst, set()).add(e.arc)
        ports = max((len(a) for a in indeg.values()), default=0)
        chunk_bits = max(16, _bits(1 + max((e.chunk_last for e in entries), default=0)))
        most_rows = max((len(ids) for ids in schedule.tables.values()), default=0)
        header = 3 + max(16, _bits(schedule.chunks + 1)) + max(13, _bits(most_rows + 1))
        return cls(
            _bits(nsets),
            _bits(per_set),
            _bits(nodes),
            _bits(keys),
            _bits(fifo),
            ports,
            header_bytes=math.ceil(header / 8),
            chunk_bits=chunk_bits,
        )


def table_bytes(schedule: Schedule, encoding: TableEncoding | None = None) -> dict[int, int]:
    """Bytes of each chiplet's table: header plus rows times the padded row width.

    Parameters
    ----------
    schedule : Schedule
    encoding : TableEncoding, optional
        Default: :meth:`TableEncoding.for_schedule`.

    Returns
    -------
    dict
        Node id -> bytes (every node of the schedule's tables, rows or not).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> table_bytes(build_schedule(build("mesh:2x2"), "reduce", p))  # node 1: 2 rows of 6 B
    {0: 16, 1: 16, 2: 10, 3: 10}
    """
    enc = encoding or TableEncoding.for_schedule(schedule)
    return {n: enc.header_bytes + len(ids) * enc.row_bytes for n, ids in schedule.tables.items()}
