"""Which trees a named algorithm uses for a collective: one :class:`TreePacking` with every set.

The one place the rules are stated and applied (the simulator, ``supermesh schedule`` and
``supermesh report`` all ask here); the pipeline, paper and TTO rules run in
:mod:`~supermesh.trees.schedule.rules`, the throughput rule in :func:`throughput_packing`.

========== ==================================================================================
algorithm  trees
========== ==================================================================================
pipeline   height-optimal arc-disjoint trees (:func:`~supermesh.trees.packing.search.pack_trees`).
           AllReduce: one set on ``roots`` (default the 4 corners; off grids the most distinct
           roots :func:`~supermesh.trees.bounds.free.max_trees_free` proves fit); without
           ``roots``, where 4 corner trees cannot exist (the mesh: Edmonds' cut at a 2-link corner),
           TTO's 3 corner trees with the fourth corner relaying
           (:func:`~supermesh.trees.packing.baselines.tto`). ReduceScatter / AllGather: one tree per
           chiplet, in the root sets of :func:`~supermesh.trees.roots.sets.root_sets` (partition and
           running order optimised), or the sets given as ``"0,5,10,15;1,6,11,12;..."``. Broadcast /
           Reduce: as many trees from the root (default the first corner; off grids the first of
           those roots) as :func:`~supermesh.trees.bounds.counts.max_trees_from_root` proves fit
           (Edmonds).
tto        TTO's three corner trees (AllReduce only; Laskar et al., HPCA 2024)
throughput ReduceScatter / AllGather / AllReduce (= ReduceScatter then AllGather on the same
           trees): every chiplet roots several trees carrying equal shares of its data, all
           running at once, at the exact cut-bound rate with the smallest heights
           (:func:`~supermesh.trees.throughput.pack.pack_throughput`: a construction on the mesh
           and SMBi, column generation elsewhere; Zhao et al., ForestColl, 2024). In-trees for
           ReduceScatter, out-trees otherwise. The part count ``K`` (trees per chiplet) suits
           ``nbytes`` (:func:`throughput_packing`, multiples of the construction's count where
           one applies); without a size ``parts="auto"``. Not for Broadcast / Reduce.
paper      the SuperMesh paper's Algorithm 1
(:func:`~supermesh.trees.packing.baselines.algorithm1`).
           AllReduce: on ``roots``. ReduceScatter / AllGather: the paper's root order (one root
           per side, outside in: :func:`~supermesh.trees.roots.paper.paper_root_sets`; rank
           order off grids) in sets of 4, or fewer where 4 do not fit. Broadcast / Reduce: the
           Edmonds count from the root, fewer where the procedure gets stuck. A set on which the
           procedure gets stuck is packed optimally instead (not for AllReduce).
========== ==================================================================================

Status of the result: ``optimal`` only when every set is proven optimal (for root sets: also the
partition, see :func:`~supermesh.trees.roots.sets.root_sets`); ``lower_bound`` is the largest proven
set bound, ``objective`` the tallest tree. ``stats["rule"]`` says which rule chose the trees.

References
----------
.. [1] S. Laskar et al., "SuperMesh: Energy-Efficient Collective Communications for
   Accelerators", MICRO 2025 (Algorithm 1; corner AllReduce trees; section 4.2 root sets).
.. [2] S. Laskar et al., "Enhancing Collective Communication in MCM Accelerators for Deep
   Learning Training", HPCA 2024 (TTO).
.. [3] J. Edmonds, "Edge-disjoint branchings", Combinatorial Algorithms, 1973.
.. [4] L. Zhao et al., "ForestColl: Throughput-Optimal Collective Communications on Heterogeneous
   Network Fabrics", arXiv:2402.06787, 2024.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from fractions import Fraction

import networkx as nx

from supermesh.errors import SpecError
from supermesh.trees.model import TreePacking
from supermesh.trees.schedule.model import COLLECTIVES
from supermesh.trees.schedule.rules import (
    allreduce_trees,
    every_rank_trees,
    one_root_trees,
    with_rule,
)

__all__ = [
    "COLLECTIVE_ALGORITHMS",
    "collective_trees",
    "natural_direction",
    "one_way_arc",
    "phase_packings",
    "reversible",
    "throughput_packing",
]

COLLECTIVE_ALGORITHMS = ("pipeline", "paper", "tto", "throughput")
PART_COUNTS = (1, 2, 3, 4, 6, 8, 12)
"""Part counts (trees per chiplet) :func:`throughput_packing` chooses from."""


def natural_direction(collective: str) -> str:
    """The direction data flow in: ``in`` for ReduceScatter and Reduce, else ``out``.

    Examples
    --------
    >>> natural_direction("reducescatter"), natural_direction("allreduce")
    ('in', 'out')
    """
    return "in" if collective in ("reducescatter", "reduce") else "out"


def _check(collective: str, algorithm: str, direction: str | None) -> tuple[str, str]:
    name = str(collective).strip().lower().replace("-", "").replace("_", "")
    if name not in COLLECTIVES:
        raise SpecError(f"unknown collective {collective!r}", hint=f"use one of {COLLECTIVES}")
    if algorithm not in COLLECTIVE_ALGORITHMS:
        raise SpecError(
            f"{algorithm!r} is not a tree algorithm", hint=f"use one of {COLLECTIVE_ALGORITHMS}"
        )
    if algorithm == "tto" and name != "allreduce":
        raise SpecError("TTO is an AllReduce algorithm", hint="use --algorithm pipeline")
    if algorithm == "throughput" and name in ("broadcast", "reduce"):
        raise SpecError(
            f"the throughput packing is for ReduceScatter / AllGather / AllReduce, not {name}",
            hint="use --algorithm pipeline (as many trees from the root as Edmonds allows)",
        )
    direction = direction or natural_direction(name)
    if direction not in ("out", "in"):
        raise SpecError(f"unknown direction {direction!r}", hint="use 'out' or 'in'")
    return name, direction


def throughput_packing(
    G: nx.MultiDiGraph,
    direction: str = "out",
    *,
    nbytes: int | None = None,
    chunk_bytes: int = 12288,
    time_limit: float = 60.0,
    memo: MutableMapping[int, TreePacking] | None = None,
) -> TreePacking:
    """The throughput packing with the part count that suits a collective of ``nbytes``.

    Without ``nbytes``: ``pack_throughput(G, direction=direction, parts="auto")``. With it,
    ``K = choose_parts(bound, n, nbytes, chunk_bytes, loads=...)`` over :data:`PART_COUNTS`,
    with each count's busiest-link load estimated until its packing is built and the load it
    really reached is known; a packing whose load exceeds its estimate sends the choice round
    again (at most once per count, so the answer does not depend on what ``memo`` holds).

    Parameters
    ----------
    G : networkx.MultiDiGraph
    direction : {"out", "in"}
        Out-trees (AllGather, AllReduce) or in-trees (ReduceScatter).
    nbytes : int, optional
        Collective size in bytes.
    chunk_bytes : int
        Pipelining unit (both simulator presets: 12288).
    time_limit : float
        Seconds for the part split and the height proof of each packing.
    memo : mutable mapping, optional
        Packings by part count for this topology and direction, read and filled (a cache).

    Returns
    -------
    TreePacking
        ``method="colgen"``, one set with every tree; ``stats["rule"]`` names the choice.

    Raises
    ------
    SpecError
        Bad direction or size.
    TopologyError
        Fewer than two ranks, or ranks that cannot reach each other.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = throughput_packing(build("smbi:4x4"), nbytes=512 << 20)
    >>> p.stats["parts"]["parts"], p.stats["algbw_links"], p.objective
    (4, '64/15', 6)
    """
    from supermesh.topologies.model import compute_nodes
    from supermesh.trees.bounds.throughput import throughput_bound
    from supermesh.trees.schedule.fifo import streamed
    from supermesh.trees.throughput import construction_parts
    from supermesh.trees.throughput.pack import memoised_packing
    from supermesh.trees.throughput.rates import choose_parts, estimated_load

    if direction not in ("out", "in"):
        raise SpecError(f"unknown direction {direction!r}", hint="use 'out' or 'in'")
    memo = {} if memo is None else memo

    def packing(parts: int | str | None) -> TreePacking:
        return memoised_packing(G, memo, direction=direction, parts=parts, time_limit=time_limit)

    if nbytes is None:
        return with_rule(packing("auto"), "throughput, parts auto")
    if nbytes < 1 or chunk_bytes < 1:
        raise SpecError(f"collective size {nbytes} B and chunk {chunk_bytes} B must be positive")
    collective = "allgather" if direction == "out" else "reducescatter"
    n = len(compute_nodes(G))
    rho = throughput_bound(G, collective).value
    natural = construction_parts(G, direction)
    counts = PART_COUNTS if natural is None else [k for k in PART_COUNTS if k % natural == 0]
    if not counts:  # a construction with unequal shares and many parts: its exact shares,
        rule = f"throughput, exact shares in streams for {nbytes} B"  # each tree as streams
        return with_rule(streamed(packing(None), n, nbytes, chunk_bytes), rule)
    loads = {k: estimated_load(rho, n, k) for k in counts}
    built: set[int] = set()
    while True:
        k = choose_parts(rho, n, nbytes, chunk_bytes, loads=loads)
        p = packing(k)
        if k in built or "parts" not in p.stats:
            break
        built.add(k)
        reached = Fraction(p.stats["parts"]["max_load"])
        if reached <= loads[k]:
            loads[k] = reached
            break
        loads[k] = reached
    return with_rule(p, f"throughput, {k} parts for {nbytes} B", chosen_parts=k)


def collective_trees(
    G: nx.MultiDiGraph,
    collective: str,
    *,
    algorithm: str = "pipeline",
    roots: str | None = None,
    time_limit: float = 60.0,
    direction: str | None = None,
    fast: bool = False,
    nbytes: int | None = None,
    chunk_bytes: int = 12288,
) -> TreePacking:
    """The trees ``algorithm`` uses for ``collective`` on ``G`` (rules in the module docstring).

    Parameters
    ----------
    G : networkx.MultiDiGraph
        The topology.
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
    algorithm : {"pipeline", "paper", "tto", "throughput"}
    roots : str, optional
        AllReduce: the roots of its one set; Broadcast / Reduce: the first one is the root;
        ReduceScatter / AllGather: root sets separated by ``;``. Read by
        :func:`~supermesh.trees.rootspec.resolve_roots` (``corners``, ``sides``, ``0,3,12``).
    time_limit : float
        CP-SAT seconds per set (and for the root-set search).
    direction : {"out", "in"}, optional
        Default: the collective's own (:func:`natural_direction`). The simulator asks for
        out-trees and reverses them for reduce phases.
    fast : bool
        ReduceScatter / AllGather with ``pipeline``: :func:`~supermesh.trees.roots.sets.root_sets`'
        fast mode (for sweeps; same proofs, shorter search).
    nbytes : int, optional
        ``throughput``: the collective size, which sets the part count (see
        :func:`throughput_packing`); without it ``parts="auto"``. Other algorithms ignore it.
    chunk_bytes : int
        ``throughput``: the pipelining unit the part count is chosen for.

    Returns
    -------
    TreePacking
        Every set, in running order; status and bounds as in the module docstring.

    Raises
    ------
    SpecError
        Unknown collective, algorithm or direction; TTO for anything but AllReduce;
        ``throughput`` for Broadcast / Reduce or with ``roots``.
    InfeasibleError
        The given roots admit no trees (with Edmonds' certificate).
    SupermeshError
        The engine could not build the trees (e.g. a time limit too short).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> p = collective_trees(build("mesh:4x4"), "allreduce")
    >>> p.method, [t.root for t in p.sets[0].trees], p.stats["rule"]
    ('tto', [0, 15, 3], 'tto (no 4 corner trees)')
    >>> q = collective_trees(build("smbi:4x4"), "broadcast")
    >>> len(q.sets[0].trees), q.status
    (4, 'optimal')
    >>> t = collective_trees(build("mesh:4x4"), "allgather", algorithm="throughput")
    >>> t.method, t.stats["algbw_links"], t.stats["rule"]
    ('construct', '32/15', 'throughput, parts auto')
    """
    collective, direction = _check(collective, algorithm, direction)
    if algorithm == "throughput":
        if roots is not None:
            raise SpecError(
                "the throughput packing roots trees at every chiplet", hint="drop --roots"
            )
        return throughput_packing(
            G, direction, nbytes=nbytes, chunk_bytes=chunk_bytes, time_limit=time_limit
        )
    if collective == "allreduce":
        return allreduce_trees(G, algorithm, roots, direction, time_limit)
    if collective in ("broadcast", "reduce"):
        return one_root_trees(G, algorithm, roots, direction, time_limit)
    return every_rank_trees(G, algorithm, roots, direction, time_limit, fast)


def reversible(G: nx.MultiDiGraph) -> bool:
    """Whether every arc ``u -> v`` key ``k`` has its reverse ``v -> u`` key ``k``.

    Then an out-tree reversed arc by arc is an in-tree, and one packing serves both phases of a
    collective; on a one-way topology (SMUni) the reduce phases need in-trees of their own.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> reversible(build("smbi:4x4")), reversible(build("smuni:4x4"))
    (True, False)
    """
    return one_way_arc(G) is None


def one_way_arc(G: nx.MultiDiGraph) -> tuple[int, int, int] | None:
    """The first arc ``u -> v`` key ``k`` without its reverse ``v -> u`` key ``k``, or None.

    What an error names when a collective needs :func:`reversible` arcs.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> one_way_arc(build("smbi:4x4")) is None, one_way_arc(build("smuni:4x4"))
    (True, (0, 1, 1))
    """
    return next(((u, v, k) for u, v, k in G.edges(keys=True) if not G.has_edge(v, u, k)), None)


def phase_packings(
    G: nx.MultiDiGraph,
    collective: str,
    *,
    algorithm: str = "pipeline",
    roots: str | None = None,
    time_limit: float = 60.0,
    fast: bool = False,
    nbytes: int | None = None,
    chunk_bytes: int = 12288,
) -> list[TreePacking]:
    """The trees every phase of a collective runs on: one packing, or one per direction.

    Where every arc has its reverse (:func:`reversible`), one out-tree packing serves both
    phases (a reduce phase runs on its trees reversed). On a one-way topology the reduce phases
    get in-trees of their own: ReduceScatter and Reduce only those; AllReduce out-trees and
    in-trees on the same roots (TTO's own in-trees when the out-trees are TTO's), so that each
    root reduces the share it then broadcasts.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    collective : {"allreduce", "reducescatter", "allgather", "broadcast", "reduce"}
    algorithm : {"pipeline", "paper", "tto", "throughput"}
        ``throughput``: its one weighted packing (:func:`collective_trees`).
    roots : str, optional
        As :func:`collective_trees` reads them.
    time_limit : float
        CP-SAT seconds per set.
    fast : bool
        Root sets in their fast mode (sweeps).
    nbytes, chunk_bytes : int, optional
        ``throughput``: the size its part count suits (:func:`throughput_packing`).

    Returns
    -------
    list of TreePacking
        At most one per direction, the forward phase's first; what
        :func:`~supermesh.trees.schedule.build.build_schedule` and the simulator take.

    Raises
    ------
    SpecError, InfeasibleError, SupermeshError
        As :func:`collective_trees`.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> [p.direction for p in phase_packings(build("smbi:4x4"), "reducescatter")]
    ['out']
    >>> ps = phase_packings(build("smuni:4x4"), "allreduce")
    >>> [p.direction for p in ps], [p.sets[0].roots for p in ps]
    (['out', 'in'], [[0, 3, 15, 12], [0, 3, 15, 12]])
    """
    name, _ = _check(collective, algorithm, None)
    if algorithm == "throughput":  # one weighted packing serves both phases
        return [
            collective_trees(
                G,
                name,
                algorithm=algorithm,
                roots=roots,
                time_limit=time_limit,
                nbytes=nbytes,
                chunk_bytes=chunk_bytes,
            )
        ]

    def trees(direction: str, how: str = algorithm, on: str | None = roots) -> TreePacking:
        return collective_trees(
            G,
            name,
            algorithm=how,
            roots=on,
            time_limit=time_limit,
            direction=direction,
            fast=fast,
        )

    if name in ("allgather", "broadcast") or reversible(G):
        return [trees("out")]
    if name != "allreduce":
        return [trees("in")]
    out = trees("out")
    if out.method == "tto":
        return [out, trees("in", "tto")]
    on = ",".join(str(r) for r in out.sets[0].roots)
    return [out, with_rule(trees("in", on=on), f"in-trees on the roots of {out.stats['rule']}")]
