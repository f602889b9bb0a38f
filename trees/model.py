"""Tree and schedule data types: plain dataclasses that round-trip through JSON without loss.

A :class:`Tree` is one spanning arborescence given by its arcs ``(src, dst, key)`` (``key`` tells
parallel arcs apart). For ``direction="out"`` (broadcast, AllGather) arcs point from parent to
child; for ``direction="in"`` (reduce, ReduceScatter) they point from child to parent, i.e. they
are the arcs the data really travel on.

A :class:`TreeSet` is a group of pairwise arc-disjoint trees that run at the same time (the 4
AllReduce trees, or one root set of a ReduceScatter / AllGather). A :class:`TreePacking` is what
``supermesh trees`` writes: the topology spec, the direction, the solver status and bound, and one
or more sets.

JSON (``format: "supermesh-trees"``; every field is in ``docs/schemas/trees.schema.json``)::

    {"format": "supermesh-trees", "version": 1, "topology": "smbi:4x4", "direction": "out",
     "status": "optimal", "lower_bound": 6, "objective": 6, "method": "cpsat",
     "span": null,                       # node ids every tree must reach; null = compute chiplets
     "sets": [{"trees": [{"root": 0, "height": 6, "arcs": [[0, 1, 0], ...], "share": 1.0}, ...],
               "lower_bound": 6}],
     "certificate": null, "stats": {...}}

Each fact is stored once: the trees are under ``sets`` only. Files written before that also carry
the first set's trees under a top-level ``trees``; they are still read, and a top-level ``trees``
that differs from ``sets[0].trees`` (or sits beside several sets) is refused as a contradiction.
A file with only ``trees`` is read as one set.

Reading is strict about what a file may contain (:meth:`TreePacking.from_json` raises
:class:`~supermesh.errors.InputFileError` naming the field): node ids, keys, heights and bounds
are integers (not booleans) and not negative, a ``share`` is a finite number in ``(0, 1]``, a
``span`` lists distinct node ids and is not empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from supermesh.errors import InputFileError
from supermesh.trees.json_values import json_count, json_number, node_list, shown

__all__ = ["STATUSES", "Tree", "TreePacking", "TreeSet", "read_packing"]

STATUSES = ("optimal", "feasible", "infeasible")
DIRECTIONS = ("out", "in")
FORMAT = "supermesh-trees"
VERSION = 1


@dataclass(frozen=True)
class Tree:
    """One arborescence.

    Attributes
    ----------
    root : int
        The root chiplet (the source of an out-tree, the sink of an in-tree).
    arcs : tuple of (src, dst, key)
        The arcs of the tree as the data travel (see the module docstring), sorted.
    height : int
        The claimed height: the largest number of arcs on a root-leaf path.
    share : float
        Fraction of the root's data this tree carries (1.0 unless weighted packings are used).

    Examples
    --------
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 2, 0)), height=2)
    >>> Tree.from_json(t.to_json()) == t
    True
    """

    root: int
    arcs: tuple[tuple[int, int, int], ...]
    height: int
    share: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "arcs", tuple(sorted((int(u), int(v), int(k)) for u, v, k in self.arcs))
        )

    @classmethod
    def from_sorted_arcs(
        cls, root: int, arcs: tuple[tuple[int, int, int], ...], height: int, share: float = 1.0
    ) -> Tree:
        """A tree whose ``arcs`` are already a sorted tuple of int triples, kept as given.

        For constructions that build thousands of trees over one shared tuple per arc
        (:mod:`supermesh.trees.throughput.construct`); the normal constructor copies every arc.

        Examples
        --------
        >>> Tree.from_sorted_arcs(0, ((0, 1, 0),), 1) == Tree(0, ((0, 1, 0),), 1)
        True
        """
        tree = object.__new__(cls)
        for name, value in (("root", root), ("arcs", arcs), ("height", height), ("share", share)):
            object.__setattr__(tree, name, value)
        return tree

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``root``, ``height``, ``share`` and ``arcs`` as [src, dst, key]."""
        return {
            "root": self.root,
            "height": self.height,
            "share": self.share,
            "arcs": [list(a) for a in self.arcs],
        }

    @classmethod
    def from_json(cls, doc: Any, *, where: str = "tree") -> Tree:
        """Read a tree written by :meth:`to_json`; raises InputFileError on a malformed one."""
        if not isinstance(doc, dict):
            raise InputFileError(f"{where} is not an object")
        for name in ("root", "arcs"):
            if name not in doc:
                raise InputFileError(f"{where} lacks the field {name!r}")
        arcs = doc["arcs"]
        if not isinstance(arcs, list) or not all(
            isinstance(a, list)
            and len(a) == 3
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in a)
            for a in arcs
        ):
            raise InputFileError(
                f"{where} arcs must be a list of [src, dst, key] triples of non-negative integers"
            )
        root = json_count(doc["root"], f"{where} root")
        height = json_count(doc["height"], f"{where} height") if "height" in doc else -1
        share = json_number(doc.get("share", 1.0), f"{where} share")
        if not 0.0 < share <= 1.0:
            raise InputFileError(
                f"{where} share must be in (0, 1] (a fraction of the root's data), not {share!r}"
            )
        return cls(root, tuple((a[0], a[1], a[2]) for a in arcs), height, share)


@dataclass(frozen=True)
class TreeSet:
    """Trees that run at the same time and so must be pairwise arc-disjoint.

    Attributes
    ----------
    trees : tuple of Tree
    lower_bound : int or None
        A proven lower bound on the maximum height of any such set with these roots.

    Examples
    --------
    >>> s = TreeSet((Tree(0, ((0, 1, 0),), 1), Tree(1, ((1, 0, 0),), 1)), lower_bound=1)
    >>> TreeSet.from_json(s.to_json()) == s, [t.root for t in s.trees]
    (True, [0, 1])
    """

    trees: tuple[Tree, ...]
    lower_bound: int | None = None

    @property
    def roots(self) -> list[int]:
        """The roots in tree order."""
        return [t.root for t in self.trees]

    @property
    def height(self) -> int:
        """The largest tree height in the set."""
        return max((t.height for t in self.trees), default=0)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict with ``trees`` and ``lower_bound``."""
        return {"trees": [t.to_json() for t in self.trees], "lower_bound": self.lower_bound}

    @classmethod
    def from_json(cls, doc: Any, *, where: str = "set") -> TreeSet:
        """Read a set written by :meth:`to_json`."""
        if not isinstance(doc, dict) or not isinstance(doc.get("trees"), list):
            raise InputFileError(f"{where} lacks a 'trees' list")
        lb = json_count(doc.get("lower_bound"), f"{where} lower_bound", optional=True)
        return cls(
            trees=tuple(
                Tree.from_json(t, where=f"{where} tree #{i}") for i, t in enumerate(doc["trees"])
            ),
            lower_bound=lb,
        )


@dataclass(frozen=True)
class TreePacking:
    """A solver's answer: one or more tree sets on one topology, with status and proof.

    Attributes
    ----------
    topology : str
        Spec string of the topology (or the path of its JSON file).
    direction : {"out", "in"}
    status : {"optimal", "feasible", "infeasible"}
        ``optimal``: the objective equals a proven lower bound; ``feasible``: valid trees, not
        proven optimal (``lower_bound`` shows the gap); ``infeasible``: ``certificate`` proves it.
    sets : tuple of TreeSet
        Empty when infeasible.
    lower_bound : int or None
        Proven lower bound on the objective (the maximum tree height over all sets).
    objective : int or None
        The objective reached (the maximum height), ``None`` when infeasible.
    method : str
        How the trees were made (``cpsat``, ``construct``, ``tto``, ``algorithm1``, ...).
    span : tuple of int or None
        Nodes every tree must reach; ``None`` means every compute chiplet.
    certificate : dict or None
        Proof of infeasibility (``{"set": [...], "entering_arcs": a, "required": r}``).
    stats : dict
        Solver statistics (wall time, gap, ...), informative only.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.packing import pack_trees
    >>> p = pack_trees(build("smbi:4x4"), [0, 3, 15, 12], time_limit=10)
    >>> p.status, p.objective, p.lower_bound, len(p.trees)
    ('optimal', 6, 6, 4)
    >>> TreePacking.from_json(p.to_json()).to_json() == p.to_json()
    True
    """

    topology: str
    direction: str
    status: str
    sets: tuple[TreeSet, ...] = ()
    lower_bound: int | None = None
    objective: int | None = None
    method: str = ""
    span: tuple[int, ...] | None = None
    certificate: dict[str, Any] | None = None
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise InputFileError(f"direction {self.direction!r} is not 'out' or 'in'")
        if self.status not in STATUSES:
            raise InputFileError(f"status {self.status!r} is not one of {STATUSES}")

    @property
    def trees(self) -> tuple[Tree, ...]:
        """All trees of all sets, in order."""
        return tuple(t for s in self.sets for t in s.trees)

    def to_json(self, *, timings: bool = True) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring).

        ``timings=False`` leaves out the wall-clock statistics (``wall_time`` at any depth of
        ``stats``), so that the same inputs give byte-identical files.

        Raises :class:`~supermesh.errors.ResourceError` when the document would take more than
        the memory cap (:data:`~supermesh.budget.JSON_ARC_BYTES` per arc), before building it.
        """
        from supermesh.budget import JSON_ARC_BYTES, check_memory

        arcs = sum(len(t.arcs) for s in self.sets for t in s.trees)
        check_memory(
            arcs * JSON_ARC_BYTES,
            f"a tree document of {sum(len(s.trees) for s in self.sets):,} trees ({arcs:,} arcs)",
            hint="ask for fewer trees (a smaller grid, or --parts), or leave out -o / --json",
        )
        doc: dict[str, Any] = {
            "format": FORMAT,
            "version": 1,
            "topology": self.topology,
            "direction": self.direction,
            "status": self.status,
            "lower_bound": self.lower_bound,
            "objective": self.objective,
            "method": self.method,
            "span": list(self.span) if self.span is not None else None,
            "sets": [s.to_json() for s in self.sets],
        }
        doc["certificate"] = self.certificate
        doc["stats"] = self.stats if timings else _without_timings(self.stats)
        return doc

    @classmethod
    def from_json(cls, doc: Any, *, source: str = "tree file") -> TreePacking:
        """Read a packing written by :meth:`to_json`.

        A file with only ``trees`` (no ``sets``) is read as one set; a file with both is read
        when they agree (older files). Raises :class:`~supermesh.errors.InputFileError` on
        anything malformed or contradictory (see the module docstring).
        """
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputFileError(f"{source} is not a supermesh tree file (format {FORMAT!r})")
        version = doc.get("version", VERSION)
        if isinstance(version, bool) or version != VERSION:
            raise InputFileError(
                f"{source} has version {shown(doc.get('version'))}; this tool reads version "
                f"{VERSION}",
                hint="write the file again with this version of supermesh",
            )
        for name in ("topology", "direction", "status"):
            if not isinstance(doc.get(name), str):
                raise InputFileError(f"{source} lacks the text field {name!r}")
        if not doc["topology"]:
            raise InputFileError(f"{source} names no topology")
        if isinstance(doc.get("sets"), list):
            sets = tuple(
                TreeSet.from_json(s, where=f"{source} set #{i}") for i, s in enumerate(doc["sets"])
            )
            duplicate = doc.get("trees")
            if duplicate is not None and (len(sets) != 1 or duplicate != doc["sets"][0]["trees"]):
                raise InputFileError(
                    f"{source}: the top-level 'trees' contradicts 'sets' (it must repeat the "
                    "only set's trees exactly)",
                    hint="delete the top-level 'trees': the trees are read from 'sets'",
                )
        elif isinstance(doc.get("trees"), list):
            sets = (TreeSet.from_json({"trees": doc["trees"]}, where=source),)
        else:
            raise InputFileError(f"{source} has neither 'sets' nor 'trees'")
        span = doc.get("span")
        if span is not None:
            span = node_list(span, f"{source} span")
            if not span or len(set(span)) != len(span):
                raise InputFileError(
                    f"{source} span must be null or a nonempty list of distinct node ids"
                )
        certificate = doc.get("certificate")
        if certificate is not None and not isinstance(certificate, dict):
            raise InputFileError(f"{source} certificate must be null or an object")
        stats = doc.get("stats")
        if stats is not None and not isinstance(stats, dict):
            raise InputFileError(f"{source} stats must be an object")
        method = doc.get("method", "")
        if not isinstance(method, str):
            raise InputFileError(f"{source} method must be text, not {shown(method)}")
        return cls(
            topology=doc["topology"],
            direction=doc["direction"],
            status=doc["status"],
            sets=sets,
            lower_bound=json_count(doc.get("lower_bound"), f"{source} lower_bound", optional=True),
            objective=json_count(doc.get("objective"), f"{source} objective", optional=True),
            method=method,
            span=tuple(span) if span is not None else None,
            certificate=certificate,
            stats=dict(stats) if stats else {},
        )


def _without_timings(value: Any) -> Any:
    """``value`` with every ``wall_time`` key removed from the dicts in it (a copy)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "wall_time"}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def read_packing(path: str, topology: str = "") -> TreePacking:
    """Read a tree file written by ``supermesh trees -o``, refusing one made for another topology.

    Parameters
    ----------
    path : str
        The file.
    topology : str, optional
        The canonical spec the trees must be for (a file naming a topology JSON file is not
        compared); empty: any.

    Returns
    -------
    TreePacking

    Raises
    ------
    InputFileError
        The file cannot be read, is malformed, holds no trees, or is for another topology.

    Examples
    --------
    >>> import json, tempfile
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.packing import construct_trees
    >>> doc = construct_trees(build("smbi:4x4"), [0, 3, 15, 12]).to_json()
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     json.dump(doc, f)
    >>> len(read_packing(f.name, "smbi:4x4").trees)
    4
    """
    from supermesh.topologies.io import read_json_file

    packing = TreePacking.from_json(read_json_file(path), source=path)
    if not packing.sets:
        raise InputFileError(f"{path} holds no trees ({packing.status})")
    named = packing.topology
    if topology and named and not named.endswith(".json") and named != topology:
        raise InputFileError(
            f"{path} holds trees for {named}, not for {topology}",
            hint="build the trees for this topology with `supermesh trees`",
        )
    return packing
