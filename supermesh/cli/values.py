"""The one validator of every value typed on the command line.

A number is read here and only here: ASCII digits (``'²'`` and other Unicode digits are refused),
a bounded count of digits (no 5,000-digit integers reach ``int``), finite (``nan``, ``inf``
refused), inside the option's range; a refusal names the option as typed (``--time-limit``,
``--min-rate``) and says what it takes. The same holds for data sizes
(:func:`supermesh.units.parse_size`), output paths (an empty ``-o ''`` is refused) and scheduler
addresses. The options built from these types are declared once in :mod:`supermesh.cli.options`.
"""

from __future__ import annotations

import math
import re
from typing import Any

import click

from supermesh.errors import SpecError
from supermesh.units import parse_size, parse_size_list

__all__ = [
    "Choice",
    "Integer",
    "OutputPath",
    "Real",
    "Scheduler",
    "Size",
    "SizeList",
    "option_name",
    "shown",
]

_INT = re.compile(r"[+-]?[0-9]{1,30}")
_REAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def option_name(param: click.Parameter | None) -> str:
    """The option as a user writes it in full (``--time-limit``), or the argument's name."""
    if param is None:
        return "value"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "value").upper()


def shown(value: Any) -> str:
    """A typed value for a message: quoted, cut at 40 characters."""
    text = str(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


class Choice(click.Choice):
    """One of fixed names, in any case (``-c AllGather``, ``--preset BOOKSIM``), as specs are.

    The value passed on is the name as declared, so commands compare lower case only.

    Examples
    --------
    >>> Choice(["allgather", "reduce"]).convert("AllGather", None, None)
    'allgather'
    """

    def __init__(self, choices: Any) -> None:
        super().__init__(choices, case_sensitive=False)


class Integer(click.ParamType):
    """A whole number in ``[low, high]``, ASCII digits only.

    Examples
    --------
    >>> Integer(1, 8).convert("3", None, None)
    3
    >>> Integer(1, 8).convert("²", None, None)
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: value '²' is not a whole number
    """

    name = "integer"

    def __init__(self, low: int, high: int, hint: str = "") -> None:
        self.low, self.high, self.hint = low, high, hint

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            text = str(value).strip()
            if not _INT.fullmatch(text):
                raise SpecError(
                    f"{option_name(param)} {shown(value)} is not a whole number",
                    hint=self._accepts(param),
                )
            number = int(text)
        if not self.low <= number <= self.high:
            raise SpecError(
                f"{option_name(param)} {shown(value)} is out of range", hint=self._accepts(param)
            )
        return number

    def _accepts(self, param: click.Parameter | None) -> str:
        text = f"{option_name(param)} takes a whole number from {self.low:,} to {self.high:,}"
        return text + (f" ({self.hint})" if self.hint else "")


class Real(click.ParamType):
    """A finite number in its range (``low`` excluded when ``low_open``).

    Examples
    --------
    >>> Real(0, 10, low_open=True).convert("2.5", None, None)
    2.5
    >>> Real(0, 10, low_open=True).convert("nan", None, None)
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: value 'nan' is not a finite number
    """

    name = "number"

    def __init__(self, low: float, high: float, *, low_open: bool = False, unit: str = "") -> None:
        self.low, self.high, self.low_open, self.unit = low, high, low_open, unit

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "S" if self.unit == "seconds" else "X"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
        else:
            text = str(value).strip()
            if not _REAL.fullmatch(text):
                raise SpecError(
                    f"{option_name(param)} {shown(value)} is not a finite number",
                    hint=self._accepts(param),
                )
            number = float(text)
        low_ok = number > self.low if self.low_open else number >= self.low
        if not math.isfinite(number) or not low_ok or number > self.high:
            raise SpecError(
                f"{option_name(param)} {shown(value)} is out of range", hint=self._accepts(param)
            )
        return number

    def _accepts(self, param: click.Parameter | None) -> str:
        low = f"more than {self.low:g}" if self.low_open else f"at least {self.low:g}"
        unit = f" {self.unit}" if self.unit else ""
        return f"{option_name(param)} takes a number {low} and at most {self.high:g}{unit}"


class Size(click.ParamType):
    """A data size (:func:`supermesh.units.parse_size`): ``4MiB``, ``1.5KiB``, ``4MB``."""

    name = "size"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "SIZE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        return parse_size(value if isinstance(value, int) else str(value), what=option_name(param))


class SizeList(click.ParamType):
    """Sizes ``1MiB,4MiB`` or a doubling range ``1MiB:512MiB`` (:func:`parse_size_list`)."""

    name = "sizes"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "SIZES"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> list[int]:
        if isinstance(value, list):
            return value
        return parse_size_list(str(value), what=option_name(param))


class OutputPath(click.ParamType):
    """A path to write: not empty, not an existing directory (for a file).

    Whether the folder exists and the file can be written is checked, for every file of a
    command, before the first is written (:func:`supermesh.topologies.output.write_files`).
    """

    name = "path"

    def __init__(self, directory: bool = False) -> None:
        self.directory = directory

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "DIR" if self.directory else "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if not text.strip():
            raise SpecError(
                f"{option_name(param)} {text!r} is an empty path",
                hint=f"give {option_name(param)} a {'folder' if self.directory else 'file'} name",
            )
        if "\0" in text:
            raise SpecError(f"{option_name(param)} has a NUL byte in its path", hint="rename it")
        return text


_SCHEDULER = re.compile(r"(?:(?:tcp|tls|inproc|ucx|ws|wss)://)?[A-Za-z0-9._\-\[\]:]+:[0-9]{1,5}")


class Scheduler(click.ParamType):
    """A dask.distributed scheduler address, ``tcp://HOST:PORT`` (checked before connecting).

    Examples
    --------
    >>> Scheduler().convert(" tcp://127.0.0.1:8786 ", None, None)
    'tcp://127.0.0.1:8786'
    >>> Scheduler().convert("not a url", None, None)
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: value 'not a url' is not a scheduler address
    """

    name = "address"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "ADDRESS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        if not _SCHEDULER.fullmatch(text):
            raise SpecError(
                f"{option_name(param)} {shown(value)} is not a scheduler address",
                hint="write it as tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786",
            )
        return text
