"""Four arc-disjoint spanning trees from every root of a grid with doubled perimeter links (SMBi).

:func:`comb_parents` gives each root ``r`` four spanning out-trees that are pairwise arc-disjoint
(parallel arcs count separately). That is all the throughput packing of
:mod:`supermesh.trees.throughput.construct` needs: with every tree carrying a quarter of its
root's data, an arc ``u -> v`` carries at most one tree of each root other than ``v`` (a tree
rooted at ``v`` never enters ``v``), so at most ``n - 1`` quarter shares, which is its bandwidth
at the rate ``4 n / (n - 1)``: the cut bound of a corner (in-degree 4, ``n - 1`` ranks outside).

The trees, in relative coordinates ``(a, b)`` (``a`` columns east of ``r``, ``b`` rows north)
and named by the way they leave ``r`` (E, N, W, S):

- Quadrants (``a != 0 != b``). Each quadrant has two *row trees* that reach it along a row and
  cover its columns, and two *column trees* that reach it along a column and cover its rows: in
  the south-east quadrant E (along row ``b = 0``) and N (along row ``b = 1``, entering through
  row 0) are the row trees, S (along column 0) and W (along column ``a = -1``) the column trees;
  the other quadrants are mirror images (NE: E, S | N, W; SW: W, N | S, E; NW: W, S | N, E).
  The two row trees take turns by column parity: one runs straight down (away from ``b = 0``) a
  column, the other enters each node of that column from the next column out; the column trees
  do the same by row parity. So at every node the four trees take the four in-arcs (from the
  inner row, the outer column, the inner column, the outer row), the corner construction of a
  comb repeated in every quadrant. On the outer border column both row trees run straight (the
  two parallel links), on the outer border row both column trees.
- Axes (``a = 0`` or ``b = 0``): on the east axis E runs along the axis, S comes up from row
  ``b = -1`` and N and W alternate (by the parity of ``a``) between the node beyond and row
  ``b = 1``; the other axes are its rotations. Every tree is the rotation of E by a quarter
  turn (N of E, W of N, S of W), the parities fixed at the root so that the lanes line up (the
  row ``b = -1`` that S runs along in the south-east is the row it reaches the north-east by).
- A root on the border has the doubled border row through it: N is replaced by a tree that
  leaves along the second parallel arcs both ways (it plays N's part, a row tree of both
  quadrants below), and the comb parities are taken from the far borders so that the deepest
  nodes are reached straight. A corner root takes both border lines that way (W leaves on the
  second arc down the border column).

Validity is checked exactly for every root by :func:`check_parents` (every tree spans, no cycle,
no arc over its multiplicity); sizes from 3x3 to 14x14 (every shape) pass, and every tree then
has height at most the diameter plus one from 6x6 on (the corner root's four trees cannot be
lower: its far corner is entered four times through two doubled links, proved for 6x6 and 8x8 by
the height-optimal packing). Doubled links must be doubled all round the perimeter: on SMAlter
(every other perimeter link) the check fails and the caller uses another method.

References
----------
.. [1] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973 (the four trees
   exist because a corner's in-degree is the arc connectivity).
.. [2] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["check_parents", "comb_parents", "parent_keys"]

E, N, W, S = 0, 1, 2, 3
_CHUNK = 256  # roots per vectorised batch (memory: about 4 * 14 * n bytes per root)


def _rot(a: np.ndarray, b: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` turned ``k`` quarter turns anticlockwise."""
    for _ in range(k % 4):
        a, b = -b, a
    return a, b


def _quadrant(
    t: int, a: np.ndarray, b: np.ndarray, A: np.ndarray, B: np.ndarray, par: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Parents of tree ``t`` at quadrant nodes (``a != 0 != b``); ``A``/``B`` the border reach."""
    sa, sb = np.sign(a), np.sign(b)
    absa, absb = np.abs(a), np.abs(b)
    if t in (E, W):
        row_tree = (sa > 0) if t == E else (sa < 0)  # R1 there, the second column tree elsewhere
        first = row_tree
    else:
        row_tree = (sb < 0) if t == N else (sb > 0)  # the second row tree there, C1 elsewhere
        first = ~row_tree
    p_r = np.where(sa > 0, par["pr_east"], par["pr_west"])
    p_c = np.where(sb > 0, par["pc_north"], par["pc_south"])
    comb_r = ((absa % 2) == p_r) == first
    comb_c = ((absb % 2) == p_c) == first
    straight_r = comb_r | (absa == A)
    straight_c = comb_c | (absb == B)
    pa = np.where(row_tree, np.where(straight_r, a, a + sa), np.where(straight_c, a - sa, a))
    pb = np.where(row_tree, np.where(straight_r, b - sb, b), np.where(straight_c, b, b + sb))
    return pa, pb


Pair = tuple[np.ndarray, np.ndarray]


def _pick(cond: np.ndarray, x: Pair, y: Pair) -> Pair:
    return np.where(cond, x[0], y[0]), np.where(cond, x[1], y[1])


def _axis_row(t: int, a: np.ndarray, A: np.ndarray, odd: np.ndarray, border: bool) -> Pair:
    """Parents of tree ``t`` on the row through the root (``b = 0``, ``a != 0``)."""
    sa = np.sign(a)
    east = sa > 0
    end = np.abs(a) == A
    zero = np.zeros_like(a)
    inner, outer = (a - sa, zero), (a + sa, zero)
    up, dn = (a, zero + 1), (a, zero - 1)
    if border:  # the doubled border row: E / W and the second tree (N) both run along it
        if t == N:
            return inner
        if t == S:
            return _pick(end | odd, dn, outer)
        other = _pick(end, dn, _pick(odd, outer, dn))
        return _pick(east if t == E else ~east, inner, other)
    # east half: E inner, S down, N odd -> outer else up, W odd -> up else outer (up at the end)
    # west half: W inner, N up, S odd -> outer else down, E odd -> down else outer (down at the end)
    if t == E:
        return _pick(east, inner, _pick(end, dn, _pick(odd, dn, outer)))
    if t == W:
        return _pick(east, _pick(end, up, _pick(odd, up, outer)), inner)
    if t == N:
        return _pick(east, _pick(end, up, _pick(odd, outer, up)), up)
    return _pick(east, dn, _pick(end, dn, _pick(odd, outer, dn)))


def _axis_col(t: int, b: np.ndarray, B: np.ndarray, odd: np.ndarray, border: bool) -> Pair:
    """Parents of tree ``t`` on the column through the root (``a = 0``, ``b != 0``)."""
    sb = np.sign(b)
    north = sb > 0
    end = np.abs(b) == B
    zero = np.zeros_like(b)
    inner, outer = (zero, b - sb), (zero, b + sb)
    east, west = (zero + 1, b), (zero - 1, b)
    if border:  # a corner root's doubled border column (south of it): S and W run along it
        if t in (S, W):
            return inner
        if t == E:
            return _pick(end | odd, east, outer)
        return _pick(end, east, _pick(odd, outer, east))
    # north half: N inner, E east, W odd -> outer else west, S odd -> west else outer
    # south half: S inner, W west, E odd -> outer else east, N odd -> east else outer
    if t == N:
        return _pick(north, inner, _pick(end, east, _pick(odd, east, outer)))
    if t == S:
        return _pick(north, _pick(end, west, _pick(odd, west, outer)), inner)
    if t == E:
        return _pick(north, east, _pick(end, east, _pick(odd, outer, east)))
    return _pick(north, _pick(end, west, _pick(odd, outer, west)), west)


def _canonical(
    t: int,
    a: np.ndarray,
    b: np.ndarray,
    bd: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    case: str,
) -> Pair:
    """Parents of tree ``t`` in the canonical frame of ``case`` (interior, top, corner)."""
    ex, ny, wx, sy = bd
    one = np.ones_like(ex)
    if case == "interior":  # the lanes fix every parity at the root
        par = {"pr_east": one, "pr_west": one, "pc_north": one, "pc_south": one}
        odd_h, odd_n, odd_s = one, one, one
    else:  # no lane above: the far borders set the parities (top border and corner roots)
        par = {"pr_east": (ex + 1) % 2, "pr_west": (wx + 1) % 2, "pc_north": one}
        par["pc_south"] = sy % 2
        odd_h, odd_n, odd_s = np.zeros_like(ex), one, sy % 2
    A = np.where(a > 0, ex, wx)
    B = np.where(b > 0, ny, sy)
    pa, pb = _quadrant(t, a, b, A, B, par)
    row = b == 0
    ra, rb = _axis_row(t, a, A, (np.abs(a) % 2) == odd_h, border=case != "interior")
    pa, pb = np.where(row, ra, pa), np.where(row, rb, pb)
    col = (a == 0) & (b != 0)
    odd_c = (np.abs(b) % 2) == np.where(b > 0, odd_n, odd_s)
    ca, cb = _axis_col(t, b, B, odd_c, border=case == "corner")
    return np.where(col, ca, pa), np.where(col, cb, pb)


def _frame(bd: tuple[int, int, int, int]) -> tuple[int, str]:
    """The quarter turns bringing a root's borders to a canonical case, and the case."""
    for k in range(4):
        c = tuple(bd[(m + k) % 4] for m in range(4))
        if c[1] == 0 and c[2] == 0:
            return k, "corner"
    for k in range(4):
        c = tuple(bd[(m + k) % 4] for m in range(4))
        if c[1] == 0:
            return k, "top"
    return 0, "interior"


def comb_parents(rows: int, cols: int, roots: Sequence[int] | None = None) -> np.ndarray:
    """Parent arrays of the four comb trees of every root (see the module docstring).

    Parameters
    ----------
    rows, cols : int
        Grid size, both at least 2 and not 2x2.
    roots : sequence of int, optional
        Root ids (row-major ``row * cols + col``); default every node.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(roots), 4, rows * cols)``: the parent of each node in each tree (the root
        is its own parent). Not checked here: see :func:`check_parents`.

    Examples
    --------
    >>> p = comb_parents(4, 4, [0])
    >>> sorted(int(x) for x in p[0, :, 1])  # node 1 in the four trees of corner 0
    [0, 0, 2, 5]
    """
    n = rows * cols
    ids = np.arange(n)
    y, c = ids // cols, ids % cols
    roots = list(range(n)) if roots is None else [int(r) for r in roots]
    out = np.empty((len(roots), 4, n), dtype=np.int32)
    groups: dict[tuple[int, str], list[int]] = {}
    for idx, r in enumerate(roots):
        i, j = divmod(r, cols)
        groups.setdefault(_frame((cols - 1 - j, i, j, rows - 1 - i)), []).append(idx)
    for (k, case), members in sorted(groups.items()):
        for lo in range(0, len(members), _CHUNK):
            part = np.asarray(members[lo : lo + _CHUNK])
            ri = np.asarray([roots[m] // cols for m in part])[:, None]
            rj = np.asarray([roots[m] % cols for m in part])[:, None]
            a, b = c[None, :] - rj, ri - y[None, :]
            real = (cols - 1 - rj, ri, rj, rows - 1 - ri)
            bd = tuple(real[(m + k) % 4] for m in range(4))
            ka, kb = _rot(a, b, -k)
            for t in range(4):
                pa, pb = _canonical(t, ka, kb, bd, case)  # type: ignore[arg-type]
                qa, qb = _rot(pa, pb, k)
                py, pc = ri - qb, rj + qa
                inside = (py >= 0) & (py < rows) & (pc >= 0) & (pc < cols)
                parent = np.where(inside, py * cols + pc, -1)
                parent[np.arange(len(part)), ri[:, 0] * cols + rj[:, 0]] = (ri * cols + rj)[:, 0]
                out[part, t] = parent
    return out


def parent_keys(parents: np.ndarray) -> np.ndarray:
    """Which parallel arc each tree of a root takes: the count of earlier trees with that parent.

    Examples
    --------
    >>> parent_keys(np.array([[[0, 0, 1], [0, 0, 0]]])).tolist()  # tree 1 repeats 0 -> 1
    [[[0, 0, 0], [1, 1, 0]]]
    """
    keys = np.zeros(parents.shape, dtype=np.int8)
    for t in range(1, parents.shape[1]):
        for s in range(t):
            keys[:, t] += parents[:, s] == parents[:, t]
    return keys


def check_parents(
    rows: int,
    cols: int,
    roots: Sequence[int],
    parents: np.ndarray,
    mult: np.ndarray,
    keys: np.ndarray | None = None,
) -> tuple[np.ndarray, bool]:
    """Heights and validity of per-root parent arrays, exactly.

    Parameters
    ----------
    rows, cols : int
    roots : sequence of int
    parents : numpy.ndarray
        Shape ``(len(roots), k, n)``, as from :func:`comb_parents`.
    mult : numpy.ndarray
        Shape ``(n, 4)``: arcs from each node toward E, N, W, S.
    keys : numpy.ndarray, optional
        The parallel copy each tree enters each node by (default :func:`parent_keys`, which
        also demands that the trees of a root are arc-disjoint).

    Returns
    -------
    (heights, ok)
        ``heights[r, t]``; ``ok``: every parent is a neighbour over an existing arc, no arc is
        used by more trees of a root than it has copies (:func:`parent_keys`), and every tree
        reaches its root from every node (no cycle).

    Examples
    --------
    >>> from supermesh.trees.throughput.construct import grid_multiplicity
    >>> from supermesh.topologies import build
    >>> _, _, mult, _ = grid_multiplicity(build("smbi:6x6"))
    >>> heights, ok = check_parents(6, 6, range(36), comb_parents(6, 6), mult)
    >>> ok, int(heights.max())
    (True, 11)
    """
    n = rows * cols
    m, k, _ = parents.shape
    ids = np.arange(n)
    root_ids = np.asarray(list(roots))
    is_root = (ids[None, :] == root_ids[:, None])[:, None, :]
    dy = parents // cols - (ids // cols)[None, None, :]
    dx = parents % cols - (ids % cols)[None, None, :]
    direction = np.full(parents.shape, -1, dtype=np.int64)  # of the arc parent -> child
    direction[(dy == 0) & (dx == -1)] = E
    direction[(dy == 1) & (dx == 0)] = N
    direction[(dy == 0) & (dx == 1)] = W
    direction[(dy == -1) & (dx == 0)] = S
    ok = bool(np.all((direction >= 0) | is_root)) and bool(np.all(parents >= 0))
    safe = np.clip(parents, 0, n - 1).astype(np.int64)
    copies = mult[safe, np.where(direction >= 0, direction, 0)]
    keys = parent_keys(parents) if keys is None else keys
    ok = ok and bool(np.all(((keys >= 0) & (keys < copies)) | is_root))
    depth = np.where(is_root, 0, 1).astype(np.int64) + np.zeros((m, k, n), dtype=np.int64)
    anc = safe
    for _ in range(int(np.ceil(np.log2(max(n, 2)))) + 1):
        depth = depth + np.take_along_axis(depth, anc, axis=-1)
        anc = np.take_along_axis(anc, anc, axis=-1)
    ok = ok and bool(np.all(anc == root_ids[:, None, None]))
    return depth.max(axis=-1), ok
