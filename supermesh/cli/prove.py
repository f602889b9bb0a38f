"""``supermesh prove``: tree counts and heights for a whole family of sizes, with proofs."""

from __future__ import annotations

import click
from rich.table import Table

from supermesh.cli.common import emit_json, stdout_console
from supermesh.trees.prove.family import FamilyProof, parse_family, parse_sizes, prove_family
from supermesh.trees.prove.result import CHOICES, ChoiceProof

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
        title=f"{fp.family}: {fp.direction}-trees, {len(fp.sizes)} sizes; height per root choice"
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
        table.add_row(s.size, str(s.max_trees), *cells, proof)
    console.print(table)
    console.print(
        "Heights: optimal; the proof is the roots' eccentricity (re-checked) unless marked "
        "(cp-sat: the solver's bound). 'impossible': an Edmonds cut proves no such trees; "
        "max trees: a Frank subpartition rules out one more."
    )
    if out_dir:
        console.print(f"Certificate files (trees, cuts, subpartitions): {out_dir}/")
    a = fp.all_sizes
    if a is None:
        first, last = fp.sizes[0].size, fp.sizes[-1].size
        console.print(f"For all sizes: no argument known; checked range {first}..{last} only.")
        return
    console.print(f"\n[bold]For every size ({a['applies']}):[/bold] {a['statement']}")
    console.print(f"[bold]Why:[/bold] {a['argument']}")
    console.print(f"Checked against this run at {len(a['checked'])} sizes.")
    if a["not_covered"]:
        console.print(f"Not covered by the statement: {', '.join(a['not_covered'])}.")
    for bad in a["contradicted"]:
        console.print(
            f"[red]CONTRADICTED at {bad['size']}: {bad['claim']} predicted {bad['predicted']}, "
            f"found {bad['found']}[/red]"
        )


@click.command(epilog=_FAMILY_HELP)
@click.argument("family")
@click.option(
    "--sizes",
    default="2..16",
    show_default=True,
    help="A..B (square sizes AxA..BxB), A..B:STEP, or a list like 4x4,6x8.",
)
@click.option("--roots", "roots", multiple=True, help=_ROOTS_HELP)
@click.option(
    "--direction",
    type=click.Choice(["out", "in"]),
    default="out",
    show_default=True,
    help="out: broadcast/AllGather trees; in: reduce/ReduceScatter trees.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON document.")
@click.option(
    "-o",
    "--out-dir",
    type=click.Path(file_okay=False),
    help="Write one certificate file per size here (reused when they re-check).",
)
@click.option("--scheduler", help="dask.distributed scheduler address, e.g. tcp://host:8786.")
@click.option("--workers", type=int, help="Local worker processes (default: CPUs; 1: serial).")
@click.option(
    "--time-limit",
    type=float,
    default=60.0,
    show_default=True,
    help="CP-SAT seconds per size and root choice (only where no closed form applies).",
)
def prove(
    family: str,
    sizes: str,
    roots: tuple[str, ...],
    direction: str,
    as_json: bool,
    out_dir: str | None,
    scheduler: str | None,
    workers: int | None,
    time_limit: float,
) -> None:
    """Prove how many disjoint trees every size of FAMILY supports, and their optimal heights.

    For each size: the maximum number of arc-disjoint spanning trees (with the subpartition
    that rules out one more), and for each root choice the optimal height or the cut that
    makes the roots impossible, all re-checked by the independent checkers. Then the statement
    that holds for every size of the family, with its argument, where one is known. Exit status
    0 when computed, 1 if a re-check failed or a size contradicts the statement.
    """
    from supermesh.errors import SpecError
    from supermesh.parallel import open_executor

    _, _, hexagonal = parse_family(family)
    size_list = parse_sizes(sizes, hexagonal=hexagonal)
    choices = [c.strip().lower() for r in roots for c in r.split(",") if c.strip()]
    bad = [c for c in choices if c not in CHOICES]
    if bad:
        raise SpecError(f"--roots {bad[0]!r} is not a root choice", hint=_ROOTS_HELP)
    with open_executor(workers=workers, scheduler=scheduler, tasks=len(size_list)) as executor:
        fp = prove_family(
            family,
            size_list,
            roots=choices or None,
            out_dir=out_dir,
            executor=executor,
            time_limit=time_limit,
            direction=direction,
            progress=not as_json,
        )
    if as_json:
        emit_json(fp.to_json())
    else:
        _print(fp, out_dir)
    contradicted = fp.all_sizes is not None and fp.all_sizes["contradicted"]
    if contradicted or any(s.findings for s in fp.sizes):
        raise SystemExit(1)
