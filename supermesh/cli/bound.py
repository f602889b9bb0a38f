"""``supermesh bound``: how many arc-disjoint trees fit, with the proof that no more do."""

from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

import click

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import SPEC_HELP, emit_json, load_spec, stdout_console
from supermesh.cli.options import (
    ROOTS_HELP,
    check_roots,
    input_format_option,
    json_option,
    refuse_unused,
)
from supermesh.cli.values import Choice
from supermesh.errors import SpecError
from supermesh.topologies import compute_nodes
from supermesh.trees.bounds.counts import check_roots as check_root_packing
from supermesh.trees.bounds.explain import allreduce_proof, count_proof, cut_proof, roots_proof
from supermesh.trees.bounds.free import max_trees_free
from supermesh.trees.rootspec import resolve_roots


def _header(G: Any, direction: str) -> str:
    n, span = G.number_of_nodes(), len(compute_nodes(G))
    kind = "out-arborescences (broadcast, AllGather)"
    if direction == "in":
        kind = "in-arborescences (reduce, ReduceScatter)"
    where = f"all {n} nodes" if span == n else f"the {span} compute chiplets of {n} nodes"
    return f"{G.graph.get('name', G.graph.get('spec'))}: arc-disjoint {kind} reaching {where}."


def _collective_bound(G: Any, spec: str, collective: str, as_json: bool) -> None:
    if collective == "allreduce":
        _allreduce_bound(G, spec, as_json)
        return
    from supermesh.trees.bounds.throughput import throughput_bound

    result = throughput_bound(G, collective)
    doc: dict[str, Any] = {"topology": G.graph.get("spec", spec)} | result.to_json()
    if as_json:
        emit_json(doc)
        return
    value = result.value
    what = {"allgather": "an AllGather", "reducescatter": "a ReduceScatter"}[collective]
    console = stdout_console()
    console.print(
        f"{G.graph.get('name', G.graph.get('spec'))}: {what} of M bytes takes "
        f"T >= M / ({value} link bandwidths) = M / {float(value):.4g} (algorithm bandwidth "
        "in units of one link; every chiplet a rank)."
    )
    console.print(f"Proof, {cut_proof(result.certificate, collective)}")


def _allreduce_bound(G: Any, spec: str, as_json: bool) -> None:
    from supermesh.sim.throughput_run import throughput_bound_for

    result = throughput_bound_for(G, "allreduce")
    cert = result.certificate
    if as_json:
        emit_json({"topology": G.graph.get("spec", spec), "collective": "allreduce", **cert})
        return
    console = stdout_console()
    name = G.graph.get("name", G.graph.get("spec"))
    console.print(
        f"{name}: an AllReduce of M bytes takes T >= M / ({cert['algbw_links']} link "
        f"bandwidths) = M / {result.value:.4g} (algorithm bandwidth in units of one link; every "
        "chiplet a rank; its reduce and broadcast may overlap)."
    )
    console.print(f"Proof: {allreduce_proof(cert)}")
    if cert["status"] == "optimal":
        console.print(
            "Met: spanning trees of the undirected network, each reducing into its root and "
            "broadcasting back over the same links at once (supermesh sim -a throughput)."
        )
    rs_ag = cert["reducescatter_allgather"]
    console.print(
        f"Run as ReduceScatter then AllGather (a barrier between them): T >= M / "
        f"({rs_ag['algbw_links']}) = M / {float(Fraction(rs_ag['algbw_links'])):.4g}."
    )
    for phase in rs_ag.get("phases", []):
        console.print(f"Proof, {cut_proof(phase, phase['collective'])}")


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option(
    "--roots",
    "roots_text",
    default="corners",
    show_default=True,
    help=ROOTS_HELP + " Here: one set, or free.",
)
@click.option(
    "--direction",
    type=Choice(["out", "in"]),
    default="out",
    show_default=True,
    help="out: broadcast/AllGather trees; in: reduce/ReduceScatter trees.",
)
@click.option(
    "--distinct", is_flag=True, help="With --roots free: each node roots at most one tree."
)
@click.option(
    "--collective",
    type=Choice(["allgather", "reducescatter", "allreduce"]),
    default=None,
    help="Instead of tree counts: the optimal algorithm bandwidth of this collective (every "
    "chiplet a rank) and the cut or partition that proves it; for AllReduce also the bound of "
    "ReduceScatter then AllGather.",
)
@json_option("the answer")
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
    that collective, exactly, and the node set whose cut proves it. Exit status 0 when the
    trees fit (or for a count or a bound), 1 when the given roots admit no such trees (the
    proof is printed), 2 on bad input.
    """
    if collective is not None:
        refuse_unused(
            ctx,
            ("roots_text", "direction", "distinct"),
            "with --collective",
            hint="the collective fixes the roots (every chiplet) and the direction",
        )
    text = check_roots(roots_text, free=True)
    if distinct and text != "free":
        raise SpecError("--distinct only applies to --roots free", hint="drop --distinct")
    G = load_spec(spec)
    if collective is not None:
        _collective_bound(G, spec, collective, as_json)
        return
    if ctx.get_parameter_source("roots_text") == click.core.ParameterSource.DEFAULT and (
        G.graph.get("rows") is None or G.graph.get("family") == "hexamesh"
    ):
        text = "free"  # no corners off the grid: the default asks for the most trees
    doc: dict[str, Any] = {"topology": G.graph.get("spec", spec)}
    feasible = True
    if text == "free":
        count = max_trees_free(G, direction=direction, distinct=distinct)
        doc |= count.to_json() | {"distinct": distinct}
        human = count_proof(count, distinct)
    else:
        roots = resolve_roots(G, text)
        result = check_root_packing(G, roots, direction=direction)
        feasible = result.feasible
        doc |= result.to_json()
        human = roots_proof(result, f" ({text})" if text in ("corners", "sides") else "")
    if as_json:
        emit_json(doc)
    else:
        console = stdout_console()
        console.print(_header(G, direction))
        console.print(human)
    if not feasible:
        sys.exit(EXIT_FINDINGS)
