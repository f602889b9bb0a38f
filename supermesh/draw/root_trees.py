"""Draw the trees one rank roots in a weighted packing, one panel each, with share and height.

A throughput packing (:func:`supermesh.trees.throughput.pack.pack_throughput`) splits each root's
data over several trees; :func:`draw_root_trees` draws one rank's trees, largest share first, with
identical trees (equal-part packings repeat them) drawn once with their shares added.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
from matplotlib.figure import Figure, FigureBase

from supermesh.draw.link_load import check_packing
from supermesh.draw.trees import draw_trees
from supermesh.errors import SupermeshError, TopologyError
from supermesh.topologies.model import Arc
from supermesh.trees.model import Tree, TreePacking
from supermesh.trees.throughput.rates import root_shares

__all__ = ["draw_root_trees"]


def _share_text(share: Fraction) -> str:
    exact = f"{share} = " if share.denominator <= 999 and share.denominator > 1 else ""
    return f"{exact}{float(share):.1%}"


def draw_root_trees(
    G: nx.MultiDiGraph,
    packing: TreePacking,
    root: int,
    fig: FigureBase | None = None,
    *,
    merge: bool = True,
    max_panels: int | None = 8,
    ncols: int = 4,
    labels: bool = True,
    legend: bool = True,
    title: str | None = None,
) -> Figure:
    """All the trees one rank roots, one panel each, titled with share and height.

    Trees are drawn by :func:`~supermesh.draw.trees.draw_trees`, largest share first.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    packing : TreePacking
    root : int
        The rank whose trees are drawn.
    fig : matplotlib Figure or SubFigure, optional
        An empty (sub)figure to draw into.
    merge : bool
        Draw identical trees once with their shares added (equal-part packings repeat trees).
    max_panels : int or None
        Draw at most this many trees (the largest shares); None draws all.
    ncols : int
        Panels per row.
    labels, legend : bool
        As in :func:`~supermesh.draw.trees.draw_trees`.
    title : str, optional
        Defaults to the topology, the root and its number of trees.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SupermeshError
        Not a packing, bad shares, or ``max_panels`` below 1.
    TopologyError
        ``root`` roots no tree of the packing, or a tree arc the topology lacks.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.throughput.pack import pack_throughput
    >>> G = build("mesh:3x3")
    >>> fig = draw_root_trees(G, pack_throughput(G), 0)
    >>> [ax.get_title() for ax in fig.axes]
    ['share 1/2 = 50.0%, height 4', 'share 1/2 = 50.0%, height 4']
    """
    check_packing(G, packing)
    shares = root_shares(packing)
    mine: dict[tuple[Arc, ...], tuple[Tree, Fraction, int]] = {}
    for i, (tree, share) in enumerate(zip(packing.trees, shares, strict=True)):
        if tree.root != root:
            continue
        key = tree.arcs if merge else (*tree.arcs, (-1, -1, i))
        old = mine.get(key)
        mine[key] = (tree, share + (old[1] if old else 0), (old[2] if old else 0) + 1)
    if not mine:
        roots = sorted({t.root for t in packing.trees})
        raise TopologyError(
            f"chiplet {root!r} roots no tree of this packing",
            hint=f"roots are {roots[0]}..{roots[-1]}" if roots else None,
        )
    items = sorted(mine.values(), key=lambda x: (-x[1], x[0].arcs))
    trees = [Tree(t.root, t.arcs, t.height, float(s)) for t, s, _ in items]
    titles = [
        f"share {_share_text(s)}, height {t.height}" + (f" (×{c})" if c > 1 else "")
        for t, s, c in items
    ]
    if max_panels is not None and not (
        isinstance(max_panels, int) and not isinstance(max_panels, bool) and max_panels >= 1
    ):
        raise SupermeshError(
            f"max_panels must be a positive integer, got {max_panels!r}",
            hint="e.g. max_panels=8 (or None to draw every tree)",
        )
    shown = len(items) if max_panels is None else min(max_panels, len(items))
    count = sum(c for _, _, c in items)
    if title is None:
        copies = f" ({len(items)} distinct)" if len(items) < count else ""
        which = "the tree" if count == 1 else f"the {count} trees"
        title = f"{G.graph.get('name', '')}: {which} of chiplet {root}{copies}"
    return draw_trees(
        G,
        trees,
        fig,
        direction=packing.direction,
        ncols=ncols,
        labels=labels,
        legend=legend,
        title=title,
        titles=titles[:shown],
        max_panels=shown,
    )
