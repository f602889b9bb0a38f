"""Chunks that ramp up and down: a pipeline's fill and drain paid in packets, not in chunks.

A tree pipeline of equal chunks leaves its links idle while the first chunk crosses the tree
and again while the last one does; each costs a chunk's transfer time per hop. Smaller chunks
shorten both but pay the per-transfer latency more often (the paper preset: 20 ns a chunk, 0.8%
of a 64 KiB chunk). Chunks that grow geometrically from one packet to the chunk size, stay
there, and shrink again at the end pay the fill and the drain in small chunks and the middle in
large ones. A pipeline drains its last chunks without a gap only if each chunk's trip after the
busiest link takes no longer than the chunks after it keep that link busy, so the ramp must be
gentle: with ``d`` hops after it, a ratio of at least ``(d - 1) / d`` per step (0.85 for about
seven hops); halving every step gained nothing on the mesh.

:func:`ramped_sizes` gives one tree's chunk sizes;
:func:`~supermesh.sim.packing.packing_program` runs them with ``ramp=``, in one order of
every transfer found by :mod:`~supermesh.trees.schedule.timed`.
"""

from __future__ import annotations

import math

from supermesh.errors import SpecError

__all__ = ["RAMP_RATIOS", "ramped_sizes"]

RAMP_RATIOS = (0.85, 0.9)
"""The ratios a throughput AllReduce tries (:func:`~supermesh.sim.chunk_choice.tuned_program`).

Mesh 4x4, 5x5 and 8x8 and SMBi 4x4, free-share trees, paper preset, 64-512 MiB: the best of
0.8, 0.85, 0.88, 0.9, 0.94 was 0.85 or 0.9 in all but one case (SMBi 4x4 128 MiB: 0.8, by
0.2%); 0.7 and below ran 1-4% slower."""


def ramped_sizes(nbytes: float, chunk_bytes: int, ratio: float, granule: int) -> list[int]:
    """One tree's chunk sizes: up from one granule to ``chunk_bytes``, equal, and down again.

    The ramp is ``chunk_bytes * ratio**k`` for ``k = 1, 2, ...``, each rounded to whole
    granules, until one granule; it leads the chunks in increasing order and closes them in
    decreasing order. The bytes left (``nbytes`` rounded up to whole granules) are cut into
    the whole number of near-equal chunks nearest to ``chunk_bytes`` each (at least one, none
    smaller than the largest ramp step).
    Where they would be less than the largest ramp step, the ramps lose their largest steps
    first (a tree of little data ramps up and straight down).

    Parameters
    ----------
    nbytes : float
        The tree's bytes.
    chunk_bytes : int
        The largest chunk (the plateau).
    ratio : float
        Between neighbouring ramp chunks, in ``(0, 1)``.
    granule : int
        Every size is a multiple of it (a packet).

    Returns
    -------
    list of int
        Sizes in the order the chunks are sent; they add up to ``nbytes`` rounded up to whole
        granules.

    Raises
    ------
    SpecError
        A ratio outside ``(0, 1)``, or a granule or chunk that is not positive.

    Examples
    --------
    In packets of 4 KiB:

    >>> [s // 4096 for s in ramped_sizes(100 * 4096, 16 * 4096, 0.5, 4096)]
    [1, 2, 4, 8, 18, 18, 17, 17, 8, 4, 2, 1]
    >>> [s // 4096 for s in ramped_sizes(20 * 4096, 16 * 4096, 0.5, 4096)]  # little data
    [1, 2, 4, 6, 4, 2, 1]
    """
    if not 0 < ratio < 1:
        raise SpecError(f"a ramp ratio must lie between 0 and 1, not {ratio}")
    if granule <= 0 or chunk_bytes <= 0:
        raise SpecError(f"chunk {chunk_bytes} and granule {granule} must be positive")
    steps: list[int] = []  # largest first, down to one granule
    x = chunk_bytes * ratio
    while chunk_bytes > granule and (not steps or steps[-1] > granule):
        steps.append(max(granule, round(x / granule) * granule))
        x *= ratio
    total = math.ceil(nbytes / granule - 1e-9) * granule
    while steps and total - 2 * sum(steps) < steps[0]:
        steps.pop(0)
    rest = total - 2 * sum(steps)
    # near-equal chunks, none below the largest step: the sizes rise, stay, and fall
    k = max(1, min(round(rest / chunk_bytes), rest // steps[0] if steps else rest))
    each, extra = divmod(rest // granule, k)
    middle = [(each + (i < extra)) * granule for i in range(k)]
    return steps[::-1] + middle + steps
