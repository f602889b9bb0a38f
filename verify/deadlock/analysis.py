"""Deadlock freedom of pipelined tree schedules: the verdict, with its argument or a cycle.

The input is a schedule table (:class:`supermesh.trees.schedule.model.Schedule`), a tree-level
description (:class:`~supermesh.verify.deadlock.tree_schedule.TreeSchedule`, which can also state
explicit FIFO permutations and multi-hop routes) or a ready
:class:`~supermesh.verify.deadlock.fifo.FifoModel`. All become a FIFO model (link FIFOs, hops, data
dependencies, barrier, buffer slots; see :mod:`supermesh.verify.deadlock.fifo`), and
:func:`check_deadlock` decides on its wait-for graph (:mod:`supermesh.verify.deadlock.graphs`):
acyclic is deadlock-free, argued by the channel dependency graph of Dally and Seitz where that is
acyclic too, else by the wait-for graph itself; a cycle is the counterexample, reported with an
order change or buffer size that removes it where one of the tried ones does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import networkx as nx

from supermesh.verify.deadlock.fifo import Arc, FifoModel, Transfer, arc_text
from supermesh.verify.deadlock.graphs import (
    BARRIER,
    AnySchedule,
    Buffers,
    channel_graph,
    fifo_model,
    model_wait_graph,
)
from supermesh.verify.findings import Finding

__all__ = ["DeadlockReport", "check_deadlock"]


@dataclass(frozen=True)
class DeadlockReport:
    """The answer of :func:`check_deadlock`.

    Attributes
    ----------
    deadlock_free : bool
    argument : str
        Why: the acyclic graph and a topological order, or the cycle in words.
    cycle : list of (link, transfer) or None
        A counterexample: each entry waits for the next, the last for the first. The global
        barrier appears as ``(None, None)``.
    fix : str or None
        An order change (or buffer size) that removes the cycle, where one was found.
    entries : int
        Number of (link, transfer) entries in the model.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.verify.deadlock.tree_schedule import TreeSchedule
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0), (0, 2, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> report = check_deadlock(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p))
    >>> report.deadlock_free, report.cycle, report.findings()
    (True, None, [])
    >>> report.to_json()["deadlock_free"]
    True
    """

    deadlock_free: bool
    argument: str
    cycle: list[tuple[Arc | None, Transfer | None]] | None = None
    fix: str | None = None
    entries: int = 0

    def findings(self) -> list[Finding]:
        """``[]`` when deadlock-free, else one ``deadlock-cycle`` finding."""
        if self.deadlock_free:
            return []
        msg = self.argument + (f" Fix: {self.fix}" if self.fix else "")
        cycle = self.cycle or []
        entry = next((x.entry for _, x in cycle if x is not None and x.entry is not None), None)
        link = next((a for a, _ in cycle if a is not None), None)
        return [Finding("deadlock-cycle", msg, arc=link, entry=entry)]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict; cycle entries as ``{"link": [u, v, k], "transfer": {...}}``."""
        cycle = None
        if self.cycle is not None:
            cycle = [
                {
                    "link": list(link) if link else None,
                    "transfer": dataclasses.asdict(x) if x else None,
                }
                for link, x in self.cycle
            ]
        return {
            "deadlock_free": self.deadlock_free,
            "argument": self.argument,
            "cycle": cycle,
            "fix": self.fix,
            "entries": self.entries,
        }


def _entry_text(n: Any) -> str:
    if n == BARRIER:
        return "the global barrier"
    link, x = n
    hop = "" if link == x.arc else f" (hop {arc_text(link)})"
    return f"[{x}{hop}]"


def _cycle(W: nx.DiGraph) -> list[tuple[Any, Any]] | None:
    """A short cycle as a list of edges, or None (linear unless a cycle exists)."""
    if nx.is_directed_acyclic_graph(W):
        return None
    loops = sorted(nx.nodes_with_selfloops(W), key=str)
    if loops:
        return [(loops[0], loops[0])]
    comp = min(
        (c for c in nx.strongly_connected_components(W) if len(c) > 1),
        key=lambda c: (len(c), min(map(str, c))),
    )
    S = W.subgraph(comp)
    start = min(comp, key=str)
    best: list[Any] | None = None
    for succ in sorted(S.successors(start), key=str):
        path = nx.shortest_path(S, succ, start)
        if best is None or len(path) < len(best):
            best = path
    nodes = [start, *(best or [])][:-1]
    return list(zip(nodes, [*nodes[1:], nodes[0]], strict=True))


def _find_fix(
    model: FifoModel, W: nx.DiGraph, edges: list[tuple[Any, Any]], tries: int
) -> str | None:
    attempts: list[tuple[str, FifoModel]] = []
    if model.standard is not None:
        attempts.append(
            (
                "use the standard FIFO order (by set and chunk, then leaves first for RS and "
                "root first for AG)",
                dataclasses.replace(model, fifos=model.standard, standard=None),
            )
        )
    for a, b in edges:
        if W[a][b]["reason"] != "fifo":
            continue
        link, x = a
        queue = list(model.fifos[link])
        i = queue.index(x)
        queue[i - 1], queue[i] = queue[i], queue[i - 1]
        attempts.append(
            (
                f"on link {arc_text(link)} serve [{x}] before [{queue[i]}]",
                dataclasses.replace(model, fifos={**model.fifos, link: queue}),
            )
        )
    if model.buffers is not None and any(W[a][b]["reason"] == "buffer" for a, b in edges):
        most = max(len(q) for q in model.fifos.values())
        for slots in sorted({model.buffers + 1, 2 * model.buffers, most}):
            if slots > model.buffers:
                attempts.append(
                    (
                        f"give every link {slots} buffer slots",
                        dataclasses.replace(model, buffers=slots),
                    )
                )
    for text, candidate in attempts[:tries]:
        if _cycle(model_wait_graph(candidate)) is None:
            return text
    if any(W[a][b]["reason"] == "hop" for a, b in edges):
        return (
            "store and forward the multi-hop sends in the cycle at their intermediate nodes, or "
            "send them after the single-hop transfers they block"
        )
    return None


def _free_argument(model: FifoModel, W: nx.DiGraph, n: int) -> str:
    C = channel_graph(W)
    how = f" ({model.note})" if model.note else ""
    if nx.is_directed_acyclic_graph(C):
        order = [
            arc_text(v[1]) if v[0] == "link" else v[0]
            for v in nx.topological_sort(C.reverse(copy=False))
        ]
        shown = ", ".join(order[:8]) + (", ..." if len(order) > 8 else "")
        return (
            f"the channel dependency graph on {C.number_of_nodes()} links and buffers is "
            f"acyclic (Dally and Seitz), so no wait can close a loop; a topological order "
            f"(each waits only for earlier ones) is {shown}{how}"
        )
    slots = f"{model.buffers} buffer slot(s) per link" if model.buffers else "unbounded buffers"
    return (
        f"the wait-for graph on the {n} FIFO entries is acyclic: by induction along a "
        f"topological order every entry starts, as each waits only for earlier ones (fixed FIFO "
        f"order, {slots}); the coarser channel dependency graph on links has cycles, which the "
        f"FIFO order rules out{how}"
    )


def check_deadlock(
    G: nx.MultiDiGraph,
    schedule: AnySchedule,
    *,
    buffers: Buffers = "default",
    periodic: bool = True,
    max_fix_tries: int = 12,
) -> DeadlockReport:
    """Decide whether a schedule can deadlock, with the argument or a counterexample.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    schedule : Schedule, TreeSchedule or FifoModel
        A schedule table, or the collective, its trees, chunks, FIFO orders, routes and buffer
        slots, or a ready model.
    buffers : int, None or "default"
        Chunk slots per link at the receiver (see
        :func:`~supermesh.verify.deadlock.graphs.fifo_model`; a table defaults to 1).
    periodic : bool
        Use the periodicity argument for tables (see :mod:`supermesh.verify.deadlock.fifo`).
    max_fix_tries : int
        How many candidate fixes (each a full re-check) to try when a cycle is found.

    Returns
    -------
    DeadlockReport
        Deadlock-free with the argument (an acyclic channel dependency graph, or else an acyclic
        wait-for graph on the FIFO entries), or the cycle of waiting entries with a fix if one
        of the tried order changes removes it.

    Raises
    ------
    SupermeshError
        On a malformed schedule (see :func:`~supermesh.verify.deadlock.graphs.fifo_model`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> from supermesh.trees.schedule.build import build_schedule
    >>> from supermesh.verify.deadlock.tree_schedule import TreeSchedule
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> check_deadlock(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p)).deadlock_free
    True
    >>> t = Tree(root=0, arcs=((0, 1, 0), (0, 2, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> table = build_schedule(build("mesh:2x2"), "allreduce", p, chunks=50)
    >>> check_deadlock(build("mesh:2x2"), table).deadlock_free
    True
    """
    model = fifo_model(G, schedule, buffers=buffers, periodic=periodic)
    W = model_wait_graph(model)
    n = sum(1 for v in W if v != BARRIER)
    edges = _cycle(W)
    if edges is None:
        return DeadlockReport(True, _free_argument(model, W, n), entries=n)
    steps = [f"{_entry_text(a)} waits ({W[a][b]['reason']}) for {_entry_text(b)}" for a, b in edges]
    shown = "; ".join(steps[:10]) + ("; ..." if len(steps) > 10 else "")
    argument = f"deadlock: a cycle of {len(edges)} waiting entries: {shown}."
    cycle = [(None, None) if a == BARRIER else (a[0], a[1]) for a, _ in edges]
    fix = _find_fix(model, W, edges, max_fix_tries)
    return DeadlockReport(False, argument, cycle=cycle, fix=fix, entries=n)
