"""Single-field mutants of the files the tool writes: one field changed, everything else kept.

:func:`document_mutants` walks a document (the parsed JSON of a topology, design, tree, schedule
or certificate file, or the rows of a sweep CSV), groups its fields by pattern (the path with list
positions left out: ``sets.*.trees.*.height``), and draws mutants field pattern by field pattern,
so that a field that occurs once (``status``) is broken as often as one that occurs a thousand
times (an arc's key). Each mutant changes one value (or deletes one key, drops, repeats or swaps
one list item) by an operator chosen for the value's type and the field's documented meaning
(:data:`ENUMS` for fields with named values, node ids for node fields, fraction strings, specs
for topology names). Deterministic for a seed.

Examples
--------
>>> doc = {"status": "optimal", "objective": 6}
>>> [m.label for m in document_mutants(doc, "trees", seed=1, count=2)]
['objective: huge (6 -> 10000000000000000000)', "status: garbage ('optimal' -> 'xyz')"]
"""

from __future__ import annotations

import copy
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["DELETED", "ENUMS", "SPECS", "Mutant", "document_mutants", "field_patterns"]

DELETED = "<deleted>"
"""The ``new`` value of a mutant that deletes a key."""

ENUMS: dict[str, tuple[Any, ...]] = {
    "status": ("optimal", "feasible", "infeasible", "proven", "partial", "unknown", "n/a"),
    "direction": ("out", "in", "both", "entering", "leaving"),
    "method": ("cpsat", "construct", "tto", "algorithm1", "geodesic", "colgen",
               "root-sets:optimise", "magic"),
    "collective": ("allreduce", "reducescatter", "allgather", "broadcast", "reduce"),
    "phase": ("rs", "ag", "bcast", "reduce"),
    "op": ("send", "recv-send", "recv-reduce-send"),
    "on_recv": ("reduce", "store"),
    "kind": ("compute", "memory", "io", "router", "subpartition", "cut-family", "eccentricity",
             "solver", "root-sets"),
    "cls": ("mesh", "added", "memory", "other"),
    "bound": ("eccentricity", "cpsat"),
    "balance": ("optimal", "feasible", "off"),
    "unit": ("cycle", "ns", "seconds"),
    "algorithm": ("pipeline", "tto", "paper", "throughput", "ring", "direct"),
    "format": ("supermesh-topology", "supermesh-trees", "supermesh-schedule", "supermesh-proof"),
    "partition": ("optimal (total = lower bound)", "heuristic"),
    "roots": ("any",),
    "span": ("compute",),
}  # fmt: skip
"""Documented values of the fields that take names (and a few wrong ones)."""

SPECS = ("mesh:4x4", "smbi:4x4", "smalter:4x4", "torus:4x4", "mesh:3x3", "smbi:3x3",
         "smbi:8x8", "partial-smbi:4x4", "smbi:4x4,memory=south", "mesh:4x4,memory=south",
         "smalter:5x5", "hexamesh:r1", "no-such-file.json")  # fmt: skip
"""Topologies a ``topology`` / ``base`` / ``spec`` field may be relabelled to."""

_NODE_FIELDS = {"src", "dst", "root", "node", "id", "ranks", "span", "roots", "set", "sets",
                "added", "max_trees_roots", "relay_only", "arcs", "links", "set_roots"}  # fmt: skip
_SPEC_FIELDS = {"topology", "base", "spec"}
_INDEX_SAMPLE = 4  # list positions considered per list (besides the first and the last)

Path = tuple[Any, ...]


@dataclass(frozen=True)
class Mutant:
    """One single-field corruption of a document.

    Attributes
    ----------
    kind : str
        The file kind (``topology``, ``design``, ``trees``, ``schedule``, ``proof``, ``sweep``).
    path : tuple
        Keys and list positions from the document's root to the field.
    operator : str
        What was done (``plus-one``, ``enum``, ``delete``, ``drop``, ``swap``, ...).
    old, new : Any
        The value before and after (``new`` is :data:`DELETED` for a deleted key).
    doc : Any
        The mutated document (the original is not changed).
    """

    kind: str
    path: Path
    operator: str
    old: Any
    new: Any
    doc: Any

    @property
    def label(self) -> str:
        """``sets[0].trees[1].height: plus-one (6 -> 7)``."""
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path).lstrip(".")

        def short(x: Any) -> str:
            text = repr(x)
            return text if len(text) <= 40 else text[:37] + "..."

        return f"{where or '<root>'}: {self.operator} ({short(self.old)} -> {short(self.new)})"


def _walk(value: Any, path: Path, rng: random.Random) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, (*path, k), rng)
    elif isinstance(value, list) and value:
        n = len(value)
        picks = {0, n - 1} | set(rng.sample(range(n), min(n, _INDEX_SAMPLE)))
        for i in sorted(picks):
            yield from _walk(value[i], (*path, i), rng)


def field_patterns(doc: Any, seed: int = 0) -> dict[str, list[tuple[Path, Any]]]:
    """Field pattern (``sets.*.trees.*.height``) -> the sampled paths and values under it.

    Examples
    --------
    >>> sorted(field_patterns({"sets": [{"lower_bound": 6}]}))
    ['<root>', 'sets', 'sets.*', 'sets.*.lower_bound']
    """
    out: dict[str, list[tuple[Path, Any]]] = defaultdict(list)
    for path, value in _walk(doc, (), random.Random(seed)):
        key = ".".join("*" if isinstance(p, int) else str(p) for p in path) or "<root>"
        out[key].append((path, value))
    return dict(out)


def _field(path: Path) -> str:
    names = [p for p in path if isinstance(p, str)]
    return names[-1] if names else ""


def _is_fraction(text: str) -> bool:
    try:
        Fraction(text)
    except (ValueError, ZeroDivisionError):
        return False
    return "/" in text or text.isdigit()


def _choices(path: Path, value: Any, nodes: int) -> list[tuple[str, Any]]:
    """(operator, new value) candidates for the value at ``path``."""
    name = _field(path)
    nodeish = name in _NODE_FIELDS or name.endswith("roots")
    out: list[tuple[str, Any]] = []
    if isinstance(value, bool):
        out += [("flip", not value), ("as-int", int(value)), ("null", None)]
    elif isinstance(value, int):
        out += [("plus-one", value + 1), ("minus-one", value - 1), ("zero", 0), ("negative", -1),
                ("huge", 10**19), ("fractional", value + 0.5), ("as-text", str(value)),
                ("null", None), ("as-bool", True)]  # fmt: skip
        if nodeish and nodes:
            out += [("other-node", (value + 1 + value % 3) % nodes), ("past-last-node", nodes)]
    elif isinstance(value, float):
        out += [("double", value * 2), ("zero", 0.0), ("negated", -value), ("nudged", value + 1e-7),
                ("nan", float("nan")), ("infinity", float("inf")), ("as-text", str(value)),
                ("null", None)]  # fmt: skip
    elif isinstance(value, str):
        if name in ENUMS:
            out += [("enum", v) for v in ENUMS[name] if v != value]
        if name in _SPEC_FIELDS:
            out += [("relabel", s) for s in SPECS if s != value]
        if _is_fraction(value):
            x = Fraction(value)
            out += [("fraction-up", str(x + Fraction(1, 15))), ("fraction-down", str(x / 2)),
                    ("fraction-negative", str(-x)), ("fraction-garbage", "fast")]  # fmt: skip
        out += [("empty", ""), ("garbage", "xyz"), ("as-number", 7), ("null", None)]
    elif value is None:
        out += [("zero", 0), ("text", "x"), ("empty-list", []), ("empty-object", {})]
    elif isinstance(value, list):
        if value:
            out += [("drop-first", value[1:]), ("drop-last", value[:-1]),
                    ("repeat-first", [value[0], *value]), ("empty", [])]  # fmt: skip
        if len(value) > 1 and value[0] != value[1]:
            out.append(("swap-first-two", [value[1], value[0], *value[2:]]))
        if len(value) > 1 and value != value[::-1]:
            out.append(("reverse", value[::-1]))
        out.append(("as-object", {}))
    elif isinstance(value, dict):
        out += [("add-field", {**value, "unexpected": 1}), ("empty", {}), ("as-list", [])]
    return out


def _set(doc: Any, path: Path, new: Any) -> Any:
    out = copy.deepcopy(doc)
    if not path:
        return new
    parent = out
    for p in path[:-1]:
        parent = parent[p]
    if new is DELETED:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return out


def _rows_mutants(rows: list[list[str]], rng: random.Random) -> list[tuple[Path, str, Any, Any]]:
    """Sweep CSV rows: a changed cell, or a row dropped or repeated."""
    out: list[tuple[Path, str, Any, Any]] = []
    for i in range(1, len(rows)):
        for j, cell in enumerate(rows[i]):
            number = cell.replace(".", "", 1).replace("e-", "").replace("e+", "").isdigit()
            news = ["0", "-1", cell + "0", "", "nan", "x"] if number else ["", "x", "ring", "7"]
            for v in news:
                if v != cell:
                    out.append(((i, j), "cell", cell, v))
        out.append(((i,), "drop-row", rows[i], DELETED))
        out.append(((i,), "repeat-row", rows[i], rows[i]))
    rng.shuffle(out)
    return out


def document_mutants(
    doc: Any, kind: str, *, seed: int = 0, count: int = 20, nodes: int = 0
) -> list[Mutant]:
    """``count`` single-field mutants of ``doc``, drawn field pattern by field pattern.

    Parameters
    ----------
    doc : Any
        A parsed document (a sweep CSV: its rows, header first).
    kind : str
        The file kind, recorded in each :class:`Mutant`.
    seed : int
        The same seed gives the same mutants.
    count : int
        How many (fewer if the document has fewer distinct mutations).
    nodes : int
        Node count of the topology (node fields then also get other and out-of-range ids).

    Returns
    -------
    list of Mutant
        Distinct mutants (no two with the same path and new value).
    """
    rng = random.Random(seed)
    pool: list[tuple[Path, str, Any, Any]] = []
    if kind == "sweep":
        for path, op, old, new in _rows_mutants(doc, rng):
            pool.append((path, op, old, new))
        picked = pool[:count]
    else:
        patterns = field_patterns(doc, seed)
        keys = sorted(patterns)
        rng.shuffle(keys)
        per_pattern: dict[str, list[tuple[Path, str, Any, Any]]] = {}
        for key in keys:
            options = []
            for path, value in patterns[key]:
                for op, new in _choices(path, value, nodes):
                    options.append((path, op, value, new))
                if path and isinstance(path[-1], str):
                    options.append((path, "delete", value, DELETED))
                if path and isinstance(path[-1], int):
                    options.append((path, "drop-item", value, DELETED))
            rng.shuffle(options)
            per_pattern[key] = options
        picked = []
        seen: set[tuple[Path, str]] = set()
        while len(picked) < count and any(per_pattern.values()):
            for key in keys:  # round robin over the field patterns
                if per_pattern[key] and len(picked) < count:
                    path, op, old, new = per_pattern[key].pop()
                    if (path, repr(new)) not in seen:
                        seen.add((path, repr(new)))
                        picked.append((path, op, old, new))
    out = []
    for path, op, old, new in picked:
        if kind == "sweep":
            rows = copy.deepcopy(doc)
            if op == "drop-row":
                del rows[path[0]]
            elif op == "repeat-row":
                rows.insert(path[0], list(rows[path[0]]))
            else:
                rows[path[0]][path[1]] = new
            out.append(Mutant(kind, path, op, old, new, rows))
        else:
            out.append(Mutant(kind, path, op, old, new, _set(doc, path, new)))
    return out
