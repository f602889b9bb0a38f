"""Sweeps in parallel (sim/sweep): the rows do not depend on the workers; trees built once.

The independent fact is the serial sweep itself: one topology per task must give the same rows,
in the same order, as running every case here; and the trees the workers build must be the ones
:func:`~supermesh.sim.algorithms.run_algorithm` looks up (no case rebuilds them).
"""

from __future__ import annotations

from supermesh.sim import get_preset
from supermesh.sim.sweep import SweepCase, build_trees, run_sweep

CASES = [
    SweepCase(spec, coll, alg, size)
    for spec, alg in (("smbi:4x4", "pipeline"), ("mesh:4x4", "tto"), ("mesh:3x3", "ring"))
    for coll in ("allreduce",)
    for size in (1 << 20, 1 << 24)
] + [SweepCase("smbi:4x4", "allgather", "pipeline", 1 << 20)]
# the trees those cases need, by hand: one AllReduce set per tree algorithm and topology, and the
# AllGather's root sets (the ring baseline needs none)
TREE_KEYS = {
    ("trees", "smbi:4x4", "pipeline", "allreduce", None),
    ("trees", "mesh:4x4", "tto", "allreduce", None),
    ("trees", "smbi:4x4", "pipeline", "sets", None),
}


def test_parallel_rows_equal_serial_rows():
    params = get_preset("booksim")
    serial = run_sweep(CASES, params, time_limit=10)
    cache: dict = {}
    seen: list = []
    parallel = run_sweep(CASES, params, time_limit=10, workers=2, cache=cache, on_row=seen.append)
    assert parallel == serial
    assert not any(r["error"] for r in serial)
    assert sorted(map(id, seen)) == sorted(map(id, parallel))  # every row reported once
    assert TREE_KEYS.issubset(cache)  # the workers' trees came back to the caller's cache


def test_build_trees_builds_each_key_once():
    cache: dict = {}
    seconds = build_trees(CASES, time_limit=10, cache=cache)
    assert set(seconds) == {"smbi:4x4", "mesh:4x4"}  # the ring baseline needs no trees
    assert {k for k in cache if k[0] == "trees"} == TREE_KEYS
    again = build_trees(CASES, time_limit=10, cache=cache)
    assert again == {}  # everything cached: nothing rebuilt


def test_one_way_reducescatter_trees_are_found_again():
    # SMUni has no reverse arcs: ReduceScatter runs on in-trees of its own, cached apart from
    # the AllGather's root sets; a second call must find them and build nothing
    case = SweepCase("smuni:3x3", "reducescatter", "pipeline", 1 << 20)
    cache: dict = {}
    assert set(build_trees([case], time_limit=10, cache=cache)) == {"smuni:3x3"}
    assert [k for k in cache if k[0] == "trees"] == [
        ("trees", "smuni:3x3", "pipeline", "sets-in", None)
    ]
    assert build_trees([case], time_limit=10, cache=cache) == {}
