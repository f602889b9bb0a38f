"""Dimension-order (XY and YX) trees of every root of a mesh, and the shares that reach the bound.

On an ``R x C`` mesh every root ``r = (i, j)`` gets two trees: XY (along row ``i`` both ways, then
up and down every column) and YX (along column ``j``, then along every row). Each is a
shortest-path tree, so each has height equal to its root's eccentricity: the packing is
height-optimal (no tree rooted at ``r`` can be lower).

Counting argument (the load of every arc, exactly). Give XY the share ``x`` of its root's data
and YX the share ``y = 1 - x``. A downward arc ``(p, c) -> (p + 1, c)`` is used by the XY tree of
every root in rows ``0 .. p`` (``(p + 1) C`` of them) and by the YX tree of the roots in column
``c`` above it (``p + 1``): its load is ``(p + 1)(C x + y)``, largest on the last row,
``(R - 1)(C x + y)``. An eastward arc ``(q, c) -> (q, c + 1)`` is used by the XY trees of the
roots of row ``q`` left of it (``c + 1``) and the YX trees of every root left of it
(``(c + 1) R``): load ``(c + 1)(x + R y)``, at most ``(C - 1)(x + R y)``; upward and westward arcs
are the mirror images. At the rate ``rho = 2 n / (n - 1)`` (``n = R C``), the cut bound of a
corner (two links in, ``n - 1`` ranks outside), an arc carries ``rho / n`` per unit share, so it
fits when its load is at most ``(n - 1) / 2``. Both maxima equal ``(n - 1) / 2`` exactly for

    ``x = (R C - 2 R + 1) / (2 (R - 1)(C - 1))``,  ``y = (R C - 2 C + 1) / (2 (R - 1)(C - 1))``

(both positive; on a square grid ``x = y = 1 / 2``, and then every tree carries whole halves). So
the packing reaches the cut bound on every mesh of at least two rows and two columns, with every
tree as low as its root allows. A single row or column is a path: one tree per root, share 1,
rate ``n / (n - 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

__all__ = ["dimension_parents", "dimension_shares"]


def dimension_shares(rows: int, cols: int) -> tuple[Fraction, ...]:
    """The shares of the XY and YX trees that reach the cut bound (one share on a path).

    Examples
    --------
    >>> dimension_shares(4, 4), dimension_shares(2, 3)
    ((Fraction(1, 2), Fraction(1, 2)), (Fraction(3, 4), Fraction(1, 4)))
    >>> dimension_shares(1, 5)
    (Fraction(1, 1),)
    """
    if rows < 1 or cols < 1 or rows * cols < 2:
        raise ValueError(f"a {rows}x{cols} mesh has no two ranks")
    if rows == 1 or cols == 1:
        return (Fraction(1),)
    d = 2 * (rows - 1) * (cols - 1)
    return Fraction(rows * cols - 2 * rows + 1, d), Fraction(rows * cols - 2 * cols + 1, d)


def dimension_parents(rows: int, cols: int, roots: Sequence[int] | None = None) -> np.ndarray:
    """Parent arrays of the XY and YX trees of every root (one path tree on a single line).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(roots), k, rows * cols)`` with ``k = len(dimension_shares(rows, cols))``;
        the root is its own parent.

    Examples
    --------
    >>> p = dimension_parents(3, 3, [4])  # the centre: XY goes along row 1 first
    >>> p[0, 0].tolist(), p[0, 1].tolist()
    ([3, 4, 5, 4, 4, 4, 3, 4, 5], [1, 4, 1, 4, 4, 4, 7, 4, 7])
    """
    n = rows * cols
    ids = np.arange(n)
    y, c = (ids // cols)[None, :], (ids % cols)[None, :]
    roots = list(range(n)) if roots is None else [int(r) for r in roots]
    ri = np.asarray([r // cols for r in roots])[:, None]
    rj = np.asarray([r % cols for r in roots])[:, None]
    step_y = y - np.sign(y - ri)  # one row toward the root's row
    step_c = c - np.sign(c - rj)  # one column toward the root's column
    along_row = y * cols + step_c
    along_col = step_y * cols + c
    xy = np.where(y == ri, along_row, along_col)
    if rows == 1 or cols == 1:
        return xy[:, None, :].astype(np.int32)
    yx = np.where(c == rj, along_col, along_row)
    return np.stack([xy, yx], axis=1).astype(np.int32)
