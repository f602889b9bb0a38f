"""BookSim ``anynet`` network files as topologies, read the way stock BookSim reads them.

A line is ``router R`` (or ``node N``) followed by what it connects to: ``node N`` (a terminal
on router ``R``) or ``router R2`` with an optional latency in cycles (default 1). As in BookSim's
``AnyNet::readFile``: a router pair listed twice is one channel (the last latency wins); listing
``router A ... router B L`` also creates the channel ``B -> A`` with latency 1 unless ``B``'s own
line lists ``A``; terminal ids must be ``0..n-1``; a terminal sits on one router.

The topology:

- a router with one terminal is the chiplet of that id (``kind="compute"``);
- a router with several terminals is a concentrating router (``kind="router"``, numbered after
  the chiplets), each terminal a chiplet linked to it (class ``other``, latency 0), as
  supermesh's CMesh;
- a router with no terminal whose only links go to two chiplets is a relay, the way stock
  BookSim expresses a parallel link (it merges repeated router pairs): with ``relays="merge"``
  (default) it becomes a second link between those chiplets with the two halves' latency; with
  ``relays="keep"`` it stays a router. Other routers without terminals stay routers;
- latencies in cycles become relative latencies (``cycles / cycles_per_unit``, 20 cycles per
  base link as supermesh writes them and the SuperMesh reference ran).

Lossy, because the format has no place for it: positions (a spring layout is computed), link
bandwidth (1.0), link classes (``mesh``; a relay described by the ``//`` header supermesh writes
gets the class it names), node kinds other than compute and router (a memory chiplet reads back
as compute), and one-way arcs (BookSim makes every channel two-way). Use JSON or GraphML for an
exact copy. ``//`` lines (supermesh's header) are comments here; stock BookSim has none.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import networkx as nx

from supermesh.errors import InputFileError, SpecError
from supermesh.topologies.formats.convert import from_networkx
from supermesh.topologies.io import read_text_file

__all__ = ["anynet_topology", "read_anynet"]

CYCLES_PER_UNIT = 20
"""Cycles of one base link, as :func:`supermesh.export.anynet_text` writes them."""

_RELAY = re.compile(r"^//\s*relay router (\d+):.*\(link \d+, (\w+)\)")


class _Lines:
    """The routers, terminals and channels of an anynet text, with the line each came from."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.routers: dict[int, int] = {}  # router -> line first seen
        self.terminals: dict[int, list[int]] = defaultdict(list)  # router -> terminals
        self.home: dict[int, tuple[int, int]] = {}  # terminal -> (router, line)
        self.channels: dict[tuple[int, int], int] = {}  # (router, router) -> cycles
        self.relay_cls: dict[int, str] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("//"):
                if (m := _RELAY.match(line)) is not None:
                    self.relay_cls[int(m.group(1))] = m.group(2)
                continue
            self.parse_line(line.split(), number)

    def fail(self, number: int, msg: str) -> InputFileError:
        return InputFileError(
            f"{self.source} line {number}: {msg}",
            hint="anynet lines read: router R [node N] [router R2 [LATENCY]] ...",
        )

    def number(self, tok: str | None, what: str, line: int) -> int:
        if tok is None or not tok.isdigit():
            found = "nothing" if tok is None else repr(tok)
            raise self.fail(line, f"{what} must be a non-negative integer, found {found}")
        return int(tok)

    def parse_line(self, toks: list[str], line: int) -> None:
        if toks[0] not in ("router", "node"):
            raise self.fail(line, f"a line starts with 'router' or 'node', not {toks[0]!r}")
        head_kind = toks[0]
        head = self.number(toks[1] if len(toks) > 1 else None, f"the {head_kind} id", line)
        if head_kind == "router":
            self.routers.setdefault(head, line)
        i = 2
        last: tuple[int, int] | str | None = None  # what a latency would belong to
        while i < len(toks):
            kind = toks[i]
            if kind.isdigit():
                if last is None:
                    raise self.fail(line, f"latency {kind} follows no link")
                if isinstance(last, tuple):  # a terminal's latency has no chiplet-side meaning
                    self.channels[last] = int(kind)
                last, i = None, i + 1
                continue
            if kind not in ("router", "node"):
                raise self.fail(line, f"expected 'router', 'node' or a latency, found {kind!r}")
            other = self.number(toks[i + 1] if i + 1 < len(toks) else None, f"{kind} id", line)
            i += 2
            last = None
            if head_kind == "node" and kind == "node":
                raise self.fail(line, f"node {head} cannot connect to node {other}")
            if kind == "node" or head_kind == "node":
                router, terminal = (head, other) if head_kind == "router" else (other, head)
                self.attach(terminal, router, line)
                last = "terminal"
                continue
            if other == head:
                raise self.fail(line, f"router {head} links to itself")
            self.routers.setdefault(other, line)
            self.channels[head, other] = 1
            self.channels.setdefault((other, head), 1)
            last = (head, other)

    def attach(self, terminal: int, router: int, line: int) -> None:
        self.routers.setdefault(router, line)
        if terminal in self.home:
            first, where = self.home[terminal]
            if first != router:
                raise self.fail(
                    line, f"node {terminal} is on router {router} and router {first} (line {where})"
                )
            return
        self.home[terminal] = (router, line)
        self.terminals[router].append(terminal)


def anynet_topology(
    text: str,
    *,
    relays: str = "merge",
    cycles_per_unit: float = CYCLES_PER_UNIT,
    source: str = "anynet",
) -> nx.MultiDiGraph:
    """Turn the text of a BookSim anynet file into a topology (see the module docstring).

    Parameters
    ----------
    text : str
    relays : {"merge", "keep"}
        Whether a terminal-less router linking just two chiplets becomes a parallel link.
    cycles_per_unit : float
        Cycles of a link of relative latency 1.
    source : str
        The file name, for messages.

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        A line that is wrong (with its number), terminals not numbered ``0..n-1``, no terminal.
    SpecError
        An unknown ``relays`` value.

    Examples
    --------
    Two chiplets joined twice: directly and through relay router 2.

    >>> T = anynet_topology("router 0 node 0 router 1 20 router 2 10\\n"
    ...                     "router 1 node 1 router 0 20 router 2 10\\n"
    ...                     "router 2 router 0 10 router 1 10\\n")
    >>> sorted(T.edges(keys=True, data="latency"))
    [(0, 1, 0, 1.0), (0, 1, 1, 1.0), (1, 0, 0, 1.0), (1, 0, 1, 1.0)]
    """
    if relays not in ("merge", "keep"):
        raise SpecError(f"relays={relays!r} is not 'merge' or 'keep'")
    if cycles_per_unit <= 0:
        raise SpecError(f"cycles_per_unit={cycles_per_unit!r} must be positive")
    net = _Lines(text, source)
    terminals = sorted(net.home)
    if not terminals:
        raise InputFileError(
            f"{source} attaches no terminal (node N) to any router",
            hint="an anynet file says `router R node N ...` for each chiplet",
        )
    if terminals != list(range(len(terminals))):
        gap = next(i for i, t in enumerate(terminals) if t != i)
        raise InputFileError(
            f"{source}: terminal ids must be 0..{len(terminals) - 1}, as BookSim requires; "
            f"node {gap} is missing",
            hint="renumber the node ids from 0 without gaps",
        )
    chiplet = {r: ts[0] for r, ts in net.terminals.items() if len(ts) == 1}
    neighbours: dict[int, set[int]] = defaultdict(set)
    for a, b in net.channels:
        neighbours[a].add(b)
    relay_of = {}
    if relays == "merge":
        for r in sorted(net.routers):
            ends = sorted(neighbours[r])
            if not net.terminals.get(r) and len(ends) == 2 and all(e in chiplet for e in ends):
                relay_of[r] = ends
    ids = dict(chiplet)
    n = len(terminals)
    for r in sorted(net.routers):
        if r not in chiplet and r not in relay_of:
            ids[r] = n
            n += 1
    H = nx.MultiDiGraph()
    H.add_nodes_from(range(len(terminals)), kind="compute")
    H.add_nodes_from((ids[r] for r in net.routers if r in ids and r not in chiplet), kind="router")
    for r, ts in sorted(net.terminals.items()):
        if r not in chiplet:
            for t in ts:
                for a, b in ((t, ids[r]), (ids[r], t)):
                    H.add_edge(a, b, cls="other", latency=0.0)
    for (a, b), cycles in sorted(net.channels.items()):
        if a in ids and b in ids:
            H.add_edge(ids[a], ids[b], cls="mesh", latency=cycles / cycles_per_unit)
    for r, (a, b) in relay_of.items():
        cls = net.relay_cls.get(r, "mesh")
        for u, v in ((a, b), (b, a)):
            cycles = net.channels[u, r] + net.channels[r, v]
            H.add_edge(ids[u], ids[v], cls=cls, latency=cycles / cycles_per_unit)
    H.graph.update(spec=source, family="file", name=f"anynet {Path(source).name}")
    return from_networkx(H, source=source)


def read_anynet(
    path: str | Path, *, relays: str = "merge", cycles_per_unit: float = CYCLES_PER_UNIT
) -> nx.MultiDiGraph:
    """Read a BookSim anynet file as a topology (lossy; see the module docstring).

    Parameters
    ----------
    path : str or Path
    relays : {"merge", "keep"}
    cycles_per_unit : float

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    InputFileError
        Unreadable, or a line that is wrong (with its number).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from supermesh.export import anynet_text
    >>> from supermesh.topologies import build
    >>> path = Path(tempfile.mkdtemp()) / "smbi.anynet"
    >>> _ = path.write_text(anynet_text(build("smbi:4x4")))
    >>> T = read_anynet(path)
    >>> T.number_of_nodes(), T.number_of_edges(), T.edges[0, 1, 1]["cls"]
    (16, 72, 'added')
    """
    return anynet_topology(
        read_text_file(path), relays=relays, cycles_per_unit=cycles_per_unit, source=str(path)
    )
