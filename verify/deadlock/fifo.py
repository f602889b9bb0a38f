"""The execution model the deadlock analysis runs on: link FIFOs of chunk transfers with waits.

A :class:`FifoModel` is the schedule as it will run, reduced to what can make a transfer wait:

* ``fifos``: each directed link ``(src, dst, key)`` serves its transfers strictly in this order,
  one at a time (the head goes when the link is free and its waits are over);
* ``hops``: the links a transfer crosses (one, or several for a multi-hop send that holds each
  link it has entered until its last hop has started);
* ``deps``: the transfers whose delivery (of the same chunk) a transfer waits for;
* ``barrier``: ``(before, after)`` phases: no ``after`` transfer starts until every ``before``
  transfer is delivered (AllReduce: ``("rs", "ag")``);
* ``buffers``: chunk slots per link at its receiver (``None``: unbounded; weighted tables have
  slots per link and tree instead, see below). A delivered chunk keeps its slot until every
  transfer of the same phase that depends on it has started (a chunk nobody forwards frees its
  slot on arrival), and a sender takes a slot before its first hop starts.

Two sources make one: :func:`table_model` reads a schedule table
(:class:`supermesh.trees.schedule.model.Schedule`, the format ``supermesh schedule`` writes and
the network interfaces load) and :func:`supermesh.verify.deadlock.tree_schedule.tree_model` the
explicit tree-level description :class:`~supermesh.verify.deadlock.tree_schedule.TreeSchedule` (with
explicit FIFO permutations and multi-hop routes, which a table cannot express).

Table semantics (as documented in :mod:`supermesh.trees.schedule.build`, read here without its code)
    An entry carries chunks ``chunk_first .. chunk_last`` of its tree over its arc; the FIFO of a
    link serves ``(entry, chunk)`` pairs in the order (phase: ``rs`` < ``ag`` < ``bcast`` <
    ``reduce``; set; chunk index inside the entry; ``step``). ``deps`` name the entries whose
    delivery of the same chunk the entry waits for. ``barrier`` is the AllReduce barrier.

Periodicity (why a table with ``C`` chunks can be analysed with 2)
    Give each transfer the potential (phase rank, set, chunk index). If every dependency points
    to an entry of the same phase, set and chunk range, or to an earlier phase, then every wait
    (FIFO predecessor, data, buffer slot, barrier) goes to an equal or smaller potential, so a
    cycle of waits stays at one potential; and when the entries of each (phase, set) carry the
    same number of chunks, the waits inside the level of chunk ``c`` are the same for every
    ``c``. So the model has a cycle with ``C`` chunks iff it has one with 1 chunk;
    :func:`table_model` unrolls 2 (``periodic=True``) when the condition holds, all otherwise.

Weighted tables (``Schedule.shares`` set: throughput packings, many trees of one set per link)
    The buffer slots are per table row: the receiver of a link keeps ``buffers`` slots for each
    tree that crosses the link (``slots="row"``, the default for these tables), as the
    network interface holds one receive queue per row. A transfer of tree ``t`` and chunk index
    ``c + buffers`` then waits only for the slot of tree ``t``'s chunk ``c`` on the same link,
    i.e. for transfers of a smaller potential, because a tree crosses a link once per chunk. A
    buffer wait can therefore never be part of a cycle (every other wait keeps or lowers the
    potential), and the model is analysed without buffer waits: its cycles are exactly those of
    the row-slot model, for every ``buffers >= 1``. Within one potential the transfers of chunk
    index ``c`` are those of the entries with more than ``c`` chunks, a subset of those of index
    1, and every wait between them (FIFO predecessor, data) is a path of waits at index 1, so a
    cycle at any index gives one at index 0 or 1: 2 chunks per entry are unrolled even when the
    trees carry different chunk counts. ``slots="link"`` keeps the per-link slots of plain
    tables; with many trees per link and one slot per link the FIFO order of a throughput
    packing (:func:`~supermesh.trees.schedule.fifo.fifo_slots`) can then deadlock (a chunk held
    at a receiver waits for a link held by another tree's chunk), which is why the tables
    are specified with a slot per row.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from supermesh.errors import SupermeshError
from supermesh.trees.schedule.model import PHASES, Schedule, ScheduleEntry

__all__ = [
    "Arc",
    "FifoModel",
    "Transfer",
    "arc_text",
    "is_periodic",
    "row_slots",
    "table_model",
]

Arc = tuple[int, int, int]
PHASE_RANK = {p: i for i, p in enumerate(PHASES)}
PERIODIC_CHUNKS = 2
"""Chunks per entry unrolled when the periodicity argument applies."""


def arc_text(a: Arc) -> str:
    """``"u->v#k"``.

    Parameters
    ----------
    a : (int, int, int)
        An arc ``(u, v, key)``.

    Returns
    -------
    str

    Examples
    --------
    >>> arc_text((5, 1, 0))
    '5->1#0'
    """
    return f"{a[0]}->{a[1]}#{a[2]}"


@dataclass(frozen=True, order=True)
class Transfer:
    """One chunk of one tree crossing one tree arc.

    Attributes
    ----------
    phase : str
        ``"rs"`` / ``"reduce"``: in-trees; ``"ag"`` / ``"bcast"``: out-trees.
    set, tree, chunk : int
        Set index, tree index inside the set, chunk (the global chunk id for a table).
    arc : (src, dst, key)
        The tree arc as the data travel.
    entry : int or None
        The schedule table entry (None for a :class:`TreeSchedule` transfer).

    Examples
    --------
    >>> str(Transfer("rs", 0, 2, 1, (5, 1, 0)))
    'rs set 0 tree 2 chunk 1 5->1#0'
    >>> str(Transfer("ag", 0, 0, 7, (0, 1, 0), entry=12))
    'entry 12 chunk 7 (ag set 0 tree 0 0->1#0)'
    """

    phase: str
    set: int
    tree: int
    chunk: int
    arc: Arc
    entry: int | None = None

    def __str__(self) -> str:
        where = f"{self.phase} set {self.set} tree {self.tree}"
        if self.entry is not None:
            return f"entry {self.entry} chunk {self.chunk} ({where} {arc_text(self.arc)})"
        return f"{where} chunk {self.chunk} {arc_text(self.arc)}"


@dataclass(frozen=True)
class FifoModel:
    """A schedule as it will run (see the module docstring for each field).

    Attributes
    ----------
    fifos : dict of link -> list of Transfer
        Service order of every link in use.
    hops : dict of Transfer -> tuple of links
    deps : dict of Transfer -> tuple of Transfer
    buffers : int or None
    barrier : (str, str) or None
    standard : dict of link -> list of Transfer, or None
        The standard order, where ``fifos`` deviate from it (offered as a fix).
    note : str
        How the model was made (quoted in the deadlock argument).

    Examples
    --------
    >>> link = (0, 1, 0)
    >>> a, b = Transfer("bcast", 0, 0, 0, link), Transfer("bcast", 0, 0, 1, link)
    >>> m = FifoModel({link: [a, b]}, {a: (link,), b: (link,)}, {a: (), b: ()}, buffers=None)
    >>> m.buffers, [str(x) for x in m.fifos[link]]
    (None, ['bcast set 0 tree 0 chunk 0 0->1#0', 'bcast set 0 tree 0 chunk 1 0->1#0'])
    """

    fifos: dict[Arc, list[Transfer]]
    hops: dict[Transfer, tuple[Arc, ...]]
    deps: dict[Transfer, tuple[Transfer, ...]]
    buffers: int | None = 1
    barrier: tuple[str, str] | None = None
    standard: dict[Arc, list[Transfer]] | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.buffers is not None and (not isinstance(self.buffers, int) or self.buffers < 1):
            raise SupermeshError(f"buffers={self.buffers!r} is not a positive integer or None")

    def consumers(self) -> dict[Transfer, list[Transfer]]:
        """Transfer -> the transfers of the same phase that wait for its delivery."""
        out: dict[Transfer, list[Transfer]] = defaultdict(list)
        for x, ds in self.deps.items():
            for d in ds:
                if d.phase == x.phase:
                    out[d].append(x)
        return out


def _length(e: ScheduleEntry) -> int:
    return e.chunk_last - e.chunk_first + 1


def row_slots(schedule: Schedule, slots: str = "auto") -> bool:
    """Whether the buffer slots of a table are per row (weighted tables) rather than per link.

    ``slots``: ``"auto"`` (per row exactly for weighted tables), ``"row"`` or ``"link"``.

    Parameters
    ----------
    schedule : Schedule
    slots : {"auto", "row", "link"}

    Returns
    -------
    bool

    Raises
    ------
    SupermeshError
        On another ``slots``.

    Examples
    --------
    >>> from supermesh.trees.schedule.model import Schedule
    >>> plain = Schedule("mesh:2x2", "reduce", 1, 12288, None, False, ((0,),), (0,), (), {})
    >>> row_slots(plain), row_slots(plain, "row")
    (False, True)
    """
    if slots not in ("auto", "row", "link"):
        raise SupermeshError(f"slots={slots!r} is not 'auto', 'row' or 'link'")
    return slots == "row" or (slots == "auto" and schedule.shares is not None)


def is_periodic(schedule: Schedule, *, slots: str = "auto") -> bool:
    """Whether the periodicity argument of the module docstring applies to a table.

    With per-row slots (:func:`row_slots`) the entries' chunk counts may differ.

    Parameters
    ----------
    schedule : Schedule
        A schedule table.
    slots : {"auto", "row", "link"}
        The receive-slot model (see :func:`row_slots`).

    Returns
    -------
    bool
        True when 2 chunks per entry decide deadlock freedom for every chunk count.

    Raises
    ------
    SupermeshError
        On an unknown ``slots``.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),))
    >>> is_periodic(build_schedule(build("mesh:2x2"), "allreduce", p, chunks=5))
    True
    """
    by_id = {e.id: e for e in schedule.entries}
    lengths: dict[tuple[str, int], set[int]] = defaultdict(set)
    for e in schedule.entries:
        lengths[(e.phase, e.set_index)].add(_length(e))
        for i in e.deps:
            d = by_id.get(i)
            if d is None or d.phase not in PHASE_RANK or e.phase not in PHASE_RANK:
                return False
            same = (d.phase, d.set_index, d.chunk_first, d.chunk_last) == (
                e.phase,
                e.set_index,
                e.chunk_first,
                e.chunk_last,
            )
            if not same and PHASE_RANK[d.phase] >= PHASE_RANK[e.phase]:
                return False
    return row_slots(schedule, slots) or all(len(v) == 1 for v in lengths.values())


def table_model(
    schedule: Schedule, *, buffers: int | None = 1, periodic: bool = True, slots: str = "auto"
) -> FifoModel:
    """The FIFO model of a schedule table.

    Parameters
    ----------
    schedule : supermesh.trees.schedule.model.Schedule
        The table (built by ``build_schedule`` or read from a ``supermesh-schedule`` file).
    buffers : int or None
        Chunk slots per link at the receiver (1: store and forward); ``None``: unbounded. With
        per-row slots: slots per (link, tree), which cannot close a cycle (module docstring),
        so the model carries no buffer waits (``FifoModel.buffers`` is ``None``).
    periodic : bool
        Unroll only 2 chunks per entry when the periodicity argument applies (see the module
        docstring); ``False`` unrolls every chunk.
    slots : {"auto", "row", "link"}
        Buffer slots per table row or per link (:func:`row_slots`; ``auto``: per row for
        weighted tables, per link otherwise).

    Returns
    -------
    FifoModel

    Raises
    ------
    SupermeshError
        If entry ids repeat, a phase is unknown, a chunk range is empty, or a dependency names
        no entry or does not carry the chunks of the entry that waits for it.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", (TreeSet((t,)),))
    >>> m = table_model(build_schedule(build("mesh:2x2"), "broadcast", p, chunks=9))
    >>> [str(x) for x in m.fifos[(1, 3, 0)]]
    ['entry 2 chunk 0 (bcast set 0 tree 0 1->3#0)', 'entry 2 chunk 1 (bcast set 0 tree 0 1->3#0)']
    """
    by_id: dict[int, ScheduleEntry] = {}
    for e in schedule.entries:
        if e.id in by_id:
            raise SupermeshError(f"schedule entry id {e.id} is used twice")
        if e.phase not in PHASE_RANK:
            raise SupermeshError(f"entry {e.id} has unknown phase {e.phase!r}")
        if e.chunk_last < e.chunk_first:
            raise SupermeshError(f"entry {e.id} carries no chunk ({e.chunk_first}..{e.chunk_last})")
        by_id[e.id] = e
    per_row = row_slots(schedule, slots)
    if buffers is not None and (not isinstance(buffers, int) or buffers < 1):
        raise SupermeshError(f"buffers={buffers!r} is not a positive integer or None")
    reduced = periodic and is_periodic(schedule, slots=slots)
    unroll = {
        e.id: min(_length(e), PERIODIC_CHUNKS) if reduced else _length(e) for e in by_id.values()
    }

    def transfer(e: ScheduleEntry, chunk: int) -> Transfer:
        return Transfer(e.phase, e.set_index, e.tree_index, chunk, e.arc, entry=e.id)

    queued: dict[Arc, list[tuple[tuple[int, int, int, int], Transfer]]] = defaultdict(list)
    deps: dict[Transfer, tuple[Transfer, ...]] = {}
    for e in by_id.values():
        for c in range(unroll[e.id]):
            x = transfer(e, e.chunk_first + c)
            queued[e.arc].append(((PHASE_RANK[e.phase], e.set_index, c, e.step), x))
            waits = []
            for i in e.deps:
                d = by_id.get(i)
                if d is None:
                    raise SupermeshError(f"entry {e.id} depends on entry {i}, which does not exist")
                if not d.chunk_first <= x.chunk <= d.chunk_last:
                    raise SupermeshError(
                        f"entry {e.id} waits for chunk {x.chunk} from entry {i}, which carries "
                        f"only chunks {d.chunk_first}..{d.chunk_last}"
                    )
                if x.chunk - d.chunk_first < unroll[i]:
                    waits.append(transfer(d, x.chunk))
            deps[x] = tuple(waits)
    fifos = {a: [x for _, x in sorted(q, key=lambda item: item[0])] for a, q in queued.items()}
    longest = max((_length(e) for e in by_id.values()), default=0)
    note = f"table of {len(by_id)} entries, chunks unrolled: " + (
        f"{PERIODIC_CHUNKS} of {longest} (periodic in the chunk index)"
        if reduced and longest > PERIODIC_CHUNKS
        else "all"
    )
    if per_row and buffers is not None:
        note += (
            f"; {buffers} receive slot(s) per link and tree (table row): a tree crosses a link "
            "once per chunk, so a slot wait only reaches earlier chunks and cannot close a "
            "cycle, and the analysis leaves those waits out"
        )
    return FifoModel(
        fifos=fifos,
        hops={x: (x.arc,) for x in deps},
        deps=deps,
        buffers=None if per_row else buffers,
        barrier=("rs", "ag") if schedule.barrier else None,
        note=note,
    )
