"""``supermesh bound``: how many arc-disjoint trees fit, with the proof that no more do."""

from __future__ import annotations

from typing import Any

import click

from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    input_format_option,
    load_spec,
    stdout_console,
)
from supermesh.errors import SpecError
from supermesh.topologies import compute_nodes
from supermesh.trees.bounds.counts import check_roots
from supermesh.trees.bounds.explain import count_proof, cut_proof, roots_proof
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.rootspec import resolve_roots

_ROOTS_HELP = (
    "free (maximise over roots), corners (clockwise from the top-left), sides (the chiplet N//2 "
    "along each side, clockwise from the north) or node ids like 0,3,3,12 (repeats allowed)."
)


def _header(G: Any, direction: str) -> str:
    n, span = G.number_of_nodes(), len(compute_nodes(G))
    kind = "out-arborescences (broadcast, AllGather)"
    if direction == "in":
        kind = "in-arborescences (reduce, ReduceScatter)"
    where = f"all {n} nodes" if span == n else f"the {span} compute chiplets of {n} nodes"
    return f"{G.graph.get('name', G.graph.get('spec'))}: arc-disjoint {kind} reaching {where}."


def _collective_bound(G: Any, spec: str, collective: str, as_json: bool) -> None:
    from supermesh.trees.bounds.throughput import throughput_bound

    result = throughput_bound(G, collective)
    doc: dict[str, Any] = {"topology": G.graph.get("spec", spec)} | result.to_json()
    if as_json:
        emit_json(doc)
        return
    value = result.value
    what = {
        "allgather": "an AllGather",
        "reducescatter": "a ReduceScatter",
        "allreduce": "an AllReduce run as ReduceScatter then AllGather",
    }[collective]
    console = stdout_console()
    console.print(
        f"{G.graph.get('name', G.graph.get('spec'))}: {what} of M bytes takes "
        f"T >= M / ({value} link bandwidths) = M / {float(value):.4g} (algorithm bandwidth "
        "in units of one link; every chiplet a rank)."
    )
    phases = result.certificate.get("phases")
    if phases:
        for cert in phases:
            console.print(f"Proof, {cut_proof(cert, cert['collective'])}")
        console.print("AllReduce as ReduceScatter then AllGather: 1/rho = 1/rho_RS + 1/rho_AG.")
    else:
        console.print(f"Proof, {cut_proof(result.certificate, collective)}")


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option("--roots", "roots_text", default="corners", show_default=True, help=_ROOTS_HELP)
@click.option(
    "--direction",
    type=click.Choice(["out", "in"]),
    default="out",
    show_default=True,
    help="out: broadcast/AllGather trees; in: reduce/ReduceScatter trees.",
)
@click.option(
    "--distinct", is_flag=True, help="With --roots free: each node roots at most one tree."
)
@click.option(
    "--collective",
    type=click.Choice(["allgather", "reducescatter", "allreduce"]),
    default=None,
    help="Instead of tree counts: the optimal algorithm bandwidth of this collective (every "
    "chiplet a rank; AllReduce as ReduceScatter then AllGather) and the cut that proves it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as one JSON document.")
@click.pass_context
def bound(
    ctx: click.Context,
    spec: str,
    roots_text: str,
    direction: str,
    distinct: bool,
    collective: str | None,
    as_json: bool,
) -> None:
    """Decide how many arc-disjoint spanning trees SPEC supports, with a checkable proof.

    With a root list: do trees with exactly these roots exist (if not, a node set entered by too
    few arcs proves it)? With --roots free: the maximum number of trees and the subpartition
    proving one more is impossible. With --collective: the best possible algorithm bandwidth of
    that collective, exactly, and the node set whose cut proves it. Exit status 0 whenever the
    answer is computed.
    """
    G = load_spec(spec)
    if collective is not None:
        given = [
            f"--{name}"
            for name in ("roots", "direction", "distinct")
            if ctx.get_parameter_source(name if name != "roots" else "roots_text")
            == click.core.ParameterSource.COMMANDLINE
        ]
        if given:
            raise SpecError(
                f"--collective does not take {', '.join(given)}",
                hint="the collective fixes the roots (every chiplet) and the direction",
            )
        _collective_bound(G, spec, collective, as_json)
        return
    text = roots_text.strip().lower()
    doc: dict[str, Any] = {"topology": G.graph.get("spec", spec)}
    if text == "free":
        count = max_trees_free(G, direction=direction, distinct=distinct)
        doc |= count.to_json() | {"distinct": distinct}
        human = count_proof(count, distinct)
    else:
        if distinct:
            raise SpecError("--distinct only applies to --roots free", hint="drop --distinct")
        roots = resolve_roots(G, text)
        result = check_roots(G, roots, direction=direction)
        doc |= result.to_json()
        human = roots_proof(result, f" ({text})" if text in ("corners", "sides") else "")
    if as_json:
        emit_json(doc)
        return
    console = stdout_console()
    console.print(_header(G, direction))
    console.print(human)
