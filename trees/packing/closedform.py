"""Closed-form corner-rooted tree packings, proved for every grid size (not only tested).

Every construction here is a geodesic matching (:mod:`supermesh.trees.packing.geodesic`): each tree
takes, at every node, one in-arc from a neighbour one hop closer to its root; the trees are then
shortest-path trees (height = the root's eccentricity, optimal) and they are arc-disjoint as soon
as, at every node separately, the trees' choices fit the parallel copies of its in-arcs.

Grid facts used below (``R x C`` array, ``R, C >= 2``; extra links of the SuperMesh families run
beside perimeter links, so hop distances are Manhattan distances). For a node ``v``, ``R``, ``D``,
``L``, ``U`` name its in-arcs from the left, upper, right and lower neighbour. A tree rooted at
corner TL may enter ``v`` by ``R`` or ``D`` only (those are its geodesic in-arcs), TR by ``D`` or
``L``, BR by ``L`` or ``U``, BL by ``U`` or ``R``; on the first row there is no ``D`` in-arc, on
the last no ``U``, in the first column no ``R``, in the last no ``L``. Interior in-arcs are single
(mesh links). A node's *perimeter in-arcs* are its two in-arcs along the perimeter cycle; it is
*doubled* when one of them has two parallel copies.

Corner criterion (four trees rooted at the four corners)
    They exist, all of height ``R + C - 2``, if every perimeter chiplet (corners included) has a
    doubled perimeter in-arc. Proof, node type by node type (``a <- X`` means tree ``a`` enters by
    ``X``):

    - interior: TL <- R, TR <- D, BR <- L, BL <- U (four single in-arcs, one each);
    - first row ``(0, c)``: TL <- R and TR <- L are forced; if ``R`` is doubled, BL <- R and
      BR <- U; if ``L`` is doubled, BR <- L and BL <- U;
    - last column: TR <- D and BR <- U forced; ``D`` doubled: TL <- D, BL <- R; ``U`` doubled:
      BL <- U, TL <- R;
    - last row: BR <- L and BL <- R forced; ``L`` doubled: TR <- L, TL <- D; ``R`` doubled:
      TL <- R, TR <- D;
    - first column: TL <- D and BL <- U forced; ``U`` doubled: BR <- U, TR <- L; ``D`` doubled:
      TR <- D, BR <- L;
    - a corner, e.g. TL: TR <- L and BL <- U are forced and BR takes whichever of them is
      doubled; the other three corners are the same picture turned.

    These types are all there is, whatever ``R`` and ``C``, so the criterion holds for every size
    at which every perimeter chiplet has a doubled perimeter in-arc.

Three corners (the fourth corner omitted)
    Trees rooted at TL, TR and BR (BL omitted; for another omitted corner turn the picture) need
    only single in-arcs everywhere except at BL: interior TL <- R, TR <- D, BR <- L; first row
    TL <- R, TR <- L, BR <- U; last column TR <- D, BR <- U, TL <- R; last row BR <- L, TL <- R,
    TR <- D; first column TL <- D, TR <- L, BR <- U; corners TL: TR <- L, BR <- U; TR: TL <- R,
    BR <- U; BR: TR <- D, TL <- R. At BL, TL can only enter by ``D`` and BR only by ``L``:
    if BL has a doubled perimeter in-arc, TR takes the second copy and BL is spanned; if not
    (the mesh), BL is left out of the span and relays only: TL and BR still enter it (by ``D``
    and ``L``) and leave it towards ``(R-1, 1)`` and ``(R-2, 0)``, which is what the last row and
    first column above use. Heights: ``R + C - 2`` (TL to BR), optimal.

References
----------
.. [1] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (corner-rooted AllReduce trees).
.. [2] S. Laskar et al., "Enhancing Collective Communication in MCM Accelerators for Deep
   Learning Training", HPCA 2024 (TTO: three trees on a mesh, one corner left out).
"""

from __future__ import annotations

import networkx as nx

from supermesh.errors import SolverError, SpecError
from supermesh.topologies import grid
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.heights import working_network
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.packing.corners import grid_corners, omitted_corner, undoubled_perimeter
from supermesh.trees.packing.geodesic import geodesic_packing
from supermesh.trees.rootspec import side_positions

__all__ = [
    "corner_trees",
    "mesh_three_corner_trees",
    "partial_three_corner_trees",
    "smalter_corner_trees",
    "smalter_side_trees",
    "smuni_corner_trees",
    "three_corner_trees",
]


def _packing(
    G: nx.MultiDiGraph, roots: list[int], direction: str, span, method: str
) -> TreePacking:
    packing = geodesic_packing(G, roots, direction=direction, span=span, method=method)
    if packing is None:
        raise SolverError(
            f"{G.graph.get('spec', 'this topology')}: no geodesic packing for roots {roots}",
            hint="the construction's criterion fails here; use "
            "supermesh.trees.packing.search.pack_trees",
        )
    return packing


def corner_trees(G: nx.MultiDiGraph, *, direction: str = "out") -> TreePacking:
    """Four trees rooted at the corners, of height ``R + C - 2``, by the corner criterion.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology whose perimeter chiplets each have a doubled perimeter in-arc
        (:func:`~supermesh.trees.packing.corners.undoubled_perimeter` is empty): SMBi,
        SMAlter (every size), SMUni.
    direction : {"out", "in"}

    Returns
    -------
    TreePacking
        Status ``optimal``, lower bound = objective = ``R + C - 2`` (the corners' eccentricity).

    Raises
    ------
    SolverError
        When the criterion fails (some perimeter chiplet has no doubled in-arc).
    TopologyError
        On a topology that is not a grid.

    Notes
    -----
    Correctness for every size: the corner criterion in the module docstring.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = corner_trees(build("smalter:7x7"))
    >>> p.objective, [t.root for t in p.trees]
    (12, [0, 6, 48, 42])
    """
    if undoubled_perimeter(G, direction=direction):
        raise SolverError(
            f"{G.graph.get('spec')}: perimeter chiplets "
            f"{undoubled_perimeter(G, direction=direction)[:6]} have no doubled in-arc",
            hint="four corner trees need a doubled perimeter link at every border chiplet",
        )
    return _packing(G, grid_corners(G), direction, None, "closed-form:corners")


def three_corner_trees(
    G: nx.MultiDiGraph, *, direction: str = "out", relay_omitted: bool | None = None
) -> TreePacking:
    """Three trees rooted at three corners, of height ``R + C - 2`` (module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology.
    direction : {"out", "in"}
    relay_omitted : bool, optional
        Leave the omitted corner out of the span (it may only relay). Default: exactly when it
        has no doubled perimeter in-arc (the mesh: TTO's compromise).

    Returns
    -------
    TreePacking
        Roots: the corners other than
        :func:`~supermesh.trees.packing.corners.omitted_corner`, clockwise. ``span`` lists the
        span when the omitted corner is relay-only.

    Raises
    ------
    SolverError, TopologyError
        As :func:`corner_trees`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = three_corner_trees(build("mesh:8x8"))   # TTO: BL relays only
    >>> p.objective, [t.root for t in p.trees], 56 in p.span
    (14, [0, 7, 63], False)
    """
    corners = grid_corners(G)
    omit = omitted_corner(G)
    roots = [c for c in corners if c != omit]
    if relay_omitted is None:
        relay_omitted = omit in undoubled_perimeter(G, direction=direction)
    span = [v for v in compute_nodes(G) if v != omit] if relay_omitted else None
    return _packing(G, roots, direction, span, "closed-form:three-corners")


def smalter_corner_trees(
    rows: int, cols: int, *, corners: int | None = None, direction: str = "out"
) -> TreePacking:
    """SMAlter: four corner-rooted trees of height ``R + C - 2``, for every size.

    Why the corner criterion holds at every size: each side is walked from its first corner and
    its links number 0, 1, 2, ... are doubled when even. A border chiplet at position ``i >= 1``
    of its side touches links ``i - 1`` and ``i``, one of which is even, so it has a doubled
    perimeter link (in both directions). A corner is position 0 of the side it starts, whose link
    0 is doubled. Nothing depends on the parity of ``R`` or ``C`` (even sizes double both end
    links, odd sizes only the first; ``corners=4`` doubles more). The paper's odd-size variant,
    where only these trees exist, is included.

    Examples
    --------
    >>> smalter_corner_trees(6, 6).objective, smalter_corner_trees(5, 7).objective
    (10, 10)
    """
    return corner_trees(grid.smalter(rows, cols, corners=corners), direction=direction)


def smuni_corner_trees(
    rows: int, cols: int, *, way: str = "cw", direction: str = "out"
) -> TreePacking:
    """SMUni: four corner-rooted trees of height ``R + C - 2``, for every size.

    Why the corner criterion holds: every perimeter link carries one extra one-way arc, all the
    same way round, so every perimeter chiplet (corners too) is entered by a doubled pair from
    its predecessor on the perimeter cycle (for in-trees: leaves by one towards its successor).

    Examples
    --------
    >>> smuni_corner_trees(4, 4).objective
    6
    """
    return corner_trees(grid.smuni(rows, cols, direction=way), direction=direction)


def mesh_three_corner_trees(rows: int, cols: int, *, direction: str = "out") -> TreePacking:
    """Mesh: three trees rooted at TL, TR and BR of height ``R + C - 2``; BL only relays.

    This is the most a mesh allows (its four corners have 2 links each, so three spanning trees
    of *all* chiplets are impossible, and four corner roots even more so). Correctness for every
    size: the three-corner case of the module docstring, which uses single arcs only.

    Examples
    --------
    >>> p = mesh_three_corner_trees(4, 4)
    >>> p.objective, p.span is not None and 12 not in p.span
    (6, True)
    """
    return three_corner_trees(grid.mesh(rows, cols), direction=direction)


def partial_three_corner_trees(
    rows: int, cols: int, *, alternate: bool = False, io: str = "south", direction: str = "out"
) -> TreePacking:
    """Partial SuperMesh: three trees rooted at three corners spanning every chiplet.

    The corner left out is the last corner of the I/O side's clockwise walk (BL for ``south``).
    Why it is spanned: that corner is the *first* corner of the next side, whose first link is
    doubled (Partial SMBi doubles every link of the three other sides, Partial SMAlter its links
    0, 2, 4, ...), so it has a doubled perimeter in-arc; everything else needs single arcs only
    (module docstring). Heights ``R + C - 2``, optimal.

    Parameters
    ----------
    rows, cols : int
    alternate : bool
        Partial SMAlter instead of Partial SMBi.
    io : {"north", "east", "south", "west"}
        The side left for I/O.
    direction : {"out", "in"}

    Examples
    --------
    >>> p = partial_three_corner_trees(5, 5, alternate=True)
    >>> p.objective, p.span, [t.root for t in p.trees]
    (8, None, [0, 4, 24])
    """
    make = grid.partial_smalter if alternate else grid.partial_smbi
    return three_corner_trees(make(rows, cols, io=io), direction=direction, relay_omitted=False)


def _side_tree_parents(n: int) -> dict[tuple[int, int], tuple[int, int]]:
    """Parent of every node of the north-rooted tree of :func:`smalter_side_trees` (grid cells)."""
    m = n // 2
    parent: dict[tuple[int, int], tuple[int, int]] = {}
    for r in range(n):
        for c in range(n):
            if r == 0 and c != m:
                parent[(r, c)] = (0, c + 1) if c < m else (0, c - 1)
            elif r > 0:
                parent[(r, c)] = (r - 1, c)
    first_a = m + m % 2  # even rows from m (A) and from m + 1 (B) up to n - 4
    first_b = m + 1 + (m + 1) % 2
    for r in range(first_a, n - 3, 2):
        parent[(r, 0)] = (r, 1)
        parent[(n - 1, r)] = (n - 1, r + 1)
    for r in range(first_b, n - 3, 2):
        parent[(r, n - 1)] = (r, n - 2)
        parent[(n - 1, n - 1 - r)] = (n - 1, n - 2 - r)
    parent[(n - 2, 0)] = (n - 1, 0)
    parent[(n - 1, 0)] = (n - 1, 1)
    parent[(n - 2, n - 1)] = (n - 1, n - 1)
    parent[(n - 1, n - 1)] = (n - 1, n - 2)
    return parent


def smalter_side_trees(n: int, *, direction: str = "out") -> TreePacking:
    """SMAlter ``N x N``, ``N`` even: one root per side, height ``3N/2`` (eccentricity + 1).

    Roots are the ``sides`` roots of :mod:`supermesh.trees.rootspec`: north ``(0, m)``, east
    ``(m, N-1)``, south ``(N-1, m-1)``, west ``(m-1, 0)`` with ``m = N/2``; each is the image of
    the previous under the quarter turn ``rho(r, c) = (c, N-1-r)``, which maps SMAlter (even N)
    onto itself. The east, south and west trees are the turned north tree ``T``, so the four are
    arc-disjoint iff ``T`` takes at most ``cap(O)`` pairs from every orbit ``O`` of node pairs
    under ``rho`` (orbits have one pair of each direction; ``cap`` is 2 exactly for the orbits
    of doubled links, one per doubled north link ``c`` and direction).

    ``T`` is the comb (row 0 outwards from the root, then down every column) with these changes.
    The comb breaks the orbit rule exactly where its down arc into ``(r, 0)`` (``r`` even,
    ``m <= r <= N-2``; orbit-mate of the single leftward arc of north link ``N-1-r``) or into
    ``(r, N-1)`` (``r`` even, ``m < r <= N-2``; mate of north link ``r-1`` rightwards) is used.
    Fixes, for ``r <= N-4``: ``(r, 0)`` takes its parent ``(r, 1)`` and ``(r, N-1)`` takes
    ``(r, N-2)`` (still shortest paths); their orbit-mates are the down arcs into ``(N-1, r)`` and
    ``(N-1, N-1-r)``, so those take ``(N-1, r+1)`` and ``(N-1, N-2-r)`` instead (2 hops late),
    through doubled south links whose orbits the comb uses once (``c = N-2-r`` even below ``m``,
    resp. ``c = r`` even from ``m``). For ``r = N-2``: ``(N-2, 0) <- (N-1, 0) <- (N-1, 1)`` and
    ``(N-2, N-1) <- (N-1, N-1) <- (N-1, N-2)``; the two new corner arcs are each other's
    replacement in their doubled orbits, and the two up arcs use the spare copy of the doubled
    orbits of north link 0 and of north link ``N-2``. The orbits touched are pairwise distinct
    (row and column parities keep them apart), every other orbit keeps the comb's single use,
    every new parent is reached from the root before its child, and the only nodes 2 hops late
    sit in the last two rows: depth at most ``N - 1 + m + 1 = 3N/2``.

    So the height is ``3N/2``, one above the roots' eccentricity ``3N/2 - 1``, for every even
    ``N >= 6`` (the same rules give valid trees of height 6 at ``N = 4``, where CP-SAT finds 5;
    ``N = 2`` is a geodesic matching of height 2). Shortest-path trees cannot do better (no
    geodesic matching exists for ``N >= 6``); that ``3N/2`` is optimal is proved size by size
    with CP-SAT (:func:`supermesh.trees.packing.search.pack_trees`), not for every ``N``.

    Parameters
    ----------
    n : int
        Even size, at least 2.
    direction : {"out", "in"}

    Returns
    -------
    TreePacking
        ``optimal`` for ``N = 2``; else ``feasible`` with ``lower_bound`` the eccentricity.

    Raises
    ------
    SpecError
        An odd ``n`` (then mid-side roots are impossible: only the corners root 4 trees).

    Examples
    --------
    >>> p = smalter_side_trees(8)
    >>> [t.root for t in p.trees], p.objective, p.lower_bound
    ([4, 39, 59, 24], 12, 11)
    """
    if n < 2 or n % 2:
        raise SpecError(
            f"smalter_side_trees needs an even size, got {n}",
            hint="odd SMAlter supports 4 trees only with the corners as roots",
        )
    G = grid.smalter(n, n)
    roots = [r * n + c for r, c in side_positions(n, n)]
    if n == 2:
        return _packing(G, roots, direction, None, "closed-form:sides")
    net = working_network(G, direction)
    north = _side_tree_parents(n)
    used: dict[tuple[int, int], int] = {}
    trees = []
    for turn in range(4):
        arcs = []
        depth = {}
        for child, parent in north.items():
            for _ in range(turn):
                child, parent = (child[1], n - 1 - child[0]), (parent[1], n - 1 - parent[0])
            u, v = parent[0] * n + parent[1], child[0] * n + child[1]
            slot = used.get((u, v), 0)
            used[(u, v)] = slot + 1
            arcs.append(net.topology_arc(u, v, slot))
            depth[v] = u
        trees.append(Tree(roots[turn], tuple(arcs), _height(roots[turn], depth)))
    lower = max(_eccentricity(n, *side_positions(n, n)[0]), 0)
    return TreePacking(
        topology=str(G.graph["spec"]),
        direction=direction,
        status="feasible",
        sets=(TreeSet(tuple(trees), lower),),
        lower_bound=lower,
        objective=max(t.height for t in trees),
        method="closed-form:sides",
        stats={"gap": max(t.height for t in trees) - lower},
    )


def _eccentricity(n: int, r: int, c: int) -> int:
    return max(r, n - 1 - r) + max(c, n - 1 - c)


def _height(root: int, parent: dict[int, int]) -> int:
    depth = {root: 0}

    def level(v: int) -> int:
        path = []
        while v not in depth:
            path.append(v)
            v = parent[v]
        for w in reversed(path):
            depth[w] = depth[v] + 1
            v = w
        return depth[v]

    return max(level(v) for v in parent)
