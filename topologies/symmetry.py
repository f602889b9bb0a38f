"""Grid symmetries of a topology: the dihedral maps of its grid that are automorphisms.

Several computations are invariant under every automorphism of the topology that keeps the
ranks, and shrink by up to 8x on a square grid when they work on orbits: the throughput cut bound
(:mod:`supermesh.trees.bounds.throughput`: one max-flow per orbit of ranks), the throughput LP
(:mod:`supermesh.trees.throughput.model`: one root per orbit of roots, one capacity row per orbit
of arcs) and the root-set search (:mod:`supermesh.trees.roots.symmetry`: mirror images reused).

Only the dihedral maps of the grid coordinates (``row``, ``col``) are tried, and each is kept
only if it really is an automorphism: it maps nodes to nodes of the same kind and every node pair
to a pair with the same multiset of arc bandwidths (``weighted=True``) or the same number of arcs
(``weighted=False``, what arc-disjointness sees). Topologies without grid coordinates get the
trivial group. Nothing is assumed about a family by name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import networkx as nx

__all__ = ["DIHEDRAL", "arc_permutation", "grid_automorphisms"]

Arc = tuple[int, int, int]


Coordinates = Callable[[int, int, int, int], tuple[int, int]]

DIHEDRAL: dict[str, Coordinates] = {
    "identity": lambda r, c, R, C: (r, c),
    "mirror top-bottom": lambda r, c, R, C: (R - r, c),
    "mirror left-right": lambda r, c, R, C: (r, C - c),
    "half turn": lambda r, c, R, C: (R - r, C - c),
    "transpose": lambda r, c, R, C: (c, r),
    "quarter turn anticlockwise": lambda r, c, R, C: (C - c, r),
    "quarter turn clockwise": lambda r, c, R, C: (c, R - r),
    "anti-transpose": lambda r, c, R, C: (C - c, R - r),
}
"""The eight symmetries of a square, as maps of ``(row, col)`` given the last row ``R`` and
column ``C``; the last four only on a square grid."""

_SQUARE_ONLY = (
    "transpose",
    "quarter turn anticlockwise",
    "quarter turn clockwise",
    "anti-transpose",
)


def _signature(G: nx.MultiDiGraph, weighted: bool) -> dict[tuple[int, int], tuple[float, ...]]:
    sig: dict[tuple[int, int], list[float]] = defaultdict(list)
    for u, v, bw in G.edges(data="bandwidth", default=1.0):
        sig[(int(u), int(v))].append(float(bw) if weighted else 1.0)
    return {p: tuple(sorted(b)) for p, b in sig.items()}


def grid_automorphisms(
    G: nx.MultiDiGraph, *, weighted: bool = True, order: Sequence[str] | None = None
) -> list[dict[int, int]]:
    """The dihedral grid maps that are automorphisms of ``G`` (identity first).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A topology; nodes need integer ``row`` and ``col`` attributes for anything but the
        identity to be found.
    weighted : bool
        Compare arc bandwidths (True) or only how many arcs join each pair (False).
    order : sequence of str, optional
        Which maps of :data:`DIHEDRAL` to try, in this order (default: all, in its order). The
        identity always comes first in the answer.

    Returns
    -------
    list of dict
        Node maps ``old id -> new id``; the identity is always the first.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> len(grid_automorphisms(build("smbi:4x4"))), len(grid_automorphisms(build("mesh:2x3")))
    (8, 4)
    >>> len(grid_automorphisms(build("smalter:5x5")))  # odd SMAlter: the rotations only
    4
    """
    identity = {int(v): int(v) for v in G.nodes}
    coords: dict[tuple[int, int], int] = {}
    for v, data in G.nodes(data=True):
        r, c = data.get("row"), data.get("col")
        if not isinstance(r, int) or not isinstance(c, int) or (r, c) in coords:
            return [identity]
        coords[(r, c)] = int(v)
    rmin = min(r for r, _ in coords)
    cmin = min(c for _, c in coords)
    rows = max(r for r, _ in coords) - rmin + 1
    cols = max(c for _, c in coords) - cmin + 1
    kind = dict(G.nodes(data="kind"))
    sig = _signature(G, weighted)
    found = [identity]
    for name in order if order is not None else DIHEDRAL:
        if name == "identity" or (rows != cols and name in _SQUARE_ONLY):
            continue
        f = DIHEDRAL[name]
        g: dict[int, int] = {}
        for (r, c), v in coords.items():
            rr, cc = f(r - rmin, c - cmin, rows - 1, cols - 1)
            w = coords.get((rr + rmin, cc + cmin))
            if w is None or kind.get(w) != kind.get(v):
                break
            g[v] = w
        else:
            if len(set(g.values())) == len(g) and all(
                sig.get((g[u], g[v])) == b for (u, v), b in sig.items()
            ):
                found.append(g)
    return found


def arc_permutation(G: nx.MultiDiGraph, arcs: list[Arc], g: dict[int, int]) -> list[int]:
    """Where a node map sends each arc: ``perm[i]`` is the index of the image of ``arcs[i]``.

    Parallel arcs are matched in order of (bandwidth, key), so an arc goes to an arc of the same
    bandwidth.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")
    >>> arcs = sorted(G.edges(keys=True))
    >>> arcs[:2], arc_permutation(G, arcs, {0: 1, 1: 0, 2: 3, 3: 2})[:2]  # mirror left-right
    ([(0, 1, 0), (0, 2, 0)], [2, 3])
    """
    index = {a: i for i, a in enumerate(arcs)}
    order: dict[tuple[int, int], list[Arc]] = defaultdict(list)
    for u, v, k in sorted(arcs, key=lambda a: (a[0], a[1], float(G.edges[a]["bandwidth"]), a[2])):
        order[(u, v)].append((u, v, k))
    perm = [0] * len(arcs)
    for (u, v), group in order.items():
        image = order[(g[u], g[v])]
        for a, b in zip(group, image, strict=True):
            perm[index[a]] = index[b]
    return perm
