"""Closed-form corner-rooted tree packings, proved for every grid size (not only tested).

Every construction here is a geodesic matching (:mod:`supermesh.trees.geodesic`): each tree takes,
at every node, one in-arc from a neighbour one hop closer to its root; the trees are then
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

from supermesh.errors import SolverError, TopologyError
from supermesh.topologies import grid
from supermesh.topologies.model import compute_nodes
from supermesh.trees.geodesic import geodesic_packing
from supermesh.trees.heights import working_network
from supermesh.trees.model import TreePacking
from supermesh.trees.rootspec import corner_positions

__all__ = [
    "corner_trees",
    "grid_corners",
    "mesh_three_corner_trees",
    "omitted_corner",
    "partial_three_corner_trees",
    "smalter_corner_trees",
    "smuni_corner_trees",
    "three_corner_trees",
    "undoubled_perimeter",
]

_CORNER_INDEX = {"north": 1, "east": 2, "south": 3, "west": 0}
"""For each side, the index (TL=0, TR=1, BR=2, BL=3) of the corner its clockwise walk ends at."""


def _dims(G: nx.MultiDiGraph) -> tuple[int, int]:
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    if rows is None or cols is None or G.graph.get("family") == "hexamesh":
        raise TopologyError(
            f"{G.graph.get('spec', 'this topology')} is not a grid of rows and columns",
            hint="corner constructions need a grid family (mesh, smbi, smalter, ...)",
        )
    return int(rows), int(cols)


def grid_corners(G: nx.MultiDiGraph) -> list[int]:
    """Corner ids clockwise from the top-left: TL, TR, BR, BL.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> grid_corners(build("mesh:3x4"))
    [0, 3, 11, 8]
    """
    rows, cols = _dims(G)
    return [r * cols + c for r, c in corner_positions(rows, cols)]


def _perimeter_walk(rows: int, cols: int) -> list[int]:
    walk = [u for links in grid.perimeter_sides(rows, cols).values() for u, _ in links]
    return walk


def undoubled_perimeter(G: nx.MultiDiGraph, *, direction: str = "out") -> list[int]:
    """Perimeter chiplets with no doubled perimeter in-arc (the corner criterion's exceptions).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology.
    direction : {"out", "in"}
        For in-trees the arcs are reversed (out-arcs of ``G`` are counted).

    Returns
    -------
    list of int
        Sorted ids; empty means four corner trees of height ``R + C - 2`` exist (module
        docstring).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> undoubled_perimeter(build("smalter:5x5")), undoubled_perimeter(build("mesh:2x2"))
    ([], [0, 1, 2, 3])
    """
    rows, cols = _dims(G)
    net = working_network(G, direction)
    walk = _perimeter_walk(rows, cols)
    bad = []
    for i, v in enumerate(walk):
        before, after = walk[i - 1], walk[(i + 1) % len(walk)]
        if max(net.capacity.get((before, v), 0), net.capacity.get((after, v), 0)) < 2:
            bad.append(v)
    return sorted(set(bad))


def _packing(G: nx.MultiDiGraph, roots: list[int], direction: str, span, method: str) -> TreePacking:
    packing = geodesic_packing(G, roots, direction=direction, span=span, method=method)
    if packing is None:
        raise SolverError(
            f"{G.graph.get('spec', 'this topology')}: no geodesic packing for roots {roots}",
            hint="the construction's criterion fails here; use supermesh.trees.packing.pack_trees",
        )
    return packing


def corner_trees(G: nx.MultiDiGraph, *, direction: str = "out") -> TreePacking:
    """Four trees rooted at the corners, of height ``R + C - 2``, by the corner criterion.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A grid topology whose perimeter chiplets each have a doubled perimeter in-arc
        (:func:`undoubled_perimeter` is empty): SMBi, SMAlter (every size), SMUni.
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


def omitted_corner(G: nx.MultiDiGraph) -> int:
    """The corner left out by :func:`three_corner_trees`.

    The corner where the clockwise walk of the I/O side ends (partial families; BL for the
    default south side), and BL on families without an I/O side.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> omitted_corner(build("mesh:4x4")), omitted_corner(build("partial-smbi:4x4,io=east"))
    (12, 15)
    """
    side = (G.graph.get("params") or {}).get("io", "south")
    return grid_corners(G)[_CORNER_INDEX.get(str(side), 3)]


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
        Roots: the corners other than :func:`omitted_corner`, clockwise. ``span`` lists the
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
