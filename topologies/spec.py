"""Spec strings: one short name for every topology, on the command line and in the API.

Grammar::

    SPEC   := FAMILY ":" SIZE ("," KEY "=" VALUE)*   |   PATH (.json .graphml .dot .gv .anynet)
    SIZE   := ROWS "x" COLS  |  N (same as NxN)       (grid families)
            | "r" RADIUS     |  L1 "-" L2 "-" ...     (hexamesh: full hexagon or row lengths)

Examples: ``smbi:8x8``, ``smalter:5x5``, ``smalter:5x5,corners=4``, ``partial-smalter:6x6,io=east``,
``smuni:4x4,dir=ccw``, ``hexamesh:r2``, ``hexamesh:3-4-3``, ``mesh:4x4,memory=south+north``.
Every family also takes the link-cost options of :mod:`supermesh.topologies.costs`
(``latency=2``, ``added-latency=2``, ``mesh-bandwidth=0.5``, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies import grid

__all__ = ["FAMILIES", "Family", "build", "parse_spec"]


def _int_opt(name: str, allowed: tuple[int, ...]) -> Callable[[str], int]:
    def parse(value: str) -> int:
        if not value.isdigit() or int(value) not in allowed:
            raise SpecError(f"option {name}={value!r} is not one of {', '.join(map(str, allowed))}")
        return int(value)

    return parse


def _choice_opt(name: str, allowed: tuple[str, ...]) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value not in allowed:
            raise SpecError(f"option {name}={value!r} is not one of {', '.join(allowed)}")
        return value

    return parse


def _sides_opt(value: str) -> list[str]:
    sides = [s for s in value.split("+") if s]
    bad = [s for s in sides if s not in grid.SIDES]
    if not sides or bad:
        raise SpecError(
            f"memory={value!r} is not a '+'-joined list of sides",
            hint="e.g. memory=south or memory=south+north (sides: north, east, south, west)",
        )
    return sides


_SIDE = _choice_opt("io", grid.SIDES)
_CONC = ("conc", _int_opt("conc", (1, 4)))


@dataclass(frozen=True)
class Family:
    """A topology family the spec grammar knows.

    Attributes
    ----------
    name : str
        Name in a spec (``smbi``).
    size : {"grid", "hex"}
        Size grammar: ``RxC`` or hexamesh rows.
    build : callable
        ``build(rows, cols, **options)`` for grid families, ``build(row_lengths, **options)``
        for hex.
    options : dict
        Option name -> parser of its string value, passed to ``build`` under ``argname``.
    summary : str
        One line for help texts.
    memory : bool
        Whether ``memory=SIDES`` may be attached.
    """

    name: str
    size: str
    build: Callable[..., nx.MultiDiGraph]
    summary: str
    options: dict[str, tuple[str, Callable[[str], Any]]] = field(default_factory=dict)
    memory: bool = False


def _lazy(module: str, func: str) -> Callable[..., nx.MultiDiGraph]:
    # import on first use so that `supermesh topo mesh:4x4` does not load every generator
    def call(*args: Any, **kwargs: Any) -> nx.MultiDiGraph:
        import importlib

        mod = importlib.import_module(f"supermesh.topologies.{module}")
        result: nx.MultiDiGraph = getattr(mod, func)(*args, **kwargs)
        return result

    return call


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family("mesh", "grid", grid.mesh, "2D mesh", memory=True),
        Family("smbi", "grid", grid.smbi, "SuperMeshBi: every perimeter link doubled", memory=True),
        Family(
            "smalter",
            "grid",
            grid.smalter,
            "SuperMeshAlter: every other perimeter link doubled (corners=4 for odd sizes)",
            {"corners": ("corners", _int_opt("corners", (3, 4)))},
            memory=True,
        ),
        Family(
            "partial-smbi",
            "grid",
            grid.partial_smbi,
            "SMBi on three sides, io=SIDE left for I/O",
            {"io": ("io", _SIDE)},
            memory=True,
        ),
        Family(
            "partial-smalter",
            "grid",
            grid.partial_smalter,
            "SMAlter on three sides, io=SIDE left for I/O",
            {"io": ("io", _SIDE)},
            memory=True,
        ),
        Family(
            "smuni",
            "grid",
            grid.smuni,
            "SuperMeshUni: one-way extra arcs round the perimeter (dir=cw|ccw)",
            {"dir": ("direction", _choice_opt("dir", ("cw", "ccw")))},
            memory=True,
        ),
        Family("torus", "grid", grid.torus, "2D torus (wrap-around rows and columns)"),
        Family(
            "hexamesh",
            "hex",
            _lazy("hexamesh", "hexamesh"),
            "HexaMesh brick wall (Iff et al., DAC 2023): rR or row lengths a-b-c",
            memory=True,
        ),
        Family(
            "folded-torus",
            "grid",
            _lazy("interposer", "folded_torus"),
            "folded torus: rings i<->i+2 plus end pairs (conc=4: 4 chiplets per router)",
            {"conc": _CONC},
        ),
        Family(
            "kite-small",
            "grid",
            _lazy("interposer", "kite_small"),
            "Kite-Small (Bharadwaj et al., DAC 2020): diagonals, then unit links; conc=4",
            {"conc": _CONC},
        ),
        Family(
            "kite-medium",
            "grid",
            _lazy("interposer", "kite_medium"),
            "Kite-Medium: length-2 links, diagonals, unit links; conc=4",
            {"conc": _CONC},
        ),
        Family(
            "double-butterfly",
            "grid",
            _lazy("interposer", "double_butterfly"),
            "Double Butterfly (Kannan et al., MICRO 2015): row chains + XOR cross links; conc=4",
            {"conc": _CONC},
        ),
        Family(
            "butterdonut",
            "grid",
            _lazy("interposer", "butterdonut"),
            "ButterDonut: folded row rings + butterfly cross links; conc=4",
            {"conc": _CONC},
        ),
        Family("cmesh", "grid", _lazy("interposer", "cmesh"), "concentrated mesh, 4 per router"),
    ]
}

_GRID = re.compile(r"^(\d+)(?:x(\d+))?$")
_HEX_R = re.compile(r"^r(\d+)$")
_HEX_ROWS = re.compile(r"^\d+(?:-\d+)+$")

_FILE_SUFFIXES = (".json", ".graphml", ".dot", ".gv", ".anynet")

MAX_CHIPLETS = 65536
"""Largest number of compute chiplets a spec may ask for (guards against typos like 6400x6400)."""

_FORMS = "FAMILY:RxC[,opt=value...] (e.g. smbi:8x8, hexamesh:r2, mesh:4x4,memory=south)"


def _family(name: str) -> Family:
    if name not in FAMILIES:
        raise SpecError(
            f"unknown topology {name!r}", hint=f"use one of: {', '.join(sorted(FAMILIES))}"
        )
    return FAMILIES[name]


def parse_spec(spec: str) -> tuple[Family, tuple[Any, ...], dict[str, Any], list[str]]:
    """Split a spec string into its family, size arguments, options and memory sides.

    Returns
    -------
    family : Family
    size : tuple
        ``(rows, cols)`` for grid families, ``(row_lengths,)`` for hexamesh.
    options : dict
        Keyword arguments for the family's generator.
    memory : list of str
        Sides that get memory chiplets (empty if none).

    Raises
    ------
    SpecError
        On a malformed spec, unknown family or option, or bad option value.

    Examples
    --------
    >>> fam, size, opts, mem = parse_spec("partial-smalter:6x6,io=east")
    >>> fam.name, size, opts, mem
    ('partial-smalter', (6, 6), {'io': 'east'}, [])
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise SpecError(f"malformed topology spec {spec!r}", hint=f"use {_FORMS}")
    name, _, rest = spec.strip().partition(":")
    family = _family(name.strip().lower())
    size_text, *option_texts = [p.strip() for p in rest.split(",")]
    size: tuple[Any, ...]
    if family.size == "grid":
        m = _GRID.match(size_text)
        if not m:
            raise SpecError(
                f"size {size_text!r} in {spec!r} is not RxC or N", hint=f"e.g. {name}:4x4"
            )
        rows = int(m.group(1))
        size = (rows, int(m.group(2)) if m.group(2) else rows)
        _check_chiplets(size[0] * size[1], spec)
    else:
        if _HEX_R.match(size_text):
            radius = int(size_text[1:])
            if radius < 1:
                raise SpecError("hexamesh radius must be at least 1", hint="e.g. hexamesh:r2")
            _check_chiplets(3 * radius * (radius + 1) + 1, spec)
            size = ([*range(radius + 1, 2 * radius + 2), *range(2 * radius, radius, -1)],)
        elif _HEX_ROWS.match(size_text) or size_text.isdigit():
            size = ([int(x) for x in size_text.split("-")],)
            _check_chiplets(sum(size[0]), spec)
        else:
            raise SpecError(
                f"hexamesh size {size_text!r} is neither rR nor row lengths like 3-4-3",
                hint="e.g. hexamesh:r2 or hexamesh:3-4-3",
            )
    options: dict[str, Any] = {}
    memory: list[str] = []
    for text in option_texts:
        key, eq, value = text.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise SpecError(f"option {text!r} in {spec!r} is not key=value", hint=f"use {_FORMS}")
        if key == "memory" and family.memory:
            memory = _sides_opt(value)
        elif key in family.options:
            argname, parser = family.options[key]
            options[argname] = parser(value)
        else:
            known = sorted(family.options) + (["memory"] if family.memory else [])
            raise SpecError(
                f"unknown option {key!r} for {family.name}",
                hint=f"{family.name} accepts: {', '.join(known) or 'no options'}",
            )
    return family, size, options, memory


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # names too long or with NUL bytes are not files
        return False


def _check_chiplets(count: int, spec: str) -> None:
    if count > MAX_CHIPLETS:
        raise SpecError(
            f"{spec!r} asks for {count} chiplets, more than the {MAX_CHIPLETS} supported",
            hint="use a smaller size (64x64 = 4096 chiplets is the largest size benchmarked)",
        )


def build(spec: str | Path, *, format: str | None = None) -> nx.MultiDiGraph:
    """Build the topology a spec string names, or read a topology file.

    Parameters
    ----------
    spec : str or Path
        A spec (see the module docstring) or the path of a topology file: JSON written by
        :func:`supermesh.topologies.write_topology`, GraphML, DOT or BookSim anynet (see
        :func:`supermesh.topologies.formats.read_topology`).
    format : str, optional
        The file's format when its extension does not say (``json``, ``graphml``, ``dot``,
        ``anynet``); only for files.

    Returns
    -------
    networkx.MultiDiGraph
        The topology, with the attributes documented in :mod:`supermesh.topologies.model`.

    Raises
    ------
    SpecError
        Malformed spec, unknown family or option, size too small; a ``format`` for a spec.
    InputFileError
        A path that cannot be read or parsed.

    Examples
    --------
    >>> G = build("smbi:4x4")
    >>> G.graph["spec"], G.number_of_nodes(), G.number_of_edges()
    ('smbi:4x4', 16, 72)
    """
    text = str(spec)
    if isinstance(spec, Path) or text.lower().endswith(_FILE_SUFFIXES) or _is_file(text):
        from supermesh.topologies.formats.read import read_topology

        return read_topology(text, format)
    if format is not None:
        raise SpecError(
            f"a format ({format}) was given, but {text!r} is not a file",
            hint="check the path; a spec such as smbi:4x4 takes no format",
        )
    from supermesh.topologies.costs import set_link_costs, split_cost_options

    text, costs = split_cost_options(text)
    family, size, options, memory = parse_spec(text)
    G = family.build(*size, **options)
    if memory:
        from supermesh.topologies.memory import attach_memory

        G = attach_memory(G, memory)
    return set_link_costs(G, costs)
