"""``supermesh prove``: tree counts and heights for a whole family of sizes, with proofs."""

from __future__ import annotations

import click
from rich.table import Table

from supermesh.cli.common import (
    emit_json,
    progress_enabled,
    stdout_console,
    wrapped,
    written_folder,
)
from supermesh.cli.options import (
    json_option,
    quiet_option,
    refuse_unused,
    time_limit_option,
    workers_options,
)
from supermesh.cli.values import Choice, OutputPath
from supermesh.errors import SpecError
from supermesh.trees.prove.family import FamilyProof, parse_family, parse_sizes, prove_family
from supermesh.trees.prove.result import CHOICES, ChoiceProof
from supermesh.units import plural

_FAMILY_HELP = (
    "FAMILY is a family name with options but no size: smbi, smalter, smalter,corners=4, "
    "partial-smbi,io=east, smuni, torus, hexamesh (sizes are radii), mesh,memory=south."
)
_ROOTS_HELP = (
    "Root choices to prove heights for (repeat or comma-separate): corners, sides, corners3 "
    "(three corners; on the mesh the fourth only relays), free (count only). "
    "Default: corners and sides (plus corners3 on mesh and partial families)."
)


def _cell(c: ChoiceProof) -> str:
    if c.status == "optimal":
        return str(c.height) + ("" if c.bound == "eccentricity" else " (cp-sat)")
    if c.status == "feasible":
        return f"{c.height} (>= {c.lower_bound})"
    if c.status == "infeasible":
        return "impossible"
    return "-" if c.status == "n/a" else "time limit"


def _print(fp: FamilyProof, out_dir: str | None) -> None:
    console = stdout_console()
    names = list(fp.roots)
    shown = [n for n in names if any(s.choices.get(n) for s in fp.sizes)]
    table = Table(
        title=f"{fp.family}: {fp.direction}-trees, {plural(len(fp.sizes), 'size')}; height per "
        "root choice"
    )
    table.add_column("size")
    table.add_column("max trees", justify="right")
    for n in shown:
        table.add_column(n, justify="right")
    table.add_column("proof")
    for s in fp.sizes:
        cells = [_cell(s.choices[n]) if n in s.choices else "" for n in shown]
        if s.findings:
            proof = f"CHECK FAILED: {s.findings[0]}"
        elif not s.proven:
            proof = "partly proven"
        else:
            proof = "re-checked" + (" (reused)" if s.reused else "")
        if s.recomputed:
            proof += " (recomputed)"
        table.add_row(s.size, str(s.max_trees), *cells, proof)
    console.print(table)
    for s in fp.sizes:
        if s.recomputed:
            console.print(
                f"{s.size}: the file already there was not reused: {s.recomputed}; "
                "this size was computed again.",
                markup=False,
            )
    console.print(
        wrapped(
            "Heights: optimal; the proof is the roots' eccentricity (re-checked) unless marked "
            "(cp-sat: the solver's bound). 'impossible': an Edmonds cut proves no such trees; "
            "max trees: a Frank subpartition rules out one more."
        )
    )
    a = fp.all_sizes
    if a is None:
        first, last = fp.sizes[0].size, fp.sizes[-1].size
        console.print(f"For all sizes: no argument known; checked range {first}..{last} only.")
        return
    console.print()
    console.print(wrapped(f"For every size ({a['applies']}): {a['statement']}"), markup=False)
    console.print(wrapped(f"Why: {a['argument']}"), markup=False)
    console.print(f"Checked against this run at {plural(len(a['checked']), 'size')}.")
    if a["not_covered"]:
        console.print(f"Not covered by the statement: {', '.join(a['not_covered'])}.")
    for bad in a["contradicted"]:
        console.print(
            f"[red]CONTRADICTED at {bad['size']}: {bad['claim']} predicted {bad['predicted']}, "
            f"found {bad['found']}[/red]"
        )


def _renamed(new: str) -> object:
    def refuse(ctx: click.Context, param: click.Parameter, value: object) -> None:
        if value is not None:
            raise SpecError(
                f"prove {max(param.opts, key=len)} is now {new}",
                hint=f"write {new} {value}"
                + ("; sweep's --sizes are byte sizes" if new == "--grids" else ""),
            )

    return refuse


@click.command(epilog=_FAMILY_HELP)
@click.argument("family")
@click.option(
    "--grids",
    default="2..16",
    show_default=True,
    help="The family's sizes: A..B (square grids AxA..BxB), A..B:STEP, or a list like "
    "4x4,6x8 (HexaMesh: radii).",
)
@click.option("--sizes", hidden=True, expose_value=False, callback=_renamed("--grids"))
@click.option(
    "--out-dir", "old_out_dir", hidden=True, expose_value=False, callback=_renamed("-o/--output")
)
@click.option("--roots", "roots", multiple=True, help=_ROOTS_HELP)
@click.option(
    "--direction",
    type=Choice(["out", "in"]),
    default="out",
    show_default=True,
    help="out: broadcast/AllGather trees; in: reduce/ReduceScatter trees.",
)
@json_option()
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=OutputPath(directory=True),
    help="Write one certificate file per size into this folder (created if missing; files "
    "there are reused when they re-check).",
)
@workers_options("the sizes", default="the CPUs; 1: serial")
@time_limit_option("Here: per size and root choice (only where no closed form applies).")
@quiet_option()
@click.pass_context
def prove(
    ctx: click.Context,
    family: str,
    grids: str,
    roots: tuple[str, ...],
    direction: str,
    as_json: bool,
    out_dir: str | None,
    scheduler: str | None,
    workers: int | None,
    time_limit: float,
    quiet: bool,
) -> None:
    """Prove how many disjoint trees every size of FAMILY supports, and their optimal heights.

    For each size: the maximum number of arc-disjoint spanning trees (with the subpartition
    that rules out one more), and for each root choice the optimal height or the cut that
    makes the roots impossible, all re-checked by the independent checkers. Then the statement
    that holds for every size of the family, with its argument, where one is known. Exit status
    0 when computed, 1 if a re-check failed or a size contradicts the statement.
    """
    from supermesh.parallel import open_executor
    from supermesh.topologies.output import ensure_directory

    if scheduler is not None:
        refuse_unused(ctx, ("workers",), "with --scheduler: the cluster's workers run the tasks")
    _, _, hexagonal = parse_family(family)
    size_list = parse_sizes(grids, hexagonal=hexagonal)
    choices = [c.strip().lower() for r in roots for c in r.split(",") if c.strip()]
    bad = [c for c in choices if c not in CHOICES]
    if bad or (roots and not choices):
        shown = bad[0] if bad else ",".join(roots)
        raise SpecError(f"--roots {shown[:40]!r} is not a root choice", hint=_ROOTS_HELP)
    if out_dir:
        ensure_directory(out_dir)
    with open_executor(workers=workers, scheduler=scheduler, tasks=len(size_list)) as executor:
        fp = prove_family(
            family,
            size_list,
            roots=choices or None,
            out_dir=out_dir,
            executor=executor,
            time_limit=time_limit,
            direction=direction,
            progress=progress_enabled(quiet or as_json),
        )
    if out_dir:
        written_folder(out_dir, len(fp.sizes), quiet)
    if as_json:
        emit_json(fp.to_json())
    else:
        _print(fp, out_dir)
    contradicted = fp.all_sizes is not None and fp.all_sizes["contradicted"]
    if contradicted or any(s.findings for s in fp.sizes):
        raise SystemExit(1)
