"""``supermesh trees``: arc-disjoint trees of the smallest heights, or the proof there are none.

``--throughput``: weighted trees for every chiplet reaching the optimal ReduceScatter /
AllGather rate with the smallest heights (:func:`supermesh.trees.throughput.pack.pack_throughput`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
import networkx as nx

from supermesh.cli import EXIT_FINDINGS
from supermesh.cli.common import (
    SPEC_HELP,
    emit_json,
    figure_data,
    load_spec,
    status,
    write_outputs,
)
from supermesh.cli.options import (
    ROOTS_HELP,
    check_roots,
    draw_option,
    given,
    input_format_option,
    json_option,
    output_option,
    quiet_option,
    refuse_unused,
    time_limit_option,
)
from supermesh.cli.tree_tables import print_root_sets, print_throughput, print_trees
from supermesh.cli.values import Choice, Integer, Real
from supermesh.errors import SpecError
from supermesh.trees.model import TreePacking
from supermesh.trees.packing.methods import METHODS, pack_by_method

F = TypeVar("F", bound=Callable[..., Any])

_METHODS = (*METHODS, "paper", "colgen", "rings")
_ROOTS_HERE = " Here: one set [default: corners]; not with --method tto."
_METHOD_HELP = (
    "cpsat: height-optimal (CP-SAT, proven or with the gap); construct: fast constructions, no "
    "solver; tto: TTO's 3 corner trees on a mesh (bottom-left corner relays only); algorithm1: "
    "the SuperMesh paper's Algorithm 1 (a baseline that can get stuck). With --root-sets: cpsat "
    "searches the partition, paper takes the paper's one-root-per-side rule. With --throughput: "
    "construct (the mesh and SMBi closed forms, any size), colgen (column generation), rings "
    "(one tree per Hamiltonian cycle and rank: tall trees whose one round never waits, what "
    "`sim` runs where they reach the bound); default: construct where it is height-optimal or "
    "the grid is large."
)
_THROUGHPUT_HELP = (
    "Throughput-optimal ReduceScatter/AllGather: every chiplet roots several trees carrying "
    "shares of its data, all at once, at the cut-bound rate with the smallest max height. "
    "Prints the bound, the rate reached, heights and the rate per height cap."
)
_ROOT_SETS_HELP = (
    "ReduceScatter/AllGather root sets: every compute chiplet roots a tree, K disjoint trees per "
    "set (K: the most that fit); shows each set's heights beside the paper's rule. --time-limit "
    "then sets the partition search's work budget (CP-SAT work worth that many seconds, so the "
    "answer repeats under any load)."
)


def run_root_sets(
    spec: str,
    roots_text: str | None,
    k: int | None,
    direction: str,
    method: str,
    time_limit: float,
    max_height: int | None,
) -> tuple[nx.MultiDiGraph, TreePacking]:
    """``--root-sets``: check the options, then partition and pack (library ``root_sets``)."""
    from supermesh.trees.roots.sets import root_sets

    if roots_text is not None or max_height is not None:
        raise SpecError(
            "--root-sets makes every compute chiplet a root and has no height limit",
            hint="drop --roots and --max-height",
        )
    if method not in ("cpsat", "paper"):
        raise SpecError(
            f"--method {method} does not make root sets",
            hint="use --method cpsat (searched partition) or --method paper (the paper's rule)",
        )
    G = load_spec(spec)
    choice = "paper" if method == "paper" else "optimise"
    return G, root_sets(G, k=k, method=choice, time_limit=time_limit, direction=direction)


MAX_PARTS = 1024


def _parts(text: str | None) -> int | str | None:
    if text is None or text.strip().lower() == "auto":
        return None if text is None else "auto"
    try:
        return Integer(1, MAX_PARTS).convert(text.strip(), None, None)
    except SpecError:
        raise SpecError(
            f"--parts {text[:40]!r} is not a whole number from 1 to {MAX_PARTS} or 'auto'",
            hint="e.g. --parts 4 or --parts auto",
        ) from None


def run_throughput(
    spec: str,
    collective: str | None,
    direction: str,
    parts_text: str | None,
    max_height: int | None,
    min_rate: float,
    root_slack: int | None,
    time_limit: float,
    method: str = "auto",
) -> tuple[nx.MultiDiGraph, TreePacking]:
    """``--throughput``: check the options, then call ``pack_throughput`` (``ring_packing``
    for ``--method rings``)."""
    from supermesh.trees.throughput.pack import pack_throughput

    collective = collective or ("reducescatter" if direction == "in" else "allgather")
    if collective == "allgather" and direction == "in":
        raise SpecError("AllGather uses out-trees", hint="drop --direction in")
    parts = _parts(parts_text)
    if method == "rings":
        return run_rings(spec, collective, parts, max_height, min_rate, root_slack, time_limit)
    G = load_spec(spec)
    return G, pack_throughput(
        G,
        direction="in" if collective == "reducescatter" else "out",
        parts=parts,
        max_height=max_height,
        min_rate_fraction=min_rate,
        root_slack=root_slack,
        proof_time_limit=time_limit,
        parts_time_limit=time_limit,
        method=method,
    )


def run_rings(
    spec: str,
    collective: str,
    parts: int | str | None,
    max_height: int | None,
    min_rate: float,
    root_slack: int | None,
    time_limit: float,
) -> tuple[nx.MultiDiGraph, TreePacking]:
    """``--throughput --method rings``: the topology's rings, or a SolverError saying why not."""
    from supermesh.errors import SolverError
    from supermesh.trees.throughput.rings import RINGS_UP_TO, ring_packing

    shaping = {
        "--parts": parts is not None,
        "--max-height": max_height is not None,
        "--min-rate": min_rate != 1.0,
        "--root-slack": root_slack is not None,
    }
    if any(shaping.values()):
        given_now = ", ".join(k for k, v in shaping.items() if v)
        raise SpecError(
            f"{given_now} shape the trees of the smallest heights; rings are k trees per rank, "
            "each as tall as there are ranks less one",
            hint="drop them, or drop --method rings",
        )
    G = load_spec(spec)
    direction = "in" if collective == "reducescatter" else "out"
    packing = ring_packing(G, direction, time_limit=time_limit)
    if packing is None:
        raise SolverError(
            f"no rings at the cut bound on {spec}: they need every chiplet a rank, links of "
            f"one bandwidth, at most {RINGS_UP_TO} ranks, a cut bound of k n / (n - 1) links "
            "(k the fewest links into a rank) and k disjoint Hamiltonian cycles, which an odd "
            "grid (a bipartite graph with unequal sides) never has",
            hint="drop --method rings: the trees of the smallest heights reach the bound",
        )
    return G, packing


_THROUGHPUT_OPTIONS = (
    click.option(
        "--collective",
        type=Choice(["allgather", "reducescatter"]),
        default=None,
        help="--throughput: which collective [default: allgather; reducescatter with "
        "--direction in].",
    ),
    click.option(
        "--parts",
        "parts_text",
        default=None,
        metavar="K|auto",
        help=f"--throughput: K equal parts per rank (1 to {MAX_PARTS}, one tree each) instead of "
        "exact LP shares.",
    ),
    click.option(
        "--min-rate",
        type=Real(0.0, 1.0, low_open=True),
        default=1.0,
        show_default=True,
        help="--throughput: accept this fraction of the optimal rate (0 < X <= 1) for lower trees.",
    ),
    click.option(
        "--root-slack",
        type=Integer(0, 100_000),
        default=None,
        help="--throughput: cap each tree at its root's eccentricity plus this.",
    ),
)


def _throughput_options(command: F) -> F:
    """The options of ``--throughput`` alone (refused without it), in their ``--help`` order."""
    for option in reversed(_THROUGHPUT_OPTIONS):
        command = option(command)
    return command


@click.command(epilog=SPEC_HELP)
@click.argument("spec")
@input_format_option
@click.option("--roots", "roots_text", default=None, help=ROOTS_HELP + _ROOTS_HERE)
@click.option("--root-sets", "root_sets_flag", is_flag=True, help=_ROOT_SETS_HELP)
@click.option("--throughput", "throughput_flag", is_flag=True, help=_THROUGHPUT_HELP)
@_throughput_options
@click.option(
    "--k",
    "k",
    type=Integer(1, 1000),
    default=None,
    help="The first K roots (root sets: K per set).",
)
@click.option(
    "--direction",
    type=Choice(["out", "in"]),
    default="out",
    show_default=True,
    help="out: broadcast/AllGather trees; in: reduce/ReduceScatter trees.",
)
@click.option(
    "--method", type=Choice(_METHODS), default="cpsat", show_default=True, help=_METHOD_HELP
)
@time_limit_option(
    "cpsat: then the best trees found, with the gap; --root-sets: the partition search's work "
    "budget; --throughput: for the part split and the height proof."
)
@click.option(
    "--max-height",
    type=Integer(0, 1_000_000),
    default=None,
    help="cpsat, --throughput: no tree taller than this.",
)
@json_option("the tree file")
@output_option("Write the tree file here (check it with `supermesh verify FILE`)")
@draw_option(
    "Draw the trees, one panel per tree (root sets: the sets with heights; --throughput: "
    "the load of every link and the bottleneck cut)"
)
@quiet_option()
@click.pass_context
def trees(
    ctx: click.Context,
    spec: str,
    roots_text: str | None,
    root_sets_flag: bool,
    throughput_flag: bool,
    collective: str | None,
    parts_text: str | None,
    min_rate: float,
    root_slack: int | None,
    k: int | None,
    direction: str,
    method: str,
    time_limit: float,
    max_height: int | None,
    as_json: bool,
    output: str | None,
    draw: str | None,
    quiet: bool,
) -> None:
    """Arc-disjoint spanning trees of SPEC with the smallest heights.

    Prints each tree's root, height, lower bound (its root's eccentricity) and size, and the
    status: optimal (max height = a proven lower bound), feasible (time limit: the gap is shown)
    or infeasible (exit status 1, with the certificate that proves it; no file is written).

    With --throughput: the throughput-optimal ReduceScatter / AllGather packing (several
    weighted trees per chiplet, all at once), its cut bound, the rate it reaches and the rate
    per height cap.
    """
    from supermesh.trees.bounds.heights import root_eccentricities

    if throughput_flag:
        extra = [n for n in ("roots_text", "k", "root_sets_flag") if given(ctx, n)]
        if method not in ("cpsat", "construct", "colgen", "rings"):
            extra.append("method")
        refuse_unused(
            ctx, extra, "with --throughput: it roots trees at every chiplet, by its own method"
        )
    else:
        refuse_unused(
            ctx, ("collective", "parts_text", "min_rate", "root_slack"), "without --throughput",
            hint="add --throughput, or drop them",
        )  # fmt: skip
    if method == "paper" and not root_sets_flag:
        raise SpecError("--method paper is the paper's root-set rule", hint="add --root-sets")
    if method in ("colgen", "rings") and not throughput_flag:
        raise SpecError(
            f"--method {method} is a throughput packing (trees at every chiplet, all at once)",
            hint="add --throughput",
        )
    if roots_text is not None:
        roots_text = check_roots(roots_text)
    if draw:
        from supermesh.draw.files import figure_format

        figure_format(draw)  # a bad extension fails before any solving
    with status(f"trees on {spec}: solving", quiet or as_json):
        if throughput_flag:
            G, packing = run_throughput(
                spec, collective, direction, parts_text, max_height, min_rate, root_slack,
                time_limit, "auto" if method == "cpsat" else method,
            )  # fmt: skip
        elif root_sets_flag:
            G, packing = run_root_sets(
                spec, roots_text, k, direction, method, time_limit, max_height
            )
        else:
            G = load_spec(spec)
            packing = pack_by_method(
                G, method, roots_text, k=k, direction=direction, time_limit=time_limit,
                max_height=max_height,
            )  # fmt: skip
    files: list[tuple[str, str | bytes]] = []
    # no wall-clock times: the same inputs, the same file; built only when written or printed
    doc = packing.to_json(timings=False) if output or as_json else {}
    if output and packing.status != "infeasible":
        wide = len(packing.trees) > 256  # thousands of trees: compact, not a line per number
        text = json.dumps(doc, indent=None if wide else 1, separators=(",", ":") if wide else None)
        files.append((output, text + "\n"))
    if draw and packing.status != "infeasible":
        from supermesh.draw import draw_link_load, draw_root_sets, draw_trees

        if throughput_flag:  # dozens of trees per rank: the link loads and the cut say more
            picture = draw_link_load(G, packing)
        else:
            picture = draw_root_sets(G, packing) if root_sets_flag else draw_trees(G, packing)
        files.append((draw, figure_data(picture, draw)))
    write_outputs(files, quiet)
    if as_json:
        emit_json(doc)
    elif throughput_flag:
        print_throughput(packing)
    elif root_sets_flag:
        print_root_sets(packing)
    else:
        roots = [t.root for t in packing.trees]
        print_trees(packing, root_eccentricities(G, roots, direction, packing.span))
    if packing.status == "infeasible":
        sys.exit(EXIT_FINDINGS)
