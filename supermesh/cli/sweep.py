"""``supermesh sweep``: simulate a grid of topologies x sizes x algorithms x collectives."""

from __future__ import annotations

import sys
from dataclasses import replace

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from supermesh.cli.common import SPEC_HELP, emit_json, stderr_console, stdout_console
from supermesh.errors import SpecError
from supermesh.export.table import rows_csv
from supermesh.sim import PRESETS
from supermesh.sim.algorithms import ALGORITHMS
from supermesh.sim.collectives import check_collective
from supermesh.sim.compare import COMPARE_FIELDS, add_speedups
from supermesh.sim.energy import energy_model_from_text
from supermesh.sim.presets import params_from_text
from supermesh.sim.sweep import ROW_FIELDS, run_sweep, sweep_cases
from supermesh.topologies.io import write_text_atomic
from supermesh.units import format_size, parse_size_list

__all__ = ["sweep"]


def _names(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        if name not in allowed:
            raise SpecError(f"unknown {what} {name!r}", hint=f"use one of: {', '.join(allowed)}")
    if not names:
        raise SpecError(f"no {what} given")
    return names


def _speedup(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _fmt(value: object, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


@click.command(epilog=SPEC_HELP)
@click.argument("specs", nargs=-1, required=True)
@click.option("--sizes", default="1MiB:512MiB", show_default=True, help="Sizes or LOW:HIGH.")
@click.option(
    "--per-chiplet",
    default=None,
    help="Sizes per compute chiplet (e.g. 375KiB) instead of --sizes.",
)
@click.option("-c", "--collectives", default="allreduce", show_default=True, help="Comma list.")
@click.option("-a", "--algorithms", default="pipeline", show_default=True, help="Comma list.")
@click.option("--preset", type=click.Choice(tuple(PRESETS)), default="booksim", show_default=True)
@click.option(
    "--energy-model",
    default="dsent",
    show_default=True,
    metavar="MODEL",
    help="Energy model (dsent, paper-text), constants overridable: dsent,KEY=VALUE.",
)
@click.option(
    "--set", "overrides", multiple=True, metavar="NAME=VALUE", help="Override a parameter."
)
@click.option("--time-limit", default=60.0, show_default=True, help="CP-SAT seconds per tree set.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write the rows as CSV.")
@click.option(
    "--compare/--no-compare",
    default=True,
    show_default=True,
    help="Speedups against the same algorithm on the mesh and against TACOS on the topology.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as one JSON document.")
def sweep(
    specs: tuple[str, ...],
    sizes: str,
    per_chiplet: str | None,
    collectives: str,
    algorithms: str,
    preset: str,
    energy_model: str,
    overrides: tuple[str, ...],
    time_limit: float,
    csv_path: str | None,
    compare: bool,
    as_json: bool,
) -> None:
    """Simulate every combination of topologies SPECS, sizes, algorithms and collectives.

    Each row also shows its speedup against the same algorithm on the plain mesh of the same
    size and against TACOS on the same topology (--no-compare skips those runs).
    """
    params = params_from_text(preset, overrides)
    params = replace(params, energy_model=energy_model_from_text(energy_model).name)
    colls = [check_collective(c) for c in collectives.split(",") if c.strip()]
    algs = _names(algorithms, ALGORITHMS, "algorithm")
    totals = [] if per_chiplet else parse_size_list(sizes)
    each = parse_size_list(per_chiplet) if per_chiplet else []
    cases = sweep_cases(list(specs), colls, algs, totals, each)
    console = stderr_console(quiet=as_json)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=console.quiet or not sys.stderr.isatty(),
    )
    with progress:
        task = progress.add_task("simulating", total=len(cases))

        def advance(row: dict) -> None:
            progress.update(task, advance=1, description=f"{row['topology']} {row['algorithm']}")

        cache: dict = {}
        rows = run_sweep(cases, params, time_limit=time_limit, cache=cache, on_row=advance)
        if compare:
            progress.update(task, description="baselines (mesh, TACOS)")
            rows = add_speedups(rows, params, time_limit=time_limit, cache=cache)
    fields = ROW_FIELDS + COMPARE_FIELDS if compare else ROW_FIELDS
    if csv_path:
        write_text_atomic(csv_path, rows_csv(rows, fields))
    if as_json:
        emit_json({"preset": params.name, "energy_model": params.energy_model, "rows": rows})
        return
    if csv_path:
        click.echo(f"wrote {len(rows)} rows to {csv_path}")
        return
    unit = "s" if params.report == "seconds" else "cycles"
    table = Table(title=f"sweep ({params.name} preset, {params.energy_model} energy)")
    for name in (
        "topology",
        "collective",
        "algorithm",
        "size",
        f"time ({unit})",
        "algbw",
        "time/bound",
        "max util",
        "energy (J)",
    ):
        table.add_column(name)
    for row in rows:
        if row["error"]:
            table.add_row(
                row["topology"],
                row["collective"],
                row["algorithm"],
                format_size(row["bytes"]),
                f"error: {row['error']}",
                "",
                "",
                "",
                "",
            )
            continue
        table.add_row(
            row["topology"],
            row["collective"],
            row["algorithm"],
            format_size(row["bytes"]),
            _fmt(row["time"], 8),
            _fmt(row["algbw"]),
            _fmt(row["ratio_to_bound"]),
            _fmt(row["max_link_utilization"], 3),
            _fmt(row["energy_joules"]),
        )
    stdout_console().print(table)
    if compare:
        stdout_console().print(_speedup_table(rows))


def _speedup_table(rows: list[dict]) -> Table:
    """Baseline time over this row's time: the mesh (same algorithm) and TACOS (same topology)."""
    table = Table(title="speedup (baseline time / this time)")
    for name in ("topology", "collective", "algorithm", "size", "vs mesh", "vs TACOS"):
        table.add_column(name)
    for row in rows:
        if row["error"]:
            continue
        table.add_row(
            row["topology"],
            row["collective"],
            row["algorithm"],
            format_size(row["bytes"]),
            _speedup(row["speedup_vs_mesh"]),
            _speedup(row["speedup_vs_tacos"]),
        )
    return table
