"""Deadlock freedom of pipelined tree schedules: wait-for graphs on link FIFO entries.

The execution model (BRIEF sections 4 and 6)
    Every tree arc carries every chunk once: a *transfer* is ``(phase, set, tree, chunk, arc)``.
    Each directed link (key included) has a FIFO of transfers at its sender, served strictly in
    order: the head goes when the link is free and its dependencies are met. A transfer depends
    on the transfers of the same tree and chunk that deliver to its sender (RS: every child's
    chunk; AG: the parent's chunk). In an AllReduce every AG transfer also waits for a global
    barrier, which waits for every RS transfer. Root sets are not barriered: all sets share the
    FIFOs. A *multi-hop send* (``routes``) crosses several links cut-through: it holds each link
    it has entered until its last hop has started (the TPU note in ``seeds/`` measured exactly
    this). Each link has ``buffers`` chunk slots at its receiver; a delivered chunk keeps its slot
    until the receiver has forwarded it (every transfer of the same tree and chunk leaving the
    receiver is done; a chunk nobody forwards frees its slot on arrival), and a sender takes a
    slot (a credit) before its first hop starts. ``buffers=None`` means unbounded buffers.

The wait-for graph
    A node per (link, transfer) hop, plus one node ``"barrier"``; an edge ``x -> y`` when ``x``
    cannot start before ``y`` has started (``y`` then finishes in bounded time). Reasons:
    ``fifo`` (the previous transfer on the link must finish), ``hop`` (a multi-hop send enters
    link j+1 after link j), ``data`` (the inputs must have arrived), ``barrier`` and ``buffer``
    (a free slot at the receiver). Every wait of the model is an edge, so: acyclic means every
    transfer starts (induction along a topological order) and the schedule is deadlock-free; a
    cycle is a set of transfers each waiting for the next, a deadlock of the model. Credits taken
    before the first hop make the model conservative: a schedule it calls deadlock-free stays so
    under any implementation that waits less.

The channel dependency graph (:func:`dependency_graph`) is the coarser view of Dally and Seitz:
the wait-for graph with its hops merged per link (and buffer waits routed through a node per
link buffer). An acyclic CDG is the classic argument; with finite buffers it nearly always has
cycles (a child's link waits for its parent's link to free a slot and vice versa) although the
fixed FIFO order rules them out, which the finer wait-for graph shows.

References
----------
.. [1] W. J. Dally and C. L. Seitz, "Deadlock-free message routing in multiprocessor
   interconnection networks", IEEE Trans. Computers C-36(5), 1987.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.model import Tree, TreePacking
from supermesh.verify.findings import Finding

__all__ = [
    "COLLECTIVES",
    "DeadlockReport",
    "Schedule",
    "Transfer",
    "check_deadlock",
    "dependency_graph",
    "fifo_orders",
    "transfers",
    "wait_for_graph",
]

Arc = tuple[int, int, int]
BARRIER = "barrier"
COLLECTIVES: dict[str, tuple[str, ...]] = {
    "allreduce": ("rs", "ag"),
    "reducescatter": ("rs",),
    "reduce": ("rs",),
    "allgather": ("ag",),
    "broadcast": ("ag",),
}
ORDERS = ("set", "chunk")
_RANK = {"rs": 0, "ag": 1}


def _arc_text(a: Arc) -> str:
    return f"{a[0]}->{a[1]}#{a[2]}"


@dataclass(frozen=True, order=True)
class Transfer:
    """One chunk of one tree crossing one tree arc.

    Attributes
    ----------
    phase : {"rs", "ag"}
        ``"rs"``: in-trees (reduce, ReduceScatter); ``"ag"``: out-trees (broadcast, AllGather).
    set, tree, chunk : int
        Set index, tree index inside the set, chunk index.
    arc : (src, dst, key)
        The tree arc as the data travel (a link of the topology, or routed by ``routes``).

    Examples
    --------
    >>> str(Transfer("rs", 0, 2, 1, (5, 1, 0)))
    'rs set 0 tree 2 chunk 1 5->1#0'
    """

    phase: str
    set: int
    tree: int
    chunk: int
    arc: Arc

    def __str__(self) -> str:
        return f"{self.phase} set {self.set} tree {self.tree} chunk {self.chunk} " + _arc_text(
            self.arc
        )


@dataclass(frozen=True)
class Schedule:
    """A pipelined tree collective as it will run (a minimal input for the deadlock check).

    Attributes
    ----------
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
    in_trees : TreePacking or None
        In-trees (``direction="in"``) for the RS / reduce phase.
    out_trees : TreePacking or None
        Out-trees (``direction="out"``) for the AG / broadcast phase. AllReduce needs both.
    chunks : int
        Chunks per tree.
    order : {"set", "chunk"}
        Standard FIFO order: by phase, then set, chunk (``"set"``; the sets sit in set order)
        or chunk, set (``"chunk"``), then leaves first (RS) / root first (AG).
    fifo : mapping of link -> sequence of Transfer, optional
        Explicit FIFO orders for some links (each a permutation of the transfers crossing that
        link); the other links use the standard order.
    routes : mapping of tree arc -> sequence of links, optional
        Multi-hop sends: a tree arc ``(u, w, key)`` sent along the path of links given.
    buffers : int or None
        Chunk slots per link at its receiver (default 1: store and forward); ``None``: unbounded.
    """

    collective: str
    in_trees: TreePacking | None = None
    out_trees: TreePacking | None = None
    chunks: int = 1
    order: str = "set"
    fifo: Mapping[Arc, Sequence[Transfer]] | None = field(default=None, compare=False)
    routes: Mapping[Arc, Sequence[Arc]] | None = field(default=None, compare=False)
    buffers: int | None = 1

    def __post_init__(self) -> None:
        if self.collective not in COLLECTIVES:
            raise SupermeshError(
                f"unknown collective {self.collective!r}",
                hint=f"use one of: {', '.join(COLLECTIVES)}",
            )
        for phase in COLLECTIVES[self.collective]:
            packing, want, name = (
                (self.in_trees, "in", "in_trees")
                if phase == "rs"
                else (self.out_trees, "out", "out_trees")
            )
            if packing is None or packing.direction != want:
                raise SupermeshError(
                    f"a {self.collective} schedule needs {name} (a packing with direction {want!r})"
                )
        if not isinstance(self.chunks, int) or self.chunks < 1:
            raise SupermeshError(f"chunks={self.chunks!r} is not a positive integer")
        if self.order not in ORDERS:
            raise SupermeshError(f"order {self.order!r} is not one of {ORDERS}")
        if self.buffers is not None and (not isinstance(self.buffers, int) or self.buffers < 1):
            raise SupermeshError(f"buffers={self.buffers!r} is not a positive integer or None")

    def packing(self, phase: str) -> TreePacking:
        """The packing of ``phase`` (``"rs"`` -> in-trees, ``"ag"`` -> out-trees)."""
        p = self.in_trees if phase == "rs" else self.out_trees
        if p is None:
            raise SupermeshError(f"this {self.collective} schedule has no {phase} phase")
        return p


def transfers(schedule: Schedule) -> list[Transfer]:
    """Every transfer of the schedule, phase by phase, set by set, tree by tree, chunk by chunk.

    Examples
    --------
    >>> t = Tree(root=0, arcs=((0, 1, 0),), height=1)
    >>> from supermesh.trees.model import TreeSet
    >>> p = TreePacking("mesh:1x2", "out", "feasible", (TreeSet((t,)),))
    >>> len(transfers(Schedule("broadcast", out_trees=p, chunks=3)))
    3
    """
    out = []
    for phase in COLLECTIVES[schedule.collective]:
        for s, tree_set in enumerate(schedule.packing(phase).sets):
            for t, tree in enumerate(tree_set.trees):
                for c in range(schedule.chunks):
                    out += [Transfer(phase, s, t, c, a) for a in tree.arcs]
    return out


def _hops(G: nx.MultiDiGraph, schedule: Schedule, arc: Arc) -> tuple[Arc, ...]:
    routes = schedule.routes or {}
    if arc not in routes:
        if not G.has_edge(*arc):
            raise SupermeshError(
                f"tree arc {_arc_text(arc)} is not a link of the topology and has no route",
                hint="check the trees with supermesh verify, or give the multi-hop route",
            )
        return (arc,)
    path: tuple[Arc, ...] = tuple((int(h[0]), int(h[1]), int(h[2])) for h in routes[arc])
    ok = bool(path) and path[0][0] == arc[0] and path[-1][1] == arc[1]
    ok = ok and all(a[1] == b[0] for a, b in itertools.pairwise(path))
    if not ok or len(set(path)) != len(path) or not all(G.has_edge(*h) for h in path):
        raise SupermeshError(
            f"route {[_arc_text(h) for h in path]} of {_arc_text(arc)} is not a path of "
            "distinct links from its source to its destination"
        )
    return path


def _depths(tree: Tree, phase: str) -> dict[int, int]:
    children: dict[int, list[int]] = defaultdict(list)
    for u, v, _ in tree.arcs:
        parent, child = (u, v) if phase == "ag" else (v, u)
        children[parent].append(child)
    depth = {tree.root: 0}
    queue = deque([tree.root])
    while queue:
        n = queue.popleft()
        for c in children[n]:
            if c not in depth:
                depth[c] = depth[n] + 1
                queue.append(c)
    return depth


def fifo_orders(G: nx.MultiDiGraph, schedule: Schedule) -> dict[Arc, list[Transfer]]:
    """The FIFO of every link in use: the transfers crossing it, in service order.

    Links not in ``schedule.fifo`` get the standard order (see :class:`Schedule`).

    Raises
    ------
    SupermeshError
        If an explicit order is not a permutation of the transfers crossing its link, or a tree
        arc is neither a link nor routed.
    """
    depths = {
        (phase, s, t): _depths(tree, phase)
        for phase in COLLECTIVES[schedule.collective]
        for s, ts in enumerate(schedule.packing(phase).sets)
        for t, tree in enumerate(ts.trees)
    }

    def key(x: Transfer) -> tuple[Any, ...]:
        d = depths[(x.phase, x.set, x.tree)].get(x.arc[0], 0)
        level = -d if x.phase == "rs" else d
        major = (x.set, x.chunk) if schedule.order == "set" else (x.chunk, x.set)
        return (_RANK[x.phase], *major, level, x.tree, x.arc)

    fifos: dict[Arc, list[Transfer]] = defaultdict(list)
    for x in transfers(schedule):
        for h in _hops(G, schedule, x.arc):
            fifos[h].append(x)
    for queue in fifos.values():
        queue.sort(key=key)
    for raw_link, order in (schedule.fifo or {}).items():
        link: Arc = (int(raw_link[0]), int(raw_link[1]), int(raw_link[2]))
        given = list(order)
        if sorted(given) != sorted(fifos.get(link, [])):
            extra = set(given) ^ set(fifos.get(link, []))
            raise SupermeshError(
                f"explicit FIFO of link {_arc_text(link)} is not a permutation of the transfers "
                f"crossing it (e.g. {min(extra) if extra else 'a repeated transfer'})"
            )
        fifos[link] = given
    return dict(fifos)


def wait_for_graph(G: nx.MultiDiGraph, schedule: Schedule) -> nx.DiGraph:
    """The wait-for graph of the schedule (see the module docstring).

    Nodes are ``(link, transfer)`` hops and ``"barrier"``; an edge ``x -> y`` with attribute
    ``reason`` in ``fifo``, ``hop``, ``data``, ``barrier``, ``buffer`` means ``x`` cannot start
    before ``y`` has started.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> W = wait_for_graph(build("mesh:2x2"), Schedule("broadcast", out_trees=p, chunks=2))
    >>> W.number_of_nodes(), nx.is_directed_acyclic_graph(W)
    (4, True)
    """
    fifos = fifo_orders(G, schedule)
    hops = {x: _hops(G, schedule, x.arc) for q in fifos.values() for x in q}
    W = nx.DiGraph()

    def first(x: Transfer) -> tuple[Arc, Transfer]:
        return (hops[x][0], x)

    def last(x: Transfer) -> tuple[Arc, Transfer]:
        return (hops[x][-1], x)

    def wait(a: Any, b: Any, reason: str, **attrs: Any) -> None:
        if not W.has_edge(a, b):
            W.add_edge(a, b, reason=reason, **attrs)

    delivered: dict[tuple[str, int, int, int, int], list[Transfer]] = defaultdict(list)
    sent: dict[tuple[str, int, int, int, int], list[Transfer]] = defaultdict(list)
    for x, path in hops.items():
        W.add_nodes_from((h, x) for h in path)
        delivered[(x.phase, x.set, x.tree, x.chunk, x.arc[1])].append(x)
        sent[(x.phase, x.set, x.tree, x.chunk, x.arc[0])].append(x)
        for before, after in itertools.pairwise(path):
            wait((after, x), (before, x), "hop")
    for link, queue in fifos.items():
        for prev, x in itertools.pairwise(queue):
            wait((link, x), last(prev), "fifo")
    barrier = schedule.collective == "allreduce"
    if barrier:
        W.add_node(BARRIER)
    for x in hops:
        for y in delivered.get((x.phase, x.set, x.tree, x.chunk, x.arc[0]), ()):
            wait(first(x), last(y), "data")
        if barrier:
            if x.phase == "ag":
                wait(first(x), BARRIER, "barrier")
            else:
                wait(BARRIER, last(x), "barrier")
    if schedule.buffers is not None:
        B = schedule.buffers
        for link, queue in fifos.items():
            into = [x for x in queue if hops[x][-1] == link]
            for earlier, x in zip(into, into[B:], strict=False):
                consumers = sent.get(
                    (earlier.phase, earlier.set, earlier.tree, earlier.chunk, earlier.arc[1]), []
                )
                for y in consumers:
                    wait(first(x), last(y), "buffer", buffer=link)
                if not consumers and hops[x][0] != link:
                    wait(first(x), last(earlier), "buffer", buffer=link)
    return W


def dependency_graph(G: nx.MultiDiGraph, schedule: Schedule) -> nx.DiGraph:
    """The channel dependency graph: the wait-for graph merged per link (the coarser view).

    Nodes are ``("link", arc)``, ``("buffer", arc)`` (the receiver buffer of a link, where
    ``buffers`` is finite) and ``("barrier", None)``; an edge ``A -> B`` means a transfer holding
    or queued on ``A`` may wait for ``B``. Edges carry ``count``, the number of entry-level waits
    merged into them. FIFO waits between entries of one link are not edges (no self-loops).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> sorted(dependency_graph(build("mesh:2x2"), Schedule("broadcast", out_trees=p)).edges())
    [(('link', (1, 3, 0)), ('link', (0, 1, 0)))]
    """
    W = wait_for_graph(G, schedule)
    C = nx.DiGraph()

    def node(n: Any) -> tuple[str, Arc | None]:
        return ("barrier", None) if n == BARRIER else ("link", n[0])

    def bump(a: Any, b: Any) -> None:
        if a == b:
            return
        if C.has_edge(a, b):
            C[a][b]["count"] += 1
        else:
            C.add_edge(a, b, count=1)

    C.add_nodes_from(node(n) for n in W)
    for a, b, data in W.edges(data=True):
        if data["reason"] == "buffer":
            buf = ("buffer", data["buffer"])
            bump(node(a), buf)
            bump(buf, node(b))
        else:
            bump(node(a), node(b))
    return C


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
        return [Finding("deadlock-cycle", msg)]

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
    hop = "" if link == x.arc else f" (hop {_arc_text(link)})"
    return f"[{x}{hop}]"


def _cycle(W: nx.DiGraph) -> list[tuple[Any, Any]] | None:
    """A short cycle as a list of edges, or None (linear unless a cycle exists)."""
    if nx.is_directed_acyclic_graph(W):
        return None
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


def _free(G: nx.MultiDiGraph, schedule: Schedule) -> bool:
    return _cycle(wait_for_graph(G, schedule)) is None


def _find_fix(
    G: nx.MultiDiGraph, schedule: Schedule, W: nx.DiGraph, edges: list[tuple[Any, Any]], tries: int
) -> str | None:
    attempts: list[tuple[str, Schedule]] = []
    if schedule.fifo:
        attempts.append(
            (
                "use the standard FIFO order (by set and chunk, then leaves first for RS and "
                "root first for AG)",
                dataclasses.replace(schedule, fifo=None),
            )
        )
    fifos = fifo_orders(G, schedule)
    for a, b in edges:
        if W[a][b]["reason"] != "fifo":
            continue
        link, x = a
        queue = list(fifos[link])
        i = queue.index(x)
        queue[i - 1], queue[i] = queue[i], queue[i - 1]
        attempts.append(
            (
                f"on link {_arc_text(link)} serve [{x}] before [{queue[i]}]",
                dataclasses.replace(schedule, fifo={**dict(schedule.fifo or {}), link: queue}),
            )
        )
    if schedule.buffers is not None and any(W[a][b]["reason"] == "buffer" for a, b in edges):
        most = max(len(q) for q in fifos.values())
        for slots in sorted({schedule.buffers + 1, 2 * schedule.buffers, most}):
            if slots > schedule.buffers:
                attempts.append(
                    (
                        f"give every link {slots} buffer slots",
                        dataclasses.replace(schedule, buffers=slots),
                    )
                )
    for text, candidate in attempts[:tries]:
        if _free(G, candidate):
            return text
    if any(W[a][b]["reason"] == "hop" for a, b in edges):
        return (
            "store and forward the multi-hop sends in the cycle at their intermediate nodes, or "
            "send them after the single-hop transfers they block"
        )
    return None


def check_deadlock(
    G: nx.MultiDiGraph, schedule: Schedule, *, max_fix_tries: int = 12
) -> DeadlockReport:
    """Decide whether a schedule can deadlock, with the argument or a counterexample.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    schedule : Schedule
        The collective, its trees, chunks, FIFO orders, routes and buffer slots.
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
        On a malformed schedule (see :func:`fifo_orders`).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> check_deadlock(build("mesh:2x2"), Schedule("broadcast", out_trees=p)).deadlock_free
    True
    """
    W = wait_for_graph(G, schedule)
    n = sum(1 for v in W if v != BARRIER)
    edges = _cycle(W)
    if edges is None:
        C = dependency_graph(G, schedule)
        if nx.is_directed_acyclic_graph(C):
            order = [
                _arc_text(v[1]) if v[0] == "link" else v[0]
                for v in nx.topological_sort(C.reverse(copy=False))
            ]
            shown = ", ".join(order[:8]) + (", ..." if len(order) > 8 else "")
            argument = (
                f"the channel dependency graph on {C.number_of_nodes()} links and buffers is "
                f"acyclic (Dally and Seitz), so no wait can close a loop; a topological order "
                f"(each waits only for earlier ones) is {shown}"
            )
        else:
            argument = (
                f"the wait-for graph on the {n} FIFO entries is acyclic: by induction along a "
                "topological order every entry starts, as each waits only for earlier ones "
                "(fixed FIFO order, "
                + (
                    f"{schedule.buffers} buffer slot(s) per link"
                    if schedule.buffers
                    else "unbounded buffers"
                )
                + "); the coarser channel dependency graph on links has cycles, which the "
                "FIFO order rules out"
            )
        return DeadlockReport(True, argument, entries=n)
    steps = [f"{_entry_text(a)} waits ({W[a][b]['reason']}) for {_entry_text(b)}" for a, b in edges]
    shown = "; ".join(steps[:10]) + ("; ..." if len(steps) > 10 else "")
    argument = f"deadlock: a cycle of {len(edges)} waiting entries: {shown}."
    cycle = [(None, None) if a == BARRIER else (a[0], a[1]) for a, _ in edges]
    fix = _find_fix(G, schedule, W, edges, max_fix_tries)
    return DeadlockReport(False, argument, cycle=cycle, fix=fix, entries=n)
