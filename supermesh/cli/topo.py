"""``supermesh topo``: build a topology, print its metrics, write it in a chosen format."""

from __future__ import annotations

import click
from rich.table import Table

from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    input_format_option,
    load_spec,
    stdout_console,
)
from supermesh.export.formats import format_for
from supermesh.export.topology import FORMATS
from supermesh.topologies import metrics, to_json
from supermesh.topologies.io import write_text_atomic

_EXTENSIONS = {"json": "json", "anynet": "anynet", "dot": "dot", "gv": "dot", "graphml": "graphml"}


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option("--json", "as_json", is_flag=True, help="Print the topology and metrics as JSON.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the topology here.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Format of -o (default: ext).")
@click.option("--draw", type=click.Path(dir_okay=False), help="Render a picture (png/svg/pdf).")
def topo(spec: str, as_json: bool, output: str | None, fmt: str | None, draw: str | None) -> None:
    """Build topology SPEC and print its metrics."""
    from supermesh.draw import draw_topology, figure_format, save_figure
    from supermesh.export.topology import export_text

    if draw:
        figure_format(draw)  # a bad extension fails before anything is built or written
    fmt = format_for(output, fmt, _EXTENSIONS) if output else None
    G = load_spec(spec)
    m = metrics(G)
    # build everything first, then write: an error leaves no file behind
    text = export_text(G, fmt or "json", metrics=m) if output else None
    figure = draw_topology(G) if draw else None
    if output and text is not None:
        write_text_atomic(output, text)
    if draw and figure is not None:
        save_figure(figure, draw)
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
