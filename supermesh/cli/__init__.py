"""The ``supermesh`` command line: a thin layer over the public API.

Exit codes (one table for every command):

====  ==========================================================================
0     ok
1     a negative answer or findings: trees that do not fit (``bound``, ``trees``,
      ``design``), verification errors (``verify``), a failed re-check (``prove``), a
      case that failed (``sweep``), a failed script (``gallery``), a solver that found
      nothing in its time limit
2     bad input (spec, option, file) or an output that cannot be written (no space,
      a closed pipe); nothing is written
130   interrupted
====  ==========================================================================

Errors print one ``error: ...`` line and one ``hint: ...`` line on stderr; a traceback only
with ``--debug``.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import Any

import click

from supermesh.errors import (
    InfeasibleError,
    InputFileError,
    SolverError,
    SpecError,
    SupermeshError,
    TopologyError,
)

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


_FALLBACK_HINTS: tuple[tuple[type[SupermeshError], str], ...] = (
    (SpecError, "see `supermesh COMMAND --help` for the accepted forms"),
    (TopologyError, "check the topology and the node ids with `supermesh topo SPEC`"),
    (InputFileError, "give a file written by supermesh (`topo -o`, `trees -o`, `schedule -o`)"),
    (InfeasibleError, "the proof shows why; ask for fewer trees or other roots"),
    (SolverError, "give the solver more time (--time-limit) or ask for less"),
)


def _hint(exc: SupermeshError) -> str:
    if exc.hint:
        return exc.hint
    for kind, hint in _FALLBACK_HINTS:
        if isinstance(exc, kind):
            return hint
    return "run `supermesh COMMAND --help`; --debug shows where it failed"


# click 8.2+ raises this for a group called without arguments (older versions print the help)
_NO_ARGS: tuple[type[BaseException], ...] = tuple(
    e for e in (getattr(click.exceptions, "NoArgsIsHelpError", None),) if e is not None
)


def _fail(message: str, hint: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    click.echo(f"hint: {hint}", err=True)
    sys.exit(code)


def _stdout_gone(exc: OSError) -> None:
    """stdout closed (``| head -1``) or full (``> /dev/full``): one error line, exit 2."""
    try:  # later writes (the interpreter's final flush) go nowhere instead of failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    reason = "it was closed" if exc.errno == errno.EPIPE else (exc.strerror or str(exc))
    _fail(
        f"cannot write to standard output: {reason}",
        "the output was cut short; write it to a file with -o, or read all of it",
        EXIT_BAD_INPUT,
    )


def main(argv: list[str] | None = None) -> Any:
    """Console entry point: run the CLI and turn user errors into one-line messages."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        result = cli.main(args=argv, standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit
        return result
    except SupermeshError as exc:
        if debug:
            raise
        _fail(str(exc), _hint(exc), exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("error: interrupted", err=True)
        click.echo("hint: nothing half-written was left behind; run the command again", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except _NO_ARGS:  # `supermesh` alone: click 8.2+ would put the whole --help in the error
        _fail(
            "Missing command.",
            f"commands: {', '.join(sorted(_COMMANDS))}; `supermesh --help` says what each does",
            EXIT_BAD_INPUT,
        )
    except click.ClickException as exc:
        _fail(
            " ".join(exc.format_message().split()),  # click lists choices on several lines
            "run `supermesh --help` or `supermesh COMMAND --help`",
            EXIT_BAD_INPUT,
        )
    except OSError as exc:
        if debug or exc.errno not in (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF):
            raise
        _stdout_gone(exc)
    except SystemExit:
        # click meets a closed pipe by wrapping stdout and exiting 1 without a word
        # by name: click 8.5 renamed it _PacifyFlushWrapper (and its stubs do not type it)
        if type(sys.stdout).__name__.endswith("PacifyFlushWrapper") and not debug:
            _stdout_gone(BrokenPipeError(errno.EPIPE, "Broken pipe"))
        raise
    return None
