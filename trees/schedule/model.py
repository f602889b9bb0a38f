"""Schedule data types: table rows (:class:`ScheduleEntry`) and whole schedules (:class:`Schedule`).

Plain frozen dataclasses with a lossless JSON form;
:func:`supermesh.trees.schedule.build.build_schedule` makes them from tree packings. The field
meanings, the entry order and the FIFO order are documented in
:mod:`supermesh.trees.schedule.build`.

JSON (``format: "supermesh-schedule"``, ``version: 1``)::

    {"format": "supermesh-schedule", "version": 1, "topology": "smbi:4x4",
     "collective": "allreduce", "nbytes": 4194304, "chunk_bytes": 12288, "chunks": 86,
     "barrier": true, "roots": [[0, 3, 12, 15]],        # per set, per tree
     "ranks": [0, 1, ..., 15],                          # compute chiplets, in rank order
     "entries": [{"id": 0, "collective": "allreduce", "phase": "rs", "set": 0, "tree": 0,
                  "root": 0, "chunk_first": 0, "chunk_last": 85, "src": 5, "dst": 1, "key": 0,
                  "step": 0, "depth": 3, "deps": [], "op": "send", "on_recv": "reduce"}, ...],
     "tables": {"0": [ids...], "1": [...], ...},         # every node of the topology
     "shares": [[0.25, 0.25, ...]]}                     # weighted tables only: per set, per tree

``shares`` is written only for a weighted table (several trees per root splitting its block of
``chunks`` chunks, :mod:`supermesh.trees.schedule.build`); a table without it has every tree carry
``chunks`` chunks, and reads and writes exactly as before the field existed.

Reading is strict about what a file may contain (every field is described in
``docs/schemas/schedule.schema.json``): counts and ids are integers (not booleans, not negative;
``chunks`` and ``chunk_bytes`` at least 1, ``nbytes`` null or at least 1), ``barrier`` is a
boolean, ``roots`` and ``ranks`` are lists of node ids, ``deps`` lists entry ids, ``shares`` are
finite numbers. Anything else raises :class:`~supermesh.errors.InputFileError` naming the field.

AllToAll (``collective: "alltoall"``, :data:`ROUTE_COLLECTIVES`): point-to-point routes instead
of trees. "Tree" ``t`` of set ``s`` is a *route* from ``roots[s][t]`` (its source) to
``dests[s][t]`` (its destination, the one extra field, written only for these tables), carrying
``shares[s][t]`` of the block that source sends to that destination. Block ``b = i * n + j``
(``i``, ``j`` the positions of source and destination in ``ranks``, ``n`` ranks) is the chunks
``[b*C, b*C + C - 1]`` (``C = chunks``); a pair's routes, in route order, carry consecutive ranges
of its block, split by their shares with the rule of weighted tables. One set; ``ranks``
ascending; no barrier; from ``nbytes``, ``C = max(the most routes of a pair, ceil(nbytes / (n *
chunk_bytes)))``; entries in order of (depth, route, src, dst, key).
Every entry has phase ``a2a``, is one hop of its route (``depth`` = hop number, from 1), waits for
the previous hop of the same route (``deps``), has ``op`` ``send`` on the first hop and
``recv-send`` after, and ``on_recv`` ``store``. :mod:`supermesh.trees.schedule.routes` builds
them; :mod:`supermesh.verify.schedule.alltoall` checks them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from supermesh.errors import InputFileError
from supermesh.trees.json_values import json_count, json_number

__all__ = [
    "CHUNK_BYTES",
    "COLLECTIVES",
    "FIELDS",
    "FORMAT",
    "PHASES",
    "ROUTE_COLLECTIVES",
    "Schedule",
    "ScheduleEntry",
]

FORMAT = "supermesh-schedule"
COLLECTIVES = ("allreduce", "reducescatter", "allgather", "broadcast", "reduce")
ROUTE_COLLECTIVES = ("alltoall",)
"""Collectives whose tables hold point-to-point routes (module docstring), not trees."""
PHASES = ("rs", "ag", "bcast", "reduce", "a2a")
CHUNK_BYTES = 12288
"""Bytes per chunk per tree edge: 3 messages of 4096 B (BRIEF section 4)."""

FIELDS = (
    "id", "collective", "phase", "set", "tree", "root", "chunk_first", "chunk_last",
    "src", "dst", "key", "step", "depth", "deps", "op", "on_recv",
)  # fmt: skip
"""Entry field names in JSON and CSV order."""


@dataclass(frozen=True)
class ScheduleEntry:
    """One table row: one tree's chunks on one arc (see the module docstring for each field).

    Examples
    --------
    >>> e = ScheduleEntry(0, "reduce", "reduce", 0, 0, 0, 0, 3, 1, 0, 0, 0, 1, (), "send",
    ...                   "reduce")
    >>> ScheduleEntry.from_json(e.to_json()) == e
    True
    """

    id: int
    collective: str
    phase: str
    set_index: int
    tree_index: int
    root: int
    chunk_first: int
    chunk_last: int
    src: int
    dst: int
    key: int
    step: int
    depth: int
    deps: tuple[int, ...]
    op: str
    on_recv: str

    @property
    def arc(self) -> tuple[int, int, int]:
        """The link ``(src, dst, key)``."""
        return (self.src, self.dst, self.key)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict with the field names of the module docstring."""
        values = (
            self.id, self.collective, self.phase, self.set_index, self.tree_index, self.root,
            self.chunk_first, self.chunk_last, self.src, self.dst, self.key, self.step,
            self.depth, list(self.deps), self.op, self.on_recv,
        )  # fmt: skip
        return dict(zip(FIELDS, values, strict=True))

    @classmethod
    def from_json(cls, doc: Any, *, where: str = "entry") -> ScheduleEntry:
        """Read an entry written by :meth:`to_json`; raises InputFileError if malformed."""
        if not isinstance(doc, dict):
            raise InputFileError(f"{where} is not an object")
        missing = [f for f in FIELDS if f not in doc]
        if missing:
            raise InputFileError(f"{where} lacks the field {missing[0]!r}")
        for f in FIELDS:
            if f in ("collective", "phase", "op", "on_recv"):
                if not isinstance(doc[f], str):
                    raise InputFileError(f"{where} field {f!r} must be text")
            elif f != "deps":
                json_count(doc[f], f"{where} field {f!r}")
        deps = doc["deps"]
        if not isinstance(deps, list):
            raise InputFileError(f"{where} deps must be a list of entry ids")
        for d in deps:
            json_count(d, f"{where} deps entry")
        return cls(
            id=doc["id"],
            collective=str(doc["collective"]),
            phase=str(doc["phase"]),
            set_index=doc["set"],
            tree_index=doc["tree"],
            root=doc["root"],
            chunk_first=doc["chunk_first"],
            chunk_last=doc["chunk_last"],
            src=doc["src"],
            dst=doc["dst"],
            key=doc["key"],
            step=doc["step"],
            depth=doc["depth"],
            deps=tuple(deps),
            op=str(doc["op"]),
            on_recv=str(doc["on_recv"]),
        )


@dataclass(frozen=True)
class Schedule:
    """A collective's full schedule: entries plus each chiplet's table.

    Attributes
    ----------
    topology : str
        Spec of the topology.
    collective : str
        One of :data:`COLLECTIVES`.
    chunks : int
        ``C``: chunks per tree (every tree carries the same number), or, in a weighted table
        (``shares`` set), chunks per root block, split among the root's trees by share.
    chunk_bytes : int
        Bytes per chunk (12288 = 3 messages of 4096 B).
    nbytes : int or None
        Data size the chunk count was derived from, if any.
    barrier : bool
        AllReduce only: the ``ag`` phase starts when every root holds every reduced chunk.
        False for an AllReduce without the barrier (a throughput one), whose ``ag`` chunks
        leave a root once it has reduced them.
    roots : tuple of tuple of int
        Roots per set, per tree.
    ranks : tuple of int
        The compute chiplets (the collective's ranks, in rank order); other nodes only relay.
    entries : tuple of ScheduleEntry
        In id order.
    tables : dict
        Node id -> ids of the entries where it is ``src`` or ``dst``, ascending (every node of
        the topology has a key, possibly with no rows).
    shares : tuple of tuple of float, or None
        Weighted tables: the share of its root's data each tree carries, per set, per tree (the
        shape of ``roots``; the shares of one root add up to 1). ``None``: every tree carries
        ``chunks`` chunks.
    dests : tuple of tuple of int, or None
        AllToAll tables: the destination of each route, per set, per route (the shape of
        ``roots``, which hold the sources). ``None`` for tree tables.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> t = Tree(0, ((0, 1, 0), (0, 2, 0), (1, 3, 0)), 2)
    >>> p = TreePacking("mesh:2x2", "out", "optimal", sets=(TreeSet((t,)),))
    >>> s = build_schedule(build("mesh:2x2"), "broadcast", p, chunks=2)
    >>> s.fifos()[(0, 1, 0)], [(e.src, e.dst) for e in s.rows(1)]
    ([0], [(0, 1), (1, 3)])
    >>> Schedule.from_json(s.to_json()).to_json() == s.to_json()
    True
    """

    topology: str
    collective: str
    chunks: int
    chunk_bytes: int
    nbytes: int | None
    barrier: bool
    roots: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]
    entries: tuple[ScheduleEntry, ...]
    tables: dict[int, tuple[int, ...]]
    shares: tuple[tuple[float, ...], ...] | None = None
    dests: tuple[tuple[int, ...], ...] | None = None

    @property
    def routes(self) -> bool:
        """True for a table of point-to-point routes (AllToAll, ``dests`` set)."""
        return self.dests is not None

    @property
    def weighted(self) -> bool:
        """True when trees carry shares of their root's block (``shares`` is set)."""
        return self.shares is not None

    def fifos(self) -> dict[tuple[int, int, int], list[int]]:
        """Link ``(src, dst, key)`` -> entry ids in step order."""
        out: dict[tuple[int, int, int], list[int]] = defaultdict(list)
        for e in sorted(self.entries, key=lambda e: (e.arc, e.step)):
            out[e.arc].append(e.id)
        return dict(out)

    def rows(self, chiplet: int) -> list[ScheduleEntry]:
        """The table rows of one chiplet (entries in id order)."""
        return [self.entries[i] for i in self.tables.get(chiplet, ())]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring)."""
        doc: dict[str, Any] = {
            "format": FORMAT,
            "version": 1,
            "topology": self.topology,
            "collective": self.collective,
            "nbytes": self.nbytes,
            "chunk_bytes": self.chunk_bytes,
            "chunks": self.chunks,
            "barrier": self.barrier,
            "roots": [list(r) for r in self.roots],
            "ranks": list(self.ranks),
            "entries": [e.to_json() for e in self.entries],
            "tables": {str(n): list(ids) for n, ids in sorted(self.tables.items())},
        }
        if self.shares is not None:
            doc["shares"] = [list(s) for s in self.shares]
        if self.dests is not None:
            doc["dests"] = [list(d) for d in self.dests]
        return doc

    @classmethod
    def from_json(cls, doc: Any, *, source: str = "schedule file") -> Schedule:
        """Read a schedule written by :meth:`to_json`; raises InputFileError if malformed."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputFileError(f"{source} is not a supermesh schedule (format {FORMAT!r})")
        for name in ("topology", "collective", "chunks", "entries", "tables", "roots", "ranks"):
            if name not in doc:
                raise InputFileError(f"{source} lacks the field {name!r}")
        if doc["collective"] not in COLLECTIVES + ROUTE_COLLECTIVES:
            raise InputFileError(f"{source} has unknown collective {doc['collective']!r}")
        if isinstance(doc.get("version", 1), bool) or doc.get("version", 1) != 1:
            raise InputFileError(f"{source} has version {doc.get('version')!r}; this tool reads 1")
        if not isinstance(doc["topology"], str) or not doc["topology"]:
            raise InputFileError(f"{source} topology must name a spec or a topology file")
        chunks = json_count(doc["chunks"], f"{source} chunks", minimum=1)
        chunk_bytes = json_count(
            doc.get("chunk_bytes", CHUNK_BYTES), f"{source} chunk_bytes", minimum=1
        )
        nbytes = json_count(doc.get("nbytes"), f"{source} nbytes", minimum=1, optional=True)
        barrier = doc.get("barrier", False)
        if not isinstance(barrier, bool):
            raise InputFileError(f"{source} barrier must be true or false, not {barrier!r}")
        roots = doc["roots"]
        if not isinstance(roots, list) or not all(isinstance(r, list) for r in roots):
            raise InputFileError(f"{source} roots must be lists (per set) of node ids (per tree)")
        for si, rs in enumerate(roots):
            for r in rs:
                json_count(r, f"{source} roots of set #{si}")
        ranks = doc["ranks"]
        if not isinstance(ranks, list):
            raise InputFileError(f"{source} ranks must be a list of node ids")
        for r in ranks:
            json_count(r, f"{source} ranks entry")
        if not isinstance(doc["entries"], list):
            raise InputFileError(f"{source} entries must be a list")
        dests = doc.get("dests")
        routed = doc["collective"] in ROUTE_COLLECTIVES
        if routed != (dests is not None) or not (
            dests is None
            or (
                isinstance(dests, list)
                and all(
                    isinstance(d, list)
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in d)
                    for d in dests
                )
            )
        ):
            raise InputFileError(
                f"{source}: 'dests' (lists of node ids per set) belongs to AllToAll tables, "
                "and only to them"
            )
        for si, ds in enumerate(dests or ()):
            for d in ds:
                json_count(d, f"{source} dests of set #{si}")
        entries = tuple(
            ScheduleEntry.from_json(e, where=f"{source} entry #{i}")
            for i, e in enumerate(doc["entries"])
        )
        if any(e.id != i for i, e in enumerate(entries)):
            raise InputFileError(f"{source} entry ids are not 0, 1, 2, ... in order")
        tables = doc["tables"]
        if not isinstance(tables, dict) or not all(
            k.isdigit() and str(int(k)) == k and isinstance(v, list) for k, v in tables.items()
        ):
            raise InputFileError(f"{source} tables must map node ids to lists of entry ids")
        for k, v in tables.items():
            for i in v:
                json_count(i, f"{source} table of chiplet {k}")
        shares = doc.get("shares")
        if shares is not None:
            if not isinstance(shares, list) or not all(isinstance(x, list) for x in shares):
                raise InputFileError(f"{source} shares must be lists (per set) of numbers")
            shares = tuple(
                tuple(json_number(x, f"{source} shares of set #{si}") for x in row)
                for si, row in enumerate(shares)
            )
        return cls(
            topology=doc["topology"],
            collective=doc["collective"],
            chunks=chunks,
            chunk_bytes=chunk_bytes,
            nbytes=nbytes,
            barrier=barrier,
            roots=tuple(tuple(s) for s in roots),
            ranks=tuple(ranks),
            entries=entries,
            tables={int(k): tuple(v) for k, v in tables.items()},
            shares=shares,
            dests=None if dests is None else tuple(tuple(d) for d in dests),
        )
