"""Options every command declares the same way, and the one validator of every value typed.

A number typed on the command line is read here and only here: ASCII digits (``'²'`` and other
Unicode digits are refused), a bounded count of digits (no 5,000-digit integers reach ``int``),
finite (``nan``, ``inf`` refused), inside the option's range; a refusal names the option as typed
(``--time-limit``, ``--min-rate``) and says what it takes. The same holds for data sizes
(:func:`supermesh.units.parse_size`), output paths (an empty ``-o ''`` is refused) and root lists
(one grammar, :data:`ROOTS_HELP`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from supermesh.errors import SpecError
from supermesh.units import parse_size, parse_size_list

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "ROOTS_HELP",
    "TIME_LIMIT_HELP",
    "Integer",
    "OutputPath",
    "Real",
    "Size",
    "SizeList",
    "check_roots",
    "given",
    "json_option",
    "option_name",
    "output_option",
    "quiet_option",
    "refuse_unused",
    "time_limit_option",
]

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_TIME_LIMIT = 60.0
"""The one ``--time-limit`` default of every command (seconds)."""

MAX_TIME_LIMIT = 7 * 86400.0
"""The longest ``--time-limit`` accepted: a week; more is a typing slip."""

TIME_LIMIT_HELP = (
    "Seconds of solver work for each CP-SAT solve (tree packing, root sets, proofs, designs); "
    "the searches stop earlier once proven, and stop on work, not wall clock, so the same "
    "inputs give the same answer (a limited answer is reported as such, never as optimal)."
)

ROOTS_HELP = (
    "Roots: corners (clockwise from the top-left), sides (the chiplet N//2 along each side, "
    "clockwise from the north), node ids like 0,3,3,12 (a repeat roots two trees), free "
    "(maximise over the roots, where the command counts trees), or several sets split by ';' "
    "(0,5,10,15;1,6,11,12) where the command takes root sets."
)

_INT = re.compile(r"[+-]?[0-9]{1,30}")
_REAL = re.compile(r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")


def option_name(param: click.Parameter | None) -> str:
    """The option as a user writes it in full (``--time-limit``), or the argument's name."""
    if param is None:
        return "value"
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    return (param.name or "value").upper()


def _shown(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:37] + "...")


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
                    f"{option_name(param)} {_shown(value)} is not a whole number",
                    hint=self._accepts(param),
                )
            number = int(text)
        if not self.low <= number <= self.high:
            raise SpecError(
                f"{option_name(param)} {_shown(value)} is out of range", hint=self._accepts(param)
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
                    f"{option_name(param)} {_shown(value)} is not a finite number",
                    hint=self._accepts(param),
                )
            number = float(text)
        low_ok = number > self.low if self.low_open else number >= self.low
        if not math.isfinite(number) or not low_ok or number > self.high:
            raise SpecError(
                f"{option_name(param)} {_shown(value)} is out of range", hint=self._accepts(param)
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


def time_limit_option(extra: str = "") -> Callable[[F], F]:
    """``--time-limit S``: one default (:data:`DEFAULT_TIME_LIMIT`) and one help text."""
    return click.option(
        "--time-limit",
        type=Real(0.0, MAX_TIME_LIMIT, low_open=True, unit="seconds"),
        default=DEFAULT_TIME_LIMIT,
        show_default=True,
        help=TIME_LIMIT_HELP + (f" {extra}" if extra else ""),
    )


def output_option(what: str, *, directory: bool = False) -> Callable[[F], F]:
    """``-o/--output``: the same option in every command that writes a file (or a folder)."""
    where = (
        "a missing folder is created"
        if directory
        else "an existing file is replaced; its folder must exist"
    )
    return click.option(
        "-o", "--output", type=OutputPath(directory), default=None, help=f"{what} ({where})."
    )


def json_option(what: str = "the result") -> Callable[[F], F]:
    """``--json``: exactly one JSON document on stdout (progress stays off)."""
    return click.option(
        "--json", "as_json", is_flag=True, help=f"Print {what} as one JSON document."
    )


def quiet_option() -> Callable[[F], F]:
    """``-q/--quiet``: no progress display and no ``wrote FILE`` lines on stderr."""
    return click.option(
        "-q", "--quiet", is_flag=True, help="No progress display or 'wrote FILE' lines (stderr)."
    )


def given(ctx: click.Context, name: str) -> bool:
    """Whether the parameter ``name`` was typed on the command line (not a default)."""
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


def refuse_unused(ctx: click.Context, names: Iterable[str], why: str, hint: str = "") -> None:
    """Refuse options typed where they would be silently ignored.

    Raises
    ------
    SpecError
        Naming the options as typed and why they do not apply.
    """
    typed = [n for n in names if given(ctx, n)]
    if not typed:
        return
    params = {p.name: p for p in ctx.command.params}
    shown = ", ".join(option_name(params.get(n)) for n in typed)
    raise SpecError(
        f"{shown} {'does' if len(typed) == 1 else 'do'} not apply {why}",
        hint=hint or f"drop {shown}",
    )


_ROOT_TOKEN = re.compile(r"[0-9]{1,9}")


def check_roots(
    text: str,
    *,
    option: str = "--roots",
    free: bool = False,
    sets: bool = False,
    any_roots: bool = False,
) -> str:
    """Check a ``--roots`` value against the one grammar (:data:`ROOTS_HELP`); return it tidied.

    The names and the syntax are checked here; whether the ids exist is checked against the
    topology (:func:`supermesh.trees.rootspec.resolve_roots`).

    Parameters
    ----------
    text : str
    option : str
        The option as typed, for the message.
    free, sets, any_roots : bool
        Whether this command takes ``free``, several sets split by ``;``, or ``any``.

    Returns
    -------
    str
        Lower case, without spaces.

    Raises
    ------
    SpecError
        An empty entry, a token that is neither a name nor a node id, or a form this command
        does not take.

    Examples
    --------
    >>> check_roots(" Corners "), check_roots("0, 3,12"), check_roots("0,1;2,3", sets=True)
    ('corners', '0,3,12', '0,1;2,3')
    >>> check_roots("0,,3")
    Traceback (most recent call last):
    ...
    supermesh.errors.SpecError: --roots '0,,3' has an empty entry
    """
    tidy = re.sub(r"\s+", "", str(text).lower())
    names = ["corners", "sides"] + (["free"] if free else []) + (["any"] if any_roots else [])
    forms = names + ["ids like 0,3,12"] + (["sets split by ';'"] if sets else [])
    hint = f"{option} takes {', '.join(forms)}"
    if not tidy:
        raise SpecError(f"{option} {text!r} is empty", hint=hint)
    groups = tidy.split(";")
    if len(groups) > 1 and not sets:
        raise SpecError(f"{option} {_shown(text)}: this command takes one root set", hint=hint)
    for group in groups:
        if group in names:
            if len(groups) > 1 and group in ("free", "any"):
                raise SpecError(f"{option} {_shown(text)}: {group} is not a root set", hint=hint)
            continue
        tokens = group.split(",")
        if any(not t for t in tokens):
            raise SpecError(f"{option} {_shown(text)} has an empty entry", hint=hint)
        bad = [t for t in tokens if not _ROOT_TOKEN.fullmatch(t)]
        if bad:
            what = "name" if bad[0].isalpha() else "node id"
            raise SpecError(f"{option} {_shown(bad[0])} is not a root {what}", hint=hint)
    return tidy
