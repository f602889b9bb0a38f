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
``--size``); its AllReduce tables have no global barrier (``barrier: false``: an ``ag`` chunk
leaves its root once the root has reduced it, as ``sim -a throughput`` runs it), and so do those
of a weighted ``--trees`` packing. Sizes are read by :func:`supermesh.units.parse_size`.
"""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from supermesh.cli.common import (
    SPEC_HELP,
    load_document,
    load_spec,
    status,
    stdout_console,
    write_outputs,
)
from supermesh.cli.options import (
    ROOTS_HELP,
    check_roots,
    input_format_option,
    output_option,
    quiet_option,
    refuse_unused,
    time_limit_option,
)
from supermesh.cli.values import Choice, Integer, Size
from supermesh.errors import SpecError
from supermesh.export.formats import format_for
from supermesh.export.schedule import EXTENSIONS, FORMATS, schedule_text
from supermesh.sim.defaults import is_weighted
from supermesh.sim.tables import SYNTHESISERS, synthesised_schedule
from supermesh.trees.model import read_packing
from supermesh.trees.schedule.build import build_schedule
from supermesh.trees.schedule.collective import COLLECTIVE_ALGORITHMS, phase_packings
from supermesh.trees.schedule.model import COLLECTIVES, ROUTE_COLLECTIVES, Schedule

__all__ = ["schedule"]


def _summary(schedule: Schedule) -> Table:
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
    ):
        table.add_row(item, value)
    return table


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option("--collective", "-c", type=Choice(COLLECTIVES + ROUTE_COLLECTIVES), required=True)
@click.option(
    "--trees",
    "tree_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Trees from `supermesh trees` for this topology (AllReduce: may give in- and out-trees).",
)
@click.option(
    "-a",
    "--algorithm",
    type=Choice((*COLLECTIVE_ALGORITHMS, *SYNTHESISERS)),
    default=None,
    help="Computed trees: pipeline (default), paper, tto (AllReduce) or throughput (RS/AG/AR: "
    "several weighted trees per chiplet, all at once; trees per chiplet chosen for --size); "
    "tacos (RS/AG/AR: TACOS's synthesised trees, one per chunk, in its own per-link order); "
    "teccl (RS/AG/AR/AllToAll: TE-CCL's loop body, a tree or route per chunk); direct "
    "(AllToAll: one route per block).",
)
@click.option(
    "--roots",
    help=ROOTS_HELP + " Here: the set of an AllReduce, Broadcast or Reduce, or the root sets "
    "of a ReduceScatter / AllGather.",
)
@click.option(
    "--size",
    type=Size(),
    help="Data size, e.g. 4MiB or 4MB (sets the chunks per tree).",
)
@click.option(
    "--chunks",
    type=Integer(1, 10**9),
    help="Chunks per tree (throughput tables: per rank's block, split among its trees).",
)
@click.option("--format", "fmt", type=Choice(FORMATS), help="Output format (default: ext).")
@output_option("Write the tables here, .csv, .json or .xml (else JSON on stdout)")
@click.option("--chunks-per-loop", type=Integer(1, 10**6), help="MSCCL: chunk slots per loop.")
@click.option(
    "--max-steps",
    type=Integer(1, 65536),
    default=64,
    show_default=True,
    help="MSCCL: steps per threadblock (RCCL 64, MSCCL 256).",
)
@time_limit_option("Here: per tree set, where trees are built (as in `supermesh sim`).")
@quiet_option()
@click.pass_context
def schedule(
    ctx: click.Context,
    spec: str,
    collective: str,
    tree_files: tuple[str, ...],
    algorithm: str,
    roots: str | None,
    size: int | None,
    chunks: int | None,
    fmt: str | None,
    output: str | None,
    chunks_per_loop: int | None,
    max_steps: int,
    time_limit: float,
    quiet: bool,
) -> None:
    """Build the per-chiplet schedule tables of a collective on topology SPEC.

    Without --trees the trees are computed (height-optimal packing, as `supermesh sim` does):
    AllReduce uses --roots (default corners; on a mesh TTO's 3 corner trees), Broadcast and
    Reduce as many trees from the first root as fit; ReduceScatter and AllGather one tree per
    chiplet, in root sets given as --roots "0,5,10,15;1,6,11,12;..." or by default the
    optimised root sets. A --trees file must be for SPEC (as in `supermesh sim`). The format
    follows the -o extension: .csv (one row per chiplet and entry), .json (lossless) or .xml
    (MSCCL algorithm).
    """
    synthesised = algorithm in SYNTHESISERS
    if collective in ROUTE_COLLECTIVES and not synthesised:
        raise SpecError(
            "-c alltoall schedules point-to-point routes, not trees",
            hint="use -a teccl or -a direct (and no --trees)",
        )
    if synthesised and tree_files:
        raise SpecError(f"-a {algorithm} computes its own schedule", hint="drop --trees")
    if synthesised and roots is not None:
        raise SpecError(
            f"-a {algorithm} chooses its own trees and routes (TACOS roots one at every chiplet)",
            hint="drop --roots",
        )
    if size and chunks:
        raise SpecError("--size and --chunks both set the chunk count", hint="give only one")
    if tree_files and roots is not None:
        raise SpecError("--roots is for computed trees", hint="drop --roots or --trees")
    if tree_files:
        refuse_unused(
            ctx, ("algorithm",), "to --trees (the trees are given)", "drop -a/--algorithm"
        )
        refuse_unused(ctx, ("time_limit",), "with --trees: the trees are given")
    if synthesised:
        refuse_unused(ctx, ("time_limit",), f"to -a {algorithm}: it packs no trees with CP-SAT")
    algorithm = algorithm or "pipeline"
    fmt = format_for(output, fmt, EXTENSIONS) if output else (fmt or "json")
    if fmt != "msccl":
        refuse_unused(ctx, ("chunks_per_loop", "max_steps"), f"to {fmt} tables (MSCCL XML only)")
    if roots is not None:
        roots = check_roots(roots, sets=True)
    G = load_spec(spec)
    with status(f"{collective} tables on {spec}", quiet or not output):
        if synthesised:
            sched = synthesised_schedule(G, collective, algorithm, nbytes=size, chunks=chunks)
        else:
            if tree_files:
                canonical = G.graph.get("spec", "")
                packings: Any = [
                    load_document(f, lambda f=f: read_packing(f, canonical), "tree file")
                    for f in tree_files
                ]
            else:
                packings = phase_packings(
                    G,
                    collective,
                    algorithm=algorithm,
                    roots=roots,
                    nbytes=size,
                    time_limit=time_limit,
                )
            # weighted trees (-a throughput's, or a file of them) run as sim -a throughput runs
            # them: an AllReduce without the barrier
            barrier = not any(is_weighted(G, p) for p in packings)
            sched = build_schedule(
                G, collective, packings, chunks=chunks, nbytes=size, barrier=barrier
            )
        msccl: dict[str, Any] = {"chunks_per_loop": chunks_per_loop}
        if fmt == "msccl":
            from supermesh.export.msccl import MscclLimits

            msccl["limits"] = MscclLimits(max_steps=max_steps)
        text = schedule_text(sched, fmt, **(msccl if fmt == "msccl" else {}))
    if not output:
        click.echo(text, nl=False)
        return
    write_outputs([(output, text)], quiet)
    stdout_console().print(_summary(sched))
