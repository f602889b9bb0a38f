"""``supermesh topo``: build a topology, print its metrics, write it in a chosen format."""

from __future__ import annotations

import click
from rich.table import Table

from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    figure_data,
    load_spec,
    stdout_console,
    write_outputs,
)
from supermesh.cli.options import (
    draw_option,
    input_format_option,
    json_option,
    output_option,
    quiet_option,
)
from supermesh.cli.values import Choice
from supermesh.errors import SpecError
from supermesh.export.formats import format_for
from supermesh.export.topology import FORMATS
from supermesh.topologies import metrics, to_json

_EXTENSIONS = {"json": "json", "anynet": "anynet", "dot": "dot", "gv": "dot", "graphml": "graphml"}


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@json_option("the topology and its metrics")
@output_option("Write the topology here: json, anynet, dot or graphml, by extension or --format")
@click.option("--format", "fmt", type=Choice(FORMATS), help="Format of -o (default: ext).")
@draw_option("Render a picture of the topology")
@quiet_option()
def topo(
    spec: str, as_json: bool, output: str | None, fmt: str | None, draw: str | None, quiet: bool
) -> None:
    """Build topology SPEC and print its metrics."""
    from supermesh.draw import draw_topology, figure_format
    from supermesh.export.topology import export_text

    if draw:
        figure_format(draw)  # a bad extension fails before anything is built or written
    if fmt and not output:
        raise SpecError("--format applies to -o", hint="add -o FILE or drop --format")
    fmt = format_for(output, fmt, _EXTENSIONS) if output else None
    G = load_spec(spec)
    m = metrics(G)
    # build everything first, then write all at once: an error leaves no file behind
    files: list[tuple[str, str | bytes]] = []
    if output:
        files.append((output, export_text(G, fmt or "json", metrics=m)))
    if draw:
        files.append((draw, figure_data(draw_topology(G), draw)))
    write_outputs(files, quiet)
    if as_json:
        emit_json(to_json(G, metrics=m))
        return
    table = Table(title=m["name"], show_header=False)
    table.add_column("metric")
    table.add_column("value")
    for row in metric_rows(m):
        table.add_row(*row)
    stdout_console().print(table)


def metric_rows(m: dict) -> list[tuple[str, str]]:
    """Rows ``(label, value)`` of the human-readable metric table."""
    lpn = m["links_per_node"]
    return [
        ("spec", m["spec"]),
        ("chiplets", ", ".join(f"{v} {k}" for k, v in m["chiplets"].items())),
        ("links / arcs", f"{m['links']} / {m['arcs']}"),
        ("added arcs", f"{m['added_arcs']} ({100 * m['added_share']:.1f}%)"),
        (
            "links per chiplet",
            ", ".join(f"{c} {'/'.join(map(str, v))}" for c, v in lpn["by_class"].items()),
        ),
        ("router radix (max)", str(m["router_radix"])),
        ("diameter (hops)", str(m["diameter"])),
        (
            "bisection width (arcs)",
            str(m["bisection_width"]) + ("" if m["bisection_exact"] else " (upper bound)"),
        ),
        ("arc connectivity", str(m["arc_connectivity"])),
    ]
