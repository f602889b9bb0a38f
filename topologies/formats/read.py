"""The one place that reads a topology file: by ``format=``, by extension, or by its first words.

=========  ====================  =============================================================
format     extensions            reader
=========  ====================  =============================================================
json       ``.json``             :func:`supermesh.topologies.io.from_json` (lossless)
graphml    ``.graphml``          :func:`~supermesh.topologies.formats.graphml.read_graphml`
dot        ``.dot``, ``.gv``     :func:`~supermesh.topologies.formats.dot.read_dot`
anynet     ``.anynet``           :func:`~supermesh.topologies.formats.anynet.read_anynet`
=========  ====================  =============================================================

A file with another extension (BookSim's ``anynet_file`` has none) is recognised by its first
words: ``{`` is JSON, ``<graphml`` GraphML, ``graph`` / ``digraph`` / ``strict`` DOT, ``router``
/ ``node`` anynet.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError, SpecError
from supermesh.topologies.io import from_json, read_json_file, read_text_file

__all__ = ["EXTENSIONS", "INPUT_FORMATS", "format_of", "read_topology"]

INPUT_FORMATS: tuple[str, ...] = ("json", "graphml", "dot", "anynet")
"""The formats a topology is read from."""

EXTENSIONS: dict[str, str] = {
    ".json": "json",
    ".graphml": "graphml",
    ".dot": "dot",
    ".gv": "dot",
    ".anynet": "anynet",
}
"""File extension (lower case) -> format."""

_COMMENTS = re.compile(r"\A(?:\s+|//[^\n]*\n?|/\*.*?\*/|#[^\n]*\n?)*", re.DOTALL)


def _sniff(text: str) -> str | None:
    head = text.lstrip("\ufeff")
    if head.lstrip().startswith("{"):
        return "json"
    if head.lstrip().startswith("<"):
        return "graphml" if "<graphml" in head[:4096] else None
    words = head[_COMMENTS.match(head).end() :].split(None, 1)  # type: ignore[union-attr]
    first = words[0].lower() if words else ""
    if first in ("graph", "digraph", "strict"):
        return "dot"
    if first in ("router", "node"):
        return "anynet"
    return None


def format_of(path: str | Path, text: str | None = None) -> str:
    """The format of a topology file: by its extension, else by its first words.

    Parameters
    ----------
    path : str or Path
    text : str, optional
        The file's text, to recognise a file whose extension names no format.

    Returns
    -------
    str
        One of :data:`INPUT_FORMATS`.

    Raises
    ------
    InputFileError
        Neither the extension nor the text tells.

    Examples
    --------
    >>> format_of("chip.GV"), format_of("anynet_file", "router 0 node 0 router 1")
    ('dot', 'anynet')
    """
    suffix = Path(path).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    found = _sniff(text) if text is not None else None
    if found is None:
        raise InputFileError(
            f"cannot tell the format of {path}: the extension {suffix or '(none)'} names none "
            "and the text does not look like one",
            hint=f"name the format (--input-format {'|'.join(INPUT_FORMATS)}) or use one of "
            + ", ".join(EXTENSIONS),
        )
    return found


def read_topology(path: str | Path, format: str | None = None, **options: Any) -> nx.MultiDiGraph:
    """Read a topology file in any of :data:`INPUT_FORMATS`.

    Parameters
    ----------
    path : str or Path
    format : str, optional
        The format; default by extension, else by the file's first words.
    **options
        For GraphML and DOT: the options of
        :func:`~supermesh.topologies.formats.convert.from_networkx` (attribute names,
        ``multiplicity``, defaults); for anynet: ``relays`` and ``cycles_per_unit``. A JSON
        file takes none.

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        Unreadable, of an unknown format, or wrong (the line or element named).
    TopologyError
        A value that is not valid for a topology (the node or edge named).
    SpecError
        An unknown format name, or options a format does not take.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from supermesh.export import export_text
    >>> from supermesh.topologies import build, to_json
    >>> G = build("smalter:4x4")
    >>> folder = Path(tempfile.mkdtemp())
    >>> for fmt in ("json", "graphml", "dot"):
    ...     _ = (folder / f"t.{fmt}").write_text(export_text(G, fmt))
    ...     print(fmt, to_json(read_topology(folder / f"t.{fmt}")) == to_json(G))
    json True
    graphml True
    dot True
    """
    if format is not None and format not in INPUT_FORMATS:
        raise SpecError(
            f"unknown topology format {format!r}", hint=f"use one of: {', '.join(INPUT_FORMATS)}"
        )
    text = None
    fmt = format
    if fmt is None and Path(path).suffix.lower() not in EXTENSIONS:
        text = read_text_file(path)
        fmt = format_of(path, text)
    fmt = fmt or format_of(path)
    source = str(path)
    if fmt == "json":
        if options:
            raise SpecError(
                f"topology JSON takes no reading options (got {', '.join(sorted(options))})"
            )
        return from_json(read_json_file(path), source=source)
    if fmt == "anynet":
        from supermesh.topologies.formats.anynet import anynet_topology

        unknown = set(options) - {"relays", "cycles_per_unit"}
        if unknown:
            raise SpecError(f"anynet takes relays and cycles_per_unit, not {sorted(unknown)}")
        text = text if text is not None else read_text_file(path)
        return anynet_topology(text, source=source, **options)
    if fmt == "graphml":
        from supermesh.topologies.formats.graphml import graphml_topology as topology
    else:
        from supermesh.topologies.formats.dot import dot_topology as topology
    return topology(text if text is not None else read_text_file(path), source=source, **options)
