"""``supermesh schedule``: per-chiplet schedule tables as CSV, JSON or MSCCL XML.

Without ``--trees`` the trees are computed by the trees engine
(:func:`supermesh.trees.schedule.collective.collective_trees`, algorithm ``pipeline``, the same
rules ``supermesh sim`` uses). AllReduce: one set of height-optimal trees on ``--roots`` (default
the 4 corners; on a mesh, where 4 corner trees cannot exist, TTO's 3 corner trees with the fourth
corner relaying). Broadcast / Reduce: as many trees from the first root (default the first
corner) as Edmonds' theorem allows. ReduceScatter / AllGather: one tree per chiplet, in the root
sets given as ``--roots "0,5,10,15;1,6,11,12;..."`` or by default the optimised root sets of
:func:`supermesh.trees.roots.sets.root_sets`. ReduceScatter and Reduce use in-trees.
``--algorithm throughput`` (ReduceScatter / AllGather / AllReduce): every chiplet roots several
trees with equal shares of its data, all at once
(:func:`supermesh.trees.schedule.collective.throughput_packing`, trees per chiplet chosen for
``--size``). Sizes are read by :func:`supermesh.units.parse_size`.
"""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from supermesh.cli.common import SPEC_HELP, input_format_option, load_spec, stdout_console
from supermesh.errors import SpecError
from supermesh.export.formats import format_for
from supermesh.export.schedule import EXTENSIONS, FORMATS, schedule_text
from supermesh.sim.tables import SYNTHESISERS, synthesised_schedule
from supermesh.topologies.io import read_json_file, write_text_atomic
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.collective import COLLECTIVE_ALGORITHMS, collective_trees
from supermesh.trees.schedule.model import COLLECTIVES, ROUTE_COLLECTIVES, Schedule
from supermesh.units import parse_size

__all__ = ["schedule"]


def _summary(schedule: Schedule, fmt: str, output: str) -> Table:
    from supermesh.trees.schedule.size import TableEncoding, table_bytes

    enc = TableEncoding.for_schedule(schedule)
    size = table_bytes(schedule, enc)
    rows = [len(ids) for ids in schedule.tables.values()]
    ntrees = sum(len(s) for s in schedule.roots)
    table = Table(title=f"{schedule.collective} on {schedule.topology}", show_header=False)
    table.add_column("item")
    table.add_column("value")
    for item, value in (
        ("trees / sets", f"{ntrees} / {len(schedule.roots)}"),
        (
            "chunks per rank's block" if schedule.weighted else "chunks per tree",
            f"{schedule.chunks} x {schedule.chunk_bytes} B",
        ),
        ("entries", str(len(schedule.entries))),
        ("rows per chiplet", f"max {max(rows)}, mean {sum(rows) / len(rows):.1f}"),
        ("table bytes per chiplet", f"max {max(size.values())} ({enc.row_bytes} B per row)"),
        ("table bytes, all chiplets", str(sum(size.values()))),
        ("written", f"{output} ({fmt})"),
    ):
        table.add_row(item, value)
    return table


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option(
    "--collective", "-c", type=click.Choice(COLLECTIVES + ROUTE_COLLECTIVES), required=True
)
@click.option(
    "--trees",
    "tree_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Trees from `supermesh trees` (AllReduce: may give in- and out-trees).",
)
@click.option(
    "-a",
    "--algorithm",
    type=click.Choice((*COLLECTIVE_ALGORITHMS, *SYNTHESISERS)),
    default=None,
    help="Computed trees: pipeline (default), paper, tto (AllReduce) or throughput (RS/AG/AR: "
    "several weighted trees per chiplet, all at once; trees per chiplet chosen for --size); "
    "tacos (RS/AG/AR: TACOS's synthesised trees, one per chunk, in its own per-link order); "
    "teccl (RS/AG/AR/AllToAll: TE-CCL's loop body, a tree or route per chunk); direct "
    "(AllToAll: one route per block).",
)
@click.option("--roots", help="corners, sides, ids like 0,3,12,15; RS/AG: sets split by ';'.")
@click.option("--size", help="Data size, e.g. 4MiB (sets the chunks per tree).")
@click.option(
    "--chunks",
    type=click.IntRange(min=1),
    help="Chunks per tree (throughput tables: per rank's block, split among its trees).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format (default: ext).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here (else stdout).")
@click.option("--chunks-per-loop", type=click.IntRange(min=1), help="MSCCL: chunk slots per loop.")
@click.option(
    "--max-steps",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="MSCCL: steps per threadblock (RCCL 64, MSCCL 256).",
)
def schedule(
    spec: str,
    collective: str,
    tree_files: tuple[str, ...],
    algorithm: str,
    roots: str | None,
    size: str | None,
    chunks: int | None,
    fmt: str | None,
    output: str | None,
    chunks_per_loop: int | None,
    max_steps: int,
) -> None:
    """Build the per-chiplet schedule tables of a collective on topology SPEC.

    Without --trees the trees are computed (height-optimal packing, as `supermesh sim` does):
    AllReduce uses --roots (default corners; on a mesh TTO's 3 corner trees), Broadcast and
    Reduce as many trees from the first root as fit; ReduceScatter and AllGather one tree per
    chiplet, in root sets given as --roots "0,5,10,15;1,6,11,12;..." or by default the
    optimised root sets. The format follows the -o extension: .csv (one row per chiplet and
    entry), .json (lossless) or .xml (MSCCL algorithm).
    """
    if collective in ROUTE_COLLECTIVES and algorithm not in SYNTHESISERS:
        raise SpecError(
            "-c alltoall schedules point-to-point routes, not trees",
            hint="use -a teccl or -a direct (and no --trees)",
        )
    if algorithm in SYNTHESISERS and tree_files:
        raise SpecError(f"-a {algorithm} computes its own schedule", hint="drop --trees")
    if size and chunks:
        raise SpecError("--size and --chunks both set the chunk count", hint="give only one")
    if algorithm in SYNTHESISERS:
        if roots:
            raise SpecError(
                f"-a {algorithm} chooses its own trees and routes (TACOS roots one at every "
                "chiplet)",
                hint="drop --roots",
            )
        sched = synthesised_schedule(
            load_spec(spec),
            collective,
            algorithm,
            nbytes=parse_size(size) if size else None,
            chunks=chunks,
        )
        _write(sched, fmt, output, chunks_per_loop, max_steps)
        return
    algorithm = algorithm or "pipeline"
    if tree_files and roots:
        raise SpecError("--roots is for computed trees", hint="drop --roots or --trees")
    if tree_files and algorithm != "pipeline":
        raise SpecError("--algorithm is for computed trees", hint="drop --algorithm or --trees")
    fmt = format_for(output, fmt, EXTENSIONS) if output else (fmt or "json")
    nbytes = parse_size(size) if size else None
    G = load_spec(spec)
    if tree_files:
        packings: Any = [
            TreePacking.from_json(read_json_file(f), source=str(f)) for f in tree_files
        ]
    else:
        packings = collective_trees(G, collective, algorithm=algorithm, roots=roots, nbytes=nbytes)
    sched = build_schedule(G, collective, packings, chunks=chunks, nbytes=nbytes)
    _write(sched, fmt, output, chunks_per_loop, max_steps)


def _write(
    sched: Schedule,
    fmt: str | None,
    output: str | None,
    chunks_per_loop: int | None,
    max_steps: int,
) -> None:
    fmt = format_for(output, fmt, EXTENSIONS) if output else (fmt or "json")
    msccl: dict[str, Any] = {"chunks_per_loop": chunks_per_loop}
    if fmt == "msccl":
        from supermesh.export.msccl import MscclLimits

        msccl["limits"] = MscclLimits(max_steps=max_steps)
    text = schedule_text(sched, fmt, **(msccl if fmt == "msccl" else {}))
    if not output:
        click.echo(text, nl=False)
        return
    write_text_atomic(output, text)
    stdout_console().print(_summary(sched, fmt, output))
