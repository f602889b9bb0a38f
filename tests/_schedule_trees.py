"""Tree sets for the schedule tests, built here independently of the packing code.

- :func:`side_trees`: the closed-form SMBi construction of BRIEF section 3 (top root along row 0
  both ways then down every column; right root along its column then left along every row;
  bottom and left symmetrically). Four arc-disjoint out-trees for any roots, one per side.
- :func:`greedy_trees`: arc-disjoint out-trees by randomised BFS on the remaining capacity
  (seeded; retried), good enough for small meshes.
- :func:`packing`: wrap tree sets in a ``TreePacking``.
- :func:`shared_trees`: a hypothesis strategy of random spanning trees sharing links.
"""

from __future__ import annotations

import random
from collections import Counter, deque

import networkx as nx
from hypothesis import strategies as st

from supermesh.topologies.model import compute_nodes
from supermesh.trees.model import Tree, TreePacking, TreeSet


def _keyed(G: nx.MultiDiGraph, trees_pairs: list[list[tuple[int, int]]]) -> list[list[tuple]]:
    """Give each use of a pair ``u -> v`` the next free key; fail if the pair runs out."""
    used: Counter = Counter()
    out = []
    for pairs in trees_pairs:
        arcs = []
        for u, v in pairs:
            keys = sorted(k for _, w, k in G.out_edges(u, keys=True) if w == v)
            assert used[(u, v)] < len(keys), f"pair {u}->{v} over capacity"
            arcs.append((u, v, keys[used[(u, v)]]))
            used[(u, v)] += 1
        out.append(arcs)
    return out


def _height(root: int, arcs: list[tuple]) -> int:
    kids: dict[int, list[int]] = {}
    for u, v, _ in arcs:
        kids.setdefault(u, []).append(v)
    depth, queue = {root: 0}, deque([root])
    while queue:
        u = queue.popleft()
        for v in kids.get(u, []):
            depth[v] = depth[u] + 1
            queue.append(v)
    return max(depth.values())


def side_trees(G: nx.MultiDiGraph, top: int, right: int, bottom: int, left: int) -> list[Tree]:
    """The four SMBi out-trees rooted on the top, right, bottom and left sides."""
    R, C = G.graph["rows"], G.graph["cols"]

    def nid(r: int, c: int) -> int:
        return r * C + c

    a, b = top % C, right // C
    c0, d = bottom % C, left // C
    assert (top // C, right % C, bottom // C, left % C) == (0, C - 1, R - 1, 0)
    top_pairs = [(nid(0, j + 1), nid(0, j)) for j in range(a)]
    top_pairs += [(nid(0, j), nid(0, j + 1)) for j in range(a, C - 1)]
    top_pairs += [(nid(i, j), nid(i + 1, j)) for j in range(C) for i in range(R - 1)]
    right_pairs = [(nid(i + 1, C - 1), nid(i, C - 1)) for i in range(b)]
    right_pairs += [(nid(i, C - 1), nid(i + 1, C - 1)) for i in range(b, R - 1)]
    right_pairs += [(nid(i, j + 1), nid(i, j)) for i in range(R) for j in range(C - 1)]
    bottom_pairs = [(nid(R - 1, j + 1), nid(R - 1, j)) for j in range(c0)]
    bottom_pairs += [(nid(R - 1, j), nid(R - 1, j + 1)) for j in range(c0, C - 1)]
    bottom_pairs += [(nid(i + 1, j), nid(i, j)) for j in range(C) for i in range(R - 1)]
    left_pairs = [(nid(i + 1, 0), nid(i, 0)) for i in range(d)]
    left_pairs += [(nid(i, 0), nid(i + 1, 0)) for i in range(d, R - 1)]
    left_pairs += [(nid(i, j), nid(i, j + 1)) for i in range(R) for j in range(C - 1)]
    roots = [top, right, bottom, left]
    keyed = _keyed(G, [top_pairs, right_pairs, bottom_pairs, left_pairs])
    return [Tree(r, tuple(arcs), _height(r, arcs)) for r, arcs in zip(roots, keyed, strict=True)]


def greedy_trees(
    G: nx.MultiDiGraph, roots: list[int], *, seed: int = 0, attempts: int = 300
) -> list[Tree]:
    """Arc-disjoint spanning out-trees by randomised BFS (raises if no attempt succeeds)."""
    rng = random.Random(seed)
    need = set(compute_nodes(G))
    pairs_all = sorted({(u, v) for u, v, _ in G.edges(keys=True)})
    for _ in range(attempts):
        cap = Counter((u, v) for u, v, _ in G.edges(keys=True))
        pairs_per_tree = []
        for r in roots:  # randomised Prim: grow along a random free arc leaving the tree
            seen, pairs = {r}, []
            while True:
                frontier = [(u, v) for u, v in pairs_all if u in seen and v not in seen]
                frontier = [p for p in frontier if cap[p] > 0]
                if not frontier:
                    break
                u, v = rng.choice(frontier)
                cap[(u, v)] -= 1
                seen.add(v)
                pairs.append((u, v))
            if not need <= seen:
                break
            pairs_per_tree.append(pairs)
        else:
            keyed = _keyed(G, pairs_per_tree)
            return [Tree(r, tuple(a), _height(r, a)) for r, a in zip(roots, keyed, strict=True)]
    raise AssertionError(f"no disjoint trees found for roots {roots}")


def packing(G: nx.MultiDiGraph, sets: list[list[Tree]], direction: str = "out") -> TreePacking:
    """A TreePacking of out-trees (``direction="in"`` reverses every arc)."""
    if direction == "in":
        sets = [[Tree(t.root, tuple((v, u, k) for u, v, k in t.arcs), t.height) for t in s]
                for s in sets]  # fmt: skip
    return TreePacking(
        topology=G.graph["spec"],
        direction=direction,
        status="feasible",
        sets=tuple(TreeSet(tuple(s)) for s in sets),
        method="test",
    )


def rank_sets(G: nx.MultiDiGraph, size: int, *, seed: int = 0) -> list[list[Tree]]:
    """One tree per compute chiplet, in sets of ``size`` consecutive ids (greedy BFS trees)."""
    ranks = compute_nodes(G)
    groups = [ranks[i : i + size] for i in range(0, len(ranks), size)]
    return [greedy_trees(G, g, seed=seed + i) for i, g in enumerate(groups)]


@st.composite
def shared_trees(draw: st.DrawFn) -> list[Tree]:
    """Random spanning trees of a few nodes over two parallel arcs per node pair."""
    n = draw(st.integers(2, 7))
    trees = []
    for _ in range(draw(st.integers(1, 8))):
        order = draw(st.permutations(range(n)))
        arcs = []
        for i, v in enumerate(order[1:], 1):
            u = order[draw(st.integers(0, i - 1))]
            arcs.append((u, v, draw(st.integers(0, 1))))
        trees.append(Tree(order[0], tuple(arcs), n))
    return trees
