"""Hypothesis strategies for supermesh objects, public so users can test their own code with them.

* :func:`topology_specs` / :func:`topologies`: random spec strings (and the topologies they
  build) over every family of :data:`supermesh.topologies.FAMILIES`, with valid random sizes and
  options. The option space of each family is listed explicitly in :data:`FAMILY_SPACES` (never
  found by trial builds, which would hide generator bugs); a test checks it covers every family
  and every option.
* :func:`multidigraphs`: small random topologies with the documented node and arc attributes.
* :func:`root_lists`: random root lists (repeats allowed).
* :func:`arborescences` / :func:`tree_sets`: random valid spanning arborescences (random
  search order, relay leaves pruned, exact heights) and sets of arc-disjoint ones.
* :func:`collective_packings` / :func:`schedules`: tree packings shaped for a collective (one
  tree per chiplet for ReduceScatter / AllGather, one shared root for Broadcast / Reduce) and the
  schedule tables :func:`supermesh.trees.schedule.build.build_schedule` makes from them.

Examples
--------
>>> from hypothesis import HealthCheck, given, settings
>>> from supermesh.topologies import build
>>> @settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
... @given(topology_specs(families=["smbi"], max_side=4))
... def test_builds(spec):
...     assert build(spec).number_of_nodes() >= 4
>>> test_builds()
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import networkx as nx
from hypothesis import reject
from hypothesis import strategies as st

from supermesh.topologies.model import add_arc, add_node, new_topology
from supermesh.topologies.spec import build
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.schedule.model import COLLECTIVES, Schedule

__all__ = [
    "FAMILY_SPACES",
    "arborescences",
    "collective_packings",
    "multidigraphs",
    "root_lists",
    "schedules",
    "topologies",
    "topology_specs",
    "tree_sets",
]

SIDES = ("north", "east", "south", "west")
Draw = Callable[..., Any]
SizeDrawer = Callable[[Draw, int, dict[str, Any]], "str | None"]


def _grid(lo: int) -> SizeDrawer:
    def size(draw: Draw, max_side: int, opts: dict[str, Any]) -> str | None:
        if max_side < lo:
            return None
        return f"{draw(st.integers(lo, max_side))}x{draw(st.integers(lo, max_side))}"

    return size


def _conc(
    lo: int, *, lo_cols: int | None = None, pow2_rows: bool = False, always4: bool = False
) -> SizeDrawer:
    """Sizes of an interposer family: a router grid of at least lo x lo_cols routers (rows a
    power of two and at least rows/2 + 1 columns if ``pow2_rows``: the butterflies), each
    router serving 2x2 chiplets with ``conc=4``."""

    def size(draw: Draw, max_side: int, opts: dict[str, Any]) -> str | None:
        f = 2 if always4 or opts.get("conc") == "4" else 1
        lc = lo if lo_cols is None else lo_cols
        rows_ok = [
            r
            for r in range(f * lo, max_side + 1, f)
            if not pow2_rows or (r // f) & (r // f - 1) == 0
        ]
        if pow2_rows:  # the butterflies reach every row only with R/2 + 1 router columns
            rows_ok = [r for r in rows_ok if f * max(lc, (r // f) // 2 + 1) <= max_side]
        if not rows_ok:
            return None
        rows = draw(st.sampled_from(rows_ok))
        least = max(lc, (rows // f) // 2 + 1) if pow2_rows else lc
        cols_ok = list(range(f * least, max_side + 1, f))
        if not cols_ok:
            return None
        return f"{rows}x{draw(st.sampled_from(cols_ok))}"

    return size


def _hex(draw: Draw, max_side: int, opts: dict[str, Any]) -> str:
    if draw(st.booleans()):
        return f"r{draw(st.integers(1, max(1, min(2, max_side // 3))))}"
    rows = draw(st.lists(st.integers(1, max(1, min(5, max_side))), min_size=1, max_size=4))
    if sum(rows) < 2:
        rows.append(2)
    return "-".join(map(str, rows))


FAMILY_SPACES: dict[str, tuple[SizeDrawer, dict[str, tuple[str, ...]]]] = {
    "mesh": (_grid(2), {}),
    "smbi": (_grid(2), {}),
    "smalter": (_grid(2), {"corners": ("3", "4")}),
    "partial-smbi": (_grid(2), {"io": SIDES}),
    "partial-smalter": (_grid(2), {"io": SIDES}),
    "smuni": (_grid(2), {"dir": ("cw", "ccw")}),
    "torus": (_grid(3), {}),
    "hexamesh": (_hex, {}),
    "folded-torus": (_conc(3), {"conc": ("1", "4")}),
    "kite-small": (_conc(2), {"conc": ("1", "4")}),
    "kite-medium": (_conc(3), {"conc": ("1", "4")}),
    "double-butterfly": (_conc(2, pow2_rows=True), {"conc": ("1", "4")}),
    "butterdonut": (_conc(2, lo_cols=3, pow2_rows=True), {"conc": ("1", "4")}),
    "cmesh": (_conc(2, always4=True), {}),
}
"""Family -> (size drawer, option values). ``memory=SIDES`` is added where the family takes it.

CMesh always concentrates 4 chiplets per router, so its sizes are even with at least 2x2 routers.
"""


@st.composite
def topology_specs(
    draw: Draw,
    families: Iterable[str] | None = None,
    max_side: int = 8,
    memory: bool = True,
) -> str:
    """A random valid spec string.

    Parameters
    ----------
    families : iterable of str, optional
        Families to draw from (default every family of :data:`FAMILY_SPACES`).
    max_side : int
        Largest number of rows or columns (hexamesh: longest row).
    memory : bool
        Whether ``memory=SIDES`` may be added where the family takes it.
    """
    from supermesh.topologies.spec import FAMILIES

    names = sorted(families if families is not None else FAMILY_SPACES)
    name = draw(st.sampled_from(names))
    size_of, options = FAMILY_SPACES[name]
    opts = {key: draw(st.sampled_from(values)) for key, values in options.items()}
    opts = {k: v for k, v in opts.items() if draw(st.booleans())}
    size = size_of(draw, max_side, opts)
    if size is None and opts:
        opts = {}
        size = size_of(draw, max_side, opts)
    if size is None:
        reject()
    if memory and FAMILIES[name].memory and draw(st.booleans()):
        sides = draw(st.lists(st.sampled_from(SIDES), min_size=1, max_size=4, unique=True))
        opts["memory"] = "+".join(sides)
    return f"{name}:{size}" + "".join(f",{k}={v}" for k, v in sorted(opts.items()))


@st.composite
def topologies(
    draw: Draw, families: Iterable[str] | None = None, max_side: int = 8, memory: bool = True
) -> nx.MultiDiGraph:
    """A random topology: :func:`supermesh.topologies.build` of :func:`topology_specs`."""
    return build(draw(topology_specs(families, max_side, memory)))


@st.composite
def multidigraphs(
    draw: Draw,
    max_nodes: int = 6,
    max_arcs: int = 12,
    *,
    min_nodes: int = 2,
    symmetric: bool = False,
    multiplicity: int = 1,
    memory: bool = False,
) -> nx.MultiDiGraph:
    """A small random topology with the documented attributes (bandwidth and latency 1).

    Parameters
    ----------
    max_nodes, max_arcs, min_nodes : int
        Size limits (``max_arcs`` counts drawn node pairs before symmetry and multiplicity).
    symmetric : bool
        Add the reverse of every arc (physical bidirectional links).
    multiplicity : int
        Parallel copies of every drawn arc (keys 0, 1, ...).
    memory : bool
        Let nodes other than 0 and 1 be memory chiplets (relays) instead of compute.
    """
    n = draw(st.integers(min_nodes, max_nodes))
    G = new_topology("random", "random", f"random multidigraph ({n} nodes)")
    for v in range(n):
        kind = "memory" if memory and v > 1 and draw(st.booleans()) else "compute"
        add_node(G, v, kind=kind, pos=(v, 0))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
            max_size=max_arcs,
        )
    )
    for u, v in pairs:
        for _ in range(multiplicity):
            add_arc(G, u, v)
            if symmetric:
                add_arc(G, v, u)
    return G


@st.composite
def root_lists(draw: Draw, G: nx.MultiDiGraph, k: int | None = None, max_k: int = 4) -> list[int]:
    """``k`` roots (default 1..``max_k``) drawn from the compute chiplets, repeats allowed."""
    compute = sorted(n for n, kind in G.nodes(data="kind") if kind == "compute")
    size = k if k is not None else draw(st.integers(1, max_k))
    return list(draw(st.lists(st.sampled_from(compute), min_size=size, max_size=size)))


def _span(G: nx.MultiDiGraph, span: Iterable[int] | None) -> set[int]:
    if span is not None:
        return set(span)
    return {n for n, kind in G.nodes(data="kind") if kind == "compute"}


@st.composite
def arborescences(
    draw: Draw,
    G: nx.MultiDiGraph,
    root: int | None = None,
    *,
    direction: str = "out",
    span: Iterable[int] | None = None,
    avoid: Sequence[tuple[int, int, int]] = (),
) -> Tree:
    """A random valid arborescence reaching every span node, with its exact height.

    Grown from the root one random arc at a time (a random search order), never using an arc
    in ``avoid``; relays that end up as leaves are pruned. Rejected (hypothesis ``reject``) when
    the span cannot be reached.
    """
    targets = _span(G, span)
    if root is None:
        root = draw(st.sampled_from(sorted(targets or G.nodes)))
    banned = set(avoid)
    reached = {root}
    parent: dict[int, tuple[int, int, int]] = {}
    while True:
        if direction == "out":
            cands = sorted(
                (u, v, k)
                for u in reached
                for _, v, k in G.out_edges(u, keys=True)
                if v not in reached
            )
        else:
            cands = sorted(
                (u, v, k)
                for v in reached
                for u, _, k in G.in_edges(v, keys=True)
                if u not in reached
            )
        cands = [a for a in cands if a not in banned]
        if not cands:
            break
        a = cands[draw(st.integers(0, len(cands) - 1))]
        child = a[1] if direction == "out" else a[0]
        reached.add(child)
        parent[child] = a
    if not targets <= reached:
        reject()
    children: dict[int, set[int]] = {n: set() for n in reached}
    for child, a in parent.items():
        children[a[0] if direction == "out" else a[1]].add(child)
    leaves = deque(n for n in reached if not children[n] and n not in targets and n != root)
    while leaves:
        n = leaves.popleft()
        a = parent.pop(n)
        up = a[0] if direction == "out" else a[1]
        children[up].discard(n)
        if not children[up] and up not in targets and up != root:
            leaves.append(up)
    depth = {root: 0}
    queue = deque([root])
    while queue:
        n = queue.popleft()
        for c in children[n]:
            if c in parent:
                depth[c] = depth[n] + 1
                queue.append(c)
    return Tree(root=root, arcs=tuple(parent.values()), height=max(depth.values()))


@st.composite
def tree_sets(
    draw: Draw,
    G: nx.MultiDiGraph,
    roots: Sequence[int] | None = None,
    *,
    k: int = 2,
    direction: str = "out",
    span: Iterable[int] | None = None,
) -> TreeSet:
    """A set of pairwise arc-disjoint random arborescences (greedy; rejected if it gets stuck).

    Reliable on graphs where every arc has ``k`` parallel copies (``multidigraphs(...,
    multiplicity=k, symmetric=True)``); on others many draws may be rejected.
    """
    chosen = list(roots) if roots is not None else draw(root_lists(G, k))
    used: list[tuple[int, int, int]] = []
    trees = []
    for r in chosen:
        t = draw(arborescences(G, r, direction=direction, span=span, avoid=used))
        used += t.arcs
        trees.append(t)
    return TreeSet(tuple(trees), lower_bound=None)


@st.composite
def collective_packings(
    draw: Draw, G: nx.MultiDiGraph, collective: str, *, k: int = 2, direction: str | None = None
) -> TreePacking:
    """A packing of random arc-disjoint trees shaped for ``collective``.

    ReduceScatter / AllGather: one tree rooted at every compute chiplet, in sets of at most
    ``k``; Broadcast / Reduce: ``k`` trees sharing one random root; AllReduce: ``k`` trees with
    random roots. ``direction`` (default drawn) is ``"out"`` or ``"in"``. Needs a graph where
    :func:`tree_sets` succeeds (``multidigraphs(..., multiplicity=k, symmetric=True)``).
    """
    d = direction or draw(st.sampled_from(["out", "in"]))
    if collective in ("reducescatter", "allgather"):
        compute = sorted(n for n, kind in G.nodes(data="kind") if kind == "compute")
        order = draw(st.permutations(compute))
        groups = [list(order[i : i + k]) for i in range(0, len(order), k)]
    elif collective in ("broadcast", "reduce"):
        groups = [[draw(root_lists(G, 1))[0]] * k]
    else:
        groups = [draw(root_lists(G, k))]
    sets = tuple(draw(tree_sets(G, roots=g, direction=d)) for g in groups)
    return TreePacking(str(G.graph.get("spec", "random")), d, "feasible", sets)


@st.composite
def schedules(
    draw: Draw,
    G: nx.MultiDiGraph | None = None,
    collectives: Sequence[str] = COLLECTIVES,
    *,
    k: int = 2,
    max_chunks: int = 3,
) -> tuple[nx.MultiDiGraph, TreePacking, Schedule]:
    """``(G, packing, schedule)``: a schedule table built from :func:`collective_packings`.

    ``G`` defaults to a small symmetric random graph with every arc doubled (relays allowed).
    """
    from supermesh.trees.schedule.build import build_schedule

    if G is None:
        G = draw(
            multidigraphs(max_nodes=5, max_arcs=6, symmetric=True, multiplicity=k, memory=True)
        )
    collective = draw(st.sampled_from(list(collectives)))
    packing = draw(collective_packings(G, collective, k=k))
    chunks = draw(st.integers(1, max_chunks))
    return G, packing, build_schedule(G, collective, packing, chunks=chunks)
