"""``supermesh verify``: check a topology, tree or schedule file and print the findings."""

from __future__ import annotations

import sys

import click

from supermesh.cli.common import emit_json, stdout_console
from supermesh.verify.files import check_file
from supermesh.verify.findings import format_finding

EXIT_OK = 0
EXIT_FINDINGS = 1


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON document.")
def verify(file: str, as_json: bool) -> None:
    """Check FILE (a supermesh-topology, -trees or -schedule JSON file) independently.

    Trees are re-checked against the topology they name: spanning, rooted where claimed, with the
    claimed heights, arc-disjoint per set (parallel arcs counted), status and bounds consistent,
    certificates recounted. Weighted packings (`trees --throughput`: several trees per chiplet
    sharing its data, all at once) are checked in rate instead: every chiplet's shares add up to
    1, every arc carries at most its bandwidth at the claimed rate (exact fractions), the cut
    bound recounted; the summary gives the exact rate the shares allow. Schedules: every link
    exists, FIFO steps consistent, every chunk reaches every chiplet that needs it, every
    reduction holds each rank once and waits for all its inputs; then deadlock freedom
    (wait-for graph of the link FIFOs, one buffer slot per link), with the argument or a cycle
    and a fix. Exit status: 0 no errors (warnings allowed), 1 errors found, 2 unreadable input.
    """
    report = check_file(file)
    if as_json:
        emit_json(report.to_json())
    else:
        out = stdout_console()
        n_err = sum(f.is_error for f in report.findings)
        n_warn = len(report.findings) - n_err
        out.print(
            f"{report.verdict}: {report.summary}: {n_err} error(s), {n_warn} warning(s)",
            markup=False,
        )
        for f in report.findings:
            out.print(format_finding(f), markup=False)
        deadlock = report.extra.get("deadlock")
        if deadlock and deadlock["deadlock_free"]:
            out.print(f"deadlock-free: {deadlock['argument']}", markup=False)
    sys.exit(EXIT_OK if report.ok else EXIT_FINDINGS)
