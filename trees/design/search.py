"""Starting points and final checks for :mod:`supermesh.trees.design.optimise`.

- :func:`known_designs`: the published SuperMesh designs (SMAlter, SMAlter with 4-link corners,
  SMBi) expressed as candidate selections on a mesh base, to warm-start the solver.
- :func:`greedy_design`: a quick design for any base: repeatedly add the cheapest candidates
  crossing the violated cuts, then drop what is not needed. An upper bound, never a proof.
- :func:`packing_check`: the targets cuts cannot decide (a maximum tree height, a Steiner span)
  are settled by packing the trees (:func:`supermesh.trees.packing.search.pack_trees`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import networkx as nx

from supermesh.errors import SolverError
from supermesh.topologies.connectivity import arc_net
from supermesh.topologies.grid import smalter, smbi
from supermesh.trees.cpsat import work_of
from supermesh.trees.design.candidates import Candidate, grid_cells
from supermesh.trees.design.cuts import (
    Requirement,
    crossing,
    entering,
    holds_without_link,
    violated_cuts,
    with_links,
)

__all__ = ["greedy_design", "known_designs", "packing_check", "passes"]


def passes(
    G: nx.MultiDiGraph,
    cands: Sequence[Candidate],
    selection: Sequence[int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
) -> bool:
    """Whether the base plus the selected candidates meets every cut condition (max-flow)."""
    return not violated_cuts(with_links(G, (cands[i].pair for i in selection)), reqs, span, limit=1)


def known_designs(
    G: nx.MultiDiGraph, cands: Sequence[Candidate]
) -> list[tuple[str, tuple[int, ...]]]:
    """The SuperMesh designs on a mesh base, as ``(name, candidate indices)``.

    Only designs whose every added link is a candidate are listed; none for other bases.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design.candidates import candidate_links
    >>> G = build("mesh:4x4")
    >>> [(name, len(sel)) for name, sel in known_designs(G, candidate_links(G, "any-parallel"))]
    [('smalter', 8), ('smbi', 12)]
    """
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    cells = grid_cells(G)
    if G.graph.get("family") != "mesh" or not cells or len(cells) != rows * cols:
        return []
    index = {c.pair: i for i, c in enumerate(cands)}
    out: list[tuple[str, tuple[int, ...]]] = []
    seen = set()
    for name, D in (
        ("smalter", smalter(rows, cols)),
        ("smalter-corners4", smalter(rows, cols, corners=4)),
        ("smbi", smbi(rows, cols)),
    ):
        pairs = set()
        for u, v, cls in D.edges(data="cls"):
            if cls == "added":
                a, b = cells[divmod(u, cols)], cells[divmod(v, cols)]
                pairs.add((min(a, b), max(a, b)))
        if pairs <= set(index):
            sel = tuple(sorted(index[p] for p in pairs))
            if sel not in seen:
                seen.add(sel)
                out.append((name, sel))
    return out


def greedy_design(
    G: nx.MultiDiGraph,
    cands: Sequence[Candidate],
    room: Mapping[int, int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
) -> tuple[int, ...] | None:
    """A design meeting every cut condition, found greedily; ``None`` if the greedy gets stuck.

    Each round adds, for every violated cut, the cheapest candidates crossing it (those crossing
    the most violated cuts first) within the port budgets; at the end, candidates are dropped
    (dearest first) while the design still passes.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design.candidates import candidate_links
    >>> G = build("mesh:4x4")
    >>> cands = candidate_links(G, "perimeter-parallel")
    >>> sel = greedy_design(G, cands, {v: 4 - G.out_degree(v) for v in G}, [Requirement(4)],
    ...                     list(G))
    >>> len(sel)
    8
    """
    left = dict(room)
    chosen: set[int] = set()
    for _ in range(len(cands) + 1):
        H = with_links(G, (cands[i].pair for i in sorted(chosen)))
        cuts = violated_cuts(H, reqs, span)
        if not cuts:
            return _prune(G, cands, chosen, reqs, span)
        crosses = [set(crossing(cands, cut.members)) for cut in cuts]
        hits = {i: sum(i in s for s in crosses) for i in range(len(cands))}
        picked: list[int] = []
        for cut, cross in zip(cuts, crosses, strict=True):
            short = cut.required - entering(H, cut.members) - sum(i in cross for i in picked)
            options = sorted(
                (cands[i].cost, -hits[i], i)
                for i in cross
                if i not in chosen and left.get(cands[i].u, 0) > 0 and left.get(cands[i].v, 0) > 0
            )
            for _, _, i in options[: max(short, 0)]:
                chosen.add(i)
                picked.append(i)
                left[cands[i].u] -= 1
                left[cands[i].v] -= 1
        if not picked:
            return None
    return None


def _prune(
    G: nx.MultiDiGraph,
    cands: Sequence[Candidate],
    chosen: set[int],
    reqs: Sequence[Requirement],
    span: Sequence[int],
) -> tuple[int, ...]:
    # one network per direction, edited in place of a rebuilt topology per trial: at 64x64 a
    # rebuild costs more than the two path counts that decide a removal
    nets = {rev: arc_net(with_links(G, (cands[i].pair for i in chosen)), reverse=rev)
            for rev in (False, True)}  # fmt: skip
    arc_ids = {
        rev: {
            (net.nodes[t], net.nodes[h]): a
            for a, (t, h) in enumerate(zip(net.tail, net.head, strict=True))
        }
        for rev, net in nets.items()
    }
    for i in sorted(chosen, key=lambda i: (-cands[i].cost, -i)):
        u, v = cands[i].pair
        trial = {}
        for rev, net in nets.items():
            cap = list(net.cap)
            cap[arc_ids[rev][(u, v)]] -= 1
            cap[arc_ids[rev][(v, u)]] -= 1
            trial[rev] = replace(net, cap=cap)
        if holds_without_link(trial, reqs, span, (u, v)):
            chosen.discard(i)
            nets = trial
    return tuple(sorted(chosen))


def packing_check(
    H: nx.MultiDiGraph,
    reqs: Sequence[Requirement],
    span: Sequence[int],
    *,
    max_height: int | None,
    time_limit: float,
    workers: int,
    seed: int,
    work_limit: float | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """Pack the trees of every rooted requirement on ``H`` (optionally within a height).

    The work budget is shared: each packing gets the work left divided by the requirements
    left; ``time_limit`` bounds the wall clock of the whole check.

    Parameters
    ----------
    H : networkx.MultiDiGraph
        The base plus the chosen links.
    reqs : sequence of Requirement
    span : sequence of int
    max_height : int, optional
    time_limit : float
        Seconds (an upper bound on the wall clock).
    workers, seed : int
        CP-SAT ``num_workers`` and ``random_seed``.
    work_limit : float, optional
        CP-SAT deterministic time for every packing together (default
        ``DTIME_PER_WORKER_SECOND * workers * time_limit``).

    Returns
    -------
    verdict : {"ok", "fail", "unknown"}
        ``ok``: every requirement has a packing (within ``max_height``); ``fail``: one is proven
        impossible; ``unknown``: the budget ran out first.
    details : list of dict
        Per requirement: ``roots``, ``direction``, ``status``, ``height`` (tallest tree) or
        ``certificate``, ``work`` (spent; the whole share when no packing was found) and
        ``stopped`` (:func:`~supermesh.trees.packing.search.pack_trees`' ``stats["stopped"]``).
    """
    from supermesh.trees.packing.search import pack_trees

    start = time.perf_counter()
    work = work_of(time_limit, workers) if work_limit is None else work_limit
    details: list[dict[str, Any]] = []
    verdict = "ok"
    for n, req in enumerate(reqs):
        if req.roots is None:  # any-roots targets are decided by cuts alone
            continue
        share = max(work - sum(r["work"] for r in details), 0.0) / (len(reqs) - n)
        row: dict[str, Any] = {"roots": list(req.roots), "direction": req.direction}
        details.append(row)
        try:
            p = pack_trees(
                H,
                req.roots,
                direction=req.direction,
                span=span,
                max_height=max_height,
                time_limit=max(time_limit - (time.perf_counter() - start), 0.5),
                workers=workers,
                seed=seed,
                balance=False,
                work_limit=share,
            )
        except SolverError:
            row.update(status="unknown", work=share)  # no packing before a limit
            verdict = "unknown"
            continue
        row["status"] = p.status
        row["work"] = p.stats.get("work_used", 0.0)
        row["stopped"] = p.stats.get("stopped", "done")
        if p.status == "infeasible":
            row["certificate"] = p.certificate
            return "fail", details
        row["height"] = p.objective
    return verdict, details
