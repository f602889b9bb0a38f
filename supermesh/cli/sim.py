"""``supermesh sim``: how long a collective takes on a topology (calibrated link simulator)."""

from __future__ import annotations

from dataclasses import replace

import click
from rich.table import Table

from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    load_document,
    load_spec,
    status,
    stdout_console,
)
from supermesh.cli.options import (
    ROOTS_HELP,
    check_roots,
    input_format_option,
    json_option,
    quiet_option,
    refuse_unused,
    time_limit_option,
)
from supermesh.cli.params import preset_options
from supermesh.cli.values import Choice, Size
from supermesh.errors import InputFileError, SpecError
from supermesh.sim import SIM_COLLECTIVES, SimResult
from supermesh.sim.algorithms import run_algorithm
from supermesh.sim.defaults import ALGORITHMS, TECCL, THROUGHPUT, TREE_ALGORITHMS
from supermesh.sim.energy import ENERGY_MODELS, energy_model_from_text
from supermesh.sim.presets import params_from_text
from supermesh.trees.model import TreePacking, read_packing
from supermesh.units import format_energy, format_size, plural

__all__ = ["read_packings", "result_rows", "sim"]


def read_packings(
    paths: tuple[str, ...], spec: str = ""
) -> tuple[TreePacking | None, TreePacking | None]:
    """Read one or two tree files: returns (out-tree packing, in-tree packing).

    A file made for another topology than ``spec`` (canonical spec string) is refused.
    """
    out: TreePacking | None = None
    inn: TreePacking | None = None
    for path in paths:
        packing = load_document(path, lambda p=path: read_packing(p, spec), "tree file")
        if packing.direction == "out":
            if out is not None:
                raise InputFileError("two out-tree files given", hint="give one per direction")
            out = packing
        else:
            if inn is not None:
                raise InputFileError("two in-tree files given", hint="give one per direction")
            inn = packing
    return out, inn


def _time(r: SimResult) -> str:
    if r.params.report == "seconds":
        return f"{r.seconds * 1e6:,.3f} us"
    return f"{r.time:,.1f} cycles"


def _bw(r: SimResult) -> str:
    if r.params.report == "seconds":
        return f"{r.nbytes / r.seconds / 1e9:,.2f} GB/s" if r.seconds else "-"
    return f"{r.algbw:,.3f} B/cycle"


def _joules(*joules: float) -> str:
    return " / ".join(format_energy(j) for j in joules)


def result_rows(r: SimResult) -> list[tuple[str, str]]:
    """Rows ``(label, value)`` of the human-readable result table."""
    ratio = r.ratio_to_bound
    lower = "-"
    if r.lower_bound is not None:
        lower = (
            f"{r.params.to_seconds(r.lower_bound) * 1e6:,.3f} us"
            if r.params.report == "seconds"
            else f"{r.lower_bound:,.1f} cycles"
        )
    rows = [
        ("topology", r.topology),
        ("collective", f"{r.collective} of {format_size(r.nbytes)}"),
        ("algorithm / preset", f"{r.algorithm} / {r.params.name}"),
        ("time", _time(r)),
        ("algorithm bandwidth", _bw(r)),
        ("cut bound (time)", lower),
        ("time / bound", f"{ratio:.3f}" if ratio is not None else "-"),
        ("max link utilization", f"{100 * r.max_link_utilization:.1f}%"),
        ("mean link utilization", f"{100 * r.mean_link_utilization:.1f}%"),
        ("energy", f"{format_energy(r.energy.total)} ({r.energy_model.name} model)"),
        ("  router static / dynamic", _joules(r.energy.router_static, r.energy.router_dynamic)),
        ("  link static / dynamic", _joules(r.energy.link_static, r.energy.link_dynamic)),
        ("flit hops", f"{r.activity.flits:,}"),
    ]
    if r.bound is not None and isinstance(r.bound.certificate.get("algbw_links"), str):
        exact = r.bound.certificate["algbw_links"]
        rows.insert(6, ("cut bound (links)", f"{exact} = {r.bound.value:.4f}"))
    meta = r.meta
    if "chunks" in meta:
        rows.append(("chunks per tree (per set)", ", ".join(map(str, meta["chunks"][:8]))))
        if r.algorithm == THROUGHPUT:
            rows.append(("trees at once / height", f"{meta['trees']} / {max(meta['heights'])} max"))
        else:
            rows.append(("tree sets / heights", f"{meta['sets']} / {max(meta['heights'])} max"))
    tried = [t for t in meta.get("tried", []) if "time" in t]
    if r.algorithm == THROUGHPUT and tried:
        kept = min(tried, key=lambda t: t["time"])
        rows.append(
            (
                f"schedule kept (of {len(tried)} tried)",
                f"{kept['rule']}; {kept['chunk_bytes']:,} B chunks",
            )
        )
    for phase, t in meta.get("teccl", {}).items():
        stopped = ", time limit" if t.get("stopped") else ""
        rows.append(
            (
                f"TE-CCL {phase} loop body",
                f"{plural(t['chunks_per_source'], 'chunk')} a source, "
                f"{plural(t['epochs'], 'epoch')}, {t['status']} "
                f"(lower bound {t['lower_bound']}, {t['method']}{stopped})",
            )
        )
    rows.append(("transfers", f"{meta.get('transfers', 0):,}"))
    return rows


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option(
    "-c",
    "--collective",
    type=Choice(SIM_COLLECTIVES),
    default="allreduce",
    show_default=True,
    help="Which collective.",
)
@click.option(
    "-s",
    "--size",
    type=Size(),
    default="4MiB",
    show_default=True,
    help="Data size: B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB (powers of 1000).",
)
@click.option(
    "-a",
    "--algorithm",
    type=Choice(ALGORITHMS),
    default=None,
    help="Schedule: tree pipelines, the throughput packing (RS/AG/AR) or a baseline "
    "[default: throughput for reducescatter / allgather on mesh, SMBi and SMAlter and for "
    "a --trees file of weighted trees; tacos where routers or unequal link costs make the "
    "trees lose (cmesh, kite, butterflies, conc=4); direct for alltoall; else pipeline].",
)
@preset_options
@click.option(
    "--energy-model",
    default="dsent",
    show_default=True,
    metavar="MODEL",
    help=f"Energy model ({', '.join(ENERGY_MODELS)}), constants overridable: dsent,KEY=VALUE.",
)
@click.option(
    "--trees",
    "tree_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Tree file(s) from `supermesh trees` (one per direction; a weighted packing from "
    "`trees --throughput`: one file) instead of building trees.",
)
@click.option(
    "--roots",
    default=None,
    help=ROOTS_HELP + " Here: the roots of an AllReduce, Broadcast or Reduce set, or the "
    "root sets of a ReduceScatter / AllGather (tree algorithms).",
)
@time_limit_option("Here: per tree set, where trees are built.")
@click.option("--no-links", is_flag=True, help="Leave the per-link list out of --json.")
@json_option()
@quiet_option()
@click.pass_context
def sim(
    ctx: click.Context,
    spec: str,
    collective: str,
    size: int,
    algorithm: str | None,
    preset: str,
    energy_model: str,
    overrides: tuple[str, ...],
    tree_files: tuple[str, ...],
    roots: str | None,
    time_limit: float,
    no_links: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Simulate a COLLECTIVE of SIZE on topology SPEC and report time, bandwidth, bound, energy.

    The link model's constants come from --preset (booksim: the paper's BookSim2 setup,
    reported in cycles; paper: 25 GB/s links and 20 ns hops, reported in seconds); --set
    NAME=VALUE overrides one (repeatable); --list-params prints every name with its type,
    range, unit and the presets' values.
    """
    params = params_from_text(preset, overrides)
    params = replace(params, energy_model=energy_model_from_text(energy_model).name)
    if tree_files:
        if algorithm is not None and algorithm not in (*TREE_ALGORITHMS, THROUGHPUT):
            raise SpecError(
                f"--trees goes with a tree algorithm, not {algorithm!r}",
                hint="drop --algorithm or use --algorithm pipeline",
            )
        refuse_unused(ctx, ("roots", "time_limit"), "with --trees: the trees are given")
    elif collective == "alltoall":
        refuse_unused(ctx, ("roots",), "to -c alltoall: it sends point-to-point, not on trees")
    elif algorithm is not None and algorithm not in TREE_ALGORITHMS:
        why = f"to -a {algorithm}: it builds no trees of given roots"
        solves = algorithm in (THROUGHPUT, TECCL)  # these two search with CP-SAT
        refuse_unused(ctx, ("roots",) if solves else ("roots", "time_limit"), why)
    if roots is not None:
        roots = check_roots(roots, sets=True)
    G = load_spec(spec)
    trees = None
    reduce_trees = None
    if tree_files:
        out, inn = read_packings(tree_files, G.graph.get("spec", ""))
        trees = out or inn
        reduce_trees = inn if out is not None else None
    with status(f"{collective} on {spec}: building trees and simulating", quiet or as_json):
        result = run_algorithm(
            G,
            algorithm,
            collective,
            size,
            params,
            trees=trees,
            reduce_trees=reduce_trees,
            roots=roots,
            time_limit=time_limit,
        )
    if as_json:
        emit_json(result.to_json(arcs=not no_links))
        return
    table = Table(title=f"{collective} on {G.graph.get('name', spec)}", show_header=False)
    table.add_column("quantity")
    table.add_column("value")
    for row in result_rows(result):
        table.add_row(*row)
    stdout_console().print(table)
