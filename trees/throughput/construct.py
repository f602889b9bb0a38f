"""Throughput packings by construction: the exact cut-bound rate at any size, no solver.

:func:`constructed_packing` recognises two grid topologies from their arcs alone (every arc the
same bandwidth, node ids row-major, arcs only between grid neighbours, every chiplet a rank):

- the mesh (one arc each way between neighbours): dimension-order trees,
  :mod:`supermesh.trees.throughput.dimension` (two per root; every tree at its root's
  eccentricity, so the tallest equals the diameter, the proven minimum);
- the mesh with every perimeter link doubled (SMBi): four arc-disjoint comb trees per root,
  :mod:`supermesh.trees.throughput.combs` (the tallest is the diameter plus one from 6x6 on);
- SMAlter with even sides from 8x8 (every chiplet four in-arcs): the comb trees inside, the
  border band repaired by a small CP-SAT model per root orbit,
  :mod:`supermesh.trees.throughput.alter` (four trees per root, each arc used once per other
  root; 16 roots share their arcs with a partner; tallest the diameter plus one).

Proof of the rate, at every size. The bound is the cut around one corner: ``k`` arcs in (2 or
4) and ``n - 1`` ranks outside, so no schedule beats ``rho = k n B / (n - 1)`` (``B`` the arc
bandwidth). The counting arguments of the two modules show that at ``rho`` no arc exceeds its
bandwidth; here the loads are also recounted exactly from the trees built (integer share
numerators per arc), and the rate reported is what the recount allows, so a construction that
fell short would be reported as such, never claimed. Each root's comb trees are checked to be
arc-disjoint spanning arborescences (:func:`~supermesh.trees.throughput.combs.check_parents`)
before they are used; a topology on which the check fails gets no construction.

Cost: parent arrays for one root per orbit of the grid's dihedral maps that keep every arc
multiplicity (1/8 of the roots of a square), the other roots by relabelling, all in numpy; the
trees share one tuple per arc. smbi:64x64 (16,384 trees of 4,095 arcs) builds in seconds.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import networkx as nx
import numpy as np

from supermesh.errors import SpecError
from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.throughput.alter import alter_trees
from supermesh.trees.throughput.combs import E, N, S, W, check_parents, comb_parents, parent_keys
from supermesh.trees.throughput.dimension import dimension_parents, dimension_shares
from supermesh.trees.throughput.grid import DIRS, Orbits, grid_maps, grid_multiplicity, grid_pattern

__all__ = [
    "CONSTRUCT_ABOVE",
    "Construction",
    "constructed_packing",
    "construction_for",
    "construction_packing",
    "construction_parts",
    "part_copies",
]

_CHUNK = 128  # roots per numpy batch
CONSTRUCT_ABOVE = 100
"""Chiplets above which ``method="auto"`` takes a construction that is not height-optimal."""


@dataclass(frozen=True)
class Construction:
    """Trees built by a closed-form construction, with the facts that prove its rate.

    Attributes
    ----------
    name : {"dimension-order", "combs"}
    trees : list of Tree
        In the data direction, ``per_root`` per root in root order.
    shares : list of Fraction
        Per tree, the share of its root's data.
    rate : Fraction
        The rate (links) the exact recount of the loads allows.
    bound : Fraction
        The corner cut ``k n B / (n - 1)``, with ``certificate`` (the format of
        :class:`~supermesh.trees.bounds.throughput.RateBound`).
    max_load : Fraction
        Sum of the shares on the busiest arc.
    per_root : int
    diameter : int
        Of the grid: every rank roots a tree, so no packing's tallest tree is lower.
    """

    name: str
    trees: list[Tree]
    shares: list[Fraction]
    rate: Fraction
    bound: Fraction
    certificate: dict[str, Any]
    max_load: Fraction
    per_root: int
    diameter: int


def _chunks(n: int) -> Iterator[np.ndarray]:
    for lo in range(0, n, _CHUNK):
        yield np.arange(lo, min(n, lo + _CHUNK))


def _arc_slots(
    parents: np.ndarray, keys: np.ndarray, cols: int, reverse: bool
) -> tuple[np.ndarray, np.ndarray]:
    """For every (root, tree, child): the arc's slot ``(tail, direction, key)`` flattened, and
    a mask of the children that have a parent (every node but the root)."""
    n = parents.shape[2]
    ids = np.arange(n)
    dy = (ids // cols)[None, None, :] - parents // cols  # from parent to child
    dx = (ids % cols)[None, None, :] - parents % cols
    code = np.full(9, -1, dtype=np.int64)
    for (sy, sx), d in DIRS.items():
        code[(sy + 1) * 3 + sx + 1] = d if not reverse else {E: W, W: E, N: S, S: N}[d]
    direction = code[np.clip((dy + 1) * 3 + dx + 1, 0, 8)]
    tail = np.broadcast_to(ids[None, None, :], parents.shape) if reverse else parents
    valid = (dy != 0) | (dx != 0)
    return (tail.astype(np.int64) * 4 + direction) * 2 + keys, valid


def _processes() -> int:
    """Processes for SMAlter's band models: every core (the trees do not depend on it)."""
    return max(1, os.cpu_count() or 1)


def _even_alter(rows: int, cols: int, mult: np.ndarray) -> bool:
    """SMAlter with every side of an even number of chiplets: the mesh, some perimeter links
    doubled, every chiplet four in-arcs (a side's doubled links are then every other one)."""
    if rows % 2 or cols % 2 or min(rows, cols) < 4:
        return False
    mesh, smbi = grid_pattern(rows, cols, doubled=False), grid_pattern(rows, cols, doubled=True)
    degree = np.zeros(rows * cols, dtype=np.int64)
    ids = np.arange(rows * cols)
    for d, step in ((E, 1), (W, -1), (N, -cols), (S, cols)):
        np.add.at(degree, ids + step * (mult[:, d] > 0), mult[:, d])
    return bool(np.all(mesh <= mult) and np.all(mult <= smbi) and np.all(degree == 4))


def constructed_packing(
    G: nx.MultiDiGraph, direction: str = "out", workers: int = 1
) -> Construction | None:
    """The construction's trees for ``G``, or None when no construction applies.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology; every compute chiplet is a rank.
    direction : {"out", "in"}
        Out-trees (AllGather) or in-trees (ReduceScatter: the same trees reversed; both grids
        are symmetric, so the reversed trees are a packing of the reversed network).

    Returns
    -------
    Construction or None

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> c = constructed_packing(build("mesh:3x4"))
    >>> c.name, c.rate, c.rate == c.bound, max(t.height for t in c.trees), c.diameter
    ('dimension-order', Fraction(24, 11), True, 5, 5)
    >>> c = constructed_packing(build("smbi:6x6"), "in")
    >>> c.name, c.rate, len(c.trees), max(t.height for t in c.trees)
    ('combs', Fraction(144, 35), 144, 11)
    >>> constructed_packing(build("smalter:6x6")) is None
    True
    """
    grid = grid_multiplicity(G)
    if grid is None:
        return None
    rows, cols, mult, bw = grid
    n = rows * cols
    maps = grid_maps(rows, cols, mult)
    orbits = Orbits(n, maps)
    if np.array_equal(mult, grid_pattern(rows, cols, doubled=False)):
        name, shares = "dimension-order", dimension_shares(rows, cols)
        base = dimension_parents(rows, cols, orbits.reps)
        ids = np.arange(n)
        y, c = ids // cols, ids % cols
        ecc = np.maximum(y, rows - 1 - y) + np.maximum(c, cols - 1 - c)
        rep_heights = np.repeat(ecc[orbits.reps][:, None], len(shares), axis=1)
    elif min(rows, cols) >= 3 and np.array_equal(mult, grid_pattern(rows, cols, doubled=True)):
        name, shares = "combs", (Fraction(1, 4),) * 4
        base = comb_parents(rows, cols, orbits.reps)
        rep_heights = np.zeros((len(orbits.reps), 4), dtype=np.int64)
        for part in _chunks(len(orbits.reps)):
            h, ok = check_parents(rows, cols, [orbits.reps[i] for i in part], base[part], mult)
            if not ok:
                return None
            rep_heights[part] = h
    elif _even_alter(rows, cols, mult):
        built = alter_trees(rows, cols, mult, maps, workers)
        if built is None:
            return None
        name, shares = "alter-combs", (Fraction(1, 4),) * 4
        orbits, base, base_keys, rep_heights = built
    else:
        return None
    denom = math.lcm(*(s.denominator for s in shares))
    weights = np.asarray([int(s * denom) for s in shares], dtype=np.int64)
    reverse = direction == "in"
    arcs = sorted((int(u), int(v), int(k)) for u, v, k in G.edges(keys=True))
    table = np.empty(len(arcs), dtype=object)
    table[:] = arcs
    slot_arc = np.full(n * 8, -1, dtype=np.int64)  # (tail, direction, key) -> arc index
    for i, (u, v, k) in enumerate(arcs):
        d = DIRS[(v // cols - u // cols, v % cols - u % cols)]
        slot_arc[(u * 4 + d) * 2 + k] = i
    load = np.zeros(len(arcs), dtype=np.int64)
    trees: list[Tree] = []
    floats = [float(s) for s in shares]
    for part in _chunks(n):
        parents = orbits.parents(base, part)
        # comb trees of a root are arc-disjoint: parallel copies in order
        if name == "alter-combs":
            keys = orbits.labels(base_keys, part)
        elif name == "combs":
            keys = parent_keys(parents)
        else:  # XY and YX share arcs
            keys = np.zeros(parents.shape, np.int8)
        slots, valid = _arc_slots(parents, keys, cols, reverse)
        arc_ids = slot_arc[slots]
        w = np.broadcast_to(weights[None, :, None], parents.shape)
        load += np.bincount(arc_ids[valid], weights=w[valid], minlength=len(arcs)).astype(np.int64)
        heights = rep_heights[[orbits.index[int(orbits.rep_of[r])] for r in part]]
        for i, r in enumerate(part):
            for t in range(len(shares)):
                row = np.sort(arc_ids[i, t][valid[i, t]])
                trees.append(
                    Tree.from_sorted_arcs(
                        int(r), tuple(table[row].tolist()), int(heights[i, t]), floats[t]
                    )
                )
    max_load = Fraction(int(load.max()), denom)
    inward = mult.sum(axis=1)
    corner = int(np.argmin(inward))
    k_in = int(inward[corner])
    cert = {
        "set": [corner],
        "direction": "leaving" if reverse else "entering",
        "bandwidth": str(k_in * bw),
        "arcs": k_in,
        "ranks": n,
        "ranks_outside": n - 1,
    }
    return Construction(
        name,
        trees,
        [s for _ in range(n) for s in shares],
        Fraction(n) * bw / max_load,
        Fraction(k_in * n) * bw / (n - 1),
        cert,
        max_load,
        len(shares),
        rows + cols - 2,
    )


def construction_for(
    G: nx.MultiDiGraph,
    direction: str,
    ranks: Iterable[int] | None,
    max_height: int | None,
    fraction: float,
    slack: int | None,
) -> Construction | None:
    """The construction for these options, or None (see ``method`` of :func:`pack_throughput`)."""
    if slack is not None:
        return None
    if ranks is not None and sorted(int(r) for r in ranks) != compute_nodes(G):
        return None
    built = constructed_packing(G, direction, _processes())
    if built is None or built.rate != built.bound:
        return None
    top = max(t.height for t in built.trees)
    if max_height is not None and max_height < top:
        return None
    if fraction < 1 and top > built.diameter:
        return None
    return built


def construction_parts(G: nx.MultiDiGraph, direction: str = "out") -> int | None:
    """The equal-part count of the construction ``pack_throughput`` would use, or None.

    None when no construction applies, or ``method="auto"`` would prefer column generation
    (a small grid whose construction is not height-optimal). Multiples of the count also
    come from the construction; other counts from column generation.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> construction_parts(build("smbi:16x16")), construction_parts(build("mesh:4x4"))
    (4, 2)
    >>> construction_parts(build("smbi:6x6")) is None  # colgen finds lower trees quickly
    True
    """
    built = construction_for(G, direction, None, None, 1.0, None)
    if built is None:
        return None
    top = max(t.height for t in built.trees)
    if top > built.diameter and G.number_of_nodes() <= CONSTRUCT_ABOVE:
        return None
    return math.lcm(*(x.denominator for x in built.shares[: built.per_root]))


def part_copies(built: Construction, parts: int | str | None) -> list[int] | None:
    """Copies of each tree of a root for ``parts`` equal parts (None: the shares as they are)."""
    shares = built.shares[: built.per_root]
    natural = math.lcm(*(x.denominator for x in shares))
    if parts is None:
        return [1] * built.per_root
    count = natural if parts == "auto" else parts
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise SpecError(f"parts must be a positive integer or 'auto', got {parts!r}")
    if count % natural or (parts == "auto" and natural > 12):
        return None
    return [int(x * count) for x in shares]


def construction_packing(
    G: nx.MultiDiGraph,
    direction: str,
    built: Construction,
    copies: list[int],
    parts: int | str | None,
    start: float,
) -> TreePacking:
    """The construction as a packing: each tree ``copies[t]`` times, the stats of colgen's."""
    k = built.per_root
    trees = [t for i, t in enumerate(built.trees) for _ in range(copies[i % k])]
    if parts is None:
        shares = built.shares
    else:
        count = sum(copies)
        one = Fraction(1, count)
        trees = [Tree.from_sorted_arcs(t.root, t.arcs, t.height, float(one)) for t in trees]
        shares = [one] * len(trees)
    top = max(t.height for t in trees)
    lower = built.diameter
    fraction = float(built.rate / built.bound)
    text = {x: str(x) for x in set(shares)}
    stats: dict[str, Any] = {
        "collective": "allgather" if direction == "out" else "reducescatter",
        "optimum": str(built.bound),
        "optimum_float": float(built.bound),
        "bound_certificate": built.certificate,
        "eccentricity_bound": lower,
        "tradeoff": [{"max_height": top, "rate_fraction": fraction}],
        "height_proof": {"proved": top == lower, "height": top - 1},
        "construction": {
            "name": built.name,
            "trees_per_root": k,
            "max_load": str(built.max_load),
            "proof": "per-arc load recounted exactly; corner cut bound",
        },
        "algbw_links": str(built.rate),
        "algbw_float": float(built.rate),
        "rate_fraction": fraction,
        "rate_gap": 1.0 - fraction,
        "height_gap": top - lower,
        "shares": [text[x] for x in shares],
        "trees": len(trees),
        "max_trees_per_root": sum(copies),
    }
    if parts is not None:
        count = sum(copies)
        stats["parts"] = {
            "parts": count,
            "max_load": str(built.max_load * count),
            "algbw_links": str(built.rate),
            "load_bound": str(Fraction(len(compute_nodes(G)) * count) / built.bound),
            "proved": built.rate == built.bound,
            "method": "construct",
        }
    stats["wall_time"] = round(time.perf_counter() - start, 3)
    return TreePacking(
        str(G.graph.get("spec", "")),
        direction,
        "optimal" if built.rate == built.bound and top == lower else "feasible",
        sets=(TreeSet(tuple(trees), lower),),
        lower_bound=lower,
        objective=top,
        method="construct",
        stats=stats,
    )
