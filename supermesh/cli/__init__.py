"""The ``supermesh`` command line: a thin layer over the public API.

Exit codes (one table for every command):

====  ==========================================================
0     ok (including a computed negative answer where documented)
1     a negative answer or findings (infeasible request, verification findings)
2     bad input (spec, option, file); nothing is written
130   interrupted
====  ==========================================================

Errors print ``error: ...`` and ``hint: ...`` on stderr; a traceback only with ``--debug``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from supermesh.errors import SupermeshError

__all__ = ["EXIT_BAD_INPUT", "EXIT_FINDINGS", "EXIT_INTERRUPTED", "EXIT_OK", "cli", "main"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

# command name -> module under supermesh.cli holding a click command of the same name
_COMMANDS: dict[str, str] = {
    "topo": "topo",
    "report": "report",
    "verify": "verify",
    "bound": "bound",
    "trees": "trees",
    "schedule": "schedule",
    "prove": "prove",
    "sim": "sim",
    "sweep": "sweep",
    "gallery": "gallery",
    "design": "design",
}


class _LazyGroup(click.Group):
    """Imports a command's module only when that command runs, so start-up stays fast."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module = importlib.import_module(f"supermesh.cli.{_COMMANDS[cmd_name]}")
        command: click.Command = getattr(module, cmd_name.replace("-", "_"))
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="supermesh")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Design chiplet-network topologies and prove which collective schedules they support."""
    ctx.obj = {"debug": debug}


def main(argv: list[str] | None = None) -> Any:
    """Console entry point: run the CLI and turn user errors into one-line messages."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        return cli.main(args=argv, standalone_mode=False)
    except SupermeshError as exc:
        if debug:
            raise
        click.echo(f"error: {exc}", err=True)
        if exc.hint:
            click.echo(f"hint: {exc.hint}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("error: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        click.echo(f"error: {exc.format_message()}", err=True)
        click.echo("hint: run `supermesh --help` or `supermesh COMMAND --help`", err=True)
        sys.exit(EXIT_BAD_INPUT)
