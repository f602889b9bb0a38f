"""Options every command declares the same way: one name, one default, one help text.

``--time-limit``, ``-o/--output``, ``--draw``, ``--json``, ``-q/--quiet``, ``--scheduler`` /
``--workers`` and ``--input-format`` are declared here for every command that has them, with the
types of :mod:`supermesh.cli.values` (the one validator of every value typed); root lists have
one grammar (:data:`ROOTS_HELP`, :func:`check_roots`), and an option typed where it would be
ignored is refused (:func:`refuse_unused`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from supermesh.cli.values import Choice, Integer, OutputPath, Real, Scheduler, option_name, shown
from supermesh.errors import SpecError

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "INPUT_FORMAT_KEY",
    "ROOTS_HELP",
    "TIME_LIMIT_HELP",
    "check_roots",
    "draw_option",
    "given",
    "input_format_option",
    "json_option",
    "output_option",
    "quiet_option",
    "refuse_unused",
    "time_limit_option",
    "workers_options",
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


def workers_options(what: str, default: str = "1, serial") -> Callable[[F], F]:
    """``--scheduler ADDRESS`` and ``--workers N``: where the independent tasks run (the two
    together are refused by :func:`refuse_unused` in the command)."""

    def add(command: F) -> F:
        command = click.option(
            "--workers",
            type=Integer(1, 256),
            help=f"Local worker processes for {what} (default: {default}; capped at the tasks "
            "there are).",
        )(command)
        return click.option(
            "--scheduler",
            type=Scheduler(),
            help=f"Run {what} on a dask.distributed cluster at this address, e.g. "
            "tcp://host:8786 (its workers need supermesh installed).",
        )(command)

    return add


INPUT_FORMAT_KEY = "supermesh.input_format"
"""Where :func:`input_format_option` leaves the format (``click.Context.meta``)."""


def _remember_format(ctx: click.Context, _: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta[INPUT_FORMAT_KEY] = value


def input_format_option(command: F) -> F:
    """``--input-format``: the format of a topology file SPEC, in any case
    (:func:`supermesh.cli.common.load_spec` applies it)."""
    from supermesh.topologies.formats.read import INPUT_FORMATS

    return click.option(
        "--input-format",
        type=Choice(INPUT_FORMATS),
        expose_value=False,
        callback=_remember_format,
        help="Format of a topology file SPEC (default: its extension, else its first words).",
    )(command)


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


def draw_option(what: str) -> Callable[[F], F]:
    """``--draw FILE``: a picture, png/svg/pdf by extension, replaced as ``-o`` replaces."""
    return click.option(
        "--draw",
        type=OutputPath(),
        default=None,
        help=f"{what}; png/svg/pdf by extension (an existing file is replaced; its folder must "
        "exist).",
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
        raise SpecError(f"{option} {shown(text)}: this command takes one root set", hint=hint)
    for group in groups:
        if group in names:
            if len(groups) > 1 and group in ("free", "any"):
                raise SpecError(f"{option} {shown(text)}: {group} is not a root set", hint=hint)
            continue
        tokens = group.split(",")
        if any(not t for t in tokens):
            raise SpecError(f"{option} {shown(text)} has an empty entry", hint=hint)
        bad = [t for t in tokens if not _ROOT_TOKEN.fullmatch(t)]
        if bad:
            what = "name" if bad[0].isalpha() else "node id"
            raise SpecError(f"{option} {shown(bad[0])} is not a root {what}", hint=hint)
    return tidy
