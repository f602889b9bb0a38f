"""The AllReduce bound from partitions, and the undirected tree packing that meets it.

Checked against hand counts (a 2x2 mesh's four parties and its two halves, the 4x4 mesh's 24
edges over 15, SMBi 4x4's 36 over 15), against every partition of small random networks (the
best one equals the packing's LP optimum: Nash-Williams and Tutte), and against the simulator:
no AllReduce the tool runs, with or without a barrier, beats it.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.bounds import allreduce_bound
from supermesh.topologies import add_arc, add_node, build
from supermesh.topologies.model import new_topology
from supermesh.trees.bounds.allreduce import partition_bound, volume_bound
from supermesh.trees.throughput.undirected import undirected_packing


@st.composite
def networks(draw: st.DrawFn, max_nodes: int = 6) -> nx.MultiDiGraph:
    """A connected network of two-way links (parallel ones too) of bandwidths 1/2, 1 or 2."""
    n = draw(st.integers(2, max_nodes))
    G = new_topology("random", "random", f"random network ({n} nodes)")
    for v in range(n):
        add_node(G, v, pos=(v, 0))
    pairs = [(draw(st.integers(0, v - 1)), v) for v in range(1, n)]  # a spanning tree
    pairs += draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
            max_size=8,
        )
    )
    for u, v in pairs:
        b = draw(st.sampled_from([0.5, 1.0, 2.0]))
        k = add_arc(G, u, v, bandwidth=b)
        G.add_edge(v, u, key=k, bandwidth=b, latency=1.0)
    return G


def set_partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in set_partitions(rest):
        for i in range(len(smaller)):
            yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1 :]]
        yield [[first], *smaller]


def test_hand_counts():
    G = build("mesh:2x2")  # a 4-cycle: 8 arcs
    assert partition_bound(G, [[0], [1], [2], [3]]) == Fraction(8, 6)
    assert partition_bound(G, [[0, 1], [2, 3]]) == Fraction(4, 2)  # two links each way
    assert volume_bound(build("mesh:4x4")) == Fraction(48, 30)
    assert volume_bound(build("smbi:4x4")) == Fraction(72, 30)
    b = allreduce_bound(build("mesh:4x4"))
    assert b.value == pytest.approx(1.6)
    assert b.certificate["kind"] == "partition"
    assert b.certificate["transfers"] == 30
    assert b.certificate["crossing_bandwidth"] == 48


def test_bad_partitions_are_refused():
    G = build("mesh:2x2")
    with pytest.raises(SpecError):
        partition_bound(G, [[0, 1, 2, 3]])  # one part
    with pytest.raises(SpecError):
        partition_bound(G, [[0, 1], [1, 2, 3]])  # 1 twice
    with pytest.raises(SpecError):
        partition_bound(G, [[0, 1], [2]])  # 3 missing
    with pytest.raises(SpecError):
        partition_bound(G, [[0, 1, 2], [3]], ranks=[0, 1])  # a part without a rank


def test_routers_join_a_part_and_the_volume_counts_ranks_only():
    G = build("mesh:2x2")
    G.nodes[3]["kind"] = "memory"  # a relay: three ranks
    assert volume_bound(G) == Fraction(8, 4)  # every arc over 2 x 2 transfers
    # 3 joins 2: the links 0-1, 0-2 and 1-3 cross, 6 arcs over 2 x 2 transfers
    assert partition_bound(G, [[0], [1], [2, 3]]) == Fraction(6, 4)


@given(networks())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_packing_meets_the_best_partition(G):
    nodes = sorted(G.nodes)
    best = min(partition_bound(G, p) for p in set_partitions(nodes) if len(p) > 1)
    u = undirected_packing(G)
    assert u.bound == best
    assert u.status == "optimal"
    assert u.rate == pytest.approx(float(best), rel=1e-7)
    assert min(allreduce_bound(G, parts=u.parts).value, allreduce_bound(G).value) <= float(best)
    # every tree spans the nodes over two-way links, the shares add up to 1, and each link's
    # two arcs carry at most their bandwidth at the packing's rate
    load: dict[tuple[int, int, int], float] = {}
    for t in u.packing.trees:
        T = nx.Graph((a, b) for a, b, _ in t.arcs)
        assert len(t.arcs) == len(nodes) - 1
        assert nx.is_tree(T)
        assert set(T) == set(nodes)
        for a, b, k in t.arcs:
            for arc in ((a, b, k), (b, a, k)):
                load[arc] = load.get(arc, 0.0) + t.share * u.rate
    assert sum(t.share for t in u.packing.trees) == pytest.approx(1.0)
    for arc, x in load.items():
        assert x <= G.edges[arc]["bandwidth"] * (1 + 1e-6)


@pytest.mark.parametrize("spec", ["mesh:4x4", "smbi:4x4"])
@pytest.mark.parametrize("algorithm", ["throughput", "pipeline", "ring", "direct", "tacos"])
def test_no_allreduce_of_the_tool_beats_the_bound(spec, algorithm):
    G, paper = build(spec), get_preset("paper")
    bound = allreduce_bound(G)
    r = run_algorithm(G, algorithm, "allreduce", 4 << 20, paper)
    assert r.time >= (4 << 20) / (bound.value * paper.link_bandwidth()) * (1 - 1e-9)
