"""Units on the command line and in tables: sizes, energies, counted nouns.

Sizes: binary units (B, KiB, MiB, GiB, TiB, PiB; factor 1024) are what collective sizes are measured
in, as in the paper ("1 MB to 512 MB" means 2^20 to 2^29 bytes). Decimal units (kB/KB, MB, GB,
TB; factor 1000) mean what the SI says: ``--size 4mb`` is 4,000,000 bytes, and it is shown as
``4MB`` (never as 3906.25 KiB). A bare number is a byte count; ``k``, ``m``, ``g``, ``t`` alone
are binary (as in ``dd``). Units are case-insensitive (there are no bit sizes here). Only ASCII
digits are numbers; a size is at most :data:`MAX_BYTES`.
"""

from __future__ import annotations

import re
from fractions import Fraction

from supermesh.errors import SpecError

__all__ = [
    "MAX_BYTES",
    "format_energy",
    "format_size",
    "parse_size",
    "parse_size_list",
    "plural",
]

MAX_BYTES = 1 << 50
"""The largest data size accepted (1 PiB): larger numbers are typing slips, not collectives."""

_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
    "pib": 1 << 50,
    "k": 1 << 10,
    "m": 1 << 20,
    "g": 1 << 30,
    "t": 1 << 40,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
}
# ASCII digits only (`\d` would take '²' or Arabic-Indic digits); a whole part of more than 20
# significant digits is above MAX_BYTES in any unit, and is refused as that before `int` sees it
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]{1,20})?)\s*([a-zA-Z]{0,3})\s*$")
_MAX_DIGITS = 20
_HINT = "write a byte count or a number with B, KiB, MiB, GiB or TiB (KB, MB, GB: powers of 1000)"


def parse_size(text: str | int, *, what: str = "size") -> int:
    """Parse a data size into a whole number of bytes.

    Parameters
    ----------
    text : str or int
        ``"4MiB"``, ``"512 MiB"``, ``"1.5KiB"``, ``"375KiB"``, ``"1MB"`` (10^6), ``"4096"``, or an
        int (checked and returned). ``k``, ``m``, ``g``, ``t`` alone are binary (as in ``dd``).
    what : str
        How the message names the value (the option as typed, e.g. ``"--size"``).

    Returns
    -------
    int
        Bytes, from 1 to :data:`MAX_BYTES`.

    Raises
    ------
    SpecError
        If the text is not a size, the unit is unknown, the value is not a whole number of bytes,
        zero, or more than :data:`MAX_BYTES`.

    Examples
    --------
    >>> parse_size("4MiB")
    4194304
    >>> parse_size("1.5 KiB"), parse_size("4mb"), parse_size("64")
    (1536, 4000000, 64)
    >>> parse_size("1e9")
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: size '1e9' is not a number with a unit
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = _SIZE.match(str(text))
        shown = str(text) if len(str(text)) <= 40 else str(text)[:37] + "..."
        if not match:
            raise SpecError(f"{what} {shown!r} is not a number with a unit", hint=_HINT)
        number, unit = match.groups()
        factor = _UNITS.get(unit.lower())
        if factor is None:
            raise SpecError(f"{what} {shown!r} has an unknown unit {unit!r}", hint=_HINT)
        whole, point, fraction = number.partition(".")
        whole = whole.lstrip("0") or "0"  # leading zeros count against int's digit limit
        if len(whole) > _MAX_DIGITS:
            raise _too_large(what, shown)
        exact = Fraction(whole + point + fraction) * factor
        if exact.denominator != 1:
            raise SpecError(f"{what} {text!r} is not a whole number of bytes", hint=_HINT)
        value = int(exact)
    if value < 1:
        raise SpecError(f"{what} {text!r} must be at least 1 byte", hint=_HINT)
    if value > MAX_BYTES:
        raise _too_large(what, str(text))
    return value


def _too_large(what: str, shown: str) -> SpecError:
    return SpecError(
        f"{what} {shown!r} is more than {format_size(MAX_BYTES)} ({MAX_BYTES:,} bytes)",
        hint="collectives here are at most 1 PiB; check the number of digits",
    )


_BINARY = (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
_DECIMAL = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6))


def format_size(nbytes: int) -> str:
    """Format a byte count exactly, in the unit it was most likely written in.

    The largest binary unit that divides it (or leaves a half or a quarter); else, from 1 MB up,
    the largest decimal unit that gives at most three decimals; else bytes.
    :func:`parse_size` reads every result back to the same count.

    Examples
    --------
    >>> format_size(4194304), format_size(1536), format_size(1000)
    ('4MiB', '1.5KiB', '1000B')
    >>> format_size(384000), format_size(4_000_000), format_size(2**40)
    ('375KiB', '4MB', '1TiB')
    """
    # whole units first (4MB stays 4MB, not 3906.25KiB), then quarters and three decimals
    for binary_parts, decimal_parts in ((1, 1), (4, 1000)):
        for unit, factor in _BINARY:
            if nbytes >= factor and (nbytes * binary_parts) % factor == 0:
                return f"{nbytes / factor:g}{unit}"
        for unit, factor in _DECIMAL:
            if nbytes >= factor and (nbytes * decimal_parts) % factor == 0:
                return f"{nbytes / factor:g}{unit}"
    return f"{nbytes}B"


def parse_size_list(text: str, *, what: str = "sizes") -> list[int]:
    """``"1MiB,4MiB"`` or a doubling range ``"1MiB:512MiB"`` (both ends included) -> bytes.

    Raises
    ------
    SpecError
        An empty list, a size :func:`parse_size` refuses, or a range that runs backwards.

    Examples
    --------
    >>> parse_size_list("1KiB:4KiB"), parse_size_list("1MiB, 3MiB")
    ([1024, 2048, 4096], [1048576, 3145728])
    """
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ":" in part:
            lo_text, _, hi_text = part.partition(":")
            lo, hi = parse_size(lo_text, what=what), parse_size(hi_text, what=what)
            if hi < lo:
                raise SpecError(f"{what} range {part!r} runs backwards", hint="write LOW:HIGH")
            size = lo
            while size <= hi:
                out.append(size)
                size *= 2
        else:
            out.append(parse_size(part, what=what))
    if not out:
        raise SpecError(f"{what} {text!r} names no size", hint="e.g. 1MiB,4MiB or 1MiB:512MiB")
    return out


def format_energy(joules: float) -> str:
    """An energy with the SI prefix that puts it between 1 and 1000 (J, mJ, uJ, nJ, pJ).

    Examples
    --------
    >>> format_energy(0.0035187), format_energy(2.5), format_energy(4.2e-7), format_energy(0)
    ('3.519 mJ', '2.500 J', '420.0 nJ', '0 J')
    """
    if joules == 0:
        return "0 J"
    for unit, factor in (("J", 1.0), ("mJ", 1e-3), ("uJ", 1e-6), ("nJ", 1e-9)):
        if abs(joules) >= factor:
            value = joules / factor
            return f"{value:.4g} {unit}" if value >= 1000 else f"{value:#.4g} {unit}"
    return f"{joules / 1e-12:#.4g} pJ"


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one.

    Examples
    --------
    >>> plural(1, "tree"), plural(3, "arc"), plural(0, "row"), plural(2, "vertex", "vertices")
    ('1 tree', '3 arcs', '0 rows', '2 vertices')
    """
    word = noun if count == 1 else (plural_form or noun + "s")
    return f"{count:,} {word}" if abs(count) >= 10000 else f"{count} {word}"
