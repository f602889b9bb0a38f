"""What every oracle of the mutation campaign shares: the schemas, strict JSON, graph helpers.

The oracles judge a mutant from the documented file semantics (docs/schemas and the format
docstrings), never by calling verify or the code that wrote the file. They may trust the
original file (the tool's output, itself verified and tested against known facts) for what only
a solver knows (an optimum, a simulated time), and they build topologies from specs.
"""

from __future__ import annotations

import json
import math
from collections import Counter, deque
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx
from jsonschema import Draft202012Validator, validators
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"
BASE = "https://supermesh.invalid/schemas/"


class Invalid(Exception):
    """Raised by an oracle helper: the mutant is not (provably) valid, and why."""


def _strict_integer(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_Strict = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer),
)


@cache
def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        resources.append((BASE + path.name, Resource.from_contents(json.loads(path.read_text()))))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> Any:
    """A validator for ``docs/schemas/<name>.schema.json`` in which integers are JSON integers."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return _Strict(schema, registry=_registry())


def _unsigned_zero(x: Any) -> Any:
    if isinstance(x, float) and x == 0.0:
        return 0.0
    if isinstance(x, dict):
        return {k: _unsigned_zero(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_unsigned_zero(v) for v in x]
    return x


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``, ``1.0`` not ``1``, but ``-0.0`` is ``0.0``."""
    return json.dumps(_unsigned_zero(a), sort_keys=True) == json.dumps(
        _unsigned_zero(b), sort_keys=True
    )


def _pruned(doc: Any, original: Any) -> Any:
    """``doc`` with long lists cut to the items that differ from ``original``'s (which passed)."""
    if isinstance(doc, dict) and isinstance(original, dict):
        return {k: _pruned(v, original.get(k)) for k, v in doc.items()}
    if isinstance(doc, list) and isinstance(original, list) and len(doc) == len(original) > 50:
        changed = [_pruned(a, b) for a, b in zip(doc, original, strict=True) if not same_json(a, b)]
        return changed or doc[:1]
    return doc


def check_schema(doc: Any, name: str, original: Any = None) -> None:
    """Raise :class:`Invalid` unless ``doc`` is finite JSON valid against schema ``name``.

    With ``original`` (a document known to be valid), only what differs from it in long lists
    is validated again, which is the same verdict for the schemas here (no list-wide keywords
    on long lists) and much faster.
    """
    if not finite(doc):
        raise Invalid("a number is NaN or infinite: not JSON")
    if original is not None:
        doc = _pruned(doc, original)
    error = next(iter(validator(name).iter_errors(doc)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path))
        raise Invalid(f"schema {name}: {where}: {error.message[:120]}")


def finite(doc: Any) -> bool:
    """No NaN or infinite number anywhere in ``doc``."""
    if isinstance(doc, float):
        return math.isfinite(doc)
    if isinstance(doc, dict):
        return all(finite(v) for v in doc.values())
    if isinstance(doc, list):
        return all(finite(v) for v in doc)
    return True


def need(condition: bool, why: str) -> None:
    """Raise :class:`Invalid` with ``why`` unless ``condition``."""
    if not condition:
        raise Invalid(why)


def compute(G: nx.MultiDiGraph) -> list[int]:
    """The compute chiplets, ascending."""
    return sorted(n for n, d in G.nodes(data=True) if d.get("kind") == "compute")


def distances(G: nx.MultiDiGraph, root: int, direction: str) -> dict[int, int]:
    """Hops from ``root`` along arcs (``in``: to ``root``, against them)."""
    step = G.successors if direction == "out" else G.predecessors
    dist = {root: 0}
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in step(u):
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def eccentricity(G: nx.MultiDiGraph, root: int, direction: str, targets: list[int]) -> int | None:
    """The largest distance from ``root`` to a target (``None``: one is unreachable)."""
    dist = distances(G, root, direction)
    if any(t not in dist for t in targets):
        return None
    return max((dist[t] for t in targets), default=0)


def crossing(G: nx.MultiDiGraph, X: Any, direction: str) -> int:
    """Arcs entering ``X`` (``in``: leaving it)."""
    inside = set(X)
    if direction == "out":
        return sum(1 for u, v in G.edges() if v in inside and u not in inside)
    return sum(1 for u, v in G.edges() if u in inside and v not in inside)


def is_count(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def flow_ok(
    G: nx.MultiDiGraph, roots: list[int] | None, k: int, direction: str, targets: list[int]
) -> bool:
    """Edmonds' condition by max-flow: k trees for these roots (``None``: for any k roots)."""
    D = nx.DiGraph()
    D.add_nodes_from(G)
    for (u, v), c in Counter(G.edges()).items():
        if direction == "out":
            D.add_edge(u, v, capacity=c)
        else:
            D.add_edge(v, u, capacity=c)
    if roots is None:
        return (
            all(nx.maximum_flow_value(D, a, b) >= k for a in targets for b in targets if a != b)
            if len(targets) <= 12
            else all(
                nx.maximum_flow_value(D, targets[0], b) >= k
                and nx.maximum_flow_value(D, b, targets[0]) >= k
                for b in targets[1:]
            )
        )
    D.add_node("s")
    for r, c in Counter(roots).items():
        D.add_edge("s", r, capacity=c)
    return all(nx.maximum_flow_value(D, "s", v) >= len(roots) for v in targets)
