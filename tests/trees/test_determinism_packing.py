"""Determinism of the packing and design searches: they stop on CP-SAT work, not on the clock.

``pack_trees`` and ``design`` give every solve the work budget left (CP-SAT deterministic time)
and decide "skip this stage" on that work, so their answers must not move when the clock runs
slow or unevenly (a fake ``perf_counter`` in their modules), also when the budget cuts the
search short; only the wall-clock safety net (``time_limit``) may stop them otherwise, and then
``stats["stopped"]`` says so. Expected heights and bounds come from BRIEF.md section 3 (SMAlter
mid-side roots need the eccentricity bound + 1, 23 + 1 on 16 x 16; SMBi corners 2N - 2).
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from supermesh.errors import SolverError, SpecError
from supermesh.topologies import build
from supermesh.trees.cpsat import DTIME_PER_WORKER_SECOND
from supermesh.trees.design import optimise as design_mod
from supermesh.trees.design import result as design_result
from supermesh.trees.design import search as design_search
from supermesh.trees.design.optimise import design
from supermesh.trees.packing import model as packing_model
from supermesh.trees.packing import search as packing
from supermesh.trees.packing.search import pack_trees
from supermesh.trees.rootspec import resolve_roots
from supermesh.verify import check_packing


class FakeClock:
    """A ``time`` stand-in whose ``perf_counter`` moves ``tick`` seconds per reading, or a
    random amount in ``[0, 2 tick]`` (an unevenly loaded machine) when ``seed`` is given."""

    def __init__(self, tick: float, seed: int | None = None) -> None:
        self.now, self.tick = 0.0, tick
        self.rng = None if seed is None else random.Random(seed)

    def perf_counter(self) -> float:
        self.now += self.tick if self.rng is None else self.rng.uniform(0, 2 * self.tick)
        return self.now


CLOCKS = [None, (0.05, None), (0.05, 1), (0.05, 2)]
"""The real clock, 50 ms per reading, and two uneven clocks (50 ms per reading on average)."""

PACKING_MODULES = (packing, packing_model)  # packing_model.Budget holds the deadline
DESIGN_MODULES = (design_mod, design_search, design_result, packing, packing_model)


def slow(monkeypatch: pytest.MonkeyPatch, clock: tuple[float, int | None] | None, modules) -> None:
    """Give ``modules`` one shared fake clock (``None``: leave the real one)."""
    monkeypatch.undo()
    if clock is not None:
        fake = FakeClock(*clock)
        for module in modules:
            monkeypatch.setattr(module, "time", fake)


def packing_doc(p) -> str:
    """The packing without wall times: trees, status, bounds, runs, work, what stopped it."""
    return json.dumps(p.to_json(timings=False), sort_keys=True)


def sides(spec: str) -> tuple[Any, list[int]]:
    G = build(spec)
    return G, list(resolve_roots(G, "sides"))


# ------------------------------------------------------------------------------ pack_trees


@pytest.mark.parametrize(
    ("spec", "roots", "work"),
    [
        ("smalter:16x16", "sides", 0.01),  # the proof of height 24 cut short
        ("smbi:8x8", [0, 9, 27, 63], 0.1),  # the balance stage cut short (trees it found)
    ],
)
def test_pack_cut_by_work_ignores_the_clock(monkeypatch, spec, roots, work):
    G = build(spec)
    ids = list(resolve_roots(G, roots)) if isinstance(roots, str) else roots
    docs = []
    for clock in CLOCKS:
        slow(monkeypatch, clock, PACKING_MODULES)
        p = pack_trees(G, ids, time_limit=60, work_limit=work)
        assert p.stats["stopped"] == "work budget"
        assert p.stats["work_limit"] == work
        assert p.stats["work_used"] >= work  # the budget was spent (CP-SAT may overshoot a bit)
        docs.append(packing_doc(p))
    monkeypatch.undo()
    assert check_packing(G, p) == []
    assert len(set(docs)) == 1, "the answer moved with the clock"
    if spec.startswith("smalter"):  # the warm start's 24, but 24 = bound + 1 is not proven
        assert (p.status, p.objective, p.lower_bound, p.stats["gap"]) == ("feasible", 24, 23, 1)
    else:  # the height is the eccentricity bound 14 = 2N - 2; the balance is not proven
        assert (p.status, p.objective, p.lower_bound) == ("optimal", 14, 14)
        assert p.stats["balance"] in ("feasible", "not improved")


def test_pack_more_work_completes_the_proof(monkeypatch):
    """The same case with enough work: proven (24 = bound + 1), whatever the clock does."""
    G, ids = sides("smalter:16x16")
    docs = []
    for clock in CLOCKS[:2]:
        slow(monkeypatch, clock, PACKING_MODULES)
        p = pack_trees(G, ids, time_limit=60, work_limit=0.5)
        assert (p.status, p.objective, p.lower_bound) == ("optimal", 24, 24)
        assert p.stats["stopped"] == "done"
        assert p.stats["work_used"] < 0.5
        docs.append(packing_doc(p))
    assert docs[0] == docs[1]


def test_pack_work_budget_derived_from_the_time_limit():
    G = build("smbi:6x6")
    corners = [0, 5, 35, 30]
    for workers, limit in ((1, 5.0), (2, 7.5)):
        p = pack_trees(G, corners, time_limit=limit, workers=workers)
        assert math.isclose(p.stats["work_limit"], DTIME_PER_WORKER_SECOND * workers * limit)
        assert (p.status, p.objective, p.stats["stopped"]) == ("optimal", 10, "done")
    with pytest.raises(SpecError, match="work_limit"):
        pack_trees(G, corners, work_limit=-1)


def test_pack_no_work_returns_the_warm_start():
    """Zero work: no solve at all; the warm start, never called optimal above the bound."""
    G, ids = sides("smalter:8x8")
    p = pack_trees(G, ids, time_limit=60, work_limit=0)
    assert (p.status, p.objective, p.lower_bound) == ("feasible", 12, 11)
    assert (p.stats["stopped"], p.stats["work_used"], p.stats["runs"]) == ("work budget", 0, [])


def test_pack_wall_clock_safety_net_is_reported(monkeypatch):
    """A clock a second per reading: the 3 s limit fires before the proof; it says so."""
    G, ids = sides("smalter:16x16")
    slow(monkeypatch, (1.0, None), PACKING_MODULES)
    p = pack_trees(G, ids, time_limit=3)
    monkeypatch.undo()
    assert p.stats["stopped"] == "time limit"
    assert (p.status, p.objective, p.lower_bound) == ("feasible", 24, 23)
    assert check_packing(G, p) == []


# ------------------------------------------------------------------------------ design


def design_doc(r) -> str:
    doc = r.to_json()
    doc["stats"] = {k: v for k, v in doc["stats"].items() if k != "wall_time"}
    return json.dumps(doc, sort_keys=True)


HEIGHT_CASE: dict[str, Any] = {
    "trees": 4,
    "roots": [2, 17, 33, 18],
    "direction": "out",
    "max_links": 5,
    "max_height": 8,
    "time_limit": 60,
}
"""Mid-side roots on mesh:6x6 within height 8 (tests/test_design): 12 links, after many failed
packings (each a nogood), so the packing checks share the work budget many times."""


def test_design_with_packings_ignores_the_clock(monkeypatch):
    G = build("mesh:6x6")
    docs = []
    for clock in CLOCKS[:3]:
        slow(monkeypatch, clock, DESIGN_MODULES)
        r = design(G, **HEIGHT_CASE)
        docs.append(design_doc(r))
    monkeypatch.undo()
    assert (r.status, r.cost, r.stats["stopped"]) == ("optimal", 12, "done")
    assert r.proof["nogoods"] > 0
    assert [p["height"] for p in r.proof["packings"]] == [8]
    assert len(set(docs)) == 1, "the design moved with the clock"


def test_design_cut_by_work_fails_the_same_way(monkeypatch):
    """Too little work for the packings: no design, on every clock (the same error)."""
    G = build("mesh:6x6")
    errors = []
    for clock in CLOCKS[:3]:
        slow(monkeypatch, clock, DESIGN_MODULES)
        with pytest.raises(SolverError) as err:
            design(G, **HEIGHT_CASE, work_limit=0.02)
        errors.append(str(err.value))
    assert len(set(errors)) == 1
    assert "work budget 0.02" in errors[0]


def test_design_stopped_by_work_keeps_the_warm_start():
    """Any roots, no work: the greedy warm start, feasible, with the counting bound 2."""
    r = design(build("mesh:2x6"), trees=3, add="any-parallel", max_links=4, work_limit=0)
    assert (r.status, r.lower_bound, r.stats["stopped"], r.stats["rounds"]) == (
        "feasible", 2, "work budget", 0
    )  # fmt: skip
    assert r.cost >= 7  # the true minimum (bench/bench_design.py: N + 1)
    with pytest.raises(SpecError, match="work_limit"):
        design(build("mesh:2x6"), trees=3, work_limit=-0.5)


def test_design_wall_clock_safety_net_is_reported(monkeypatch):
    """A clock a second per reading: the 2.5 s limit ends the loop after one round."""
    G = build("mesh:2x6")
    slow(monkeypatch, (1.0, None), DESIGN_MODULES)
    r = design(G, trees=3, add="any-parallel", max_links=4, time_limit=2.5)
    monkeypatch.undo()
    assert r.stats["stopped"] == "time limit"
    assert r.status == "feasible"
    assert r.cost >= 7
