"""Any networkx graph as a topology, and every public function that takes a topology taking one."""

from __future__ import annotations

import importlib
import inspect
import pickle

import networkx as nx
import pytest

import supermesh
from supermesh.errors import TopologyError
from supermesh.topologies import build, from_networkx
from supermesh.topologies.formats import as_topology, is_topology
from supermesh.topologies.formats.accept import takes_topology


@pytest.mark.parametrize("cls", [nx.Graph, nx.MultiGraph])
def test_undirected_edges_become_two_arcs(cls):
    T = from_networkx(cls(nx.cycle_graph(5)))
    assert T.number_of_edges() == 10
    assert all(T.has_edge(v, u) for u, v in T.edges())
    assert is_topology(T)


def test_directed_edges_stay_one_way():
    T = from_networkx(nx.DiGraph([(0, 1), (1, 2), (2, 0)]))
    assert sorted(T.edges(keys=True)) == [(0, 1, 0), (1, 2, 0), (2, 0, 0)]


def test_parallel_edges_and_multiplicity_give_parallel_links():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    T = from_networkx(M)
    assert T.number_of_edges(0, 1) == T.number_of_edges(1, 0) == 2
    G = nx.Graph()
    G.add_edge("x", "y", lanes=3)
    G.add_edge("y", "z")
    T = from_networkx(G, multiplicity="lanes")
    assert sorted(T.edges(keys=True))[:3] == [(0, 1, 0), (0, 1, 1), (0, 1, 2)]
    assert T.number_of_edges() == 2 * (3 + 1)
    D = nx.MultiDiGraph()
    D.add_edge("a", "b", key="left")
    D.add_edge("a", "b", key="right")
    assert sorted(from_networkx(D).edges(keys=True)) == [(0, 1, 0), (0, 1, 1)]


def test_bandwidth_latency_class_mapped_or_defaulted():
    G = nx.Graph()
    G.add_edge(0, 1, bw=2.5, delay="3", kind_of="added")
    G.add_edge(1, 2)
    T = from_networkx(
        G, bandwidth="bw", latency="delay", cls="kind_of", default_bandwidth=0.5, default_latency=2
    )
    assert T.edges[0, 1, 0] == {"cls": "added", "bandwidth": 2.5, "latency": 3.0}
    assert T.edges[1, 2, 0] == {"cls": "mesh", "bandwidth": 0.5, "latency": 2.0}


def test_node_kinds_from_an_attribute_or_a_callable():
    G = nx.path_graph(["cpu0", "cpu1", "hbm"])
    G.nodes["hbm"]["role"] = "memory"
    T = from_networkx(G, kind=lambda label, attrs: attrs.get("role", "compute"))
    assert [T.nodes[i]["kind"] for i in range(3)] == ["compute", "compute", "memory"]
    nx.set_node_attributes(G, {"hbm": "memory"}, "kind")
    assert from_networkx(G).nodes[2]["kind"] == "memory"


def test_positions_from_attributes_a_mapping_or_a_layout():
    G = nx.path_graph(3)
    nx.set_node_attributes(G, {0: (0, 0), 1: (1, 0), 2: (2, 5)}, "pos")
    assert from_networkx(G).nodes[2]["pos"] == (2.0, 5.0)
    H = nx.path_graph(3)
    nx.set_node_attributes(H, {0: 1.0, 1: 2.0, 2: 3.0}, "x")
    nx.set_node_attributes(H, {0: 0.0, 1: 0.0, 2: 1.0}, "y")
    assert from_networkx(H).nodes[2]["pos"] == (3.0, 1.0)
    assert from_networkx(H, pos={0: (9, 9), 1: (8, 8), 2: (7, 7)}).nodes[0]["pos"] == (9.0, 9.0)
    circle = from_networkx(nx.cycle_graph(4), pos=nx.circular_layout)
    assert circle.nodes[0]["pos"] == pytest.approx((1.0, 0.0), abs=1e-6)
    # no positions at all: a seeded spring layout, the same every time
    a, b = from_networkx(nx.cycle_graph(6)), from_networkx(nx.cycle_graph(6))
    assert [a.nodes[i]["pos"] for i in a] == [b.nodes[i]["pos"] for i in b]


def test_labels_renumbered_with_the_mapping_kept():
    G = nx.Graph([("n10", "n2"), ("n2", "n1")])
    T = from_networkx(G)
    assert [T.nodes[i]["label"] for i in range(3)] == ["n1", "n2", "n10"]  # natural order
    assert [T.nodes[i]["label"] for i in range(3)] == [
        from_networkx(G, ordering="given").nodes[i]["label"] for i in (2, 1, 0)
    ]
    mixed = nx.Graph([(1, "a"), ("a", (2, 3))])  # no order among types: the graph's order
    assert [from_networkx(mixed).nodes[i]["label"] for i in range(3)] == [1, "a", (2, 3)]
    kept = from_networkx(nx.path_graph(4))
    assert "label" not in kept.nodes[0]  # ids 0..n-1 are kept as they are
    shifted = from_networkx(nx.relabel_nodes(nx.path_graph(3), {0: 5, 1: 7, 2: 9}))
    assert [shifted.nodes[i]["label"] for i in range(3)] == [5, 7, 9]


def test_grid_labels_give_rows_cols_and_corner_roots():
    T = from_networkx(nx.grid_2d_graph(3, 5))
    assert (T.graph["rows"], T.graph["cols"]) == (3, 5)
    assert T.nodes[7]["row"] == 1
    assert T.nodes[7]["col"] == 2
    assert sorted(T.edges(keys=True)) == sorted(build("mesh:3x5").edges(keys=True))
    assert supermesh.resolve_roots(T, "corners") == supermesh.resolve_roots(
        build("mesh:3x5"), "corners"
    )


@pytest.mark.parametrize(
    ("graph", "options", "says"),
    [
        (nx.Graph([(0, 0), (0, 1)]), {}, "edge 0 -- 0 is a self-loop"),
        (nx.Graph([(0, 1, {"bandwidth": 0})]), {}, "bandwidth is 0"),
        (nx.Graph([(0, 1, {"latency": float("nan")})]), {}, "must be finite"),
        (nx.Graph([(0, 1, {"n": 0})]), {"multiplicity": "n"}, "n is 0; it must be 1 or more"),
        (nx.Graph([(0, 1, {"n": 1.5})]), {"multiplicity": "n"}, "n is 1.5, not an integer"),
        (nx.Graph([(0, 1, {"cls": "fast"})]), {}, "has class 'fast'"),
        (nx.Graph([(0, 1)]), {"kind": lambda n, d: "gpu"}, "node 0 has kind 'gpu'"),
        (nx.Graph([(0, 1)]), {"pos": {0: (0, 0)}}, "no position for node 1"),
    ],
)
def test_bad_graphs_name_the_node_or_edge(graph, options, says):
    with pytest.raises(TopologyError) as info:
        from_networkx(graph, **options)
    assert says in str(info.value)


def test_partial_positions_and_non_graphs_are_refused():
    G = nx.path_graph(3)
    G.nodes[0]["pos"] = (0, 0)
    with pytest.raises(TopologyError, match="node 1 has no 'pos' attribute while others have"):
        from_networkx(G)
    with pytest.raises(TopologyError, match="expected a networkx graph, got list"):
        from_networkx([(0, 1)])  # type: ignore[arg-type]


def _topology_functions():
    for _, _, names in supermesh._GROUPS:
        for name, module in names.items():
            obj = getattr(importlib.import_module(module), name)
            if inspect.isfunction(obj) and takes_topology(obj):
                yield name, obj


def test_every_public_function_that_takes_a_topology_is_wrapped_once():
    names = []
    for name, original in _topology_functions():
        public = getattr(supermesh, name)
        assert public.__wrapped__ is original, name
        assert getattr(supermesh, name) is public  # one object, found again
        assert pickle.loads(pickle.dumps(public)) is public
        assert inspect.signature(public) == inspect.signature(original)
        names.append(name)
    assert {"pack_trees", "check_roots", "simulate", "check_packing", "draw_topology"} <= set(names)
    assert len(names) >= 30


def test_public_functions_accept_any_networkx_graph():
    grid = nx.grid_2d_graph(4, 4)
    # the mesh facts of the brief: 2 trees for any roots, corners fail (a corner is entered twice)
    assert supermesh.max_trees_free(grid).max_trees == 2
    assert not supermesh.check_roots(grid, [0, 3, 12]).feasible
    packing = supermesh.pack_trees(G=nx.MultiGraph(grid), roots=[0, 15], time_limit=5)
    assert [t.height for t in packing.trees] == [6, 6]
    assert supermesh.check_packing(grid, packing) == []
    assert supermesh.compute_nodes(nx.path_graph("abc")) == [0, 1, 2]
    T = build("smbi:2x2")
    assert as_topology(T) is T
