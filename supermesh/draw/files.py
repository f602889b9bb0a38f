"""Drawings as files: png, svg or pdf by extension, rendered in memory, reproducible.

:func:`figure_bytes` renders a Figure (with the numbers it shows under :data:`FACTS_KEY` in a
PNG), :func:`save_figure` writes it without ever leaving a partial file; svg and pdf carry no
creation date and svg's clip-path names are hashed with a fixed salt, so the same drawing gives
the same bytes.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure

from supermesh.errors import SupermeshError

__all__ = ["FACTS_KEY", "FIGURE_FORMATS", "figure_bytes", "figure_format", "save_figure"]

FIGURE_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")


def figure_format(path: str | Path) -> str:
    """The image format of ``path`` from its extension.

    Raises
    ------
    SupermeshError
        If the extension is not png, svg or pdf.

    Examples
    --------
    >>> figure_format("out/mesh.SVG")
    'svg'
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FIGURE_FORMATS:
        raise SupermeshError(
            f"cannot draw to {str(path)!r}: unknown image extension {ext or '(none)'!r}",
            hint=f"use a file name ending in {', '.join('.' + f for f in FIGURE_FORMATS)}",
        )
    return ext


FACTS_KEY = "supermesh-facts"
"""PNG text key under which :func:`save_figure` stores the numbers a picture shows (JSON)."""


def figure_bytes(
    fig: Figure, fmt: str, *, dpi: int = 150, facts: dict[str, Any] | None = None
) -> bytes:
    """``fig`` rendered as png, svg or pdf, in memory (so a command can build every file first).

    ``facts`` (PNG only): the numbers the picture shows, stored as JSON text under
    :data:`FACTS_KEY`, so a check can tell a stale image from its script without comparing
    pixels.

    Examples
    --------
    >>> from supermesh.draw.common import new_figure
    >>> fig, _ = new_figure(1, 1)
    >>> figure_bytes(fig, "png")[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    metadata: dict[str, Any] = dict(_metadata(fmt))
    if facts is not None and fmt == "png":
        metadata[FACTS_KEY] = json.dumps(facts, sort_keys=True)
    # svg names its clip paths by hashing a salt that is random unless set: a fixed salt makes
    # the names, and so the file, the same from run to run
    with rc_context({"svg.hashsalt": "supermesh"}):
        fig.savefig(buffer, format=fmt, dpi=dpi, bbox_inches="tight", metadata=metadata)
    return buffer.getvalue()


def save_figure(
    fig: Figure, path: str | Path, *, dpi: int = 150, facts: dict[str, Any] | None = None
) -> None:
    """Write ``fig`` to ``path`` (png/svg/pdf by extension); ``facts`` as in
    :func:`figure_bytes`.

    Rendered in memory, then written by :func:`supermesh.topologies.output.write_files`: a
    failed render leaves no partial file and never clobbers an existing one; the folder must
    exist; a new file gets the usual permissions (0666 less the umask).

    Raises
    ------
    SupermeshError
        On an unknown extension or a path that cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from supermesh.draw import draw_topology
    >>> from supermesh.topologies import build
    >>> path = Path(tempfile.mkdtemp()) / "mesh.svg"
    >>> save_figure(draw_topology(build("mesh:2x2")), path)
    >>> path.read_text()[:5]
    '<?xml'
    """
    from supermesh.topologies.output import write_files

    data = figure_bytes(fig, figure_format(path), dpi=dpi, facts=facts)
    write_files([(path, data)])


def _metadata(fmt: str) -> dict[str, str | None]:
    # reproducible files: no creation date in svg/pdf
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None}
    return {}
