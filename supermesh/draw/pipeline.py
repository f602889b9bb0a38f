"""The pipeline over time: a Gantt chart of chunk transfers per link (the paper's figure 7).

:func:`pipeline_timeline` runs the simulator's program for a tree collective with every start time
kept and labels each transfer with its tree, set and chunk; :func:`draw_pipeline` draws one row
per link and one bar per chunk transfer, coloured by tree (or by set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import networkx as nx
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import EngFormatter

from supermesh.draw.common import lighten, new_figure, tree_color
from supermesh.errors import SupermeshError
from supermesh.sim.collectives import check_collective, tree_program
from supermesh.sim.engine.timing import run_program
from supermesh.sim.presets import SimParams, get_preset
from supermesh.topologies.model import Arc
from supermesh.trees.model import Tree, TreePacking, TreeSet
from supermesh.trees.oriented import OrientedTree, orient

__all__ = ["Timeline", "Transfer", "draw_pipeline", "pipeline_timeline"]

TreeSets = TreePacking | Sequence[TreeSet] | Sequence[Sequence[Tree]]


@dataclass(frozen=True)
class Transfer:
    """One chunk crossing one link.

    Attributes
    ----------
    phase : str
        ``reduce`` or ``forward`` (broadcast direction).
    set, tree : int
        Set index and tree index (counted over all sets), from 0.
    root : int
        The tree's root.
    arc : (src, dst, key)
        The link, in the direction the data travel.
    depth : int
        Depth in the tree of the arc's lower end (1 for the arcs at the root).
    chunk : int
        Chunk number, from 0.
    start, end : float
        When the transfer takes the link and when the receiver has the chunk (internal unit).
    """

    phase: str
    set: int
    tree: int
    root: int
    arc: Arc
    depth: int
    chunk: int
    start: float
    end: float


@dataclass(frozen=True)
class Timeline:
    """Every transfer of a simulated tree collective, with what is needed to label a plot."""

    transfers: tuple[Transfer, ...]
    topology: str
    collective: str
    unit: str
    end: float
    roots: tuple[int, ...]

    @property
    def arcs(self) -> list[Arc]:
        """Links used, by first start time."""
        first: dict[Arc, float] = {}
        for t in self.transfers:
            first[t.arc] = min(first.get(t.arc, t.start), t.start)
        return sorted(first, key=lambda a: (first[a], a))


def _oriented_sets(trees: TreeSets, direction: str) -> list[list[OrientedTree]]:
    """The sets as the simulator sees them (parent -> child arcs, empty sets dropped)."""
    groups: list[TreeSet | Sequence[Tree]]
    if isinstance(trees, TreePacking):
        direction, groups = trees.direction, list(trees.sets)
    else:
        groups = list(trees)
    sets = []
    for s in groups:
        members = s.trees if isinstance(s, TreeSet) else s
        sets.append([orient(t, direction) for t in members])
    return [s for s in sets if s]


def pipeline_timeline(
    G: nx.MultiDiGraph,
    trees: TreeSets,
    collective: str = "allgather",
    nbytes: int | None = None,
    *,
    chunks: int | None = None,
    params: SimParams | None = None,
    direction: str = "out",
) -> Timeline:
    """Start and end of every chunk transfer of a pipelined tree collective.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    trees : TreePacking, or sequence of TreeSet / of lists of Tree
        The sets, run one after another in the shared link FIFOs.
    collective : str
        Any of :data:`supermesh.sim.COLLECTIVES`.
    nbytes : int, optional
        Collective size in bytes; or give ``chunks``.
    chunks : int, optional
        Chunks per tree (the size is chosen to give exactly this many).
    params : SimParams, optional
        Default: the ``booksim`` preset.
    direction : {"out", "in"}
        Orientation of the trees when not given as a TreePacking.

    Returns
    -------
    Timeline

    Raises
    ------
    SupermeshError
        Neither or both of ``nbytes`` and ``chunks``; a set whose trees share an arc.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> tl = pipeline_timeline(G, [[t]], "broadcast", chunks=2)
    >>> [(x.arc, x.chunk, x.start, x.end) for x in tl.transfers]
    [((0, 1, 0), 0, 0.0, 1031.0), ((0, 1, 0), 1, 1032.0, 2063.0), ((1, 3, 0), 0, 1031.5, 2062.5), \
((1, 3, 0), 1, 2063.5, 3094.5)]
    """
    params = params or get_preset("booksim")
    collective = check_collective(collective)
    sets = _oriented_sets(trees, direction)
    if chunks is not None and nbytes is None:
        if chunks < 1:
            raise SupermeshError(f"chunks {chunks} must be at least 1", hint="e.g. chunks=4")
        per_root = collective in ("reducescatter", "allgather")
        nroots = len({t.root for s in sets for t in s})
        parts = nroots if per_root else sum(len(s) for s in sets)
        nbytes = chunks * params.chunk_bytes * max(parts, 1)
    elif nbytes is None or chunks is not None:
        raise SupermeshError(
            "give exactly one of nbytes and chunks", hint="e.g. chunks=4 (chunks per tree)"
        )
    program = tree_program(G, trees, collective, nbytes, params, direction=direction)
    timing = run_program(program, keep_starts=True)
    owner: dict[tuple[str, int, Arc], tuple[int, int, int]] = {}
    index = 0
    for g, members in enumerate(sets):
        for t in members:
            for u, v, k in t.parent.values():
                for kind, arc in (("forward", (u, v, k)), ("reduce", (v, u, k))):
                    if (kind, g, arc) in owner:
                        raise SupermeshError(
                            f"two trees of set {g} use arc {arc}",
                            hint="the trees of a set must be arc-disjoint",
                        )
                    owner[kind, g, arc] = (index, t.root, t.depth[v])
            index += 1
    out = []
    for phase, pt in zip(program.phases, timing.phases, strict=True):
        kind = "reduce" if phase.label == "reduce" else "forward"
        starts = pt.starts or []
        for b in range(phase.size):
            arc = program.arcs[int(phase.arc[b])]
            g = int(phase.group[b])
            tree, root, depth = owner[kind, g, arc]
            duration = float(phase.duration[b])
            for c, s in enumerate(np.asarray(starts[b], dtype=float).tolist()):
                out.append(Transfer(kind, g, tree, root, arc, depth, c, s, s + duration))
    out.sort(key=lambda x: (x.arc, x.start))
    return Timeline(
        transfers=tuple(out),
        topology=str(G.graph.get("name", G.graph.get("spec", ""))),
        collective=collective,
        unit=params.unit,
        end=timing.end,
        roots=tuple(t.root for s in sets for t in s),
    )


def _arc_label(arc: Arc) -> str:
    u, v, k = arc
    return f"{u}→{v}" + (f" #{k}" if k else "")


def draw_pipeline(
    timeline: Timeline,
    ax: Axes | None = None,
    *,
    links: Sequence[Arc] | None = None,
    of_tree: int | None = None,
    max_links: int = 24,
    color_by: str | None = None,
    title: str | None = None,
) -> Figure:
    """Gantt chart: one row per link, one bar per chunk transfer; return the Figure.

    Parameters
    ----------
    timeline : Timeline
        From :func:`pipeline_timeline`.
    ax : matplotlib Axes, optional
    links : sequence of arcs, optional
        The rows, top to bottom; default: every link used, by first use (at most
        ``max_links``).
    of_tree : int, optional
        Instead of ``links``: the arcs of this tree (index over all sets), by depth.
    max_links : int
        Most rows drawn when ``links`` is not given.
    color_by : {"tree", "set"}, optional
        Bar colour; default by tree when there are at most 9 trees, else by set.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars of one colour are one ``PolyCollection``; chunk numbers (from 1) are written in the
        bars wide enough to hold them.

    Raises
    ------
    SupermeshError
        An unknown ``color_by``, a tree index out of range, or a link with no transfer.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = build("mesh:2x2")
    >>> t = Tree(root=0, arcs=((0, 1, 0), (1, 3, 0)), height=2)
    >>> fig = draw_pipeline(pipeline_timeline(G, [[t]], "broadcast", chunks=3))
    >>> len(fig.axes[0].collections[0].get_paths())  # 2 links x 3 chunks
    6
    """
    ntrees = len(timeline.roots)
    mode = color_by or ("tree" if ntrees <= 9 else "set")
    if mode not in ("tree", "set"):
        raise SupermeshError(f"color_by {color_by!r} is not 'tree' or 'set'")
    if of_tree is not None:
        if not 0 <= of_tree < ntrees:
            raise SupermeshError(f"tree {of_tree} is out of range 0..{ntrees - 1}")
        mine = {(t.depth, t.arc) for t in timeline.transfers if t.tree == of_tree}
        rows = [a for _, a in sorted(mine)]
        note = f"links of tree {of_tree} (root {timeline.roots[of_tree]}), by depth"
    elif links is not None:
        rows = [(int(a[0]), int(a[1]), int(a[2])) for a in links]
        note = ""
    else:
        used = timeline.arcs
        rows = used[:max_links]
        note = f"first {len(rows)} of {len(used)} links" if len(used) > len(rows) else ""
    if not rows:
        raise SupermeshError("no links to draw", hint="the timeline has no transfers")
    row_of = {a: i for i, a in enumerate(rows)}
    missing = [a for a in rows if not any(t.arc == a for t in timeline.transfers)]
    if missing:
        raise SupermeshError(f"no transfer uses link {_arc_label(missing[0])}")
    if ax is None:
        fig, ax = new_figure(8.0, 0.9 + 0.26 * len(rows))
    else:
        fig = cast(Figure, ax.get_figure(root=True))
    bars: dict[tuple[int, bool], list[np.ndarray]] = {}
    shown = [t for t in timeline.transfers if t.arc in row_of]
    for t in shown:
        y, h = row_of[t.arc], 0.36
        key = t.tree if mode == "tree" else t.set
        faded = of_tree is not None and t.tree != of_tree
        box = np.array([[t.start, y - h], [t.end, y - h], [t.end, y + h], [t.start, y + h]])
        bars.setdefault((key, faded), []).append(box)
    handles = []
    for key, faded in sorted(bars):
        color = lighten(tree_color(key), 0.55) if faded else tree_color(key)
        coll = PolyCollection(
            bars[key, faded], facecolors=[color], edgecolors="white", linewidths=0.6
        )
        coll.set_gid(f"{mode}-{key}" + ("-other" if faded else ""))
        ax.add_collection(coll, autolim=True)
        if (key, False) in bars and faded:
            continue
        label = f"set {key}" if mode == "set" else f"tree {key} (root {timeline.roots[key]})"
        if mode == "set" and of_tree is not None and not faded:
            label += f": tree {of_tree}"
        handles.append(Patch(facecolor=color, label=label))
    if of_tree is not None and any(faded for _, faded in bars):
        handles.append(Patch(facecolor="#d0d0d0", label="other trees: paler"))
    span = max(t.end for t in shown) - min(t.start for t in shown)
    for t in shown:
        if (t.end - t.start) / max(span, 1e-12) > 0.018:
            pale = of_tree is not None and t.tree != of_tree
            ax.text(
                (t.start + t.end) / 2,
                row_of[t.arc],
                str(t.chunk + 1),
                ha="center",
                va="center",
                fontsize=6.5,
                color="#404040" if pale else "white",
                weight="bold",
            ).set_gid("chunk")
    phases = sorted({(t.phase, t.start) for t in timeline.transfers if t.phase == "forward"})
    if any(t.phase == "reduce" for t in timeline.transfers) and phases:
        ax.axvline(phases[0][1], color="#404040", lw=1, ls="--")
        ax.text(phases[0][1], -0.97, " all-gather starts", fontsize=7, va="top", ha="left")
    ax.set_yticks(range(len(rows)), [_arc_label(a) for a in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.4, -1.0)
    ax.autoscale(axis="x")
    ax.set_xlim(left=0)
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    unit = timeline.unit
    ax.set_xlabel(f"time ({unit}s)" if not unit.endswith("s") else f"time ({unit})")
    ax.set_ylabel("link (sender→receiver)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=False,
        fontsize=8,
        title="bar = one chunk (number)",
        title_fontsize=8,
        borderaxespad=0.0,
    )
    head = title if title is not None else f"{timeline.topology}: pipelined {timeline.collective}"
    ax.set_title(head + (f"\n{note}" if note else ""), fontsize=10)
    return fig
