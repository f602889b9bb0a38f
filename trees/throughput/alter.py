"""Four trees per root on even SMAlter: SMBi's comb trees inside, a CP-SAT repair on the border.

On an SMAlter grid with an even number of rows and columns every chiplet has exactly four
in-arcs (a perimeter chiplet: one from inside, two over its doubled link, one over the single
link beside it). Give every root four trees, each carrying a quarter of its data, such that

    (*) every arc ``u -> v`` is used by exactly one tree of each root other than ``v``.

Then every arc carries ``n - 1`` quarter shares, which is its bandwidth ``B`` at the rate
``rho = 4 n B / (n - 1)``: the cut bound of one chiplet (in-degree 4, ``n - 1`` ranks outside).
So (*) reaches the bound exactly, and the bound cannot be beaten. Since the four arcs into a
chiplet are all used, (*) forces the four trees of a root to take the four arcs into every
other chiplet, one each: four arc-disjoint spanning arborescences.

Construction. SMAlter and SMBi have the same arcs into every chiplet at least two steps from
the border (four single mesh arcs), so the comb trees of
:mod:`~supermesh.trees.throughput.combs` (built for SMBi) keep their parents there; only the
*band* (chiplets fewer than ``BAND`` steps from the border) is decided again, by a small CP-SAT
model per root: for each band chiplet and tree the in-arc it takes (exactly the arc counts of
(*) at each band chiplet), and a depth per band chiplet and tree with ``depth(v) >= depth(w) +
L`` on the chosen arc, where ``w`` is the band chiplet (or root) the fixed inside path from the
arc's tail reaches after ``L - 1`` steps, and ``depth(v)`` plus the longest fixed path hanging
from ``v`` at most ``H`` (the diameter plus one). Depths strictly grow along every tree, so no
tree has a cycle; every chiplet has a parent, so every tree spans.

The band model is infeasible for 16 roots of every size from 8x8 on (the chiplets one and three
steps from a corner on each side, whose doubled link points to that corner): four arc-disjoint
trees from them need the diameter plus two (CP-SAT proves it on 8x8 to 14x14). Such a root is
solved together with a *partner*, the chiplet ``PARTNER_DEPTH`` rows inward from it, in one
model of eight trees where (*) is relaxed to the pair: every arc ``u -> v`` is used by exactly
two of the pair's trees (one when ``v`` is one of the two roots). The loads of every arc are
then the same as under (*), so the rate is the same; the pair's trees still each span from
their root without cycles. Per-root arc-disjointness is given up for the pair only.

Every root's trees are checked exactly afterwards
(:func:`~supermesh.trees.throughput.combs.check_parents`: spanning, no cycle, parents over
existing arcs, parallel copies in range), and
:func:`~supermesh.trees.throughput.construct.constructed_packing` recounts every arc's load in
integers from the trees built: the rate reported is the recount's, never the argument's.
Heights: every tree is at most ``H = rows + cols - 1``, the diameter plus one, by the depth
bound of the model (and measured exactly by the check).

Cost: one model per root orbit of the grid's dihedral maps (1/8 of the roots), a few thousand
literals each (the band only; the inside paths are folded in with numpy), so
``smalter:64x64`` takes a few minutes on one core. CP-SAT runs single-threaded with a fixed seed
and a work limit (:func:`~supermesh.trees.cpsat.new_solver`): the same call gives the same trees.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from supermesh.trees.cpsat import new_solver
from supermesh.trees.throughput.combs import check_parents, comb_parents
from supermesh.trees.throughput.grid import Orbits

__all__ = ["BAND", "PARTNER_DEPTH", "alter_trees", "band_trees", "partner_of"]

BAND = 2
"""Chiplets fewer than this many steps from the border are decided by CP-SAT."""
PARTNER_DEPTH = 2
"""How many rows inward from a root that needs one its partner sits."""
_SECONDS = 60.0  # per model; the work limit (new_solver) normally stops a search first
_STEP = ((0, 1), (-1, 0), (0, -1), (1, 0))  # E, N, W, S as (drow, dcol)


def _in_arcs(rows: int, cols: int, mult: np.ndarray) -> list[list[tuple[int, int]]]:
    """For every chiplet, its in-neighbours with their arc counts."""
    n = rows * cols
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u in range(n):
        y, c = divmod(u, cols)
        for d, (sy, sx) in enumerate(_STEP):
            if mult[u, d]:
                out[(y + sy) * cols + c + sx].append((u, int(mult[u, d])))
    return out


def _exits(parents: np.ndarray, terminal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every node: the first terminal on its fixed parent path, and the path's length."""
    anc = np.where(terminal, np.arange(len(parents)), parents).astype(np.int64)
    length = np.where(terminal, 0, 1).astype(np.int64)
    for _ in range(int(np.ceil(np.log2(max(len(parents), 2)))) + 1):
        length = length + length[anc]
        anc = anc[anc]
    return anc, length


def band_trees(
    rows: int, cols: int, mult: np.ndarray, group: Sequence[int], height: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Parents and arc keys of the four trees of each root of ``group``, or None (infeasible).

    Parameters
    ----------
    rows, cols : int
    mult : numpy.ndarray
        Shape ``(n, 4)``: arcs from each chiplet toward E, N, W, S; every chiplet has four
        in-arcs.
    group : sequence of int
        One root, or a root and its partner (the arc counts of (*) are shared by the group).
    height : int
        No tree taller.

    Returns
    -------
    (parents, keys) or None
        Both of shape ``(len(group), 4, n)``: each node's parent and the parallel copy of the
        arc it is entered by (the root is its own parent). None when the model is infeasible or
        its work limit ran out first.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.grid import grid_multiplicity
    >>> _, _, mult, _ = grid_multiplicity(build("smalter:8x8"))
    >>> parents, keys = band_trees(8, 8, mult, [0], 15)
    >>> parents.shape, int(parents[0, 0, 0])
    ((1, 4, 64), 0)
    >>> band_trees(8, 8, mult, [1], 15) is None  # needs a partner
    True
    """
    from ortools.sat.python import cp_model

    n = rows * cols
    ids = np.arange(n)
    y, c = ids // cols, ids % cols
    edge = np.minimum(np.minimum(y, rows - 1 - y), np.minimum(c, cols - 1 - c))
    band = edge < BAND
    ins = _in_arcs(rows, cols, mult)
    fixed = comb_parents(rows, cols, list(group))
    model = cp_model.CpModel()
    choice: dict[tuple[int, int, int, int], cp_model.IntVar] = {}
    uses: dict[tuple[int, int], list[cp_model.IntVar]] = {}
    for g, r in enumerate(group):
        dist = np.abs(y - r // cols) + np.abs(c - r % cols)
        terminal = band.copy()
        terminal[r] = True
        depth: dict[int, object] = {r: 0}
        exits = []
        for t in range(4):
            anc, length = _exits(fixed[g, t], terminal)
            inside = ~terminal
            if not np.all(terminal[anc]):
                return None
            hang = np.zeros(n, dtype=np.int64)
            np.maximum.at(hang, anc[inside], length[inside])
            if hang[r] > height:
                return None
            exits.append((anc, length))
            for v in ids[band]:
                if v == r:
                    continue
                top = height - int(hang[v])
                if top < dist[v]:
                    return None
                depth[int(v) * 4 + t] = model.new_int_var(int(dist[v]), top, "")
        for v in ids[band]:
            v = int(v)
            if v == r:
                continue
            for t in range(4):
                anc, length = exits[t]
                options = []
                for u, _ in ins[v]:
                    w, steps = (u, 1) if terminal[u] else (int(anc[u]), int(length[u]) + 1)
                    if w == v:
                        continue  # the inside path from u comes back to v: a cycle
                    b = model.new_bool_var("")
                    below = 0 if w == r else depth[w * 4 + t]
                    model.add(depth[v * 4 + t] >= below + steps).only_enforce_if(b)  # type: ignore[operator]
                    choice[g, t, v, u] = b
                    model.add_hint(b, int(fixed[g, t, v]) == u)
                    uses.setdefault((v, u), []).append(b)
                    options.append(b)
                model.add_exactly_one(options)
    for v in ids[band]:
        v = int(v)
        users = sum(1 for r in group if r != v)
        for u, m in ins[v]:
            model.add(sum(uses.get((v, u), [])) == m * users)
    solver = new_solver(time_limit=_SECONDS * len(group), workers=1)
    # the model is small and its presolve the larger cost: no LP, symmetry or probing passes
    solver.parameters.linearization_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.cp_model_probing_level = 0
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    parents = fixed.copy()
    for (g, t, v, u), b in choice.items():
        if solver.value(b):
            parents[g, t, v] = u
    return parents, _keys(parents, mult, cols)


def _keys(parents: np.ndarray, mult: np.ndarray, cols: int) -> np.ndarray:
    """Parallel copies: the group's trees entering ``v`` from ``u`` take them in turn."""
    m, k, n = parents.shape
    keys = np.zeros(parents.shape, dtype=np.int8)
    seen: dict[tuple[int, int], int] = {}
    for g in range(m):
        for t in range(k):
            for v in range(n):
                u = int(parents[g, t, v])
                if u == v:
                    continue
                d = _STEP.index((v // cols - u // cols, v % cols - u % cols))
                copies = int(mult[u, d])
                if copies > 1:
                    i = seen.get((u, v), 0)
                    keys[g, t, v] = i % copies
                    seen[u, v] = i + 1
    return keys


def partner_of(rows: int, cols: int, r: int) -> int:
    """The chiplet ``PARTNER_DEPTH`` steps inward from ``r`` (from its nearest side), or -1.

    Examples
    --------
    >>> partner_of(8, 8, 1), partner_of(8, 8, 8), partner_of(8, 8, 62)
    (17, 10, 46)
    """
    i, j = divmod(r, cols)
    sides = [(i, 1, 0), (rows - 1 - i, -1, 0), (j, 0, 1), (cols - 1 - j, 0, -1)]
    _, dy, dx = min(sides, key=lambda s: s[0])
    y, x = i + dy * PARTNER_DEPTH, j + dx * PARTNER_DEPTH
    return y * cols + x if 0 <= y < rows and 0 <= x < cols else -1


def _solve(job: tuple[int, int, np.ndarray, tuple[int, ...], int]) -> object:
    rows, cols, mult, group, height = job
    return band_trees(rows, cols, mult, group, height)


def _solve_all(
    jobs: list[tuple[int, ...]], rows: int, cols: int, mult: np.ndarray, height: int, workers: int
) -> list[tuple[np.ndarray, np.ndarray] | None]:
    todo = [(rows, cols, mult, group, height) for group in jobs]
    if workers <= 1 or len(todo) < 2:
        return [_solve(j) for j in todo]  # type: ignore[misc]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_solve, todo, chunksize=4))  # type: ignore[arg-type]


def alter_trees(
    rows: int, cols: int, mult: np.ndarray, maps: list[np.ndarray], workers: int = 1
) -> tuple[Orbits, np.ndarray, np.ndarray, np.ndarray] | None:
    """Every root's four trees on even SMAlter, per orbit of ``maps`` (see the module).

    Parameters
    ----------
    rows, cols : int
    mult : numpy.ndarray
        Arc counts, shape ``(n, 4)``; every chiplet with four in-arcs.
    maps : list of numpy.ndarray
        Dihedral maps of the grid keeping ``mult`` (:func:`~.grid.grid_maps`).
    workers : int
        Processes solving the orbits' models (each model single-threaded, so the trees do not
        depend on it).

    Returns
    -------
    (orbits, parents, keys, heights) or None
        ``orbits`` with one representative per orbit (a root that needed a partner and its
        partner both represent their orbits); ``parents`` and ``keys`` of shape
        ``(len(orbits.reps), 4, n)``; ``heights`` ``(len(orbits.reps), 4)``, exact. None when a
        model fails, a partner needs one too, the partners do not follow the maps, or a check
        fails.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.grid import grid_maps, grid_multiplicity
    >>> _, _, mult, _ = grid_multiplicity(build("smalter:8x8"))
    >>> orbits, parents, keys, heights = alter_trees(8, 8, mult, grid_maps(8, 8, mult))
    >>> len(orbits.reps), int(heights.max())  # 10 orbits of roots; the diameter is 14
    (10, 15)
    """
    n = rows * cols
    height = rows + cols - 1
    first = Orbits(n, maps)
    found = _solve_all([(r,) for r in first.reps], rows, cols, mult, height, workers)
    lonely = [r for r, got in zip(first.reps, found, strict=True) if got is None]
    partners = {r: partner_of(rows, cols, r) for r in lonely}
    if any(p < 0 for p in partners.values()):
        return None
    taken = {int(first.rep_of[p]) for p in partners.values()}
    if taken & set(lonely) or len(taken) != len(lonely):
        return None
    # the pairs must map onto disjoint pairs, or the loads would not add up
    images = [(int(g[r]), int(g[p])) for r, p in partners.items() for g in maps]
    if any(partner_of(rows, cols, a) != b for a, b in images):
        return None
    ends = {x for pair in set(images) for x in pair}
    if len(ends) != 2 * len(set(images)):
        return None
    pairs = _solve_all([(r, partners[r]) for r in lonely], rows, cols, mult, height, workers)
    trees: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for r, got in zip(first.reps, found, strict=True):
        if got is not None and r not in taken:
            trees[r] = (got[0][0], got[1][0])
    for r, got in zip(lonely, pairs, strict=True):
        if got is None:
            return None
        trees[r] = (got[0][0], got[1][0])
        trees[partners[r]] = (got[0][1], got[1][1])
    orbits = Orbits(n, maps, sorted(trees))
    if len(orbits.reps) != len(trees):
        return None
    parents = np.stack([trees[r][0] for r in orbits.reps])
    keys = np.stack([trees[r][1] for r in orbits.reps])
    heights, ok = check_parents(rows, cols, orbits.reps, parents, mult, keys)
    return (orbits, parents, keys, heights) if ok else None
