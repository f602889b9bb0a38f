"""``supermesh report``: the first page a user reads: topologies compared side by side."""

from __future__ import annotations

import click
from rich.table import Table

from supermesh.cli.common import SPEC_HELP, emit_json, load_spec, stdout_console
from supermesh.cli.topo import metric_rows
from supermesh.topologies import metrics

DEFAULT_SPECS = ("smbi:4x4", "mesh:4x4")


@click.command(epilog=SPEC_HELP)
@click.argument("specs", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON document.")
def report(specs: tuple[str, ...], as_json: bool) -> None:
    """Compare topologies SPEC... (default: smbi:4x4 against mesh:4x4)."""
    graphs = [load_spec(s) for s in (specs or DEFAULT_SPECS)]
    ms = [metrics(G) for G in graphs]
    if as_json:
        emit_json({"topologies": [{"spec": m["spec"], "metrics": m} for m in ms]})
        return
    table = Table(title="Topology metrics")
    table.add_column("metric")
    for m in ms:
        table.add_column(m["name"])
    rows = [metric_rows(m) for m in ms]
    for i, (label, _) in enumerate(rows[0]):
        table.add_row(label, *(r[i][1] for r in rows))
    stdout_console().print(table)
