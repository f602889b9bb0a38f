"""``supermesh schedule``: per-chiplet schedule tables as CSV, JSON or MSCCL XML.

Without ``--trees`` the trees are computed with :func:`pack_trees`: AllReduce, Broadcast and
Reduce use one set with the ``--roots`` (default ``corners``; Broadcast/Reduce repeat the first
root four times); ReduceScatter / AllGather need one tree per chiplet, so ``--roots`` may give
the root sets separated by ``;`` and by default the ranks are dealt into ``ceil(n/k)`` sets with
``k = min(4, arc connectivity)`` (any ``k`` roots then fit, by Edmonds' theorem): set ``j``
holds ranks ``j, j + m, j + 2m, ...`` with ``m = ceil(n/k)``. (A root-set optimiser will replace
this default.)
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import click
import networkx as nx
from rich.table import Table

from supermesh.cli.common import SPEC_HELP, load_spec, stdout_console
from supermesh.errors import InfeasibleError, SpecError
from supermesh.topologies.io import read_json_file, write_text_atomic
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule import COLLECTIVES, Schedule, build_schedule

_FORMATS = ("csv", "json", "msccl")
_EXT = {".csv": "csv", ".json": "json", ".xml": "msccl"}
_UNITS = {"": 1, "b": 1, "k": 2**10, "kib": 2**10, "kb": 10**3, "m": 2**20, "mib": 2**20,
          "mb": 10**6, "g": 2**30, "gib": 2**30, "gb": 10**9}  # fmt: skip


def parse_size(text: str) -> int:
    """Bytes in ``text``: ``4096``, ``4MiB``, ``512KiB``, ``1MB`` (K, M, G alone are binary).

    Examples
    --------
    >>> parse_size("4MiB"), parse_size("1kB"), parse_size("2G")
    (4194304, 1000, 2147483648)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = m.group(2).lower() if m else ""
    if not m or unit not in _UNITS or float(m.group(1)) * _UNITS[unit] < 1:
        raise SpecError(
            f"size {text!r} is not a positive number of bytes",
            hint="e.g. 4096, 512KiB, 4MiB, 1GiB (KB/MB/GB are powers of 10)",
        )
    return math.ceil(float(m.group(1)) * _UNITS[unit])


def root_sets(G: nx.MultiDiGraph, collective: str, roots: str | None) -> list[list[int]]:
    """Root sets for computed trees (the rules are in the module docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> root_sets(build("mesh:3x3"), "allgather", None)  # arc connectivity 2: sets of 2
    [[0, 5], [1, 6], [2, 7], [3, 8], [4]]
    >>> root_sets(build("smbi:4x4"), "allreduce", None), root_sets(build("smbi:4x4"), "reduce", "5")
    ([[0, 3, 15, 12]], [[5]])
    """
    from supermesh.topologies.metrics import arc_connectivity
    from supermesh.trees.rootspec import resolve_roots

    if collective in ("reducescatter", "allgather"):
        if roots:
            return [resolve_roots(G, part) for part in roots.split(";")]
        ranks = compute_nodes(G)
        k = max(1, min(4, arc_connectivity(G, ranks)))
        m = math.ceil(len(ranks) / k)
        return [ranks[j::m] for j in range(m)]
    chosen = resolve_roots(G, roots or "corners")
    if collective in ("broadcast", "reduce") and len(set(chosen)) > 1:
        chosen = [chosen[0]] * len(chosen)
    return [chosen]


def compute_packings(G: nx.MultiDiGraph, collective: str, roots: str | None) -> TreePacking:
    """Height-optimised trees for the collective (the one place the CLI calls the packer)."""
    try:
        from supermesh.trees.packing import pack_trees
    except ImportError:
        raise SpecError(
            "computing trees is not available in this build",
            hint="pass the trees with --trees FILE (written by `supermesh trees`)",
        ) from None
    direction = "in" if collective in ("reducescatter", "reduce") else "out"
    packs = []
    for r in root_sets(G, collective, roots):
        p = pack_trees(G, r, direction=direction)
        if p.status == "infeasible" or not p.sets:
            raise InfeasibleError(
                f"no {len(r)} arc-disjoint {direction}-trees with roots {r} fit {p.topology}",
                certificate=p.certificate or {},
                hint="choose other --roots (see `supermesh bound`) or pass --trees FILE",
            )
        packs.append(p)
    if len(packs) == 1:
        return packs[0]
    first = packs[0]
    return TreePacking(
        topology=first.topology,
        direction=direction,
        status="optimal" if all(p.status == "optimal" for p in packs) else "feasible",
        sets=tuple(s for p in packs for s in p.sets),
        lower_bound=max((p.lower_bound or 0) for p in packs),
        objective=max((p.objective or 0) for p in packs),
        method=first.method,
        span=first.span,
    )


def _format(output: str | None, fmt: str | None) -> str:
    if fmt:
        return fmt
    if not output:
        return "json"
    ext = Path(output).suffix.lower()
    if ext not in _EXT:
        raise SpecError(
            f"cannot tell the format of {output!r} from its extension",
            hint="use .csv, .json or .xml, or pass --format csv|json|msccl",
        )
    return _EXT[ext]


def render(schedule: Schedule, fmt: str, **msccl: Any) -> str:
    """The schedule as text in ``fmt`` (csv, json or msccl)."""
    if fmt == "csv":
        from supermesh.export.table import schedule_csv

        return schedule_csv(schedule)
    if fmt == "msccl":
        from supermesh.export.msccl import msccl_xml

        return msccl_xml(schedule, **msccl)
    import json

    return json.dumps(schedule.to_json(), indent=1) + "\n"


def _summary(schedule: Schedule, fmt: str, output: str) -> Table:
    from supermesh.trees.table_size import TableEncoding, table_bytes

    enc = TableEncoding.for_schedule(schedule)
    size = table_bytes(schedule, enc)
    rows = [len(ids) for ids in schedule.tables.values()]
    ntrees = sum(len(s) for s in schedule.roots)
    table = Table(title=f"{schedule.collective} on {schedule.topology}", show_header=False)
    table.add_column("item")
    table.add_column("value")
    for item, value in (
        ("trees / sets", f"{ntrees} / {len(schedule.roots)}"),
        ("chunks per tree", f"{schedule.chunks} x {schedule.chunk_bytes} B"),
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
@click.option("--collective", "-c", type=click.Choice(COLLECTIVES), required=True)
@click.option(
    "--trees",
    "tree_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Trees from `supermesh trees` (AllReduce: may give in- and out-trees).",
)
@click.option("--roots", help="corners, sides, ids like 0,3,12,15; RS/AG: sets split by ';'.")
@click.option("--size", help="Data size, e.g. 4MiB (sets the chunks per tree).")
@click.option("--chunks", type=click.IntRange(min=1), help="Chunks per tree.")
@click.option("--format", "fmt", type=click.Choice(_FORMATS), help="Output format (default: ext).")
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
    roots: str | None,
    size: str | None,
    chunks: int | None,
    fmt: str | None,
    output: str | None,
    chunks_per_loop: int | None,
    max_steps: int,
) -> None:
    """Build the per-chiplet schedule tables of a collective on topology SPEC.

    Without --trees the trees are computed (height-optimal packing): AllReduce, Broadcast and
    Reduce use --roots (default corners); ReduceScatter and AllGather one tree per chiplet, in
    root sets given as --roots "0,5,10,15;1,6,11,12;..." or by default the ranks dealt into
    sets of min(4, arc connectivity). The format follows the -o extension: .csv (one row per
    chiplet and entry), .json (lossless) or .xml (MSCCL algorithm).
    """
    if size and chunks:
        raise SpecError("--size and --chunks both set the chunk count", hint="give only one")
    if tree_files and roots:
        raise SpecError("--roots is for computed trees", hint="drop --roots or --trees")
    fmt = _format(output, fmt)
    nbytes = parse_size(size) if size else None
    G = load_spec(spec)
    if tree_files:
        packings: Any = [
            TreePacking.from_json(read_json_file(f), source=str(f)) for f in tree_files
        ]
    else:
        packings = compute_packings(G, collective, roots)
    sched = build_schedule(G, collective, packings, chunks=chunks, nbytes=nbytes)
    msccl: dict[str, Any] = {"chunks_per_loop": chunks_per_loop}
    if fmt == "msccl":
        from supermesh.export.msccl import MscclLimits

        msccl["limits"] = MscclLimits(max_steps=max_steps)
    text = render(sched, fmt, **(msccl if fmt == "msccl" else {}))
    if not output:
        click.echo(text, nl=False)
        return
    write_text_atomic(output, text)
    stdout_console().print(_summary(sched, fmt, output))
