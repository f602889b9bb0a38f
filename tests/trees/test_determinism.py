"""Determinism: the same inputs give the same running order and the same solver answers.

The running-order search (trees/roots/order.py) stops on a work budget, not on the clock: its answer
must not move when the clock runs fast or slow (a fake ``perf_counter``), only the wall-clock
safety net may stop it, and then it says so. Its incremental evaluation (prefix states, early
cut-off) is checked against a plain first-improvement descent written here with full
evaluations, and a converged order against every single move. CP-SAT solves cut by the
deterministic work budget of trees/cpsat repeat exactly.
"""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from ortools.sat.python import cp_model

from supermesh.errors import SpecError
from supermesh.topologies import build
from supermesh.trees.cpsat import DTIME_PER_WORKER_SECOND, new_solver
from supermesh.trees.model import TreeSet
from supermesh.trees.packing import model as packing_model
from supermesh.trees.packing import search as packing
from supermesh.trees.packing.construct import construct_trees
from supermesh.trees.roots import order as roots_order
from supermesh.trees.roots import search as roots_search
from supermesh.trees.roots import sets as roots_mod
from supermesh.trees.roots.order import order_sets, pipeline_steps
from supermesh.trees.roots.paper import paper_root_sets
from supermesh.trees.roots.sets import root_sets

_SETS: dict[tuple[str, str], list[TreeSet]] = {}


def paper_sets(spec: str, direction: str = "out") -> list[TreeSet]:
    """The paper's root sets packed by the fast constructions (no solver, no clock)."""
    if (spec, direction) not in _SETS:
        G = build(spec)
        packs = [construct_trees(G, s, direction=direction) for s in paper_root_sets(G)]
        _SETS[spec, direction] = [p.sets[0] for p in packs]
    return _SETS[spec, direction]


class FakeClock:
    """A ``time`` stand-in whose ``perf_counter`` moves ``tick`` seconds per call."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now


def naive_descent(sets: list[TreeSet], order: list[int], direction: str) -> list[int]:
    """First improvement with full evaluations: move one set, restart after each gain."""

    def cost(o: list[int]) -> int:
        return pipeline_steps([sets[i] for i in o], chunks=1, direction=direction)

    best, improved = cost(order), True
    while improved:
        improved = False
        for i, j in itertools.product(range(len(order)), repeat=2):
            if i == j:
                continue
            trial = order[:i] + order[i + 1 :]
            trial.insert(j, order[i])
            if cost(trial) < best:
                order, best, improved = trial, cost(trial), True
                break
    return order


# ------------------------------------------------------------------------ running order


@pytest.mark.parametrize("tick", [1e-6, 0.05])
def test_order_does_not_depend_on_the_clock(monkeypatch, tick):
    """A clock 50 ms per reading (a heavily loaded machine) changes nothing below the net."""
    sets = paper_sets("smalter:5x5")
    plain = order_sets(sets, chunks=1)
    monkeypatch.setattr(roots_order, "time", FakeClock(tick))
    slowed = order_sets(sets, chunks=1)
    assert slowed == plain
    assert plain.stopped == "converged"


def test_safety_net_is_reported(monkeypatch):
    sets = paper_sets("mesh:6x6")
    monkeypatch.setattr(roots_order, "time", FakeClock(1.0))  # a second per reading
    cut = order_sets(sets, chunks=1, time_limit=30)
    assert cut.stopped == "time limit"
    assert cut.trials < 40
    monkeypatch.undo()
    full = order_sets(sets, chunks=1)
    assert full.stopped == "converged"
    assert full.steps <= cut.steps


def test_budget_is_a_deterministic_prefix_of_the_search():
    """The same budget stops at the same trial; more budget never gives a longer pipeline."""
    sets = paper_sets("mesh:6x6")
    full = order_sets(sets, chunks=1)
    assert full.stopped == "converged"
    one_pass = sum(len(t.arcs) for s in sets for t in s.trees)  # link entries, one chunk
    steps = []
    for share in (0.0, 0.1, 0.3, 0.6):
        budget = int(share * full.work)
        a, b = order_sets(sets, chunks=1, budget=budget), order_sets(sets, chunks=1, budget=budget)
        assert a == b
        assert a.stopped == "budget"
        assert a.work <= budget + 3 * one_pass  # the starts, or the trial that crossed it
        steps.append(a.steps)
    steps.append(full.steps)
    assert steps == sorted(steps, reverse=True)
    assert steps[0] > steps[-1]  # the search does improve on the best start


@pytest.mark.parametrize(("spec", "direction"), [("smalter:5x5", "out"), ("smalter:6x6", "in")])
def test_incremental_search_equals_plain_descent(spec, direction):
    """Prefix states and the early cut-off give the answer of full evaluations."""
    sets = paper_sets(spec, direction)
    found = order_sets(sets, chunks=1, direction=direction, starts=[list(range(len(sets)))[::-1]])
    starts = {
        tuple(range(len(sets))),
        tuple(sorted(range(len(sets)), key=lambda i: (-sets[i].height, i))),
        tuple(range(len(sets)))[::-1],
    }
    ends = [naive_descent(sets, list(s), direction) for s in sorted(starts)]
    costs = [pipeline_steps([sets[i] for i in o], chunks=1, direction=direction) for o in ends]
    assert found.steps == min(costs)
    assert found.steps == pipeline_steps([sets[i] for i in found.order], direction=direction,
                                         chunks=1)  # fmt: skip


def test_converged_order_is_a_local_optimum():
    sets = paper_sets("smalter:5x5")
    found = order_sets(sets, chunks=2)
    assert found.stopped == "converged"
    order = found.order
    assert sorted(order) == list(range(len(sets)))
    for i, j in itertools.permutations(range(len(order)), 2):
        trial = order[:i] + order[i + 1 :]
        trial.insert(j, order[i])
        assert pipeline_steps([sets[k] for k in trial], chunks=2) >= found.steps


def test_order_arguments_checked():
    sets = paper_sets("smalter:5x5")
    with pytest.raises(SpecError):
        order_sets(sets, budget=-1)
    with pytest.raises(SpecError):
        order_sets(sets, time_limit=0)
    with pytest.raises(SpecError):
        order_sets(sets, chunks=0)
    with pytest.raises(SpecError, match="permutation"):
        order_sets(sets, starts=[[0, 0, 1]])


def test_root_sets_order_ignores_the_clock(monkeypatch):
    """root_sets' order (its only search that used to stop on the clock) under a slow clock."""
    G = build("smalter:4x4")
    plain = root_sets(G, compare=False, time_limit=20)
    monkeypatch.setattr(roots_order, "time", FakeClock(0.05))
    slowed = root_sets(G, compare=False, time_limit=20)
    assert [s.roots for s in slowed.sets] == [s.roots for s in plain.sets]
    assert slowed.stats["pipeline_steps"] == plain.stats["pipeline_steps"]
    for p in (plain, slowed):
        assert p.stats["order_search"]["stopped"] == "converged"
        assert p.stats["time_limit_hit"] is False


# ------------------------------------------------------------------- root-set partition

ROOT_SET_MODULES = (roots_mod, roots_search, roots_order, packing, packing_model)
"""Every module the root-set search reads the clock in (one fake clock shared by all)."""


def root_sets_doc(p) -> str:
    """The packing without wall times: sets, trees, status, bounds, search statistics."""
    return json.dumps(p.to_json(timings=False), sort_keys=True)


def test_root_sets_cut_by_work_ignores_the_clock(monkeypatch):
    """The partition search cut short by its work budget (3 s of CP-SAT at the reference rate)
    gives byte-identical results when the clock runs 50 ms per reading, far past those 3 s."""
    G = build("smalter:6x6")
    plain = root_sets(G, compare=False, time_limit=3)
    fake = FakeClock(0.05)
    for module in ROOT_SET_MODULES:
        monkeypatch.setattr(module, "time", fake)
    slowed = root_sets(G, compare=False, time_limit=3)
    assert fake.now > 3  # a deadline of 3 s on this clock would have cut elsewhere
    monkeypatch.undo()
    assert root_sets_doc(slowed) == root_sets_doc(plain)
    search = plain.stats["partition_search"]
    assert search["stopped"] == "work budget"
    assert math.isclose(search["budget"], DTIME_PER_WORKER_SECOND * 2 * 3)
    assert plain.stats["time_limit_hit"] is False
    full = root_sets(G, compare=False, time_limit=20)
    assert full.stats["partition_search"]["stopped"] == "done"
    assert search["probes"] < full.stats["partition_search"]["probes"]  # really cut


def test_root_sets_safety_net_is_reported(monkeypatch):
    """A clock 1000 s per reading passes the wall-clock safety net at once: the start
    partition is still packed in full, the search stops, and the statistics say why."""
    from supermesh.verify import check_packing

    G = build("smalter:6x6")
    fake = FakeClock(1000.0)
    monkeypatch.setattr(roots_mod, "time", fake)
    monkeypatch.setattr(roots_search, "time", fake)
    cut = root_sets(G, compare=False, order=False, time_limit=20)
    assert check_packing(G, cut) == []
    assert cut.stats["time_limit_hit"] is True
    assert cut.stats["partition_search"]["stopped"] == "time limit"
    assert any("safety net" in note for note in cut.stats["notes"])
    monkeypatch.undo()
    full = root_sets(G, compare=False, order=False, time_limit=20)
    assert full.stats["time_limit_hit"] is False
    assert cut.stats["partition_search"]["probes"] < full.stats["partition_search"]["probes"]


# ------------------------------------------------------------------------------ CP-SAT


def hard_model() -> tuple[cp_model.CpModel, list[cp_model.IntVar]]:
    """A multi-dimensional knapsack CP-SAT does not close within a small work budget."""
    rng = random.Random(7)
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{i}") for i in range(120)]
    for _ in range(8):
        w = [rng.randint(20, 120) for _ in x]
        model.add(sum(a * v for a, v in zip(w, x, strict=True)) <= sum(w) // 4)
    model.maximize(sum(rng.randint(30, 150) * v for v in x))
    return model, x


def test_new_solver_settings():
    s = new_solver(time_limit=10, workers=2, seed=3)
    p = s.parameters
    assert (p.num_workers, p.random_seed, p.interleave_search) == (2, 3, True)
    assert p.max_time_in_seconds == 10
    assert math.isclose(p.max_deterministic_time, DTIME_PER_WORKER_SECOND * 2 * 10)
    one = new_solver(time_limit=10).parameters
    assert (one.num_workers, one.interleave_search) == (1, False)
    assert (
        new_solver(time_limit=5, deterministic_time=math.inf).parameters.max_deterministic_time
        == math.inf
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_cpsat_cut_by_work_budget_repeats(workers):
    """A search cut by the deterministic budget gives the same answer twice (wall limit far)."""
    answers = []
    for _ in range(2):
        model, x = hard_model()
        solver = new_solver(time_limit=60, workers=workers, deterministic_time=0.05)
        code = solver.solve(model)
        assert code == cp_model.FEASIBLE  # cut short, by the work budget (the wall limit is far)
        assert solver.wall_time < 30
        assert solver.objective_value < solver.best_objective_bound
        answers.append(
            (code, solver.objective_value, solver.best_objective_bound,
             [solver.value(v) for v in x], solver.response_proto.deterministic_time)
        )  # fmt: skip
    assert answers[0] == answers[1]


@pytest.mark.parametrize("args", [["--root-sets"], ["--throughput", "--parts", "4"], []])
def test_tree_files_are_byte_identical_run_to_run(tmp_path, capsys, args):
    from supermesh.cli import main

    texts = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        main(["trees", "smbi:4x4", *args, "-o", str(out)])
        capsys.readouterr()
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    assert b"wall_time" not in texts[0]
