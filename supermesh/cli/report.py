"""``supermesh report``: the first page a user reads: topologies compared side by side."""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import click
from rich.table import Table

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import SPEC_HELP, emit_json, load_spec, status, stdout_console
from supermesh.cli.options import (
    json_option,
    quiet_option,
    time_limit_option,
)
from supermesh.cli.params import preset_option
from supermesh.cli.topo import metric_rows
from supermesh.cli.values import Size
from supermesh.report import COLLECTIVES, build_report, report_errors
from supermesh.units import format_size, plural

DEFAULT_SPECS = ("smbi:4x4", "mesh:4x4")


def _sets(sets: list[list[int]]) -> str:
    return ", ".join(
        "{" + ",".join(map(str, s[:6])) + (",..." if len(s) > 6 else "") + "}" for s in sets[:4]
    ) + (", ..." if len(sets) > 4 else "")


def _free(trees: dict[str, Any]) -> str:
    free = trees["free_roots"]
    cert = free["certificate"]
    k = free["max_trees"]
    if cert.get("kind") == "subpartition":
        proof = (
            f"{k + 1} ruled out: sets {_sets(cert['sets'])} entered by "
            f"{plural(sum(cert['entering_arcs']), 'arc')} < {cert['required']} (Frank)"
        )
    else:
        proof = f"{k + 1} ruled out ({cert.get('kind', 'certificate')})"
    return f"{k}; {proof}"


def _corners(trees: dict[str, Any]) -> str:
    c = trees.get("corners")
    if c is None:
        return "n/a"
    if c["feasible"]:
        return "4 trees fit" + ("" if c.get("exact", True) else " (flow bound)")
    cert = c["certificate"]
    return (
        f"4 do not fit: {_sets([cert['set']])} entered by {plural(cert['entering_arcs'], 'arc')} "
        f"< {cert['required']} (Edmonds)"
    )


def _allreduce(trees: dict[str, Any]) -> str:
    t = trees["allreduce_trees"]
    heights = "/".join(map(str, t["heights"]))
    bound = t["lower_bound"]
    return (
        f"{plural(len(t['heights']), 'tree')}, roots {','.join(map(str, t['roots']))}; "
        f"heights {heights}" + (f" (bound {bound})" if bound is not None else "")
    )


def _tree_rows(entry: dict[str, Any]) -> list[tuple[str, str]]:
    trees = entry["trees"]
    if "error" in trees:
        return [("trees", f"error: {trees['error']}")]
    rows = [
        ("trees for any roots", str(trees["any_roots"])),
        ("max trees, free roots", _free(trees)),
        ("corner roots", _corners(trees)),
        ("AllReduce trees", _allreduce(trees)),
    ]
    tp = trees.get("allgather_throughput") or {}
    if "bound" in tp:
        rows.append(
            (
                "AllGather throughput",
                f"bound {tp['bound']}, rate {tp['rate']}, max height {tp['max_height']} "
                f"(bound {tp['lower_bound']})",
            )
        )
    fam = entry.get("family")
    if isinstance(fam, dict) and "statement" in fam:
        rows.append(("all sizes", fam["statement"]))
    gap = entry.get("design_gap")
    if isinstance(gap, dict) and "minimum_links" in gap:
        rows.append(
            (
                "added links / cheapest",
                f"{gap['added_links']} / {gap['minimum_links']} for {plural(gap['trees'], 'tree')}",
            )
        )
    return rows


def _sim_rows(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    rows = []
    for c in COLLECTIVES:
        cells = []
        for e in report["topologies"]:
            sim = e.get("sim", {})
            doc = sim.get(c) if isinstance(sim, dict) else None
            if not isinstance(doc, dict) or "error" in doc:
                failed = doc if isinstance(doc, dict) else sim
                text = failed.get("error", "?") if isinstance(failed, dict) else None
                cells.append(f"error: {text}" if text is not None else "")
                continue
            t = doc.get("cycles")
            value = f"{t:,.0f} cycles" if t is not None else f"{doc['seconds'] * 1e6:,.1f} us"
            speed = report["speedups"][e["spec"]][c]
            vs_tacos = report.get("speedups_vs_tacos", {}).get(e["spec"], {}).get(c)
            energy = report["energy_ratios"][e["spec"]][c]
            ratio = doc.get("ratio_to_bound")
            versus = e["spec"] != report["baseline"]
            cells.append(
                value
                + (f", {speed:.2f}x faster" if speed and versus else "")
                + (f", {energy:.2f}x the energy" if energy and versus else "")
                + (f", {vs_tacos:.2f}x vs TACOS" if vs_tacos else "")
                + (f", {ratio:.2f}x the cut bound" if ratio else "")
            )
        rows.append((c, cells))
    return rows


@click.command(epilog=SPEC_HELP)
@click.argument("specs", nargs=-1)
@click.option(
    "--size", type=Size(), default="4MiB", show_default=True, help="Collective size to simulate."
)
@preset_option
@click.option(
    "--energy-model",
    default="dsent",
    show_default=True,
    metavar="MODEL",
    help="Energy model (dsent, paper-text), constants overridable: dsent,KEY=VALUE.",
)
@click.option("--no-sim", is_flag=True, help="Skip the simulated times.")
@click.option("--no-design", is_flag=True, help="Skip the cheapest-design comparison.")
@time_limit_option("Here: per tree set.")
@json_option("the report")
@quiet_option()
def report(
    specs: tuple[str, ...],
    size: int,
    preset: str,
    energy_model: str,
    no_sim: bool,
    no_design: bool,
    time_limit: float,
    as_json: bool,
    quiet: bool,
) -> None:
    """Compare topologies SPEC... (default: smbi:4x4 against mesh:4x4; the last is the baseline)."""
    nbytes = size
    for spec in specs:  # every spec checked before the long part
        load_spec(spec)
    with status("report: trees, proofs and simulations", quiet or as_json):
        doc = build_report(
            specs or DEFAULT_SPECS,
            nbytes=nbytes,
            preset=preset,
            simulate=not no_sim,
            design=not no_design,
            time_limit=time_limit,
            energy_model=energy_model,
        )
    if as_json:
        emit_json(doc)
        _fail_on_errors(doc)
        return
    entries = doc["topologies"]
    console = stdout_console()
    for title, rows in (
        ("Topology", [metric_rows(e["metrics"]) for e in entries]),
        ("Trees (with proof)", [_tree_rows(e) for e in entries]),
    ):
        table = Table(title=title)
        table.add_column("")
        for e in entries:
            table.add_column(e["name"])
        labels = list(dict.fromkeys(label for r in rows for label, _ in r))
        for label in labels:
            table.add_row(label, *(dict(r).get(label, "") for r in rows))
        console.print(table)
    if not no_sim:
        title = (
            f"Simulated pipelined collectives, {format_size(nbytes)} ({preset} preset, "
            f"{doc['energy_model']} energy; speedup and energy vs {doc['baseline']}, "
            "speedup vs TACOS on the same topology)"
        )
        # folded here: the console prints unwrapped (soft wrap), and tables fit 80 columns
        table = Table(title="\n".join(textwrap.wrap(title, 80)))
        table.add_column("")
        for e in entries:
            table.add_column(e["name"])
        for label, cells in _sim_rows(doc):
            table.add_row(label, *cells)
        console.print(table)
    _fail_on_errors(doc)


def _fail_on_errors(doc: dict[str, Any]) -> None:
    """Exit 1 with one ``error:`` / ``hint:`` pair per part that failed (the rest is printed)."""
    errors = report_errors(doc)
    if not errors:
        return
    for e in errors:
        click.echo(f"error: {e['spec']} ({e['part']}): {e['error']}", err=True)
        if e["hint"]:
            click.echo(f"hint: {e['hint']}", err=True)
    sys.exit(EXIT_FINDINGS)
