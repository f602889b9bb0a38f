"""Local search over root-set partitions for :func:`supermesh.trees.roots.sets.root_sets`.

:func:`total_height` packs every set of a partition and scores it (sum of the set heights, then
the largest); :func:`improve` swaps one root of a set above its eccentricity bound with one root of
another set while the proven bounds leave room for a smaller total. Each candidate pair is packed
at its proven bound only, so a hopeless swap costs two quick proofs that raise the bounds. All
packing, caching and work accounting is the :class:`~supermesh.trees.roots.search.SetPacker`'s.
See :mod:`supermesh.trees.roots.sets` for the objective.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from supermesh.trees.roots.search import SetPacker

__all__ = ["improve", "total_height"]

Roots = tuple[int, ...]


def total_height(ev: SetPacker, sets: list[Roots]) -> tuple[int, int] | None:
    """(sum of set heights, largest) after packing every set; ``None`` if one failed.

    Each set not packed yet gets the full per-set work, whatever the search has left (its
    work is still charged to the search).
    """
    hs = [ev.solve(s, limit=ev.per_set, within=False) for s in sets]
    if any(h is None for h in hs):
        return None
    heights = [h for h in hs if h is not None]
    return sum(heights), max(heights)


def improve(ev: SetPacker, sets: list[Roots], target: int, tries: int) -> int:
    """Local search by swaps (see :mod:`supermesh.trees.roots.sets`), in place.

    Parameters
    ----------
    ev : SetPacker
    sets : list of tuple
        The partition, every set packed; changed in place.
    target : int
        A proven lower bound on the total: stop there.
    tries : int
        Swaps evaluated per set above its eccentricity bound and round.

    Returns
    -------
    int
        The number of swaps made.
    """
    swaps = 0
    while sum(ev.height(s) for s in sets) > target and ev.room():
        hs = [ev.height(s) for s in sets]
        bad = sorted(
            (i for i, s in enumerate(sets) if hs[i] > max(ev.ecc[v] for v in s)),
            key=lambda i: (-hs[i], i),
        )
        if not any(_swap_from(ev, sets, hs, i, tries) for i in bad):
            break
        swaps += 1
    return swaps


def _swap_from(ev: SetPacker, sets: list[Roots], hs: list[int], i: int, tries: int) -> bool:
    A0 = sets[i]
    options = []
    for j, B0 in enumerate(sets):
        if j == i:
            continue
        for a in A0:
            for b in B0:
                A = tuple(sorted({*A0, b} - {a}))
                B = tuple(sorted({*B0, a} - {b}))
                room = hs[i] + hs[j] - ev.bound(A) - ev.bound(B)
                if room > 0:
                    options.append((-room, abs(ev.ecc[a] - ev.ecc[b]), j, a, b, A, B))
    options.sort()
    tried = 0
    for *_, j, _a, _b, A, B in options:
        if tried >= tries or not ev.room():
            return False
        if ev.bound(A) + ev.bound(B) >= hs[i] + hs[j]:
            continue  # ruled out by what was learnt since
        if ev.certificate(A) is not None or ev.certificate(B) is not None:
            continue
        tried += 1
        if _fits(ev, A, B, hs[i] + hs[j]):
            sets[i], sets[j] = A, B
            return True
    return False


def _fits(ev: SetPacker, A: Roots, B: Roots, budget: int) -> bool:
    """Whether ``A`` and ``B`` pack with heights summing below ``budget``.

    Each side is packed at its proven bound only: a failure there is usually a quick proof that
    raises the bound, so a hopeless pair costs two small proofs, not two searches.
    """
    got: dict[Roots, int] = {}
    probes = {A: 0, B: 0}
    while True:
        if got.get(A, ev.bound(A)) + got.get(B, ev.bound(B)) >= budget:
            return False
        pending = [x for x in (A, B) if x not in got]
        if not pending:
            return True
        side = min(pending, key=lambda x: probes[x])  # the other side before a second probe
        probes[side] += 1
        cap = ev.bound(side)
        height = ev.solve(side, cap=cap)
        if height is not None:
            got[side] = height
        elif ev.bound(side) <= cap:
            ev.undecided += 1
            return False  # neither trees nor a proof within the work
