"""The interposer topologies the SuperMesh paper compares against.

Every generator takes a ``rows x cols`` array of compute chiplets (ids row-major from the top-left,
``pos = (col, -row)``) and returns a topology whose links are all bidirectional; unit links
have class ``"mesh"``, longer or diagonal ones ``"other"``.

Link costs (``latency`` relative to one unit die-to-die link; ``bandwidth`` stays 1.0)
    A link's latency is its straight-line length in chiplet pitches: the length-2 links of the
    folded torus and Kite-Medium cost 2, Kite diagonals sqrt 2, Double Butterfly / ButterDonut
    cross links sqrt(1 + s^2) for stride s (sqrt 5 = 2.24 on 4x4, sqrt 17 = 4.12 for the
    stride-4 links of 8x8), and with 4 chiplets per router every router link spans two pitches
    per router step (CMesh 2, router diagonals 2.83, 8x8 Double Butterfly cross links 4.47).
    Sources: the SuperMesh paper (MICRO 2025, section 2) puts these families' longer links at
    2-4x the per-hop latency of a 2D-mesh link, citing the interposer wire model of Kite
    (Bharadwaj et al., DAC 2020), in which a link's delay grows with its length; the lengths
    above span 1.41-4.47x, the paper's range apart from the diagonals of a unit cell (1.41) and
    the 2x2-router butterfly links (4.47). In the ``booksim`` preset a link of latency ``l``
    holds each flit ``l`` times longer (the modified channel is not pipelined), in ``paper`` it
    adds ``l`` x 20 ns per hop (:mod:`supermesh.sim.program`).

Concentration (``conc=4``, and always for ``cmesh``)
    A concentrating router is a node of kind ``"router"``
    (never a rank; it may relay, which is what a router does), placed at the centre of its 2x2
    block of chiplets and numbered after them (row-major over the router grid). Each chiplet is
    linked to its router by one class-``"other"`` link of latency :data:`LOCAL_PORT_LATENCY`
    (a local port, not a die-to-die hop: 1 cycle against the 20 of a router link); the routers
    form the family's network on a ``rows/2 x cols/2`` grid, router links measured in chiplet
    pitches (two per router step). As in BookSim, where a chiplet reaches
    its router in one cycle, every chiplet then has a single port: one spanning tree at most.
    This is how the SuperMesh reference runs model CMesh, Kite and Double Butterfly for 64
    chiplets (16 routers, 4 chiplets each).

References
----------
S. Bharadwaj, J. Yin, B. Beckmann, T. Krishna, "Kite: A Family of Heterogeneous Interposer
Topologies Enabled via Accurate Interconnect Modeling", DAC 2020.
A. Kannan, N. Enright Jerger, G. H. Loh, "Enabling Interposer-based Disintegration of Multi-core
Processors", MICRO 2015 (Double Butterfly, ButterDonut).
P. Iff, M. Besta, T. Hoefler, "FoldedHexaTorus: An Inter-Chiplet Interconnect Topology for
Chiplet-based Systems using Organic and Glass Substrates", 2025 (its open generator for Kite,
Double Butterfly and ButterDonut on square grids is the rule followed here).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import add_link, add_node, grid_id, new_topology

__all__ = [
    "LOCAL_PORT_LATENCY",
    "butterdonut",
    "cmesh",
    "double_butterfly",
    "folded_torus",
    "kite_medium",
    "kite_small",
]

Cell = tuple[int, int]
LinkRule = Callable[[int, int], list[tuple[Cell, Cell]]]

_KITE_PORTS = 4

LOCAL_PORT_LATENCY = 1 / 20
"""Latency of a chiplet's link to its concentrating router, relative to a unit link.

The SuperMesh reference's BookSim runs (BRIEF section 4): a chiplet reaches its router in 1
cycle, a router-to-router flit holds its link for 20 cycles."""


def _ring(n: int) -> list[tuple[int, int]]:
    """Folded ring of n positions: i <-> i+2, plus the two end pairs (0, 1) and (n-2, n-1)."""
    return sorted({(i, i + 2) for i in range(n - 2)} | {(0, 1), (n - 2, n - 1)})


def _folded_torus_links(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    links = [((r, a), (r, b)) for r in range(rows) for a, b in _ring(cols)]
    return links + [((a, c), (b, c)) for c in range(cols) for a, b in _ring(rows)]


def _kite_links(patterns: list[list[Cell]]) -> LinkRule:
    """Kite rule: offsets group by group, row-major, each router at most 4 network ports."""

    def rule(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
        ports = dict.fromkeys(((r, c) for r in range(rows) for c in range(cols)), 0)
        links = []
        for group in patterns:
            for dc, dr in group:
                for r in range(rows):
                    for c in range(cols):
                        a, b = (r, c), (r + dr, c + dc)
                        if b in ports and ports[a] < _KITE_PORTS and ports[b] < _KITE_PORTS:
                            links.append((a, b))
                            ports[a] += 1
                            ports[b] += 1
        return links

    return rule


_DIAGONALS: list[Cell] = [(-1, 1), (1, 1)]
_UNITS: list[Cell] = [(1, 0), (0, 1)]
_KITE_SMALL = _kite_links([_DIAGONALS, _UNITS])
_KITE_MEDIUM = _kite_links([[(0, 2), (2, 0)], _DIAGONALS, _UNITS])


def butterfly_stride(rows: int, gap: int) -> int:
    """Row stride of the cross links between columns ``gap`` and ``gap + 1``.

    Stage ``t`` = number of trailing one bits of ``gap`` (0, 1, 0, 2, 0, 1, 0, ...), taken modulo
    log2(rows); the stride is ``rows / 2**(t + 1)``. On 4 columns: 2, 1, 2 (long links at the
    ends, as in the SuperMesh artifact's 4x4 Double Butterfly).

    Examples
    --------
    >>> [butterfly_stride(8, g) for g in range(7)]
    [4, 2, 4, 1, 4, 2, 4]
    """
    stages = rows.bit_length() - 1
    trailing = (~gap & (gap + 1)).bit_length() - 1
    return rows >> (1 + trailing % stages)


def _butterfly_cross(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    return [
        ((r, g), (r ^ butterfly_stride(rows, g), g + 1))
        for g in range(cols - 1)
        for r in range(rows)
    ]


def _double_butterfly_links(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    chains = [((r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    return chains + _butterfly_cross(rows, cols)


def _butterdonut_links(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    rings = [((r, a), (r, b)) for r in range(rows) for a, b in _ring(cols)]
    return rings + _butterfly_cross(rows, cols)


def _mesh_links(rows: int, cols: int) -> list[tuple[Cell, Cell]]:
    right = [((r, c), (r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    return right + [((r, c), (r + 1, c)) for r in range(rows - 1) for c in range(cols)]


def _assemble(
    family: str,
    label: str,
    rows: int,
    cols: int,
    conc: int,
    rule: LinkRule,
    *,
    spec_conc: bool = True,
) -> nx.MultiDiGraph:
    suffix = ",conc=4" if conc == 4 and spec_conc else ""
    name = f"{label} {rows}x{cols}" + (" (4 chiplets per router)" if conc == 4 else "")
    G = new_topology(
        family,
        f"{family}:{rows}x{cols}{suffix}",
        name,
        rows=rows,
        cols=cols,
        params={"conc": conc},
    )
    for r in range(rows):
        for c in range(cols):
            add_node(G, grid_id(r, c, cols), pos=(c, -r), row=r, col=c)
    if conc == 1:
        ids = {(r, c): grid_id(r, c, cols) for r in range(rows) for c in range(cols)}
        scale = 1
    else:
        rr, rc = rows // 2, cols // 2
        ids = {(i, j): rows * cols + grid_id(i, j, rc) for i in range(rr) for j in range(rc)}
        for (i, j), router in ids.items():
            add_node(G, router, kind="router", pos=(2 * j + 0.5, -(2 * i + 0.5)))
        for r in range(rows):
            for c in range(cols):
                add_link(
                    G,
                    grid_id(r, c, cols),
                    ids[r // 2, c // 2],
                    cls="other",
                    latency=LOCAL_PORT_LATENCY,
                )
        scale = 2
    grid_rows, grid_cols = (rows, cols) if conc == 1 else (rows // 2, cols // 2)
    for (r1, c1), (r2, c2) in rule(grid_rows, grid_cols):
        length = math.hypot(r2 - r1, c2 - c1)
        add_link(
            G,
            ids[r1, c1],
            ids[r2, c2],
            cls="mesh" if length == 1 else "other",
            latency=scale * length,
        )
    return G


def _check(
    family: str,
    rows: int,
    cols: int,
    conc: int,
    minimum: tuple[int, int],
    *,
    pow2_rows: bool = False,
) -> None:
    if conc not in (1, 4):
        raise SpecError(f"{family} conc={conc} is not 1 or 4", hint="use conc=4 or omit it")
    if conc == 4 and (rows % 2 or cols % 2):
        raise SpecError(
            f"{family} with conc=4 needs an even number of rows and columns, got {rows}x{cols}",
            hint=f"e.g. {family}:8x8,conc=4",
        )
    grid_rows, grid_cols = (rows, cols) if conc == 1 else (rows // 2, cols // 2)
    what = "chiplets" if conc == 1 else "routers"
    example = "8x8" if family == "cmesh" else ("8x8,conc=4" if conc == 4 else "4x4")
    if grid_rows < minimum[0] or grid_cols < minimum[1]:
        raise SpecError(
            f"{family} needs at least {minimum[0]}x{minimum[1]} {what}, "
            f"got {grid_rows}x{grid_cols}",
            hint=f"use a size like {family}:{example}",
        )
    if pow2_rows and grid_rows & (grid_rows - 1):
        raise SpecError(
            f"{family} needs a power-of-two number of {what} per column, got {grid_rows}",
            hint=f"e.g. {family}:{example}",
        )
    if pow2_rows:
        # rows are joined only through cross links r <-> r XOR stride: every stride R/2 .. 1
        # must occur, and stride 1 first comes between columns R/2 - 1 and R/2
        strides = {butterfly_stride(grid_rows, g) for g in range(grid_cols - 1)}
        missing = [
            s
            for s in (grid_rows >> k for k in range(1, grid_rows.bit_length()))
            if s not in strides
        ]
        if missing:
            need = (grid_rows // 2 + 1) * (1 if conc == 1 else 2)
            suffix = ",conc=4" if conc == 4 else ""
            raise SpecError(
                f"{family}:{rows}x{cols}{suffix} falls apart: no cross link joins rows "
                f"{missing[-1]} apart, so the network has {2 ** len(missing)} separate parts",
                hint=f"{family} with {rows} rows needs at least {need} columns, e.g. "
                f"{family}:{rows}x{need}{suffix}",
            )


def folded_torus(rows: int, cols: int, *, conc: int = 1) -> nx.MultiDiGraph:
    """Folded torus: every row and column is a ring laid out as i <-> i+2 plus the end pairs.

    Each row (column) of n chiplets gets links (i, i+2) for i = 0..n-3 (length 2, class
    ``"other"``) and the two unit links (0, 1) and (n-2, n-1) (class ``"mesh"``): a ring of n
    links with no wire longer than 2 pitches. Every chiplet has 4 links.

    Parameters
    ----------
    rows, cols : int
        Array size, at least 3x3 (router grid at least 3x3 with ``conc=4``).
    conc : {1, 4}
        Chiplets per router (see the module docstring).

    Raises
    ------
    SpecError
        Size too small, odd size with ``conc=4``, or ``conc`` not 1 or 4.

    Examples
    --------
    >>> G = folded_torus(4, 4)
    >>> G.number_of_edges(), sorted(G.successors(0))
    (64, [1, 2, 4, 8])
    """
    _check("folded-torus", rows, cols, conc, (3, 3))
    return _assemble("folded-torus", "Folded torus", rows, cols, conc, _folded_torus_links)


def kite_small(rows: int, cols: int, *, conc: int = 1) -> nx.MultiDiGraph:
    """Kite-Small: diagonal links first, then unit links, at most 4 network ports per router.

    Offsets are added group by group, each over the routers in row-major order, while both ends
    have fewer than 4 ports: first both diagonals, then east and south unit links. The result is
    every diagonal plus the perimeter unit links (interior routers 4 diagonals, border 2 + 2,
    corners 1 + 2). On 4x4 it equals the Kite-Small of the SuperMesh reference artifact.

    Raises
    ------
    SpecError
        Below 2x2 routers, odd size with ``conc=4``, or ``conc`` not 1 or 4.

    Examples
    --------
    >>> G = kite_small(4, 4)
    >>> sorted(G.successors(5)), G.edges[0, 5, 0]["cls"]
    ([0, 2, 8, 10], 'other')
    """
    _check("kite-small", rows, cols, conc, (2, 2))
    return _assemble("kite-small", "Kite-Small", rows, cols, conc, _KITE_SMALL)


def kite_medium(rows: int, cols: int, *, conc: int = 1) -> nx.MultiDiGraph:
    """Kite-Medium: length-2 links first, then diagonals, then unit links, at most 4 ports.

    Same greedy rule as :func:`kite_small` with the offset groups (0, 2) and (2, 0) first.
    Approximation: the SuperMesh reference artifact's 4x4 Kite-Medium is a hand-drawn 4-regular
    graph (32 links); this rule gives 31 links on 4x4 (the same link families and port limit).
    On large grids most routers fill all four ports with length-2 links, so the network is
    close to four interleaved length-2 meshes joined along the border (arc connectivity 3).

    Raises
    ------
    SpecError
        Below 3x3 routers, odd size with ``conc=4``, or ``conc`` not 1 or 4.

    Examples
    --------
    >>> max(d for _, d in kite_medium(8, 8).out_degree())
    4
    """
    _check("kite-medium", rows, cols, conc, (3, 3))
    return _assemble("kite-medium", "Kite-Medium", rows, cols, conc, _KITE_MEDIUM)


def double_butterfly(rows: int, cols: int, *, conc: int = 1) -> nx.MultiDiGraph:
    """Double Butterfly: every row a chain; between columns g and g+1, row r also links r XOR s.

    ``s`` is :func:`butterfly_stride` (2, 1, 2 on 4x4: a butterfly from each end towards the
    middle). Cross links have length sqrt(1 + s^2) and class ``"other"``. Reversing the bit order
    of the rows turns this into the variant with short strides at the ends (the FoldedHexaTorus
    generator's); the graphs are isomorphic, only the wire lengths differ. On 4x4 it equals the
    SuperMesh reference artifact's Double Butterfly.

    Raises
    ------
    SpecError
        Rows not a power of two, below 2x2 routers, odd size with ``conc=4``.

    Examples
    --------
    >>> G = double_butterfly(4, 4)
    >>> sorted(G.successors(0)), sorted(G.successors(5))
    ([1, 9], [2, 4, 6, 12])
    """
    _check("double-butterfly", rows, cols, conc, (2, 2), pow2_rows=True)
    return _assemble(
        "double-butterfly", "Double Butterfly", rows, cols, conc, _double_butterfly_links
    )


def butterdonut(rows: int, cols: int, *, conc: int = 1) -> nx.MultiDiGraph:
    """ButterDonut: folded-torus rings along every row plus the Double Butterfly cross links.

    Rows are the folded rings of :func:`folded_torus`; columns have no vertical links, only the
    butterfly cross links of :func:`double_butterfly`. Approximation: Kannan et al. drew it for
    their 4x8 interposer; this is the square-grid form of the FoldedHexaTorus generator.

    Raises
    ------
    SpecError
        Rows not a power of two, below 2x3 routers, odd size with ``conc=4``.

    Examples
    --------
    >>> G = butterdonut(4, 4)
    >>> sorted(G.successors(0)), max(d for _, d in G.out_degree())
    ([1, 2, 9], 4)
    """
    _check("butterdonut", rows, cols, conc, (2, 3), pow2_rows=True)
    return _assemble("butterdonut", "ButterDonut", rows, cols, conc, _butterdonut_links)


def cmesh(rows: int, cols: int) -> nx.MultiDiGraph:
    """Concentrated mesh: a mesh of routers, each serving a 2x2 block of chiplets.

    ``cmesh:8x8`` is 64 chiplets on a 4x4 router mesh (the paper's CMesh). Routers are ``router``
    nodes numbered after the chiplets; see the module docstring for the model.

    Raises
    ------
    SpecError
        On an odd size or fewer than 2x2 routers (4x4 chiplets).

    Examples
    --------
    >>> G = cmesh(4, 4)
    >>> G.number_of_nodes(), sorted(G.successors(0)), sorted(G.successors(16))
    (20, [16], [0, 1, 4, 5, 17, 18])
    """
    _check("cmesh", rows, cols, 4, (2, 2))
    return _assemble("cmesh", "CMesh", rows, cols, 4, _mesh_links, spec_conc=False)
