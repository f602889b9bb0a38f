"""``supermesh design``: the cheapest links to add for a target tree count, with proof."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    figure_data,
    load_spec,
    status,
    stdout_console,
    write_outputs,
)
from supermesh.cli.options import (
    check_roots,
    draw_option,
    input_format_option,
    json_option,
    output_option,
    quiet_option,
    time_limit_option,
)
from supermesh.cli.values import Choice, Integer
from supermesh.errors import SpecError
from supermesh.trees.design.candidates import links_budget, parse_costs
from supermesh.units import plural

_ADD_HELP = (
    "Candidate links: perimeter-parallel (a second link beside each perimeter link; default), "
    "any-parallel (beside any link), diagonal (to the 4 diagonal neighbours) or links like "
    "0-1,5-6. Repeat to offer several families."
)
_ROOTS_HELP = (
    "any (every choice of K roots; default), corners, sides, or node ids like 0,3,15,12. "
    "Several root sets (RS/AG), each with at most K roots: split by ';' or repeat --roots."
)
_COST_HELP = "Link cost: FAMILY=C or u-v=C (integers; default 1 each). Repeatable."
_SHOWN = 24


def run(
    base: str,
    families: tuple[str, ...],
    trees: int,
    roots_texts: tuple[str, ...],
    direction: str,
    max_links: int | None,
    costs: dict[Any, int],
    max_height: int | None,
    time_limit: float,
) -> tuple[Any, Any]:
    """Parse the options into one :func:`~supermesh.trees.design.design` call: (base, result)."""
    from supermesh.trees.design.optimise import design as run_design
    from supermesh.trees.rootspec import resolve_roots

    G = load_spec(base)
    # one grammar: repeat --roots or split sets by ';'
    groups = [g for t in roots_texts for g in check_roots(t, sets=True, any_roots=True).split(";")]
    texts = [g for g in groups if g != "any"]
    if len(texts) < len(groups) and texts:
        raise SpecError("--roots any cannot be mixed with root lists", hint="drop --roots any")
    sets = [resolve_roots(G, t) for t in texts]
    return G, run_design(
        G,
        trees=trees,
        add=list(families),
        roots=sets[0] if len(sets) == 1 else None,
        root_sets=sets if len(sets) > 1 else None,
        direction=direction,
        max_links=max_links,
        costs=costs,
        max_height=max_height,
        time_limit=time_limit,
    )


def _target_text(r: Any, n_span: int) -> str:
    t = r.target
    k = t["trees"]
    where = "compute chiplets" if t["span"] == "compute" else "span nodes"
    if t["roots"] == "any":
        what = f"for any {plural(k, 'root')} ({k}-arc-connected over the {n_span} {where})"
    elif t["roots"] and isinstance(t["roots"][0], list):
        what = f"for each of {plural(len(t['roots']), 'root set')}"
    else:
        what = f"rooted at {', '.join(map(str, t['roots']))}"
    kind = {"both": "out- and in-tree", "out": "out-tree", "in": "in-tree"}[t["direction"]]
    if t["roots"] == "any":
        kind = "spanning tree"
    trees = plural(k, f"arc-disjoint {kind}")
    height = f", each at most {t['max_height']} tall" if t["max_height"] else ""
    return f"Target: {trees} {what}{height}."


def human(r: Any, n_span: int) -> list[str]:
    """The lines printed for a person."""
    budget = r.ports["budget"]
    radix = budget + 1 if isinstance(budget, int) else [b + 1 for b in budget]
    lines = [
        f"Base {r.base}: {r.stats['candidates']} candidate links "
        f"({', '.join(r.stats['families'])}); at most {budget} links per chiplet "
        f"(router radix {radix}).",
        _target_text(r, n_span),
    ]
    if r.status == "infeasible":
        lines.append(f"Infeasible: {r.proof['text']}.")
        return lines
    stopped = r.stats.get("stopped") or "time limit"
    head = "Optimal" if r.status == "optimal" else f"Feasible ({stopped})"
    gap = "" if r.status == "optimal" else f", lower bound {r.lower_bound} (gap {r.gap})"
    lines.append(
        f"{head}: {plural(len(r.additions), 'link')} added "
        f"({plural(2 * len(r.additions), 'arc')}), cost {r.cost}{gap}."
    )
    shown = ", ".join(f"{u}-{v}" for u, v in r.additions[:_SHOWN])
    more = f", ... ({len(r.additions)} links)" if len(r.additions) > _SHOWN else ""
    lines.append(f"Added links: {shown or 'none'}{more}.")
    above = r.ports["above_base"]
    lines.append(
        f"Ports: at most {r.ports['max_links']} links per chiplet (router radix "
        f"{r.ports['router_radix']}); {plural(len(above), 'chiplet')} above the base's "
        f"{r.ports['base_max']}" + (f": {', '.join(map(str, above))}." if above else ".")
    )
    lines.append(f"Proof: {r.proof['text']}")
    if not r.exact:
        lines.append(
            "Note: memory/I-O chiplets relay (a Steiner problem): the cost is a proven lower "
            "bound and the design meets the flow condition, which is necessary; trees for a "
            "given root set can be exhibited with `supermesh trees`."
        )
    return lines


@click.command(epilog=SPEC_HELP)
@click.argument("base")
@input_format_option
@click.option("--add", "families", multiple=True, default=("perimeter-parallel",), help=_ADD_HELP)
@click.option(
    "--target-trees", "trees", type=Integer(1, 10_000), required=True, help="Number of trees K."
)
@click.option("--roots", "roots_texts", multiple=True, help=_ROOTS_HELP)
@click.option(
    "--direction",
    type=Choice(["both", "out", "in"]),
    default="both",
    show_default=True,
    help="With --roots: out-trees (AllGather), in-trees (ReduceScatter) or both (AllReduce).",
)
@click.option(
    "--max-links",
    type=Integer(1, 64),
    help="Most die-to-die links per chiplet (default: base's).",
)
@click.option(
    "--max-radix",
    type=Integer(2, 65),
    help="Most router ports per chiplet: links + 1 local port.",
)
@click.option("--cost", "cost_texts", multiple=True, help=_COST_HELP)
@click.option(
    "--max-height",
    type=Integer(0, 1_000_000),
    help="Also require trees at most this tall (with --roots).",
)
@time_limit_option("Here: for the whole search.")
@json_option()
@output_option("Write the design here as a topology JSON file")
@draw_option("Picture of the design, the added links marked")
@quiet_option()
def design(
    base: str,
    families: tuple[str, ...],
    trees: int,
    roots_texts: tuple[str, ...],
    direction: str,
    max_links: int | None,
    max_radix: int | None,
    cost_texts: tuple[str, ...],
    max_height: int | None,
    time_limit: float,
    as_json: bool,
    output: str | None,
    draw: str | None,
    quiet: bool,
) -> None:
    """Find the cheapest links to add to BASE so it carries K arc-disjoint spanning trees.

    Prints the links, the cost and the proof that nothing cheaper works (or, exit status 1, why
    no design within the port budgets exists; then no file is written). -o writes the design
    as a topology JSON file that every command accepts in place of a spec; --draw marks the
    added links.
    """
    from supermesh.draw import draw_topology, figure_format
    from supermesh.topologies import compute_nodes, to_json

    if draw:
        figure_format(draw)  # a bad extension fails before the search
    budget = links_budget(max_links, max_radix)
    costs = parse_costs(cost_texts)
    with status(f"design on {base}: searching", quiet or as_json):
        G, r = run(base, families, trees, roots_texts, direction, budget, costs, max_height,
                   time_limit)  # fmt: skip
    files: list[tuple[str, str | bytes]] = []
    if r.topology is not None:
        if output:
            files.append((output, json.dumps(to_json(r.topology), indent=1) + "\n"))
        if draw:
            files.append((draw, figure_data(draw_topology(r.topology), draw)))
    written = write_outputs(files, quiet)
    if as_json:
        emit_json(r.to_json() | {"written": written})
    else:
        span = r.target["span"]
        n_span = len(compute_nodes(G)) if span == "compute" else len(span)
        console = stdout_console()
        for line in human(r, n_span):
            console.print(line)
        if r.topology is None and (output or draw):
            console.print("No design exists, so no file was written.")
    if r.status == "infeasible":
        sys.exit(EXIT_FINDINGS)
