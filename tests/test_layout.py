"""The import rule, parsed from the source: data flow one way, rooms use only the rooms they may.

Every import of the package is read from the code (module-level and inside functions), together
with the lazy ``_EXPORTS`` tables, which import by name. The rule (stated in the engines'
``__init__`` docstrings and the README's Development section):

- the base modules (errors, units, the lazy loader, the executor) use nothing of the package;
- topologies <- trees <- sim: each engine uses only the ones before it;
- verify reads the data types of trees and sim, never their algorithms;
- inside trees, each room uses the shared modules and the rooms listed in ``TREE_ROOMS``; outside
  its own room a module imports only the names a room lists in ``__all__``;
- the front door (CLI, draw, export, report, testing, the package map) may use everything, and
  no engine uses it.
"""

from __future__ import annotations

import ast
import importlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import supermesh

PACKAGE = Path(supermesh.__file__).resolve().parent

BASE = {
    "supermesh._lazy",
    "supermesh.budget",
    "supermesh.errors",
    "supermesh.units",
    "supermesh.parallel",
}
TREES_SHARED = {
    "supermesh.trees",
    "supermesh.trees.model",
    "supermesh.trees.json_values",
    "supermesh.trees.oriented",
    "supermesh.trees.cpsat",
    "supermesh.trees.rootspec",
}
# room -> the rooms of trees/ it may use (besides the shared modules)
TREE_ROOMS: dict[str, set[str]] = {
    "bounds": set(),
    "packing": {"bounds"},
    "throughput": {"bounds"},
    "roots": {"packing", "bounds"},
    "design": {"packing", "bounds"},
    "prove": {"packing", "bounds"},
    "schedule": {"roots", "throughput", "packing", "bounds"},
}
# the data types verify may read from the other engines
DATA_TYPES = {
    "supermesh.trees",
    "supermesh.trees.model",
    "supermesh.trees.oriented",
    "supermesh.trees.schedule",
    "supermesh.trees.schedule.model",
    "supermesh.sim.program",
    "supermesh.sim.result",
}
# prove re-checks the certificate files it reuses with the independent checker (verify never
# imports prove, so no cycle)
EXTRA = {"supermesh.trees.prove": ("supermesh.verify",)}


def room(module: str) -> str:
    """The room a module belongs to: ``base``, ``front``, an engine, or ``trees.<room>``."""
    if module in BASE:
        return "base"
    parts = module.split(".")
    if len(parts) == 1:
        return "front"
    engine = parts[1]
    if engine == "trees":
        if module in TREES_SHARED:
            return "trees"
        return f"trees.{parts[2]}"
    if engine in {"topologies", "verify", "sim"}:
        return engine
    return "front"


def _within(target: str, prefixes: tuple[str, ...] | set[str]) -> bool:
    return any(target == p or target.startswith(p + ".") for p in prefixes)


def allowed(source: str, target: str) -> bool:
    """Whether module ``source`` may import module ``target`` (both inside the package)."""
    src, dst = room(source), room(target)
    if dst == "base" or src == dst or src == "front":
        return True
    if dst == "front":
        return False
    if src == "base":
        return False
    if src == "topologies":
        return False
    if src.startswith("trees"):
        if dst == "topologies" or dst == "trees":
            return True
        if dst.startswith("trees.") and src.startswith("trees."):
            return dst.split(".")[1] in TREE_ROOMS[src.split(".")[1]]
        return _within(target, EXTRA.get(".".join(source.split(".")[:3]), ()))
    if src == "verify":
        return dst == "topologies" or target in DATA_TYPES
    if src == "sim":
        return dst == "topologies" or dst.startswith("trees")
    return False


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = ("supermesh", *rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_files(pattern: str = "*.py") -> list[Path]:
    """The package's files, following the engines' committed symlinks (``rglob`` does not)."""
    found = []
    for folder, _, _ in os.walk(PACKAGE, followlinks=True):
        found += Path(folder).glob(pattern)
    return sorted(found)


def package_modules() -> Iterator[tuple[str, Path]]:
    for path in package_files():
        yield module_name(path), path


def is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def imports(source: str, path: Path) -> Iterator[tuple[str, str | None, int]]:
    """``(target module, imported name or None, line)`` for every import in the file."""
    tree = ast.parse(path.read_text(), str(path))
    package = source if path.name == "__init__.py" else source.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("supermesh"):
                    yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if not base.startswith("supermesh"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if is_module(sub):
                    yield sub, None, node.lineno
                else:
                    yield base, alias.name, node.lineno
        elif isinstance(node, ast.AnnAssign | ast.Assign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if "_EXPORTS" in names and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values, strict=True):
                    if isinstance(value, ast.Constant) and isinstance(key, ast.Constant):
                        yield value.value, key.value, node.lineno


def room_api(target: str) -> set[str] | None:
    """The ``__all__`` of the room ``target`` belongs to, or None for shared modules."""
    parts = target.split(".")
    if len(parts) < 3 or parts[1] not in {"trees", "verify", "sim"} or target in TREES_SHARED:
        return None
    package = importlib.import_module(".".join(parts[:3]))
    if not hasattr(package, "__path__"):
        return None
    return set(getattr(package, "__all__", ()))


def violations() -> list[str]:
    found = []
    for source, path in package_modules():
        for target, name, line in imports(source, path):
            where = f"{path.relative_to(PACKAGE)}:{line}"
            if not allowed(source, target):
                found.append(
                    f"{where}: {source} ({room(source)}) imports {target} ({room(target)})"
                )
                continue
            if room(source) in {room(target), "front"} or name is None:
                continue
            api = room_api(target)
            if api is not None and name not in api:
                found.append(f"{where}: {name} from {target} is not in its room's __all__")
    return found


def test_imports_follow_the_layering():
    assert violations() == []


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("supermesh.verify.trees.packing", "supermesh.trees.packing.search"),
        ("supermesh.verify.files", "supermesh.sim.engine"),
        ("supermesh.trees.bounds.counts", "supermesh.trees.packing.search"),
        ("supermesh.trees.design.search", "supermesh.trees.roots.sets"),
        ("supermesh.trees.throughput.pack", "supermesh.trees.packing.model"),
        ("supermesh.trees.packing.search", "supermesh.sim.engine"),
        ("supermesh.trees.roots.sets", "supermesh.verify.files"),
        ("supermesh.topologies.spec", "supermesh.trees.model"),
        ("supermesh.sim.engine", "supermesh.verify.files"),
        ("supermesh.sim.engine", "supermesh.draw.common"),
        ("supermesh.errors", "supermesh.topologies.model"),
        ("supermesh.trees.model", "supermesh.trees.packing.search"),
    ],
)
def test_the_rule_refuses_what_it_must(source, target):
    assert not allowed(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("supermesh.verify.files", "supermesh.trees.schedule.model"),
        ("supermesh.trees.prove.certificate", "supermesh.verify.trees.packing"),
        ("supermesh.trees.schedule.collective", "supermesh.trees.roots.sets"),
        ("supermesh.sim.packing", "supermesh.trees.schedule.fifo"),
        ("supermesh.cli.sim", "supermesh.sim.engine"),
        ("supermesh.trees.roots.search", "supermesh.trees.cpsat"),
    ],
)
def test_the_rule_allows_what_it_states(source, target):
    assert allowed(source, target)


def test_every_room_states_its_api():
    rooms = [p.parent for p in package_files("__init__.py") if p.parent != PACKAGE]
    for folder in rooms:
        name = module_name(folder / "__init__.py")
        module = importlib.import_module(name)
        assert (module.__doc__ or "").strip(), f"{name} has no docstring"
        if name.split(".")[1] in {"trees", "verify", "sim"}:
            assert list(module.__all__), f"{name} lists no public names"
            for public in module.__all__:
                assert getattr(module, public) is not None, f"{name}.{public} does not resolve"


def test_the_public_map_lists_every_export_once_in_groups():
    groups = [group for group, _, _ in supermesh._GROUPS]
    assert groups[:2] == ["topologies", "bounds"]
    assert groups[-1] == "draw"
    names = [name for _, _, table in supermesh._GROUPS for name in table]
    assert len(names) == len(set(names))
    for group, _, table in supermesh._GROUPS:
        assert group in supermesh.__doc__
        for name, module in table.items():
            assert name in supermesh.__doc__
            assert hasattr(importlib.import_module(module), name), f"{module}.{name}"
