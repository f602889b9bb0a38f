"""Cut conditions for the design search: which node sets need more entering arcs.

Every tree target of the design tool is a family of Edmonds conditions, all written here in one
form: *a node set ``X`` must be entered by at least ``required`` arcs* (a :class:`Cut`).

- ``k`` trees for every choice of ``k`` roots in the span: every set ``X`` that holds some but not
  all span nodes needs ``k`` entering arcs (``k``-arc-connectivity over the span; the same
  condition for out- and in-trees).
- ``k`` out-trees with roots ``r_1 .. r_k``: ``X`` needs ``#{i : r_i not in X}`` entering arcs.
- ``k`` in-trees with those roots: ``X`` needs ``#{i : r_i not in X}`` *leaving* arcs, that is
  its complement ``V - X`` needs as many entering arcs.

An added link crossing ``X`` adds exactly one arc entering ``X``, so for a candidate selection
``x`` the condition is linear: ``in_base(X) + sum of x_c over candidates c crossing X >=
required``. A violated condition is found by max-flow (:mod:`supermesh.topologies.connectivity`);
its minimum cut is the set to add.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [2] K. Menger, "Zur allgemeinen Kurventheorie", Fundamenta Mathematicae 10, 1927.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from supermesh.topologies.connectivity import ArcNet, arc_net, rooted_failures
from supermesh.trees.design.candidates import Candidate
from supermesh.units import plural

__all__ = [
    "Cut",
    "Requirement",
    "crossing",
    "degree_cuts",
    "entering",
    "holds_without_link",
    "link_ends_needed",
    "violated_cuts",
    "with_links",
]


@dataclass(frozen=True)
class Requirement:
    """One tree target: ``k`` trees, from any roots or from given roots in one direction.

    Attributes
    ----------
    k : int
        Number of trees.
    roots : tuple of int or None
        One root per tree; ``None`` means every choice of ``k`` roots in the span.
    direction : {"out", "in"}
        Ignored when ``roots`` is ``None`` (the condition is the same both ways).
    """

    k: int
    roots: tuple[int, ...] | None = None
    direction: str = "out"

    def label(self) -> str:
        """Short text, e.g. ``"4 out-trees rooted at 0,3,15,12"``."""
        if self.roots is None:
            return f"{plural(self.k, 'tree')} for any {plural(self.k, 'root')}"
        return (
            f"{plural(self.k, self.direction + '-tree')} rooted at {','.join(map(str, self.roots))}"
        )


@dataclass(frozen=True)
class Cut:
    """The condition "``members`` is entered by at least ``required`` arcs".

    ``node`` marks a one-node condition (:func:`degree_cuts`): the set is that node, with the
    relay nodes hanging off it, or the complement of those.
    """

    members: frozenset[int]
    required: int
    node: int | None = None


def entering(G: nx.MultiDiGraph, members: Iterable[int]) -> int:
    """Arcs of ``G`` (parallel arcs counted) from outside ``members`` into it.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> entering(build("mesh:3x3"), {0, 1}), entering(build("mesh:3x3"), set(range(1, 9)))
    (3, 2)
    """
    inside = set(members)
    if 2 * len(inside) > G.number_of_nodes():  # count from the smaller side
        outside = [v for v in G if v not in inside]
        return sum(1 for _, v in G.out_edges(outside) if v in inside)
    return sum(1 for u, _ in G.in_edges(inside) if u not in inside)


def crossing(cands: Sequence[Candidate], members: frozenset[int]) -> list[int]:
    """Indices of the candidates with exactly one end in ``members``."""
    return [i for i, c in enumerate(cands) if (c.u in members) != (c.v in members)]


def with_links(G: nx.MultiDiGraph, pairs: Iterable[tuple[int, int]]) -> nx.MultiDiGraph:
    """A copy of ``G`` with one more bidirectional link (class ``"added"``) per pair."""
    from supermesh.topologies.model import add_link

    H = G.copy()
    for u, v in pairs:
        add_link(H, u, v, cls="added")
    return H


def _pendants(G: nx.MultiDiGraph, span: Sequence[int]) -> dict[int, set[int]]:
    """Span node -> the relay nodes (not in the span) whose only neighbour it is."""
    inside = set(span)
    out: dict[int, set[int]] = {}
    for m in G:
        if m in inside:
            continue
        around = set(G.successors(m)) | set(G.predecessors(m))
        if len(around) == 1 and next(iter(around)) in inside:
            out.setdefault(next(iter(around)), set()).add(m)
    return out


def degree_cuts(G: nx.MultiDiGraph, reqs: Sequence[Requirement], span: Sequence[int]) -> list[Cut]:
    """The one-node conditions: arcs into (and out of) each span node.

    A span node ``v`` must be entered by one arc per tree rooted elsewhere; for in-trees it must
    be left by as many, which is the complement ``V - {v}`` being entered. A relay node hanging
    off ``v`` alone (a memory chiplet with one link) is taken into ``v``'s set: its arcs into
    ``v`` can only carry what came from ``v``. These are the conditions the counting argument
    uses; the design model adds them all up front.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> cuts = degree_cuts(build("mesh:2x2"), [Requirement(3)], [0, 1, 2, 3])
    >>> len(cuts), cuts[0]
    (8, Cut(members=frozenset({0}), required=3, node=0))
    >>> G = build("mesh:2x2,memory=south")  # memory 4 hangs off chiplet 2
    >>> [sorted(c.members) for c in degree_cuts(G, [Requirement(3)], [0, 1, 2, 3]) if c.node == 2]
    [[2, 4], [0, 1, 3, 5]]
    """
    everything = frozenset(int(n) for n in G.nodes)
    pendants = _pendants(G, span)
    best: dict[frozenset[int], tuple[int, int]] = {}
    for req in reqs:
        for v in span:
            here = req.k if req.roots is None else req.k - req.roots.count(v)
            group = frozenset({v} | pendants.get(v, set()))
            sides = []
            if req.roots is None or req.direction == "out":
                sides.append(group)
            if req.roots is None or req.direction == "in":
                sides.append(everything - group)
            for members in sides:
                if here > best.get(members, (0, v))[0]:
                    best[members] = (here, v)
    return [Cut(m, r, v) for m, (r, v) in best.items()]


def violated_cuts(
    G: nx.MultiDiGraph,
    reqs: Sequence[Requirement],
    span: Sequence[int],
    *,
    limit: int | None = None,
) -> list[Cut]:
    """Conditions that the topology ``G`` breaks, each with its set and requirement.

    For each requirement, a max-flow from the roots (any roots: ``k`` units from one pivot span
    node, in both directions) to every span node; each node with fewer than the required paths
    gives its minimum cut. An empty list means every requirement holds (exactly, when the span
    is every node; on a Steiner span, the flow condition holds).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology to check (base plus chosen links).
    reqs : sequence of Requirement
    span : sequence of int
        The nodes every tree must reach (at least two).
    limit : int, optional
        Stop after this many cuts.

    Returns
    -------
    list of Cut
        Distinct sets, each entered by fewer arcs in ``G`` than it requires.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> [sorted(c.members) for c in violated_cuts(build("mesh:2x2"), [Requirement(2)], range(4))]
    []
    >>> cuts = violated_cuts(build("mesh:3x3"), [Requirement(3)], range(9))
    >>> sorted(sorted(c.members) for c in cuts if len(c.members) == 1)  # the corners
    [[0], [2], [6], [8]]
    """
    found: dict[frozenset[int], int] = {}
    everything = frozenset(int(n) for n in G.nodes)
    nets: dict[bool, ArcNet] = {}  # built once per direction, whatever the requirements

    def net_of(reverse: bool) -> ArcNet:
        if reverse not in nets:
            nets[reverse] = arc_net(G, reverse=reverse)
        return nets[reverse]

    for req in reqs:
        for reverse, roots in _runs(req, span, net_of):
            net = net_of(reverse)
            supply = [0] * net.n
            for r in roots:
                supply[net.index[r]] += 1
            targets = [net.index[v] for v in span]
            for cut in rooted_failures(net, supply, targets, len(roots)):
                side = frozenset(net.nodes[i] for i in cut.sink_side)
                required = len(roots) - sum(r in side for r in roots)
                members = everything - side if reverse else side
                if required > found.get(members, 0):
                    found[members] = required
                if limit is not None and len(found) >= limit:
                    return [Cut(m, r) for m, r in found.items()]
    return [Cut(m, r) for m, r in found.items()]


def holds_without_link(
    nets: Mapping[bool, ArcNet],
    reqs: Sequence[Requirement],
    span: Sequence[int],
    ends: tuple[int, int],
) -> bool:
    """Whether every requirement still holds after one link between ``ends`` was removed.

    The requirements held before the removal. A set short of arcs afterwards was entered by a
    removed arc, so one of the two ends lies inside it and has fewer paths than required:
    two path counts decide the question when the failing end is in the span, where
    :func:`violated_cuts` counts one per span node. Only a failing end outside the span (a
    relay) leads to the check of every span node. The answer is the same as
    ``not violated_cuts(H, reqs, span, limit=1)`` on the reduced topology ``H``.

    Parameters
    ----------
    nets : mapping
        ``False`` -> the reduced topology's :func:`~supermesh.topologies.connectivity.arc_net`,
        ``True`` -> that of its reverse.
    reqs : sequence of Requirement
    span : sequence of int
    ends : tuple of int
        The removed link's two nodes.

    Returns
    -------
    bool

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> H = build("smbi:4x4")
    >>> H.remove_edges_from([(0, 1, 1), (1, 0, 1)])  # the link 0-1 that SMBi added
    >>> nets = {rev: arc_net(H, reverse=rev) for rev in (False, True)}
    >>> holds_without_link(nets, [Requirement(3)], range(16), (0, 1))
    True
    >>> holds_without_link(nets, [Requirement(4)], range(16), (0, 1))  # corner 0 has 3 arcs
    False
    """
    inside = set(span)
    for req in reqs:
        for reverse, roots in _runs(req, span, nets.__getitem__):
            net = nets[reverse]
            supply = [0] * net.n
            for r in roots:
                supply[net.index[r]] += 1
            k = len(roots)
            short = rooted_failures(net, supply, [net.index[e] for e in ends], k)
            if not short:
                continue
            if any(net.nodes[c.target] in inside for c in short):
                return False
            targets = [net.index[v] for v in span]
            if rooted_failures(net, supply, targets, k, stop_after=1):
                return False
    return True


def _runs(
    req: Requirement, span: Sequence[int], net_of: Callable[[bool], ArcNet]
) -> list[tuple[bool, tuple[int, ...]]]:
    """(reverse the arcs?, roots) of the max-flow runs that decide one requirement.

    For any roots, the pivot is a best-connected span node of the forward network
    (``net_of(False)``; most arcs in and out, then the lowest id): any span node decides the
    question, but from a corner of two links every other node falls short and each shortfall
    searches the whole grid, where from an inner node of four only the nodes that really fall
    short do.
    """
    if req.roots is None:
        net = net_of(False)

        def arcs_at(v: int) -> int:  # the fewer of its arcs in and out, parallel arcs counted
            i = net.index[v]
            return min(sum(net.cap[a] for a in net.ins[i]), sum(net.cap[a] for a in net.outs[i]))

        pivot = max(sorted(span), key=arcs_at)
        return [(False, (pivot,) * req.k), (True, (pivot,) * req.k)]
    return [(req.direction == "in", req.roots)]


def link_ends_needed(
    G: nx.MultiDiGraph, cuts: Iterable[Cut], cands: Sequence[Candidate] = ()
) -> dict[int, int]:
    """How many added-link ends each node needs, from the one-node conditions alone.

    A node ``v`` short of ``d`` entering arcs (its condition from :func:`degree_cuts`) or ``d``
    leaving arcs (the complement's) needs ``d`` more links ending at it, since each added link
    gives each of its ends one arc in and one arc out. A condition whose set also holds relay
    nodes counts only when every candidate crossing it ends at ``v`` on ``v``'s side. Only
    nodes that need something are listed.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:4x4")
    >>> link_ends_needed(G, degree_cuts(G, [Requirement(4)], range(16)))[0]
    2
    """
    everything = frozenset(G.nodes)
    need: dict[int, int] = {}
    for cut in cuts:
        v = cut.node
        if v is None:
            continue
        side = cut.members if v in cut.members else everything - cut.members
        if len(side) > 1 and any((c.u in side) != (c.v in side) and v not in c.pair for c in cands):
            continue
        short = cut.required - entering(G, cut.members)
        if short > need.get(v, 0):
            need[v] = short
    return need
