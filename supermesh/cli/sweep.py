"""``supermesh sweep``: simulate a grid of topologies x sizes x algorithms x collectives."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    load_spec,
    progress_enabled,
    stderr_console,
    stdout_console,
    write_outputs,
)
from supermesh.cli.options import (
    SizeList,
    json_option,
    output_option,
    quiet_option,
    time_limit_option,
)
from supermesh.cli.params import preset_options
from supermesh.errors import SpecError
from supermesh.export.formats import format_for
from supermesh.export.table import rows_csv
from supermesh.sim.algorithms import ALGORITHMS
from supermesh.sim.collectives import COLLECTIVES
from supermesh.sim.energy import energy_model_from_text
from supermesh.sim.presets import params_from_text
from supermesh.sim.sweep import ROW_FIELDS, run_sweep, sweep_cases
from supermesh.units import format_energy, format_size, plural

__all__ = ["sweep"]

_EXTENSIONS = {"csv": "csv", "json": "json"}


def _names(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    if not names:
        raise SpecError(
            f"{option} {text!r} names nothing", hint=f"{option} takes a comma list of: "
            + ", ".join(allowed)
        )  # fmt: skip
    for name in names:
        if name not in allowed:
            raise SpecError(
                f"{option}: unknown name {name[:40]!r}", hint=f"use {', '.join(allowed)}"
            )
    return list(dict.fromkeys(names))


def _time(value: float | None, seconds: bool) -> str:
    if value is None:
        return "-"
    if seconds:
        return f"{value * 1e6:,.3f}"
    return f"{value:,.0f}"


def _tables(rows: list[dict], seconds: bool, preset: str, energy: str) -> list[Table | str]:
    """One table per topology, within 80 columns, one unit per column named in its header;
    the cases that failed are listed under their table."""
    out: list[Table | str] = []
    for topology in dict.fromkeys(r["topology"] for r in rows):
        mine = [r for r in rows if r["topology"] == topology]
        table = Table(
            title=f"{topology} ({preset} preset, {energy} energy)",
            box=None,
            padding=(0, 1),
            pad_edge=False,
            header_style="bold underline",
        )
        for name in (
            "collective",
            "algorithm",
            "size",
            "time (us)" if seconds else "cycles",
            "GB/s" if seconds else "B/cycle",
            "/bound",
            "util",
            "energy",
        ):
            table.add_column(
                name, justify="left" if name in ("collective", "algorithm") else "right"
            )
        errors = []
        for row in mine:
            head = [row["collective"], row["algorithm"], format_size(row["bytes"])]
            if row["error"]:
                table.add_row(*head, "failed", "", "", "", "")
                errors.append(f"  {' '.join(head)}: {row['error']}")
                continue
            algbw = row["algbw"]
            if seconds and row["seconds"]:
                algbw = row["bytes"] / row["seconds"] / 1e9
            ratio = row["ratio_to_bound"]
            table.add_row(
                *head,
                _time(row["time"], seconds),
                f"{algbw:.2f}",
                "-" if ratio is None else f"{ratio:.2f}",
                f"{100 * row['max_link_utilization']:.0f}%",
                format_energy(row["energy_joules"]),
            )
        out.append(table)
        out += errors
    return out


def _refuse_csv(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        raise SpecError("sweep --csv is now -o/--output", hint=f"write -o {value}")


@click.command(epilog=SPEC_HELP)
@click.argument("specs", nargs=-1, required=True)
@click.option(
    "--sizes",
    type=SizeList(),
    default="1MiB:512MiB",
    show_default=True,
    help="Data sizes: a comma list (1MiB,4MiB) or a doubling range LOW:HIGH.",
)
@click.option(
    "--per-chiplet",
    type=SizeList(),
    default=None,
    help="Sizes per compute chiplet (e.g. 375KiB) instead of --sizes.",
)
@click.option("-c", "--collectives", default="allreduce", show_default=True, help="Comma list.")
@click.option("-a", "--algorithms", default="pipeline", show_default=True, help="Comma list.")
@preset_options
@click.option(
    "--energy-model",
    default="dsent",
    show_default=True,
    metavar="MODEL",
    help="Energy model (dsent, paper-text), constants overridable: dsent,KEY=VALUE.",
)
@time_limit_option("Here: per tree set.")
@output_option("Write the rows here: .csv (one row per case) or .json")
@click.option("--csv", hidden=True, expose_value=False, callback=_refuse_csv)
@json_option("the rows")
@quiet_option()
@click.pass_context
def sweep(
    ctx: click.Context,
    specs: tuple[str, ...],
    sizes: list[int],
    per_chiplet: list[int] | None,
    collectives: str,
    algorithms: str,
    preset: str,
    energy_model: str,
    overrides: tuple[str, ...],
    time_limit: float,
    output: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Simulate every combination of topologies SPECS, sizes, algorithms and collectives.

    Every spec is checked before the first simulation. A case that cannot be simulated (no
    trees of that kind on that topology) gets its error in the table and the file, and the
    exit status is then 1.
    """
    if per_chiplet and ctx.get_parameter_source("sizes") == click.core.ParameterSource.COMMANDLINE:
        raise SpecError("--sizes and --per-chiplet both give the sizes", hint="give only one")
    params = params_from_text(preset, overrides)
    params = replace(params, energy_model=energy_model_from_text(energy_model).name)
    colls = _names(collectives, COLLECTIVES, "--collectives")
    algs = _names(algorithms, ALGORITHMS, "--algorithms")
    fmt = format_for(output, None, _EXTENSIONS) if output else None
    for spec in specs:  # a typo in the third spec must not cost the first two's runs
        load_spec(spec)
    cases = sweep_cases(list(specs), colls, algs, [] if per_chiplet else sizes, per_chiplet or [])
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr_console(quiet=quiet or as_json),
        transient=True,
        disable=not progress_enabled(quiet or as_json),
    )
    with progress:
        task = progress.add_task("simulating", total=len(cases))

        def advance(row: dict) -> None:
            progress.update(task, advance=1, description=f"{row['topology']} {row['algorithm']}")

        rows = run_sweep(cases, params, time_limit=time_limit, on_row=advance)
    doc = {"preset": params.name, "energy_model": params.energy_model, "rows": rows}
    if output:
        text = rows_csv(rows, ROW_FIELDS) if fmt == "csv" else json.dumps(doc, indent=1) + "\n"
        write_outputs([(output, text)], quiet)
    failed = sum(1 for r in rows if r["error"])
    if as_json:
        emit_json(doc)
    elif output:
        click.echo(f"{plural(len(rows), 'row')} ({plural(failed, 'error')}) in {output}")
    else:
        console = stdout_console()
        for part in _tables(rows, params.report == "seconds", params.name, params.energy_model):
            console.print(part, markup=False)
    if failed:
        if not as_json:
            click.echo(f"{plural(failed, 'case')} of {len(rows)} failed (see its error)", err=True)
        sys.exit(EXIT_FINDINGS)
