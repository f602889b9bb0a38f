"""Topology JSON (lossless), and the careful file readers every input format shares.

JSON layout (``format: "supermesh-topology"``, ``version: 1``)::

    {"format": "supermesh-topology", "version": 1,
     "name": ..., "spec": ..., "family": ..., "rows": ..., "cols": ..., "params": {...},
     "nodes": [{"id": 0, "kind": "compute", "pos": [x, y], "row": 0, "col": 0}, ...],
                                  # optional "label": the node's name in the file it came from
     "arcs":  [{"src": 0, "dst": 1, "key": 0, "cls": "mesh", "bandwidth": 1.0,
                "latency": 1.0}, ...],
     "metrics": {...}}            # optional, written for people, ignored on read

A doubled link gives two arc objects per direction (keys 0 and 1). Reading back gives a topology
identical to the one written (same nodes, arcs, keys and attributes). The other formats a topology
is read from (GraphML, DOT, BookSim anynet) are in :mod:`supermesh.topologies.formats`, which
dispatches on the format; every one reads its file with :func:`read_text_file`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS, arcs, new_topology

__all__ = [
    "MAX_FILE_BYTES",
    "from_json",
    "read_json_file",
    "read_text_file",
    "to_json",
    "write_text_atomic",
    "write_topology",
]

FORMAT = "supermesh-topology"


def to_json(G: nx.MultiDiGraph, *, metrics: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the JSON-ready dict of a topology (see the module docstring for the layout).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> doc = to_json(build("smbi:2x2"))
    >>> len(doc["nodes"]), len(doc["arcs"])
    (4, 16)
    """
    g = G.graph
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": 1,
        "name": g.get("name", ""),
        "spec": g.get("spec", ""),
        "family": g.get("family", ""),
        "rows": g.get("rows"),
        "cols": g.get("cols"),
        "params": dict(g.get("params", {})),
        "nodes": [_node_json(n, d) for n, d in sorted(G.nodes(data=True))],
        "arcs": [
            {
                "src": u,
                "dst": v,
                "key": k,
                "cls": G.edges[u, v, k]["cls"],
                "bandwidth": float(G.edges[u, v, k]["bandwidth"]),
                "latency": float(G.edges[u, v, k]["latency"]),
            }
            for u, v, k in arcs(G)
        ],
    }
    if metrics is not None:
        doc["metrics"] = metrics
    return doc


def _node_json(node: int, d: dict[str, Any]) -> dict[str, Any]:
    out = {
        "id": int(node),
        "kind": d["kind"],
        "pos": [float(d["pos"][0]), float(d["pos"][1])],
        "row": d.get("row"),
        "col": d.get("col"),
    }
    if d.get("label") is not None:  # the name the node had in the file or graph it came from
        out["label"] = str(d["label"])
    return out


def _field(obj: dict[str, Any], name: str, where: str) -> Any:
    if not isinstance(obj, dict) or name not in obj:
        raise InputFileError(f"{where} lacks the field {name!r}")
    return obj[name]


def _list_field(obj: dict[str, Any], name: str, where: str) -> list[Any]:
    value = _field(obj, name, where)
    if not isinstance(value, list):
        raise InputFileError(f"{where} field {name!r} is not a list")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputFileError(f"{where} has a non-numeric value {value!r}")
    return float(value)


def from_json(doc: dict[str, Any], *, source: str = "topology JSON") -> nx.MultiDiGraph:
    """Rebuild a topology from :func:`to_json` output.

    Raises
    ------
    InputFileError
        If a required field is missing, a kind or class is unknown, an arc names a missing node,
        or an arc key is repeated.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("smalter:4x4")
    >>> to_json(from_json(to_json(G))) == to_json(G)
    True
    """
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputFileError(
            f"{source} is not a supermesh topology (format field is not {FORMAT!r})",
            hint="write one with `supermesh topo SPEC -o FILE.json`",
        )
    G = new_topology(
        str(doc.get("family", "file")),
        str(doc.get("spec", "")),
        str(doc.get("name", "")),
        rows=doc.get("rows"),
        cols=doc.get("cols"),
        params=doc["params"] if isinstance(doc.get("params"), dict) else {},
    )
    for i, nd in enumerate(_list_field(doc, "nodes", source)):
        where = f"{source} node #{i}"
        node = _field(nd, "id", where)
        kind = nd.get("kind", "compute")
        pos = nd.get("pos", [0.0, 0.0])
        if not isinstance(node, int) or node in G:
            raise InputFileError(f"{where} has a bad or repeated id {node!r}")
        if kind not in NODE_KINDS:
            raise InputFileError(f"{where} has unknown kind {kind!r}", hint=f"use {NODE_KINDS}")
        if not (isinstance(pos, list) and len(pos) == 2):
            raise InputFileError(f"{where} has a bad pos {pos!r}", hint="use [x, y]")
        G.add_node(
            node,
            kind=kind,
            pos=(_number(pos[0], where), _number(pos[1], where)),
            row=nd.get("row"),
            col=nd.get("col"),
        )
        if "label" in nd:
            if not isinstance(nd["label"], str):
                raise InputFileError(f"{where} has a label that is not a string")
            G.nodes[node]["label"] = nd["label"]
    for i, ad in enumerate(_list_field(doc, "arcs", source)):
        where = f"{source} arc #{i}"
        u, v, k = (_field(ad, f, where) for f in ("src", "dst", "key"))
        cls = ad.get("cls", "mesh")
        if u not in G or v not in G:
            raise InputFileError(f"{where} ({u}->{v}) names a node that does not exist")
        if not isinstance(k, int) or G.has_edge(u, v, k):
            raise InputFileError(f"{where} ({u}->{v}) has a bad or repeated key {k!r}")
        if cls not in ARC_CLASSES:
            raise InputFileError(f"{where} has unknown cls {cls!r}", hint=f"use {ARC_CLASSES}")
        G.add_edge(
            u,
            v,
            key=k,
            cls=cls,
            bandwidth=_number(ad.get("bandwidth", 1.0), where),
            latency=_number(ad.get("latency", 1.0), where),
        )
    if not G.graph["spec"]:
        G.graph["spec"] = source
    return G


MAX_FILE_BYTES = 1 << 30
"""The largest file :func:`read_json_file` reads (1 GiB): a tree file of a 64 x 64 throughput
packing is a few hundred MiB; anything bigger is not a file this tool wrote."""

_PICTURES = (".png", ".svg", ".pdf", ".jpg", ".jpeg", ".gif")
_EXPORT_SUFFIXES = (".csv", ".xml")
_TOPOLOGY_FORMATS = (".dot", ".gv", ".graphml", ".anynet")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:20]} is too large for a float")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _kind_hint(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in _PICTURES:
        return f"{path.name} looks like a picture; give the .json file the tool wrote"
    if suffix in _EXPORT_SUFFIXES:
        return (
            f"supermesh reads its own JSON files; a {suffix} export cannot be read back: "
            "write the file again with a .json name"
        )
    if suffix in _TOPOLOGY_FORMATS:
        return (
            f"a {suffix} file is read where a topology is asked for (SPEC); here a JSON file "
            "written by supermesh is needed"
        )
    return "give a JSON file written by supermesh (`topo -o`, `trees -o`, `schedule -o`)"


def read_text_file(
    path: str | Path, *, max_bytes: int = MAX_FILE_BYTES, hint: str | None = None
) -> str:
    """Read a UTF-8 text file the tool is given, refusing what cannot be one.

    Only a regular file is read (a symlink to one is followed; a device, FIFO or directory is
    refused before it is opened), at most ``max_bytes`` of it; a file with NUL bytes near its
    start (a picture, an archive) or one that is not UTF-8 is refused with the offset.

    Parameters
    ----------
    path : str or Path
    max_bytes : int
        The size cap (default :data:`MAX_FILE_BYTES`).
    hint : str, optional
        The hint for a file that is not text (default: one that names the file's kind).

    Returns
    -------
    str
        The file's text.

    Raises
    ------
    InputFileError
        Anything but a readable regular UTF-8 text file, with a hint.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".dot", delete=False) as f:
    ...     _ = f.write(b"graph { a -- b }")
    >>> read_text_file(f.name)
    'graph { a -- b }'
    """
    target = Path(path)
    try:
        st = os.stat(target)
    except OSError as exc:
        raise InputFileError(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="check the path (a file written by `supermesh ... -o FILE`)",
        ) from None
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise InputFileError(
            f"cannot read {path}: it is {what}", hint="give a file written by supermesh"
        )
    if st.st_size > max_bytes:
        raise InputFileError(
            f"{path} is {st.st_size:,} bytes, more than the {max_bytes:,} bytes this tool reads",
            hint="this is not a file supermesh wrote; check the path",
        )
    try:
        with open(target, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise InputFileError(f"{path} grew beyond {max_bytes:,} bytes while being read")
    if b"\0" in data[:8192]:
        raise InputFileError(f"{path} is a binary file, not text", hint=hint or _kind_hint(target))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint=hint or _kind_hint(target),
        ) from None


def read_json_file(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Read and parse a JSON file the tool wrote (or a person wrote by hand), refusing the rest.

    The file is read by :func:`read_text_file` (regular files only, a size cap, UTF-8). The text
    must be strict JSON: ``NaN`` / ``Infinity`` literals, numbers too large for a float,
    integers of thousands of digits, repeated keys in one object and nesting too deep to parse
    are refused, each with the place it occurs.

    Parameters
    ----------
    path : str or Path
    max_bytes : int
        The size cap (default :data:`MAX_FILE_BYTES`).

    Returns
    -------
    object
        The parsed document.

    Raises
    ------
    InputFileError
        Anything but a readable regular file holding one strict JSON document, with a hint.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    ...     _ = f.write('{"a": 1, "a": 2}')
    >>> read_json_file(f.name)
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: ... is not valid JSON: the key 'a' appears twice in one object
    """
    target = Path(path)
    text = read_text_file(target, max_bytes=max_bytes)
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            hint=_kind_hint(target)
            if target.suffix.lower() in _PICTURES + _EXPORT_SUFFIXES + _TOPOLOGY_FORMATS
            else "was the file cut short or edited by hand?",
        ) from None
    except RecursionError:
        raise InputFileError(
            f"{path} is nested too deeply to be a supermesh file", hint=_kind_hint(target)
        ) from None
    except ValueError as exc:  # a hook's refusal, or an integer of too many digits
        reason = str(exc)
        if "integer string conversion" in reason:
            reason = f"an integer has more than {sys.get_int_max_str_digits()} digits"
        raise InputFileError(
            f"{path} is not valid JSON: {reason}", hint="was the file edited by hand?"
        ) from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    An interrupted or failed write never leaves a partial file and never clobbers an existing one.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise SupermeshError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_topology(
    G: nx.MultiDiGraph, path: str | Path, *, metrics: dict[str, Any] | None = None
) -> None:
    """Write a topology as JSON (atomically; see :func:`write_text_atomic`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from supermesh.topologies import build, read_topology
    >>> path = Path(tempfile.mkdtemp()) / "smbi.json"
    >>> write_topology(build("smbi:4x4"), path)
    >>> read_topology(path).number_of_edges()
    72
    """
    write_text_atomic(path, json.dumps(to_json(G, metrics=metrics), indent=1) + "\n")
