"""Data sizes on the command line and in tables: ``parse_size("4MiB")`` and ``format_size``.

Binary units (B, KiB, MiB, GiB, TiB; factor 1024) are what collective sizes are measured in, as in
the paper ("1 MB to 512 MB" means 2^20 to 2^29 bytes). Decimal units (kB/KB, MB, GB, TB; factor
1000) are accepted as well and mean what the SI says; ``format_size`` always prints binary units.
A bare number is a byte count. Units are case-insensitive except that ``b`` alone is taken as
bytes (there are no bit sizes here).
"""

from __future__ import annotations

import re

from supermesh.errors import SpecError

__all__ = ["format_size", "parse_size", "parse_size_list"]

_UNITS: dict[str, int] = {
    "": 1,
    "b": 1,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
    "k": 1 << 10,
    "m": 1 << 20,
    "g": 1 << 30,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_HINT = "write a byte count or a number with B, KiB, MiB or GiB (or KB, MB, GB: powers of 1000)"


def parse_size(text: str | int) -> int:
    """Parse a data size into a whole number of bytes.

    Parameters
    ----------
    text : str or int
        ``"4MiB"``, ``"512 MiB"``, ``"1.5KiB"``, ``"375KiB"``, ``"1MB"`` (10^6), ``"4096"``, or an
        int (returned as is). ``k``, ``m``, ``g`` alone are binary (as in ``dd``).

    Returns
    -------
    int
        Bytes, at least 1.

    Raises
    ------
    SpecError
        If the text is not a size, the unit is unknown, the value is not a whole number of bytes,
        or it is zero.

    Examples
    --------
    >>> parse_size("4MiB")
    4194304
    >>> parse_size("1.5 KiB"), parse_size("1MB"), parse_size("64")
    (1536, 1000000, 64)
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = _SIZE.match(str(text))
        if not match:
            raise SpecError(f"size {text!r} is not a number with a unit", hint=_HINT)
        number, unit = match.groups()
        factor = _UNITS.get(unit.lower())
        if factor is None:
            raise SpecError(f"size {text!r} has an unknown unit {unit!r}", hint=_HINT)
        exact = float(number) * factor
        if exact != int(exact):
            raise SpecError(f"size {text!r} is not a whole number of bytes", hint=_HINT)
        value = int(exact)
    if value < 1:
        raise SpecError(f"size {text!r} must be at least 1 byte", hint=_HINT)
    return value


def format_size(nbytes: int) -> str:
    """Format a byte count with the largest binary unit that divides it exactly.

    Examples
    --------
    >>> format_size(4194304), format_size(1536), format_size(1000)
    ('4MiB', '1.5KiB', '1000B')
    >>> format_size(384000)
    '375KiB'
    """
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            value = nbytes / factor
            if nbytes % factor == 0:
                return f"{nbytes // factor}{unit}"
            if (nbytes * 2) % factor == 0 or (nbytes * 4) % factor == 0:
                return f"{value:g}{unit}"
    return f"{nbytes}B"


def parse_size_list(text: str) -> list[int]:
    """``"1MiB,4MiB"`` or a doubling range ``"1MiB:512MiB"`` (both ends included) -> bytes.

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
            lo, hi = parse_size(lo_text), parse_size(hi_text)
            if hi < lo:
                raise SpecError(f"size range {part!r} runs backwards", hint="write LOW:HIGH")
            size = lo
            while size <= hi:
                out.append(size)
                size *= 2
        else:
            out.append(parse_size(part))
    return out
