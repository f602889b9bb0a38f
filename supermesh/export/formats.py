"""Which format a file is written in: ``--format`` if given, else the file's extension."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from supermesh.errors import SpecError

__all__ = ["format_for"]


def format_for(path: str, fmt: str | None, extensions: Mapping[str, str]) -> str:
    """The format of ``path``: ``fmt`` when given, else the one its extension names.

    Parameters
    ----------
    path : str
        The output file.
    fmt : str or None
        The format as given (``--format``), which wins.
    extensions : mapping
        Extension without the dot (lower case) -> format name.

    Returns
    -------
    str

    Raises
    ------
    SpecError
        No ``fmt`` and an extension that names no format.

    Examples
    --------
    >>> format_for("t.GV", None, {"dot": "dot", "gv": "dot"})
    'dot'
    """
    if fmt:
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in extensions:
        names = sorted(set(extensions.values()))
        known = ", ".join(f".{e}" for e in extensions)
        raise SpecError(
            f"cannot tell the format of {path!r} from its extension",
            hint=f"use {known}, or pass --format {'|'.join(names)}",
        )
    return extensions[suffix]
