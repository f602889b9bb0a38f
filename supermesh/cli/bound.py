"""``supermesh bound``: how many arc-disjoint trees fit, with the proof that no more do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from supermesh.cli.common import SPEC_HELP, emit_json, load_spec, stdout_console
from supermesh.errors import SpecError
from supermesh.topologies import compute_nodes
from supermesh.trees.bounds.counts import CountBound, RootsBound, check_roots, max_trees_free
from supermesh.trees.rootspec import resolve_roots

_ROOTS_HELP = (
    "free (maximise over roots), corners (clockwise from the top-left), sides (the chiplet N//2 "
    "along each side, clockwise from the north) or node ids like 0,3,3,12 (repeats allowed)."
)
_SHOWN = 12


def _nodes(ids: Sequence[int]) -> str:
    shown = ", ".join(map(str, ids[:_SHOWN]))
    return "{" + (shown if len(ids) <= _SHOWN else f"{shown}, ... ({len(ids)} nodes)") + "}"


def _header(G: Any, direction: str) -> str:
    n, span = G.number_of_nodes(), len(compute_nodes(G))
    kind = "out-arborescences (broadcast, AllGather)"
    if direction == "in":
        kind = "in-arborescences (reduce, ReduceScatter)"
    where = f"all {n} nodes" if span == n else f"the {span} compute chiplets of {n} nodes"
    return f"{G.graph.get('name', G.graph.get('spec'))}: arc-disjoint {kind} reaching {where}."


def _steiner_note(exact: bool) -> str:
    if exact:
        return ""
    return (
        " Memory/I-O chiplets may relay, so this is a Steiner problem: a feasible answer means no "
        "cut rules it out (a necessary condition); `supermesh trees` exhibits the trees."
    )


def _roots_text(b: RootsBound, label: str) -> str:
    k = len(b.roots)
    head = f"Roots {', '.join(map(str, b.roots))}{label}: "
    if b.feasible:
        return (
            head + f"{k} trees fit{'' if b.exact else ' (not ruled out)'}. Proof: every node "
            f"that must be reached has {k} arc-disjoint paths from the roots (Edmonds' branching "
            "theorem, checked by max-flow)." + _steiner_note(b.exact)
        )
    c = b.certificate or {}
    verb = "left" if b.direction == "in" else "entered"
    return (
        head + f"{k} trees do NOT fit. Proof (Edmonds): the set {_nodes(c['set'])} is {verb} by "
        f"{c['entering_arcs']} arcs, but {c['required']} of the trees have their root outside "
        f"it and each needs an arc of its own to {'leave' if b.direction == 'in' else 'enter'} it."
    )


def _count_text(b: CountBound, distinct: bool) -> str:
    k, c = b.max_trees, b.certificate
    which = "distinct " if distinct else "free "
    head = (
        f"At most {k} trees with {which}roots; {k} fit with roots {', '.join(map(str, b.roots))}"
        + ("" if b.exact else " (not ruled out)")
        + ". "
    )
    verb = "left" if b.direction == "in" else "entered"
    sets = ", ".join(_nodes(s) for s in c["sets"][:_SHOWN])
    if len(c["sets"]) > _SHOWN:
        sets += f", ... ({len(c['sets'])} sets)"
    if c.get("kind") == "subpartition":
        t = len(c["sets"])
        proof = (
            f"Proof that {k + 1} do not (Frank): the {t} disjoint sets {sets} are {verb} by "
            f"{sum(c['entering_arcs'])} arcs in total, fewer than {k + 1} x ({t} - 1) = "
            f"{c['required']}; each tree needs an arc into every set but the one holding its root."
        )
    else:
        proof = (
            f"Proof that {c['required']} do not: the sets {sets} are {verb} by "
            f"{', '.join(map(str, c['entering_arcs'][:_SHOWN]))} arcs, so each must hold "
            f"{c['required']} minus that many roots, and no choice of {c['required']} "
            f"{'distinct ' if c.get('distinct') else ''}roots does so for all of them."
        )
    return head + proof + _steiner_note(b.exact)


def _cut_text(cert: dict[str, Any], collective: str) -> str:
    leaving = cert["direction"] == "leaving"
    n, outside = cert["ranks"], cert["ranks_outside"]
    need = (
        f"its contributions to the {outside} of {n} shards owned outside it must leave it"
        if leaving
        else f"the {outside} of {n} shards owned outside it must enter it"
    )
    return (
        f"{collective}: the set {_nodes(cert['set'])} is {'left' if leaving else 'entered'} by "
        f"{cert['arcs']} arcs of total bandwidth {cert['bandwidth']} and {need}, so "
        f"T >= ({outside}/{n}) M / {cert['bandwidth']}."
    )


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
            console.print(f"Proof, {_cut_text(cert, cert['collective'])}")
        console.print("AllReduce as ReduceScatter then AllGather: 1/rho = 1/rho_RS + 1/rho_AG.")
    else:
        console.print(f"Proof, {_cut_text(result.certificate, collective)}")


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
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
        human = _count_text(count, distinct)
    else:
        if distinct:
            raise SpecError("--distinct only applies to --roots free", hint="drop --distinct")
        roots = resolve_roots(G, text)
        result = check_roots(G, roots, direction=direction)
        doc |= result.to_json()
        human = _roots_text(result, f" ({text})" if text in ("corners", "sides") else "")
    if as_json:
        emit_json(doc)
        return
    console = stdout_console()
    console.print(_header(G, direction))
    console.print(human)
