"""What a run will cost, estimated before its program is built, and refused above the caps.

A baseline program holds one block per transfer route hop and step (a ring AllReduce on ``n``
ranks has ``2 (n - 1) n`` of them), built in Python: about 350 bytes and 30 us each, measured
on ``mesh:16x16`` (ring, bidir-ring) and ``mesh:12x12`` (direct, multitree). ``sim mesh:256x256
-a ring`` would hold 8.6 billion blocks; :func:`check_baseline` refuses it at once with that
figure instead of running for hours. The caps are :mod:`supermesh.budget`'s.
"""

from __future__ import annotations

import networkx as nx

from supermesh.budget import check_memory, check_steps
from supermesh.topologies.model import compute_nodes

__all__ = ["BLOCK_BYTES", "BLOCK_STEPS", "baseline_blocks", "check_baseline"]

BLOCK_BYTES = 400
"""Bytes per program block while a baseline is built (measured: 315-386)."""

BLOCK_STEPS = 6
"""Elementary steps per block built (measured: 30 us against 5 us per transfer step)."""


def _mean_distance(G: nx.MultiDiGraph, ranks: list[int], samples: int = 8) -> float:
    """The mean hop distance between ranks, from up to ``samples`` evenly spaced sources."""
    sources = ranks[:: max(1, len(ranks) // samples)][:samples]
    total = count = 0
    wanted = set(ranks)
    for s in sources:
        dist = nx.single_source_shortest_path_length(G, s)
        hops = [d for v, d in dist.items() if v in wanted and v != s]
        total += sum(hops)
        count += len(hops)
    return total / count if count else 1.0


def baseline_blocks(G: nx.MultiDiGraph, algorithm: str, collective: str) -> int:
    """An estimate of the blocks a baseline's program holds (before it is built).

    Ring: ``(n - 1)`` steps per phase of ``n`` sends (AllReduce: two phases), twice for the
    bidirectional ring; direct: ``n (n - 1)`` routes of the mean distance; MultiTree: a tree of
    ``n - 1`` arcs per rank.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> baseline_blocks(build("mesh:16x16"), "ring", "allreduce")  # measured: 130,560
    130560
    >>> baseline_blocks(build("mesh:256x256"), "ring", "allreduce")
    8589803520
    """
    n = len(compute_nodes(G))
    phases = 2 if collective == "allreduce" else 1
    if algorithm in ("ring", "bidir-ring"):
        return (2 if algorithm == "bidir-ring" else 1) * phases * (n - 1) * n
    if algorithm == "direct":
        ranks = compute_nodes(G)
        return round(phases * n * (n - 1) * _mean_distance(G, ranks))
    return phases * n * (n - 1)


def check_baseline(G: nx.MultiDiGraph, algorithm: str, collective: str) -> None:
    """Refuse a baseline whose program would exceed the memory or time cap, with the figure.

    Raises
    ------
    ResourceError
        The estimate (blocks, bytes or steps) and the cap it exceeds.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> check_baseline(build("mesh:4x4"), "ring", "allreduce")
    >>> check_baseline(build("mesh:256x256"), "ring", "allreduce")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    supermesh.errors.ResourceError: a ring allreduce on 65,536 chiplets (8,589,803,520 ...
    """
    blocks = baseline_blocks(G, algorithm, collective)
    what = (
        f"a {algorithm} {collective} on {len(compute_nodes(G)):,} chiplets "
        f"({blocks:,} transfer blocks)"
    )
    hint = "pick a smaller topology, or an algorithm whose program grows with the links"
    hint += " (-a pipeline or -a throughput)"
    check_memory(BLOCK_BYTES * blocks, what, hint)
    check_steps(BLOCK_STEPS * blocks, what, hint)
