"""Helpers every CLI command shares: spec arguments, JSON output, tables."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
import networkx as nx
from rich.console import Console

from supermesh.topologies import build
from supermesh.topologies.formats.read import INPUT_FORMATS

__all__ = [
    "SPEC_HELP",
    "emit_json",
    "input_format_option",
    "load_spec",
    "stderr_console",
    "stdout_console",
]

SPEC_HELP = (
    "SPEC is a topology spec (e.g. smbi:8x8, smalter:5x5, partial-smalter:6x6,io=east, "
    "hexamesh:r2, mesh:4x4,memory=south) or a topology file: JSON written by `supermesh topo`, "
    "GraphML, DOT or BookSim anynet (by extension, else by its first words; --input-format)."
)

_FORMAT = "supermesh.input_format"


def _remember_format(ctx: click.Context, _: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta[_FORMAT] = value


input_format_option = click.option(
    "--input-format",
    type=click.Choice(INPUT_FORMATS),
    expose_value=False,
    callback=_remember_format,
    help="Format of a topology file SPEC (default: its extension, else its first words).",
)
"""The option of every command that reads a topology; :func:`load_spec` applies it."""


def load_spec(spec: str) -> nx.MultiDiGraph:
    """Build a topology from a spec or file, in the ``--input-format`` if the command got one.

    Errors propagate as SupermeshError.
    """
    ctx = click.get_current_context(silent=True)
    return build(spec, format=ctx.meta.get(_FORMAT) if ctx is not None else None)


def emit_json(doc: Any) -> None:
    """Write exactly one JSON document to stdout."""
    click.echo(json.dumps(doc, indent=1, sort_keys=False))


def stdout_console() -> Console:
    """A rich console for tables on stdout (plain text when stdout is not a terminal)."""
    return Console(file=sys.stdout, soft_wrap=True, highlight=False)


def stderr_console(quiet: bool = False) -> Console:
    """A rich console for progress on stderr; silent when ``quiet`` or stderr is no terminal."""
    return Console(file=sys.stderr, quiet=quiet or not sys.stderr.isatty(), highlight=False)
