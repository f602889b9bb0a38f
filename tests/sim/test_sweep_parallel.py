"""Sweeps in parallel (sim/sweep): the rows do not depend on the workers; trees built once.

The independent fact is the serial sweep itself: one topology per task must give the same rows,
in the same order, as running every case here; and the trees the workers build must be the ones
:func:`~supermesh.sim.algorithms.run_algorithm` looks up (no case rebuilds them).
"""

from __future__ import annotations

from supermesh.sim import get_preset
from supermesh.sim.sweep import SweepCase, build_trees, run_sweep, tree_key

CASES = [
    SweepCase(spec, coll, alg, size)
    for spec, alg in (("smbi:4x4", "pipeline"), ("mesh:4x4", "tto"), ("mesh:3x3", "ring"))
    for coll in ("allreduce",)
    for size in (1 << 20, 1 << 24)
] + [SweepCase("smbi:4x4", "allgather", "pipeline", 1 << 20)]


def test_parallel_rows_equal_serial_rows():
    params = get_preset("booksim")
    serial = run_sweep(CASES, params, time_limit=10)
    cache: dict = {}
    seen: list = []
    parallel = run_sweep(CASES, params, time_limit=10, workers=2, cache=cache, on_row=seen.append)
    assert parallel == serial
    assert not any(r["error"] for r in serial)
    assert sorted(map(id, seen)) == sorted(map(id, parallel))  # every row reported once
    keys = {tree_key(c) for c in CASES} - {None}
    assert keys <= set(cache)  # the workers' trees came back to the caller's cache


def test_build_trees_builds_each_key_once():
    cache: dict = {}
    seconds = build_trees(CASES, time_limit=10, cache=cache)
    assert set(seconds) == {"smbi:4x4", "mesh:4x4"}  # the ring baseline needs no trees
    assert {k for k in cache if k[0] == "trees"} == {tree_key(c) for c in CASES} - {None}
    again = build_trees(CASES, time_limit=10, cache=cache)
    assert again == {}  # everything cached: nothing rebuilt
