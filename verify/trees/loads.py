"""The arc loads of a weighted packing and the rate its shares allow, in exact fractions.

A rank's trees split its data by their ``share``; at algorithm bandwidth ``rho`` (in links) a
tree of share ``s`` sends ``s rho / n`` link units over each of its arcs (``n`` ranks), so the
fastest rate the shares allow is ``min over loaded arcs of n bandwidth / load``, ``load`` the sum
of the shares of the trees using the arc (parallel arcs separately). :func:`rate_report`
recounts it; :mod:`supermesh.verify.trees.rates` holds a packing's claims to it.

Shares are read exactly from ``stats["shares"]`` (fraction strings, one per tree in file order)
when present, else from each tree's ``share`` as written.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import networkx as nx

from supermesh.trees.model import Tree, TreePacking
from supermesh.verify.trees.arborescence import span_nodes

__all__ = ["RateReport", "arc_bandwidth", "exact_fraction", "rate_report"]

Arc = tuple[int, int, int]


def exact_fraction(value: Any) -> Fraction | None:
    """A number or a fraction string as an exact :class:`~fractions.Fraction` (None if neither).

    Parameters
    ----------
    value : object
        A number or a fraction string such as ``"8/3"``.

    Returns
    -------
    Fraction or None

    Examples
    --------
    >>> exact_fraction("8/3"), exact_fraction(0.5), exact_fraction(True), exact_fraction("x")
    (Fraction(8, 3), Fraction(1, 2), None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        x = Fraction(str(value))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return x


def arc_bandwidth(G: nx.MultiDiGraph, a: Arc) -> Fraction:
    """The bandwidth of arc ``a`` as a fraction (1 when unset, 0 when not a number).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    a : (int, int, int)
        An arc of ``G``.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> arc_bandwidth(build("mesh:2x2,bandwidth=0.5"), (0, 1, 0))
    Fraction(1, 2)
    """
    return exact_fraction(G.edges[a].get("bandwidth", 1.0)) or Fraction(0)


@dataclass(frozen=True)
class RateReport:
    """What the shares of a weighted packing allow.

    Attributes
    ----------
    ranks : int
        ``n``: the span nodes (default the compute chiplets).
    shares : tuple of Fraction
        One per tree, in file order (exact, or the floats read as written).
    exact : bool
        Whether the shares came from exact fractions (``stats["shares"]``).
    loads : dict
        Arc -> the sum of the shares of the trees using it.
    rate : Fraction or None
        ``min over loaded arcs of n bandwidth / load`` (links); None when no arc is loaded.
    busiest : tuple of Arc
        The arcs attaining ``rate``.
    claimed : Fraction or None
        ``stats["algbw_links"]`` when it is a fraction.

    Examples
    --------
    >>> from fractions import Fraction
    >>> r = RateReport(4, (Fraction(1, 2), Fraction(1, 2)), True, rate=Fraction(8, 3))
    >>> r.to_json()["rate"], r.to_json()["exact_shares"]
    ('8/3', True)
    """

    ranks: int
    shares: tuple[Fraction, ...]
    exact: bool
    loads: dict[Arc, Fraction] = field(default_factory=dict)
    rate: Fraction | None = None
    busiest: tuple[Arc, ...] = ()
    claimed: Fraction | None = None

    def to_json(self) -> dict[str, Any]:
        """``ranks``, ``rate`` and ``claimed`` (fraction strings), ``busiest`` arcs, ``exact``."""
        return {
            "ranks": self.ranks,
            "rate": None if self.rate is None else str(self.rate),
            "rate_float": None if self.rate is None else float(self.rate),
            "claimed": None if self.claimed is None else str(self.claimed),
            "busiest": [list(a) for a in self.busiest],
            "exact_shares": self.exact,
        }


def _shares(packing: TreePacking, trees: Sequence[Tree]) -> tuple[list[Fraction], bool]:
    raw = packing.stats.get("shares")
    if isinstance(raw, list) and len(raw) == len(trees):
        exact = [exact_fraction(x) for x in raw]
        if all(x is not None for x in exact):
            return [x for x in exact if x is not None], True
    return [exact_fraction(repr(float(t.share))) or Fraction(0) for t in trees], False


def rate_report(G: nx.MultiDiGraph, packing: TreePacking) -> RateReport:
    """Recount the arc loads of a weighted packing and the rate its shares allow, exactly.

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    packing : TreePacking
        A weighted packing.

    Returns
    -------
    RateReport

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.model import TreeSet
    >>> G = build("mesh:2x2")  # ranks 0 and 1 only (span); one link each way
    >>> a, b = Tree(0, ((0, 1, 0),), 1, share=0.5), Tree(1, ((1, 0, 0),), 1, share=1.0)
    >>> p = TreePacking("mesh:2x2", "out", "feasible", (TreeSet((a, a, b)),), span=(0, 1))
    >>> r = rate_report(G, p)  # 0->1 carries 1/2 + 1/2 of rank 0's data: rho = 2 * 1 / 1
    >>> r.rate, r.loads[(0, 1, 0)]
    (Fraction(2, 1), Fraction(1, 1))
    """
    trees = packing.trees
    shares, exact = _shares(packing, trees)
    loads: dict[Arc, Fraction] = defaultdict(Fraction)
    for t, s in zip(trees, shares, strict=True):
        for a in set(t.arcs):
            if a[0] in G and a[1] in G and G.has_edge(*a):
                loads[a] += s
    n = len(span_nodes(G, packing.span))
    limits = {a: n * arc_bandwidth(G, a) / x for a, x in loads.items() if x > 0} if n else {}
    rate = min(limits.values()) if limits else None
    busiest = tuple(sorted(a for a, v in limits.items() if v == rate))
    claimed = (
        exact_fraction(packing.stats.get("algbw_links")) if "algbw_links" in packing.stats else None
    )
    return RateReport(n, tuple(shares), exact, dict(loads), rate, busiest, claimed)
