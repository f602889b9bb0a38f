"""Helpers every CLI command shares: spec arguments, JSON output, tables."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
import networkx as nx
from rich.console import Console

from supermesh.topologies import build

__all__ = ["SPEC_HELP", "emit_json", "load_spec", "stderr_console", "stdout_console"]

SPEC_HELP = (
    "SPEC is a topology spec (e.g. smbi:8x8, smalter:5x5, partial-smalter:6x6,io=east, "
    "hexamesh:r2, mesh:4x4,memory=south) or a topology JSON file written by `supermesh topo`."
)


def load_spec(spec: str) -> nx.MultiDiGraph:
    """Build a topology from a spec or file (errors propagate as SupermeshError)."""
    return build(spec)


def emit_json(doc: Any) -> None:
    """Write exactly one JSON document to stdout."""
    click.echo(json.dumps(doc, indent=1, sort_keys=False))


def stdout_console() -> Console:
    """A rich console for tables on stdout (plain text when stdout is not a terminal)."""
    return Console(file=sys.stdout, soft_wrap=True, highlight=False)


def stderr_console(quiet: bool = False) -> Console:
    """A rich console for progress on stderr; silent when ``quiet`` or stderr is no terminal."""
    return Console(file=sys.stderr, quiet=quiet or not sys.stderr.isatty(), highlight=False)
