"""Greedy breadth-first growth of arc-disjoint arborescences, optionally keeping Edmonds' condition.

The trees grow round-robin, one node per turn, each from its shallowest frontier arc (so every
tree stays close to a BFS tree and its height close to its root's eccentricity).

Without checks this is a fast heuristic that can get stuck. With ``checked=True`` it is
Lovász's constructive proof of Edmonds' theorem: before tree ``i`` takes a free arc ``u -> v``,
the remaining arcs must still admit the rest, which only sets ``X`` holding ``v`` can break, so
it suffices that ``k - 1`` arc-disjoint free paths lead into ``v`` from the other trees (one from
each). That is at most ``k - 1`` augmenting-path searches, each started at ``v`` and stopped at the
first tree node it meets. Lovász showed that some arc out of every unfinished tree passes, so the
checked growth always spans every node when the roots satisfy Edmonds' condition on all nodes.

References
----------
.. [1] L. Lovász, "On two minimax theorems in graph", J. Combin. Theory B 21, 1976.
.. [2] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Collection, Sequence

from supermesh.trees.bounds.heights import WorkingNetwork, bfs_distances

__all__ = ["greedy_parents", "prune_relays"]

Parents = dict[int, int]


class _Growth:
    """Mutable state of one greedy run: free capacities and the partial trees."""

    def __init__(
        self, net: WorkingNetwork, roots: Sequence[int], budget: int | None = None
    ) -> None:
        self.net = net
        self.budget = budget
        self.roots = list(roots)
        self.free = dict(net.capacity)
        self.depth: list[dict[int, int]] = [{r: 0} for r in roots]
        self.parents: list[Parents] = [{} for _ in roots]
        self.holders: dict[int, set[int]] = {}
        for t, r in enumerate(roots):
            self.holders.setdefault(r, set()).add(t)

    def attach(self, t: int, u: int, v: int) -> None:
        self.free[(u, v)] -= 1
        self.parents[t][v] = u
        self.depth[t][v] = self.depth[t][u] + 1
        self.holders.setdefault(v, set()).add(t)

    def safe(self, t: int, u: int, v: int) -> bool:
        """Whether tree ``t`` may take ``u -> v`` and all trees still complete (Lovász)."""
        self.free[(u, v)] -= 1
        try:
            return self._paths_into(v, {j for j in range(len(self.roots)) if j != t})
        finally:
            self.free[(u, v)] += 1

    def _paths_into(self, v: int, tokens: set[int]) -> bool:
        """Arc-disjoint free paths into ``v``, one from each tree in ``tokens``."""
        feeds: dict[int, int] = {}  # tree -> node its path starts at
        for j in sorted(tokens & self.holders.get(v, set())):
            feeds[j] = v
        flow: dict[tuple[int, int], int] = {}
        for _ in range(len(tokens) - len(feeds)):
            found = self._augment(v, tokens, feeds, flow)
            if found is None:
                return True
            if not found:
                return False
        return True

    def _augment(
        self,
        v: int,
        tokens: set[int],
        feeds: dict[int, int],
        flow: dict[tuple[int, int], int],
    ) -> bool | None:
        # Backward BFS in the residual graph; tree j is the super node -1 - j.
        link: dict[int, tuple[int, tuple[int, int] | None, int]] = {}
        seen = {v}
        queue = deque([v])
        free, net = self.free, self.net
        expanded = 0
        while queue:
            x = queue.popleft()
            expanded += 1
            if self.budget is not None and expanded > self.budget:
                return None  # gave up: the caller takes the arc as safe (see greedy_parents)
            steps: list[tuple[int, tuple[int, int] | None, int]] = []
            if x >= 0:
                for j in self.holders.get(x, ()):
                    if j in tokens:
                        steps.append((-1 - j, None, 0))
                for w in net.pred[x]:
                    if free[(w, x)] - flow.get((w, x), 0) > 0:
                        steps.append((w, (w, x), 1))
                for w in net.succ[x]:
                    if flow.get((x, w), 0) > 0:
                        steps.append((w, (x, w), -1))
            else:
                j = -1 - x
                if j not in feeds:
                    self._apply(x, link, v, flow, feeds)
                    return True
                steps.append((feeds[j], None, 0))
            for w, arc, sign in steps:
                if w in seen:
                    continue
                seen.add(w)
                link[w] = (x, arc, sign)
                queue.append(w)
        return False

    def _apply(
        self,
        end: int,
        link: dict[int, tuple[int, tuple[int, int] | None, int]],
        v: int,
        flow: dict[tuple[int, int], int],
        feeds: dict[int, int],
    ) -> None:
        x = end
        while x != v:
            nxt, arc, sign = link[x]
            if arc is not None:
                flow[arc] = flow.get(arc, 0) + sign
            elif x < 0:
                feeds[-1 - x] = nxt  # tree -1-x now feeds the path at nxt
            x = nxt


def greedy_parents(
    net: WorkingNetwork,
    roots: Sequence[int],
    span: Collection[int],
    *,
    checked: bool = False,
    budget: int | None = None,
) -> list[Parents] | None:
    """Grow one arborescence per root, breadth-first and round-robin.

    Each turn a tree takes its best frontier arc ``u -> v``, ranked by: the depth ``v`` would
    get; span nodes before relays; arcs on fewer other trees' shortest paths (so each tree keeps
    to arcs the others do not need); arcs not on the previous tree's shortest paths (with roots
    in clockwise order this gives each tree its own direction, as the SMBi combs do); parallel
    copies left; node ids.

    Parameters
    ----------
    net : WorkingNetwork
        The oriented topology (in-trees: reversed).
    roots : sequence of int
        One root per tree.
    span : collection of int
        Nodes every tree must reach; other nodes may relay (they are attached when met and pruned
        at the end if they lead nowhere).
    checked : bool
        Keep Edmonds' condition before every arc (Lovász); then ``span`` should be every node.
    budget : int, optional
        With ``checked``: nodes one augmenting-path search may expand before it gives up and
        takes the arc as safe. Arcs that break the condition are caught by small searches in
        practice (the violated sets found on SMAlter hold 4-5 nodes), so a small budget keeps
        the check local; if the growth then gets stuck, rerun without a budget (exact).

    Returns
    -------
    list of dict or None
        One parent map (child -> parent, working orientation) per tree, or ``None`` when some
        tree got stuck.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.bounds.heights import working_network
    >>> net = working_network(build("smalter:4x4"))
    >>> trees = greedy_parents(net, [1, 7, 14, 8], range(16), checked=True)
    >>> [len(p) for p in trees]
    [15, 15, 15, 15]
    """
    state = _Growth(net, roots, budget)
    k = len(roots)
    targets = set(span)
    missing = [len(targets - {r}) for r in roots]
    heaps: list[list[tuple[int, bool, int, bool, int, int, int]]] = [[] for _ in range(k)]

    dist = [bfs_distances(net, r) for r in roots]

    def push(t: int, u: int) -> None:
        d = state.depth[t][u] + 1
        for v in net.succ[u]:
            if v not in state.depth[t] and state.free[(u, v)] > 0:
                rivals = sum(
                    1 for j in range(k) if j != t and dist[j].get(v, -1) == dist[j].get(u, -3) + 1
                )
                prev = (t - 1) % k
                owned = prev != t and dist[prev].get(v, -1) == dist[prev].get(u, -3) + 1
                heapq.heappush(
                    heaps[t], (d, v not in targets, rivals, owned, -state.free[(u, v)], v, u)
                )

    for t, r in enumerate(roots):
        push(t, r)
    active = [t for t in range(k) if missing[t] > 0]
    while active:
        for t in list(active):
            deferred = []
            taken = False
            while heaps[t]:
                item = heapq.heappop(heaps[t])
                v, u = item[-2:]
                if v in state.depth[t] or state.free[(u, v)] <= 0:
                    continue
                if checked and not state.safe(t, u, v):
                    deferred.append(item)
                    continue
                state.attach(t, u, v)
                push(t, v)
                missing[t] -= v in targets
                taken = True
                break
            for item in deferred:
                heapq.heappush(heaps[t], item)
            if not taken:
                return None
            if missing[t] == 0:
                active.remove(t)
    return [prune_relays(p, targets) for p in state.parents]


def prune_relays(parents: Parents, span: Collection[int]) -> Parents:
    """Drop non-span leaves repeatedly (relays that lead to no span node).

    Examples
    --------
    >>> prune_relays({1: 0, 2: 1, 3: 0}, span={1})
    {1: 0}
    """
    children: dict[int, int] = {}
    for p in parents.values():
        children[p] = children.get(p, 0) + 1
    keep = dict(parents)
    stack = [v for v in parents if v not in span and children.get(v, 0) == 0]
    while stack:
        v = stack.pop()
        p = keep.pop(v)
        children[p] -= 1
        if children[p] == 0 and p in keep and p not in span:
            stack.append(p)
    return keep
