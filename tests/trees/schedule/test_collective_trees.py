"""Which trees each collective uses (trees/schedule/collective.py): one packing, checked.

Facts come from outside the code under test: every packing is re-checked by
:func:`supermesh.verify.check_packing` (arcs, disjointness, spans, status against bounds);
tree counts from hand counts of links (a mesh corner has 2 links, an SMBi corner 4: BRIEF
section 3) and from Edmonds' theorem as computed by
:func:`~supermesh.trees.bounds.counts.max_trees_from_root`; the TTO corner from the grid
coordinates.
"""

from __future__ import annotations

import pytest

from supermesh.errors import InfeasibleError, SpecError
from supermesh.topologies import build
from supermesh.topologies.model import compute_nodes
from supermesh.trees.bounds.counts import max_trees_from_root
from supermesh.trees.schedule.collective import collective_trees
from supermesh.verify import check_packing

SPECS = ("mesh:4x4", "smbi:4x4", "smalter:4x4", "hexamesh:r2")
COLLECTIVES = ("allreduce", "reducescatter", "allgather", "broadcast", "reduce")
LIMIT = 10.0


def _nodes(packing):
    return {x for s in packing.sets for t in s.trees for a in t.arcs for x in a[:2]}


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("collective", COLLECTIVES)
def test_every_collective_passes_the_checker(spec, collective):
    G = build(spec)
    p = collective_trees(G, collective, time_limit=LIMIT)
    assert p.status in ("optimal", "feasible")
    assert check_packing(G, p) == []
    want = "in" if collective in ("reducescatter", "reduce") else "out"
    assert p.direction == want
    roots = [t.root for s in p.sets for t in s.trees]
    if collective in ("reducescatter", "allgather"):  # one tree per chiplet, each roots once
        assert sorted(roots) == compute_nodes(G)
    if collective in ("broadcast", "reduce"):
        assert len(p.sets) == 1
        assert len(set(roots)) == 1


def test_mesh_allreduce_is_tto_with_a_relay_corner():
    G = build("mesh:4x4")
    p = collective_trees(G, "allreduce", time_limit=LIMIT)
    assert p.method == "tto"
    assert len(p.sets) == 1
    assert len(p.sets[0].trees) == 3
    corners = {v for v in G if G.nodes[v]["row"] in (0, 3) and G.nodes[v]["col"] in (0, 3)}
    roots = {t.root for t in p.sets[0].trees}
    assert roots < corners
    (relay,) = corners - roots
    assert p.span is not None
    assert relay not in p.span
    assert relay in _nodes(p)  # ... but the trees pass through it
    assert p.objective == 6  # corner to corner, 3 + 3 hops
    assert check_packing(G, p) == []
    with pytest.raises(InfeasibleError) as err:  # asked for the 4 corners: Edmonds says no
        collective_trees(G, "allreduce", roots="corners", time_limit=LIMIT)
    assert err.value.certificate


@pytest.mark.parametrize(("spec", "hand_count"), [("mesh:4x4", 2), ("smbi:4x4", 4)])
@pytest.mark.parametrize("collective", ["broadcast", "reduce"])
def test_broadcast_count_is_edmonds_from_the_root(spec, hand_count, collective):
    G = build(spec)
    p = collective_trees(G, collective, time_limit=LIMIT)
    direction = "in" if collective == "reduce" else "out"
    assert len(p.sets[0].trees) == max_trees_from_root(G, 0, direction=direction).max_trees
    assert len(p.sets[0].trees) == hand_count  # the corner's links, counted by hand
    assert {t.root for t in p.sets[0].trees} == {0}


def test_hexamesh_broadcast_count_and_default_roots():
    G = build("hexamesh:r2")
    b = collective_trees(G, "broadcast", time_limit=LIMIT)
    root = b.sets[0].trees[0].root
    assert len(b.sets[0].trees) == max_trees_from_root(G, root).max_trees
    a = collective_trees(G, "allreduce", time_limit=LIMIT)
    assert len({t.root for t in a.sets[0].trees}) == len(a.sets[0].trees) >= 2  # distinct


def test_explicit_root_sets_and_directions():
    G = build("smbi:4x4")
    p = collective_trees(G, "reducescatter", roots="0,5,10,15;1,6,11,12;2,7,8,13;3,4,9,14")
    assert next(sorted(t.root for t in s.trees) for s in p.sets) == [0, 5, 10, 15]
    assert p.direction == "in"
    assert check_packing(G, p) == []
    out = collective_trees(G, "reducescatter", direction="out", time_limit=LIMIT)
    assert out.direction == "out"
    assert check_packing(G, out) == []


def test_paper_sets_of_four_on_smbi():
    G = build("smbi:4x4")
    p = collective_trees(G, "allgather", algorithm="paper", time_limit=LIMIT)
    assert [len(s.trees) for s in p.sets] == [4, 4, 4, 4]
    assert check_packing(G, p) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"collective": "allgather", "algorithm": "tto"}, "TTO is an AllReduce"),
        ({"collective": "allreduce", "algorithm": "magic"}, "magic"),
        ({"collective": "alltoall"}, "alltoall"),
        ({"collective": "allreduce", "direction": "up"}, "up"),
    ],
)
def test_bad_requests_name_the_value(kwargs, message):
    with pytest.raises(SpecError, match=message):
        collective_trees(build("mesh:3x3"), **kwargs)


def test_fast_root_sets_keep_the_proofs():
    G = build("smbi:5x5")
    full = collective_trees(G, "allgather", time_limit=LIMIT)
    fast = collective_trees(G, "allgather", time_limit=LIMIT, fast=True)
    assert fast.stats["fast"] is True
    assert check_packing(G, fast) == []
    assert sorted(t.root for s in fast.sets for t in s.trees) == compute_nodes(G)
    # the same start partition, packed in full: the same set heights and proven bound
    assert sorted(fast.stats["set_heights"]) == sorted(full.stats["set_heights"])
    assert (fast.status, fast.lower_bound) == (full.status, full.lower_bound)
