"""Node labels and attribute values of a user's graph, read strictly.

Shared by :func:`~supermesh.topologies.formats.convert.from_networkx` and the file readers: a
file's node names become integers or integer tuples when they all are, labels are numbered in
natural order, and every attribute value is checked (an integer, a finite number, a position)
with an error that names the node or edge it belongs to.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Hashable
from typing import Any

from supermesh.errors import TopologyError

__all__ = [
    "as_int",
    "as_number",
    "as_point",
    "file_labels",
    "grid_label",
    "is_int",
    "natural_key",
    "numbering",
    "where",
]

_INT = re.compile(r"-?(0|[1-9]\d*)$")
_TUPLE = re.compile(r"\(\s*-?\d+\s*(,\s*-?\d+\s*)+\)$")


def file_labels(ids: list[str]) -> dict[str, Any]:
    """A file's node names -> labels: all integers, all integer tuples, or the names themselves.

    Examples
    --------
    >>> file_labels(["0", "1"]), file_labels(["(0, 1)"]), file_labels(["0", "a"])
    ({'0': 0, '1': 1}, {'(0, 1)': (0, 1)}, {'0': '0', 'a': 'a'})
    """
    if ids and all(_INT.match(i) for i in ids):
        return {i: int(i) for i in ids}
    if ids and all(_TUPLE.match(i) for i in ids):
        return {i: ast.literal_eval(i) for i in ids}
    return {i: i for i in ids}


def natural_key(label: Hashable) -> Any:
    """Sort key that puts ``n2`` before ``n10`` (labels of one type only)."""
    if isinstance(label, str):
        return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label))
    return label


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def numbering(labels: list[Hashable], ordering: str) -> list[Hashable]:
    """The labels in id order: ids ``0..n-1`` are kept, else sorted (natural) or given order."""
    if ordering not in ("sorted", "given"):
        raise TopologyError(f"ordering={ordering!r} is not 'sorted' or 'given'")
    if all(is_int(x) for x in labels) and set(labels) == set(range(len(labels))):
        return sorted(labels)  # type: ignore[type-var]
    if ordering == "given":
        return labels
    kinds = {type(x) for x in labels}
    if len(kinds) > 1:  # mixed types have no order; the graph's own order is deterministic
        return labels
    try:
        return sorted(labels, key=natural_key)
    except TypeError:
        return labels


def grid_label(label: Hashable) -> tuple[int, int] | None:
    """``(row, col)`` of a label such as networkx's ``grid_2d_graph`` gives, else None."""
    if isinstance(label, tuple) and len(label) == 2 and all(is_int(x) for x in label):
        return int(label[0]), int(label[1])
    return None


def as_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if is_int(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    raise TopologyError(f"{what} is {value!r}, not an integer")


def as_number(value: Any, what: str, *, positive: bool) -> float:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise TopologyError(f"{what} is {value!r}, not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TopologyError(f"{what} is {value!r}, not a number")
    x = float(value)
    if not math.isfinite(x) or x < 0 or (positive and x == 0):
        need = "positive" if positive else "zero or more"
        raise TopologyError(f"{what} is {value!r}; it must be finite and {need}")
    return x


def as_point(value: Any, what: str) -> tuple[float, float]:
    """A position from ``(x, y)``, ``[x, y]``, an array, or Graphviz text ``"x,y"`` / ``"x,y!"``."""
    if isinstance(value, str):
        parts: list[Any] = value.strip().rstrip("!").split(",")
    else:
        try:
            parts = list(value)
        except TypeError:
            parts = []
    if len(parts) in (2, 3) and not any(isinstance(p, bool) for p in parts):
        try:
            x, y = float(parts[0]), float(parts[1])
        except (TypeError, ValueError):
            pass
        else:
            if math.isfinite(x) and math.isfinite(y):
                return x, y
    raise TopologyError(f"{what} is {value!r}, not a position (x, y)")


def where(source: str, what: str) -> str:
    return f"{source}: {what}" if source else what
