"""Trees for the simulator tests, built by rules simple enough to check by hand.

``side_trees`` is BRIEF section 3's closed-form SuperMeshBi construction (one root per side: the
top root runs along row 0 both ways then down every column, the right root along its column then
left along every row, bottom and left symmetrically). With the four corners as the roots (top-left
as the "top" root, top-right as the "right" one, ...) it gives four arc-disjoint trees of height
2N - 2. ``chain`` and ``star`` are the small shapes the closed-form checks use. The tests check
these trees independently (disjointness, spanning, heights) before relying on them.
"""

from __future__ import annotations

import itertools

from supermesh.trees.model import Tree


def side_trees(n: int, roots: tuple[int, int, int, int]) -> list[Tree]:
    """Four out-trees on SMBi n x n with roots (top, right, bottom, left)."""
    used: dict[tuple[int, int], int] = {}

    def arc(u: int, v: int) -> tuple[int, int, int]:
        k = used.get((u, v), 0)
        used[(u, v)] = k + 1
        return (u, v, k)

    def at(r: int, c: int) -> int:
        return r * n + c

    top, right, bottom, left = roots
    trees = []
    r0, c0 = divmod(top, n)
    arcs = [arc(at(r0, c), at(r0, c + 1)) for c in range(c0, n - 1)]
    arcs += [arc(at(r0, c), at(r0, c - 1)) for c in range(c0, 0, -1)]
    arcs += [arc(at(r, c), at(r + 1, c)) for c in range(n) for r in range(r0, n - 1)]
    trees.append(arcs)
    r0, c0 = divmod(right, n)
    arcs = [arc(at(r, c0), at(r + 1, c0)) for r in range(r0, n - 1)]
    arcs += [arc(at(r, c0), at(r - 1, c0)) for r in range(r0, 0, -1)]
    arcs += [arc(at(r, c), at(r, c - 1)) for r in range(n) for c in range(c0, 0, -1)]
    trees.append(arcs)
    r0, c0 = divmod(bottom, n)
    arcs = [arc(at(r0, c), at(r0, c + 1)) for c in range(c0, n - 1)]
    arcs += [arc(at(r0, c), at(r0, c - 1)) for c in range(c0, 0, -1)]
    arcs += [arc(at(r, c), at(r - 1, c)) for c in range(n) for r in range(r0, 0, -1)]
    trees.append(arcs)
    r0, c0 = divmod(left, n)
    arcs = [arc(at(r, c0), at(r + 1, c0)) for r in range(r0, n - 1)]
    arcs += [arc(at(r, c0), at(r - 1, c0)) for r in range(r0, 0, -1)]
    arcs += [arc(at(r, c), at(r, c + 1)) for r in range(n) for c in range(c0, n - 1)]
    trees.append(arcs)
    pairs = zip(roots, trees, strict=True)
    return [Tree(root=r, arcs=tuple(a), height=_height(r, a)) for r, a in pairs]


def corner_trees(n: int) -> list[Tree]:
    """The four corner-rooted SMBi trees of height 2n - 2."""
    return side_trees(n, (0, n - 1, n * n - 1, n * (n - 1)))


def _height(root: int, arcs: list[tuple[int, int, int]]) -> int:
    parent = {v: u for u, v, _ in arcs}
    depth = {root: 0}

    def d(v: int) -> int:
        if v not in depth:
            depth[v] = d(parent[v]) + 1
        return depth[v]

    return max((d(v) for v in parent), default=0)


def chain(nodes: list[int]) -> Tree:
    """A path tree rooted at ``nodes[0]`` (arcs of key 0)."""
    arcs = tuple((u, v, 0) for u, v in itertools.pairwise(nodes))
    return Tree(root=nodes[0], arcs=arcs, height=len(nodes) - 1)
