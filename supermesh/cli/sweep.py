"""``supermesh sweep``: simulate a grid of topologies x sizes x algorithms x collectives.

With ``-o FILE`` the finished rows are kept beside FILE as they come
(:func:`supermesh.sim.sweep.checkpoint_path`), so a sweep that is killed and started again with
the same settings simulates only the rest; the checkpoint is removed once FILE is written.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import click
from rich.table import Table

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    load_spec,
    progress_bar,
    stdout_console,
    write_outputs,
)
from supermesh.cli.options import (
    json_option,
    output_option,
    quiet_option,
    refuse_unused,
    time_limit_option,
    workers_options,
)
from supermesh.cli.params import preset_options
from supermesh.cli.values import Choice, SizeList
from supermesh.errors import InputFileError, SpecError
from supermesh.export.formats import format_for
from supermesh.export.table import rows_csv
from supermesh.sim.collectives import SIM_COLLECTIVES
from supermesh.sim.compare import COMPARE_FIELDS, add_speedups
from supermesh.sim.defaults import ALGORITHMS
from supermesh.sim.energy import energy_model_from_text
from supermesh.sim.presets import SimParams, params_from_text
from supermesh.sim.sweep import (
    ROW_FIELDS,
    SweepCase,
    checkpoint_path,
    checkpoint_rows,
    run_sweep,
    sweep_cases,
)
from supermesh.topologies.output import check_targets
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


def _tables(
    rows: list[dict], seconds: bool, preset: str, energy: str, compare: bool
) -> list[Table | str]:
    """One table per topology, within 80 columns, one unit per column named in its header,
    then (``compare``) its speedups; the cases that failed are listed under their table."""
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
        if compare and len(errors) < len(mine):
            out.append(_speedup_table(topology, mine))
        out += errors
    return out


def _speedup_table(topology: str, rows: list[dict]) -> Table:
    """Baseline time over each row's time: the mesh (same algorithm) and TACOS (same topology)."""
    table = Table(
        title=f"{topology}: speedup (baseline time / this time)",
        box=None,
        padding=(0, 1),
        pad_edge=False,
        header_style="bold underline",
    )
    for name in ("collective", "algorithm", "size", "vs mesh", "vs TACOS"):
        table.add_column(name, justify="right" if name.startswith(("vs", "size")) else "left")
    for row in rows:
        if row["error"]:
            continue
        table.add_row(
            row["collective"],
            row["algorithm"],
            format_size(row["bytes"]),
            *("-" if v is None else f"{v:.2f}x" for v in (row[f] for f in COMPARE_FIELDS)),
        )
    return table


def _checkpoint(
    output: str | None, params: SimParams, time_limit: float, cases: list[SweepCase]
) -> tuple[Path | None, int]:
    """The resume file for ``-o output`` and how many of the cases it has finished already.

    Only a regular file (or a new name) gets one: a device or FIFO (``-o /dev/stdout``) has no
    folder of its own to keep it in. A checkpoint of other settings is refused, not replaced.
    """
    if output is None:
        return None, 0
    real = os.path.realpath(output)
    if os.path.exists(real) and not os.path.isfile(real):
        return None, 0
    path = checkpoint_path(output)
    done = checkpoint_rows(path, params, time_limit=time_limit)
    if done is None:
        raise InputFileError(
            f"{path} holds the rows of a sweep with other settings (--preset, --set, "
            "--energy-model or --time-limit), which -o would mix with these",
            hint=f"rerun with that sweep's settings to finish it, or remove {path} to start afresh",
        )
    keys = {(c.spec, c.collective, c.algorithm, c.nbytes) for c in cases}
    return path, len(keys & set(done))


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
@output_option(
    "Write the rows here: .csv (one row per case) or .json; a killed sweep started again with "
    "the same -o and settings keeps the rows it finished"
)
@click.option(
    "--format", "fmt", type=Choice(tuple(_EXTENSIONS)), help="Format of -o (default: ext)."
)
@click.option("--csv", hidden=True, expose_value=False, callback=_refuse_csv)
@click.option(
    "--compare/--no-compare",
    default=True,
    show_default=True,
    help="Speedups against the same algorithm on the mesh and against TACOS on the topology.",
)
@workers_options("the topologies (each topology's trees, then its simulations)")
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
    fmt: str | None,
    compare: bool,
    scheduler: str | None,
    workers: int | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Simulate every combination of topologies SPECS, sizes, algorithms and collectives.

    Every spec is checked before the first simulation. A case that cannot be simulated (no
    trees of that kind on that topology) gets its error in the table and the file, and the
    exit status is then 1. Each row also gets its speedup against the same algorithm on the
    plain mesh of the same size and against TACOS on the same topology (--no-compare skips
    those runs).
    """
    if per_chiplet and ctx.get_parameter_source("sizes") == click.core.ParameterSource.COMMANDLINE:
        raise SpecError("--sizes and --per-chiplet both give the sizes", hint="give only one")
    params = params_from_text(preset, overrides)
    params = replace(params, energy_model=energy_model_from_text(energy_model).name)
    if scheduler is not None:
        refuse_unused(ctx, ("workers",), "with --scheduler: the cluster's workers run the tasks")
    colls = _names(collectives, SIM_COLLECTIVES, "--collectives")
    algs = _names(algorithms, ALGORITHMS, "--algorithms")
    if output is None:
        refuse_unused(ctx, ("fmt",), "without -o/--output", "drop --format or add -o FILE")
    fmt = format_for(output, fmt, _EXTENSIONS) if output else None
    for spec in specs:  # a typo in the third spec must not cost the first two's runs
        load_spec(spec)
    cases = sweep_cases(list(specs), colls, algs, [] if per_chiplet else sizes, per_chiplet or [])
    if output:  # a missing folder or a folder named as the file: found now, not after the runs
        check_targets([output])
    checkpoint, kept = _checkpoint(output, params, time_limit, cases)
    if kept and not quiet:
        click.echo(
            f"resuming: {plural(kept, 'row')} of {len(cases)} kept from {checkpoint}", err=True
        )
    progress = progress_bar(quiet or as_json)
    with progress:
        task = progress.add_task("simulating", total=len(cases), completed=kept)

        def advance(row: dict) -> None:
            progress.update(
                task, advance=1, description=f"{row['topology']} {row['algorithm']}", refresh=True
            )

        cache: dict = {}
        rows = run_sweep(
            cases,
            params,
            time_limit=time_limit,
            cache=cache,
            on_row=advance,
            workers=workers or 1,
            scheduler=scheduler,
            checkpoint=checkpoint,
        )
        if compare:
            progress.update(task, description="baselines (mesh, TACOS)")
            rows = add_speedups(rows, params, time_limit=time_limit, cache=cache)
    fields = ROW_FIELDS + COMPARE_FIELDS if compare else ROW_FIELDS
    doc = {"preset": params.name, "energy_model": params.energy_model, "rows": rows}
    if output:
        text = rows_csv(rows, fields) if fmt == "csv" else json.dumps(doc, indent=1) + "\n"
        write_outputs([(output, text)], quiet)
        if checkpoint is not None:
            checkpoint.unlink(missing_ok=True)
    failed = sum(1 for r in rows if r["error"])
    if as_json:
        emit_json(doc)
    elif output:
        click.echo(f"{plural(len(rows), 'row')} ({plural(failed, 'error')}) in {output}")
    else:
        console = stdout_console()
        seconds = params.report == "seconds"
        for part in _tables(rows, seconds, params.name, params.energy_model, compare):
            console.print(part, markup=False)
    if failed:
        if not as_json:
            click.echo(f"{plural(failed, 'case')} of {len(rows)} failed (see its error)", err=True)
        sys.exit(EXIT_FINDINGS)
