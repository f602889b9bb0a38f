"""The resource caps every engine checks before large work: refuse early with the figure.

A run that would need more memory than :func:`memory_cap` (2 GiB by default; the environment
variable ``SUPERMESH_MAX_MEMORY`` sets another, as a size such as ``8GiB``) or more elementary
steps than :data:`MAX_STEPS` is refused before it starts, with a :class:`ResourceError` that
names the estimate, the cap and what to ask instead. The estimates are counted from the work
itself (array cells, transfers, table rows), not guessed from the inputs' names, so a cheap
request of any size (a pipelined collective of 1 TiB whose times repeat) still runs.
"""

from __future__ import annotations

import os

from supermesh.errors import ResourceError, SpecError
from supermesh.units import parse_size

__all__ = [
    "CELL_BYTES",
    "DEFAULT_MEMORY_CAP",
    "JSON_ARC_BYTES",
    "MAX_SECONDS",
    "MAX_STEPS",
    "check_memory",
    "check_seconds",
    "check_steps",
    "format_duration",
    "memory_cap",
]

DEFAULT_MEMORY_CAP = 2 << 30
"""Bytes one run may allocate for its largest arrays by default (2 GiB)."""

CELL_BYTES = 8
"""Bytes per float64 cell (one start or delivery time)."""

MAX_STEPS = 25_000_000
"""Elementary Python steps (transfers solved one by one, table rows written) one run may take:
about 2 minutes at the measured 5 us per transfer, the most a command spends without a limit."""


JSON_ARC_BYTES = 110
"""Bytes one tree arc takes in a JSON document and its text: ``trees smbi:32x32 --throughput``
(4,190,208 arcs) peaked at 566 MB with the document and 169 MB without, 48x48 (21,219,840
arcs) at 2.4 GB."""

MAX_SECONDS = 600.0
"""Seconds a part of a run without a limit of its own may be estimated to take (10 minutes, the
wall-clock safety net of a search with the default limit); above it the part is refused."""


def memory_cap() -> int:
    """The memory cap in bytes: ``SUPERMESH_MAX_MEMORY`` if set, else 2 GiB.

    Raises
    ------
    SpecError
        ``SUPERMESH_MAX_MEMORY`` is not a size.

    Examples
    --------
    >>> memory_cap() == DEFAULT_MEMORY_CAP or "SUPERMESH_MAX_MEMORY" in os.environ
    True
    """
    text = os.environ.get("SUPERMESH_MAX_MEMORY", "").strip()
    if not text:
        return DEFAULT_MEMORY_CAP
    try:
        return int(parse_size(text))
    except SpecError as exc:
        raise SpecError(
            f"SUPERMESH_MAX_MEMORY={text!r} is not a size", hint="e.g. SUPERMESH_MAX_MEMORY=8GiB"
        ) from exc


def check_memory(nbytes: float, what: str, hint: str) -> None:
    """Refuse work whose arrays would take more than :func:`memory_cap`.

    Parameters
    ----------
    nbytes : float
        The estimate, in bytes.
    what : str
        The work in the user's terms (``"the AllReduce's 1,342,177,320 transfer times"``).
    hint : str
        What to ask instead.

    Raises
    ------
    ResourceError
        Above the cap, naming the estimate and the cap.

    Examples
    --------
    >>> check_memory(1 << 20, "a small run", "none needed")
    >>> check_memory(1 << 40, "1 TiB of times", "ask for less")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: 1 TiB of times needs about 1,024.0 GiB of memory, above ...
    """
    cap = memory_cap()
    if nbytes > cap:
        raise ResourceError(
            f"{what} needs about {_gib(nbytes)} of memory, above the {_gib(cap)} cap",
            hint=f"{hint} (or raise the cap: SUPERMESH_MAX_MEMORY=8GiB)",
        )


def _gib(nbytes: float) -> str:
    if nbytes < 1 << 30:
        return f"{nbytes / (1 << 20):,.1f} MiB"
    return f"{nbytes / (1 << 30):,.1f} GiB"


def check_steps(steps: float, what: str, hint: str) -> None:
    """Refuse work of more than :data:`MAX_STEPS` elementary steps (minutes of CPU).

    Raises
    ------
    ResourceError
        Above the cap, naming the count.

    Examples
    --------
    >>> check_steps(1e9, "1e9 transfers one by one", "ask for less")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: 1e9 transfers one by one is 1,000,000,000 steps, above ...
    """
    if steps > MAX_STEPS:
        raise ResourceError(
            f"{what} is {int(steps):,} steps, above the {MAX_STEPS:,} a run may take", hint=hint
        )


def format_duration(seconds: float) -> str:
    """Seconds as a person reads them: ``45 s``, ``19 min``, ``3.6 h``.

    Examples
    --------
    >>> format_duration(45.2), format_duration(1131), format_duration(12800)
    ('45 s', '19 min', '3.6 h')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def check_seconds(seconds: float, what: str, hint: str, cap: float = MAX_SECONDS) -> None:
    """Refuse work estimated to take longer than ``cap`` seconds on the reference machine.

    The estimate is counted from the work (sizes, transfers), never from the clock, so the same
    request is refused or run the same way on any machine.

    Parameters
    ----------
    seconds : float
        The estimate.
    what : str
        The work in the user's terms.
    hint : str
        What to ask instead.
    cap : float
        The most it may take (default :data:`MAX_SECONDS`).

    Raises
    ------
    ResourceError
        Above the cap, naming the estimate and the cap.

    Examples
    --------
    >>> check_seconds(30, "a small search", "none needed")
    >>> check_seconds(12800, "a wafer-scale search", "ask for less")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: a wafer-scale search takes about 3.6 h on 2 cores, above ...
    """
    if seconds > cap:
        raise ResourceError(
            f"{what} takes about {format_duration(seconds)} on 2 cores, above the "
            f"{format_duration(cap)} it may run",
            hint=hint,
        )
