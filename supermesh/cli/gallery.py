"""``supermesh gallery``: run every gallery script and list the pictures it drew."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.table import Table

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import emit_json, progress_bar, stdout_console, written_folder
from supermesh.cli.options import json_option, quiet_option
from supermesh.cli.values import OutputPath


@click.command()
@click.option(
    "-o",
    "--output",
    type=OutputPath(directory=True),
    default=None,
    help="Folder for the images (created if missing; default: next to the scripts, in gallery/).",
)
@click.option(
    "--gallery",
    "folder",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder of the plot_*.py scripts (default: gallery/ of the source checkout).",
)
@click.option("--only", default=None, help="Run only scripts whose name contains this text.")
@click.option("--quick", is_flag=True, help="Fewer sizes and shorter solves (as the tests do).")
@json_option("the runs")
@quiet_option()
def gallery(
    output: str | None,
    folder: str | None,
    only: str | None,
    quick: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Run every gallery script (gallery/plot_*.py) and write one PNG each.

    Each script runs in its own Python process with the Agg backend. Exit status 1 when any
    script fails (its last error lines are shown).
    """
    from supermesh.draw.gallery import run_gallery

    progress = progress_bar(quiet or as_json)
    with progress:
        task = progress.add_task("gallery", total=None)

        def started(i: int, count: int, script: Path) -> None:
            progress.update(task, completed=i, total=count, description=script.stem)

        runs = run_gallery(output, folder=folder, only=only, quick=quick, on_start=started)
    drawn = [r for r in runs if r.ok]
    if drawn:  # a folder output, reported as prove -o reports its certificates
        written_folder(output or _shown(drawn[0].image.parent), len(drawn), quiet)
    if as_json:
        emit_json(
            [
                {
                    "script": r.script.name,
                    "title": r.title,
                    "image": str(r.image),
                    "seconds": round(r.seconds, 2),
                    "ok": r.ok,
                    "error": r.error or None,
                }
                for r in runs
            ]
        )
    else:
        table = Table(title="supermesh gallery")
        for col in ("script", "seconds", "image"):
            table.add_column(col, justify="right" if col == "seconds" else "left")
        for r in runs:
            table.add_row(
                r.script.stem,
                f"{r.seconds:.1f}",
                _shown(r.image) if r.ok else f"FAILED: {r.error}",
            )
        stdout_console().print(table)
    if not all(r.ok for r in runs):
        sys.exit(EXIT_FINDINGS)


def _shown(path: Path) -> str:
    """The path relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
