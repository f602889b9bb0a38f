"""Write the API reference pages from the package map and the rooms' ``__all__``.

Every public object is documented once: under ``supermesh.NAME`` when the package map
(``supermesh._GROUPS``) lists it, else under the first room (subpackage) whose ``__all__``
lists it; every other place that lists it links there. Called by ``conf.py`` at build time, so
the reference follows the code.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from pathlib import Path
from typing import Any

import supermesh

# the rooms, in the order data flow (each a package with a docstring and __all__)
ROOMS: tuple[str, ...] = (
    "supermesh.topologies",
    "supermesh.topologies.formats",
    "supermesh.trees",
    "supermesh.trees.bounds",
    "supermesh.trees.packing",
    "supermesh.trees.roots",
    "supermesh.trees.throughput",
    "supermesh.trees.schedule",
    "supermesh.trees.prove",
    "supermesh.trees.design",
    "supermesh.verify",
    "supermesh.verify.trees",
    "supermesh.verify.schedule",
    "supermesh.verify.deadlock",
    "supermesh.sim",
    "supermesh.sim.baselines",
    "supermesh.draw",
    "supermesh.export",
    "supermesh.testing",
    "supermesh.errors",
    "supermesh.units",
)


def _unwrap(obj: Any) -> Any:
    return getattr(obj, "__wrapped__", obj)


def _directive(obj: Any) -> str:
    if isinstance(obj, type) and not isinstance(obj, types.GenericAlias):
        return "autoclass"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "autofunction"
    return "autodata"


def _alias_doc(name: str, obj: Any) -> str:
    """The docstring under a type alias's assignment, from whichever module assigns it."""
    from sphinx.pycode import ModuleAnalyzer

    for modname, module in sorted(sys.modules.items()):
        if modname.startswith("supermesh") and getattr(module, name, None) is obj:
            try:
                docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            except Exception:
                continue
            if ("", name) in docs:
                return "\n".join(docs["", name]).strip()
    return ""


def _entry(path: str, obj: Any) -> list[str]:
    if isinstance(obj, types.GenericAlias):  # autodoc cannot format these; write them out
        doc = _alias_doc(path.rpartition(".")[2], obj)
        lines = [f".. py:data:: {path}", f"   :value: {obj!r}", ""]
        return [*lines, *[f"   {line}" if line else "" for line in doc.splitlines()], ""]
    kind = _directive(obj)
    lines = [f".. {kind}:: {path}"]
    if kind == "autoclass":
        lines.append("   :members:")
    elif kind == "autodata":
        lines.append("   :no-value:")
    return [*lines, ""]


def _title(text: str, char: str = "=") -> list[str]:
    return [text, char * len(text), ""]


def _write(path: Path, lines: list[str]) -> None:
    text = "\n".join(lines).rstrip() + "\n"
    if not path.exists() or path.read_text() != text:  # unchanged pages keep Sphinx's cache
        path.write_text(text)


def _room_names(room: str) -> list[str]:
    module = importlib.import_module(room)
    names = getattr(module, "__all__", None)
    if names is None:
        return []
    return [n for n in names if not n.startswith("_")]


def write_api_pages(folder: Path) -> None:
    """Write ``folder/index.rst``, one page per group of the map and one per room."""
    folder.mkdir(exist_ok=True)
    home: dict[int, str] = {}  # id(object) -> where it is documented
    groups = []
    for group, what, names in supermesh._GROUPS:
        slug = "group-" + group.replace(" ", "-")
        groups.append(slug)
        lines = [f".. _{slug}:", "", *_title(f"{group.capitalize()}: {what}")]
        lines += [
            "Names of the package map, used as ``supermesh.NAME``.",
            "",
        ]
        for name in names:
            obj = getattr(supermesh, name)
            home.setdefault(id(_unwrap(obj)), f"supermesh.{name}")
            lines += _entry(f"supermesh.{name}", obj)
        _write(folder / f"{slug}.rst", lines)
    rooms = []
    for room in ROOMS:
        module = importlib.import_module(room)
        slug = room.removeprefix("supermesh.").replace(".", "-")
        rooms.append(slug)
        lines = [*_title(f"``{room}``"), f".. automodule:: {room}", ""]
        links, entries = [], []
        for name in _room_names(room):
            obj = getattr(module, name)
            key = id(_unwrap(obj))
            scalar = isinstance(obj, (str, int, float, bool)) or obj is None
            if key in home and not scalar:
                links.append(f"- ``{name}``: documented as :py:obj:`{home[key]}`")
                continue
            if not scalar:
                home[key] = f"{room}.{name}"
            entries += _entry(f"{room}.{name}", obj)
        if links:
            lines += ["Also in this room:", "", *links, ""]
        lines += entries
        _write(folder / f"{slug}.rst", lines)
    index = [
        *_title("API reference"),
        "The public API is the package map of :mod:`supermesh`: each name below is used as",
        "``supermesh.NAME`` and imported on first use. Every function of the map that takes a",
        "topology ``G`` also takes any networkx ``Graph``, ``DiGraph``, ``MultiGraph`` or",
        "``MultiDiGraph`` (converted by :func:`supermesh.from_networkx` with its defaults). The",
        "rooms (subpackages) list everything else a user or another room may import.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "   :caption: By task (the package map)",
        "",
        *[f"   {slug}" for slug in groups],
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "   :caption: By room",
        "",
        *[f"   {slug}" for slug in rooms],
    ]
    _write(folder / "index.rst", index)


def write_schema_list(docs: Path) -> None:
    """Write ``docs/_schemas.rst``: a link to, and a rendering of, each schema in ``docs/schemas``.

    The schemas are written with the formats they describe; a checkout without them says so.
    """
    schemas = sorted((docs / "schemas").glob("*.schema.json"))
    if not schemas:
        lines = [
            "(No schema files are in ``docs/schemas/`` of this checkout; the tables below describe",
            "every field.)",
            "",
        ]
    else:
        lines = []
        for path in schemas:
            rel = path.relative_to(docs).as_posix()
            name = path.name.removesuffix(".schema.json")
            lines += [
                f"``{name}``: :download:`{path.name} <{rel}>`",
                "",
                f".. literalinclude:: {rel}",
                "   :language: json",
                "",
            ]
    _write(docs / "_schemas.rst", lines)
