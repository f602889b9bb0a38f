"""The graphs of the deadlock analysis: wait-for graphs on link FIFO entries, and their CDG.

Any accepted schedule form (a table, :class:`~supermesh.verify.deadlock.tree_schedule.TreeSchedule`
or a ready :class:`~supermesh.verify.deadlock.fifo.FifoModel`) becomes a FIFO model
(:func:`fifo_model`; see :mod:`supermesh.verify.deadlock.fifo`), and the graphs are built on it.
:func:`~supermesh.verify.deadlock.analysis.check_deadlock` decides on them.

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
from typing import Any, Literal, Union

import networkx as nx

from supermesh.errors import SupermeshError
from supermesh.trees.schedule.model import Schedule
from supermesh.verify.deadlock.fifo import Arc, FifoModel, Transfer, table_model
from supermesh.verify.deadlock.tree_schedule import TreeSchedule, tree_model

__all__ = [
    "BARRIER",
    "AnySchedule",
    "Buffers",
    "channel_graph",
    "dependency_graph",
    "fifo_model",
    "fifo_orders",
    "model_wait_graph",
    "wait_for_graph",
]

BARRIER = "barrier"
AnySchedule = Union[Schedule, TreeSchedule, FifoModel]  # noqa: UP007 (a runtime alias)
Buffers = Union[int, None, Literal["default"]]  # noqa: UP007


def fifo_model(
    G: nx.MultiDiGraph,
    schedule: AnySchedule,
    *,
    buffers: Buffers = "default",
    periodic: bool = True,
) -> FifoModel:
    """The FIFO model of any accepted schedule form.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology (a :class:`TreeSchedule`'s arcs and routes are checked against it).
    schedule : Schedule, TreeSchedule or FifoModel
    buffers : int, None or "default"
        Chunk slots per link at the receiver; ``None``: unbounded; ``"default"``: the
        TreeSchedule's or model's own, 1 (store and forward) for a table.
    periodic : bool
        For a table: unroll 2 chunks per entry where the periodicity argument applies (see
        :mod:`supermesh.verify.deadlock.fifo`).

    Returns
    -------
    FifoModel

    Raises
    ------
    SupermeshError
        On a malformed schedule (see :func:`~supermesh.verify.deadlock.fifo.table_model` and
        :func:`~supermesh.verify.deadlock.tree_schedule.tree_model`) or another type.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> m = fifo_model(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p, chunks=2))
    >>> sorted(m.fifos), m.buffers
    ([(0, 1, 0), (1, 3, 0)], 1)
    """
    if isinstance(schedule, Schedule):
        return table_model(
            schedule, buffers=1 if buffers == "default" else buffers, periodic=periodic
        )
    if isinstance(schedule, TreeSchedule):
        model = tree_model(G, schedule)
    elif isinstance(schedule, FifoModel):
        model = schedule
    else:
        raise SupermeshError(f"cannot analyse a {type(schedule).__name__} for deadlock")
    return model if buffers == "default" else dataclasses.replace(model, buffers=buffers)


def fifo_orders(G: nx.MultiDiGraph, schedule: AnySchedule) -> dict[Arc, list[Transfer]]:
    """The FIFO of every link in use: the transfers crossing it, in service order.

    A table is unrolled over every chunk here.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    schedule : Schedule, TreeSchedule or FifoModel
        A schedule table, an explicit tree schedule, or a ready model.

    Returns
    -------
    dict
        Link ``(u, v, key)`` -> its transfers in service order.

    Raises
    ------
    SupermeshError
        See :func:`fifo_model`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> orders = fifo_orders(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p, chunks=2))
    >>> sorted(orders), [len(q) for _, q in sorted(orders.items())]
    ([(0, 1, 0), (1, 3, 0)], [2, 2])
    """
    return fifo_model(G, schedule, periodic=False).fifos


def model_wait_graph(model: FifoModel) -> nx.DiGraph:
    """The wait-for graph of a FIFO model (see the module docstring).

    Parameters
    ----------
    model : FifoModel

    Returns
    -------
    networkx.DiGraph
        As :func:`wait_for_graph`, for a model already built (the deadlock analysis re-checks
        modified models with it).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> m = fifo_model(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p))
    >>> nx.is_directed_acyclic_graph(model_wait_graph(m))
    True
    """
    hops = model.hops
    W = nx.DiGraph()

    def first(x: Transfer) -> tuple[Arc, Transfer]:
        return (hops[x][0], x)

    def last(x: Transfer) -> tuple[Arc, Transfer]:
        return (hops[x][-1], x)

    def wait(a: Any, b: Any, reason: str, **attrs: Any) -> None:
        if not W.has_edge(a, b):
            W.add_edge(a, b, reason=reason, **attrs)

    for x, path in hops.items():
        W.add_nodes_from((h, x) for h in path)
        for before, after in itertools.pairwise(path):
            wait((after, x), (before, x), "hop")
    for link, queue in model.fifos.items():
        for prev, x in itertools.pairwise(queue):
            wait((link, x), last(prev), "fifo")
    if model.barrier is not None:
        W.add_node(BARRIER)
    for x in hops:
        for y in model.deps.get(x, ()):
            wait(first(x), last(y), "data")
        if model.barrier is not None:
            if x.phase == model.barrier[1]:
                wait(first(x), BARRIER, "barrier")
            elif x.phase == model.barrier[0]:
                wait(BARRIER, last(x), "barrier")
    if model.buffers is not None:
        B = model.buffers
        consumers = model.consumers()
        for link, queue in model.fifos.items():
            into = [x for x in queue if hops[x][-1] == link]
            for earlier, x in zip(into, into[B:], strict=False):
                users = consumers.get(earlier, [])
                for y in users:
                    wait(first(x), last(y), "buffer", buffer=link)
                if not users and hops[x][0] != link:
                    wait(first(x), last(earlier), "buffer", buffer=link)
    return W


def wait_for_graph(
    G: nx.MultiDiGraph, schedule: AnySchedule, *, buffers: Buffers = "default"
) -> nx.DiGraph:
    """The wait-for graph of the schedule (see the module docstring).

    Nodes are ``(link, transfer)`` hops and ``"barrier"``; an edge ``x -> y`` with attribute
    ``reason`` in ``fifo``, ``hop``, ``data``, ``barrier``, ``buffer`` means ``x`` cannot start
    before ``y`` has started. A table is unrolled over every chunk.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    schedule : Schedule, TreeSchedule or FifoModel
        A schedule table, an explicit tree schedule, or a ready model.
    buffers : int, None or "default"
        Chunk slots per link at the receiver (see :func:`fifo_model`).

    Returns
    -------
    networkx.DiGraph
        Nodes ``(link, transfer)`` and ``"barrier"``; edges with ``reason``.

    Raises
    ------
    SupermeshError
        See :func:`fifo_model`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> W = wait_for_graph(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p, chunks=2))
    >>> W.number_of_nodes(), nx.is_directed_acyclic_graph(W)
    (4, True)
    """
    return model_wait_graph(fifo_model(G, schedule, buffers=buffers, periodic=False))


def channel_graph(W: nx.DiGraph) -> nx.DiGraph:
    """The channel dependency graph of a wait-for graph: its hops merged per link.

    Parameters
    ----------
    W : networkx.DiGraph
        A wait-for graph (:func:`wait_for_graph`, :func:`model_wait_graph`).

    Returns
    -------
    networkx.DiGraph
        As :func:`dependency_graph`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> W = wait_for_graph(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p))
    >>> sorted(channel_graph(W).edges())
    [(('link', (1, 3, 0)), ('link', (0, 1, 0)))]
    """
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


def dependency_graph(
    G: nx.MultiDiGraph, schedule: AnySchedule, *, buffers: Buffers = "default"
) -> nx.DiGraph:
    """The channel dependency graph: the wait-for graph merged per link (the coarser view).

    Nodes are ``("link", arc)``, ``("buffer", arc)`` (the receiver buffer of a link, where
    ``buffers`` is finite) and ``("barrier", None)``; an edge ``A -> B`` means a transfer holding
    or queued on ``A`` may wait for ``B``. Edges carry ``count``, the number of entry-level waits
    merged into them. FIFO waits between entries of one link are not edges (no self-loops).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    schedule : Schedule, TreeSchedule or FifoModel
        A schedule table, an explicit tree schedule, or a ready model.
    buffers : int, None or "default"
        Chunk slots per link at the receiver (see :func:`fifo_model`).

    Returns
    -------
    networkx.DiGraph
        Nodes ``("link", arc)``, ``("buffer", arc)``, ``("barrier", None)``; edges with ``count``.

    Raises
    ------
    SupermeshError
        See :func:`fifo_model`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import Tree, TreePacking, TreeSet
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((t,)),))
    >>> sorted(dependency_graph(build("mesh:2x2"), TreeSchedule("broadcast", out_trees=p)).edges())
    [(('link', (1, 3, 0)), ('link', (0, 1, 0)))]
    """
    return channel_graph(wait_for_graph(G, schedule, buffers=buffers))
