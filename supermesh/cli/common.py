"""Helpers every CLI command shares: spec arguments, JSON output, tables, files, progress."""

from __future__ import annotations

import contextlib
import errno
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import click
import networkx as nx
from rich.console import Console

from supermesh.cli.options import INPUT_FORMAT_KEY
from supermesh.errors import InputFileError
from supermesh.topologies import build

__all__ = [
    "SPEC_HELP",
    "emit_json",
    "figure_data",
    "load_document",
    "load_spec",
    "progress_enabled",
    "status",
    "stderr_console",
    "stdout_console",
    "wrapped",
    "write_outputs",
    "written_folder",
]

SPEC_HELP = (
    "SPEC is a topology spec (e.g. smbi:8x8, smalter:5x5, partial-smalter:6x6,io=east, "
    "hexamesh:r2, mesh:4x4,memory=south; case does not matter) or a topology file: JSON written "
    "by `supermesh topo`, GraphML, DOT or BookSim anynet (by extension, else by its first "
    "words, or as --input-format says where offered). Exit status: 0 ok, 1 a negative answer "
    "or findings, 2 bad input (nothing is written), 130 interrupted."
)


def load_spec(spec: str) -> nx.MultiDiGraph:
    """Build a topology from a spec or file, in the ``--input-format`` if the command got one
    (:func:`supermesh.cli.options.input_format_option`).

    Errors propagate as SupermeshError.
    """
    ctx = click.get_current_context(silent=True)
    return build(spec, format=ctx.meta.get(INPUT_FORMAT_KEY) if ctx is not None else None)


def load_document(path: str, parse: Any, what: str) -> Any:
    """``parse()`` a file's content, turning a malformed field into one :class:`InputFileError`.

    The readers check what they know of; a field of the wrong type that slips past them (a
    string where a list belongs, a list where an object belongs) must still be an input error
    naming the file, not a traceback.
    """
    try:
        return parse()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        reason = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InputFileError(
            f"{path} is not a valid {what}: {reason[:200]}",
            hint=f"give a {what} written by supermesh, unedited",
        ) from None


def emit_json(doc: Any) -> None:
    """Write exactly one JSON document to stdout."""
    click.echo(json.dumps(doc, indent=1, sort_keys=False))


class _StdoutConsole(Console):
    """A rich console whose closed pipe is a write failure like any other."""

    def on_broken_pipe(self) -> None:
        # rich's own handler exits 1 without a word, which reads as a negative answer; the
        # entry point (supermesh.cli.main) turns this into one `error:` line and exit 2
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def stdout_console() -> Console:
    """A rich console for tables on stdout (plain text when stdout is not a terminal)."""
    return _StdoutConsole(file=sys.stdout, soft_wrap=True, highlight=False)


def stderr_console(quiet: bool = False) -> Console:
    """A rich console for progress on stderr; silent when ``quiet`` or stderr is no terminal."""
    return Console(file=sys.stderr, quiet=quiet or not sys.stderr.isatty(), highlight=False)


def progress_enabled(quiet: bool = False) -> bool:
    """Whether to show progress: a terminal on stderr, and neither ``--quiet`` nor ``--json``."""
    return not quiet and sys.stderr.isatty()


@contextlib.contextmanager
def status(message: str, quiet: bool = False) -> Iterator[None]:
    """A spinner with the elapsed time on stderr while the block runs (only on a terminal)."""
    if not progress_enabled(quiet):
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=stderr_console(quiet),
        transient=True,
    )
    with progress:
        progress.add_task(message, total=None)
        yield


def progress_bar(quiet: bool = False) -> Any:
    """A rich progress bar (done of total, elapsed) on stderr, drawn only when
    :func:`progress_enabled`; the caller adds its task and advances it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(quiet=quiet),
        transient=True,
        disable=not progress_enabled(quiet),
    )


def wrapped(text: str, width: int = 80) -> str:
    """``text`` folded to ``width`` columns, continuation lines indented (tables' notes and
    proofs stay readable in an 80-column terminal)."""
    import textwrap

    return textwrap.fill(
        text, width, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False
    )


def figure_data(figure: Any, path: str) -> bytes:
    """A drawing rendered for ``path`` (its extension picks png, svg or pdf), in memory."""
    from supermesh.draw import figure_bytes, figure_format

    return figure_bytes(figure, figure_format(path))


def write_outputs(items: Sequence[tuple[str, str | bytes]], quiet: bool = False) -> list[str]:
    """Write every file of a command at once (all or none) and say ``wrote FILE`` for each.

    The lines go to stderr (stdout keeps the table or the one JSON document), the same in
    every command.
    """
    from supermesh.topologies.output import write_files

    written = write_files(items)
    if not quiet:
        for path in written:
            click.echo(f"wrote {path}", err=True)
    return written


def written_folder(path: str | Path, count: int, quiet: bool = False) -> None:
    """Say ``wrote N files to DIR/`` for a folder output."""
    if not quiet:
        from supermesh.units import plural

        click.echo(
            f"wrote {plural(count, 'file')} to {path}{'' if str(path).endswith('/') else '/'}",
            err=True,
        )
