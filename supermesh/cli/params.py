"""``--preset``, ``--set`` and ``--list-params``: the simulator's constants on the command line.

Every parameter has a type, a range and a unit (:data:`supermesh.sim.parameters.PARAMETERS`,
checked in one place); ``--list-params`` prints them with both presets' values, so ``--help``
need not repeat them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from supermesh.cli.values import Choice

__all__ = ["parameter_lines", "preset_option", "preset_options"]

F = TypeVar("F", bound=Callable[..., Any])

_PRESET_HELP = (
    "Link-model constants: booksim (the SuperMesh paper's BookSim2 setup: 4096 B packets of "
    "17 flits, 20 cycles a flit, 3 packets a chunk; reports cycles) or paper (25 GB/s links, "
    "20 ns hops; reports seconds)."
)
_SET_HELP = (
    "Override one constant of the preset, e.g. --set hop_latency=12 (repeatable). Each has a "
    "type, a range and a unit: --list-params prints them."
)


def parameter_lines() -> list[str]:
    """Every simulation parameter: accepted values, unit, both presets' values, meaning.

    Two lines each, within 80 columns.

    Examples
    --------
    >>> lines = parameter_lines()
    >>> lines[0].split()[:4], max(map(len, lines)) <= 80
    (['parameter', 'accepts', 'unit', 'booksim'], True)
    """
    from supermesh.sim.parameters import PARAMETERS
    from supermesh.sim.presets import PRESETS

    row = "{:<23} {:<24} {:<9} {:>9} {:>9}"
    lines = [row.format("parameter", "accepts", "unit", *PRESETS)]
    for name, p in PARAMETERS.items():
        values = [_value(PRESETS[preset].to_json()[name]) for preset in PRESETS]
        accepts = "(set by --preset)" if p.kind == "text" else f"{p.kind} {p.range_text()}"
        lines.append(row.format(name, accepts, p.unit, *values).rstrip())
        lines.append(f"    {p.meaning}")
    return lines


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


def _list_params(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    for line in parameter_lines():
        click.echo(line)
    ctx.exit(0)


def preset_option(command: F) -> F:
    """Add ``--preset`` alone (``report``, which takes no ``--set``), with the help of
    :func:`preset_options`."""
    from supermesh.sim.presets import PRESETS

    return click.option(
        "--preset",
        type=Choice(tuple(PRESETS)),
        default="booksim",
        show_default=True,
        help=_PRESET_HELP,
    )(command)


def preset_options(command: F) -> F:
    """Add ``--preset``, ``--set NAME=VALUE`` (as ``overrides``) and ``--list-params``."""
    command = click.option(
        "--list-params",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_list_params,
        help="Print every simulation parameter (type, range, unit, preset values) and exit.",
    )(command)
    command = click.option(
        "--set", "overrides", multiple=True, metavar="NAME=VALUE", help=_SET_HELP
    )(command)
    return preset_option(command)
