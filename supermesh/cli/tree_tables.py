"""What ``supermesh trees`` prints: a packing's trees, a throughput packing, root sets.

Each function takes the :class:`~supermesh.trees.model.TreePacking` the command made and prints
it on stdout (tables, then the status line); an infeasible packing prints its proof in words
(:func:`~supermesh.trees.bounds.explain.packing_proof`) and its certificate instead.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from rich.table import Table

from supermesh.cli.common import stdout_console, wrapped
from supermesh.trees.bounds.explain import packing_proof
from supermesh.trees.model import TreePacking
from supermesh.units import plural

__all__ = ["print_root_sets", "print_throughput", "print_trees"]


def print_trees(p: TreePacking, lower: list[int | None]) -> None:
    """The trees of a packing, one row each with its lower bound ``lower`` (the root's
    eccentricity), and the status line; an infeasible packing's proof instead."""
    out = stdout_console()
    if p.status == "infeasible":
        out.print(f"{p.topology}: status infeasible: no such trees exist.", markup=False)
        out.print(packing_proof(p), markup=False)
        out.print(json.dumps(p.certificate), markup=False)
        return
    table = Table(title=f"{p.topology}: {plural(len(p.trees), p.direction + '-tree')} ({p.method})")
    for col in ("tree", "root", "height", "lower bound (ecc)", "arcs"):
        table.add_column(col, justify="right")
    for i, (t, lb) in enumerate(zip(p.trees, lower, strict=True)):
        table.add_row(str(i), str(t.root), str(t.height), str(lb), str(len(t.arcs)))
    out.print(table)
    gap = (p.objective or 0) - (p.lower_bound or 0)
    line = f"status {p.status}: max height {p.objective}, lower bound {p.lower_bound}"
    if p.status == "optimal":
        line += " (proven)"
    elif gap:
        line += f" (gap {gap})"
    if p.stats.get("wall_time") is not None:
        line += f"; {p.stats['wall_time']:.2f} s"
    out.print(line, markup=False)


def print_throughput(p: TreePacking) -> None:
    """A throughput packing (``--throughput``): its cut bound, the rate reached, heights,
    how it was built, the rate per height cap and the status line."""
    out = stdout_console()
    st = p.stats
    if p.status == "infeasible":
        out.print(f"{p.topology}: status infeasible: no such trees exist.", markup=False)
        out.print(packing_proof(p), markup=False)
        out.print(json.dumps(p.certificate), markup=False)
        return
    counts = Counter(t.root for t in p.trees)
    per_rank = f"{min(counts.values())}" + (
        f" to {max(counts.values())}" if min(counts.values()) != max(counts.values()) else ""
    )
    cut = st["bound_certificate"]
    shown = ", ".join(map(str, cut["set"][:8])) + (", ..." if len(cut["set"]) > 8 else "")
    verb = "leaving" if cut.get("direction") == "leaving" else "entering"
    lines = [
        f"{p.topology} {st['collective']}: {plural(len(p.trees), p.direction + '-tree')}, "
        f"all at once ({p.method}), {per_rank} per rank",
        f"cut bound      {st['optimum']} = {float(st['optimum_float']):.4f} links "
        f"(set {{{shown}}}: bandwidth {cut['bandwidth']} {verb}, {cut['ranks_outside']} of "
        f"{cut['ranks']} ranks outside)",
        f"rate reached   {st['algbw_links']} = {float(st['algbw_float']):.4f} links "
        f"({100 * st['rate_fraction']:.2f}% of the bound)",
        f"max height     {p.objective} (lower bound {p.lower_bound}, eccentricity bound "
        f"{st['eccentricity_bound']})"
        + (": proven minimal" if p.objective == p.lower_bound else ""),
    ]
    if "construction" in st:
        built = st["construction"]
        proof = "proven minimal" if p.objective == p.lower_bound else "not proven minimal"
        lines.append(
            f"construction   {built['name']}, {plural(built['trees_per_root'], 'tree')} per "
            f"rank: rate proven (loads recounted, busiest arc {built['max_load']} shares); "
            f"height {proof}"
        )
    if "parts" in st:
        info = st["parts"]
        lines.append(
            f"parts          {info['parts']} equal parts per rank, busiest link carries "
            f"{info['max_load']} tree{'' if info['max_load'] == '1' else 's'} "
            f"(bound {info['load_bound']})"
        )
    for line in lines:
        out.print(wrapped(line), markup=False)
    if st.get("tradeoff"):  # rings have no height cap to trade
        knob = "the knob: --max-height, --min-rate, --root-slack"
        table = Table(title=f"rate per height cap ({knob})")
        table.add_column("max height cap", justify="right")
        table.add_column("rate / bound", justify="right")
        for row in st["tradeoff"]:
            table.add_row(str(row["max_height"]), f"{100 * row['rate_fraction']:.2f}%")
        out.print(table)
    out.print(
        f"status {p.status}: rate {st['algbw_links']} of {st['optimum']}, max height "
        f"{p.objective}, lower bound {p.lower_bound}; {st.get('wall_time', 0):.2f} s",
        markup=False,
    )


def _joined(values: Any) -> str:
    return ",".join("-" if v is None else str(v) for v in values)


def print_root_sets(p: TreePacking) -> None:
    """Root sets (``--root-sets``): each set's roots and heights beside the paper's rule, the
    totals, the pipeline steps and the status line."""
    out = stdout_console()
    if p.status == "infeasible":
        c: dict[str, Any] = p.certificate or {}
        out.print(f"{p.topology}: status infeasible: no such root sets exist.", markup=False)
        out.print(f"Proof: {c['reason']}." if "reason" in c else packing_proof(p), markup=False)
        out.print(json.dumps(c), markup=False)
        return
    st = p.stats
    paper: dict[str, Any] = st.get("paper") or {}
    theirs = paper.get("sets") or []
    title = (
        f"{p.topology}: {plural(len(p.sets), 'root set')} of "
        f"{plural(st['k'], p.direction + '-tree')} ({p.method})"
    )
    table = Table(title=title)
    for col in ("set", "roots", "heights", "max", "bound", "paper's roots", "max", "alg. 1"):
        table.add_column(col, justify="right")
    for i, ts in enumerate(p.sets):
        row = [str(i), _joined(ts.roots), _joined(t.height for t in ts.trees), str(ts.height)]
        row.append(str(ts.lower_bound))
        if i < len(theirs):  # each side in its own running order
            alg1 = paper["algorithm1"][i]
            row += [_joined(theirs[i]), _joined([paper["heights"][i]])]
            row.append("stuck" if alg1 is None else str(alg1))
        table.add_row(*row)
    out.print(table)
    out.print(
        wrapped(
            f"total (sum of set heights) {st['total']}, lower bound {st['total_lower_bound']}: "
            f"partition {st['partition']}, heights {st['heights']}"
        ),
        markup=False,
    )
    steps = f"pipeline (1 chunk per tree, sets in running order): {st['pipeline_steps']} steps"
    if paper:
        stuck = paper["algorithm1_stuck"]
        alg1 = (
            f"total {paper['algorithm1_total']}, {paper['algorithm1_pipeline_steps']} steps"
            if not stuck
            else f"stuck on {stuck} of {len(theirs)} sets"
        )
        taller = {True: "no", False: "yes", None: "-"}[paper.get("no_set_taller")]
        out.print(
            wrapped(
                f"paper's rule: total {paper['total']} with the same packer (a set of ours "
                f"taller than the paper's of the same rank: {taller}); with its Algorithm 1 "
                f"trees: {alg1}"
            ),
            markup=False,
        )
        steps += f"; paper's rule in its order: {paper['pipeline_steps']} steps"
    out.print(wrapped(steps), markup=False)
    line = f"status {p.status}: max height {p.objective}, lower bound {p.lower_bound}"
    out.print(line + f"; {st.get('wall_time', 0):.2f} s", markup=False)
