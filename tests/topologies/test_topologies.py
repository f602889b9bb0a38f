"""Topology generators checked against hand-counted facts (BRIEF.md section 2) and invariants."""

from __future__ import annotations

import math
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError, TopologyError
from supermesh.testing.strategies import topology_specs
from supermesh.topologies import build, from_json, to_json
from supermesh.topologies.hexamesh import hexamesh
from supermesh.topologies.interposer import butterfly_stride
from supermesh.topologies.memory import attach_memory
from supermesh.topologies.metrics import links_per_node, node_class

# ---------------------------------------------------------------- helpers


def same_topology(G: nx.MultiDiGraph, H: nx.MultiDiGraph) -> bool:
    """Identical graph attributes, nodes with attributes, and arcs with keys and attributes."""
    return (
        G.graph == H.graph
        and sorted(G.nodes(data=True)) == sorted(H.nodes(data=True))
        and sorted(G.edges(keys=True, data=True)) == sorted(H.edges(keys=True, data=True))
    )


def symmetric(G: nx.MultiDiGraph) -> bool:
    """Every arc has a reverse arc with the same multiplicity."""
    count = Counter(G.edges())
    return all(count[v, u] == k for (u, v), k in count.items())


def added(G: nx.MultiDiGraph) -> list[tuple[int, int, int]]:
    return [(u, v, k) for u, v, k, c in G.edges(keys=True, data="cls") if c == "added"]


def ports_by_class(G: nx.MultiDiGraph) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for n, p in links_per_node(G).items():
        out.setdefault(node_class(G, n), set()).add(p)
    return out


def mesh_arcs(r: int, c: int) -> int:
    """Two arcs per link; r(c-1) horizontal and c(r-1) vertical links."""
    return 2 * (r * (c - 1) + c * (r - 1))


def perimeter_sides(r: int, c: int) -> list[int]:
    """Links on the north, east, south, west sides."""
    return [c - 1, r - 1, c - 1, r - 1]


sizes = st.integers(2, 9)


# ---------------------------------------------------------------- grid families


@pytest.mark.parametrize("n", range(2, 9))
def test_square_arc_counts_from_the_brief(n):
    assert build(f"mesh:{n}x{n}").number_of_edges() == 4 * n * (n - 1)
    assert len(added(build(f"smbi:{n}x{n}"))) == 8 * (n - 1)
    extra = 4 * n if n % 2 == 0 else 4 * (n - 1)
    assert len(added(build(f"smalter:{n}x{n}"))) == extra


@given(sizes, sizes)
def test_rectangular_arc_counts(r, c):
    assert build(f"mesh:{r}x{c}").number_of_edges() == mesh_arcs(r, c)
    assert len(added(build(f"smbi:{r}x{c}"))) == 2 * sum(perimeter_sides(r, c))
    # every other link from each side's first corner: ceil(L/2) per side, two arcs each
    alter = 2 * sum(math.ceil(L / 2) for L in perimeter_sides(r, c))
    assert len(added(build(f"smalter:{r}x{c}"))) == alter
    assert len(added(build(f"smuni:{r}x{c}"))) == sum(perimeter_sides(r, c))
    if min(r, c) >= 3:
        assert build(f"torus:{r}x{c}").number_of_edges() == 4 * r * c


@pytest.mark.parametrize("n", range(3, 10))
def test_links_per_node_class(n):
    assert ports_by_class(build(f"mesh:{n}x{n}")) == {
        "corner": {2},
        "border": {3},
        "interior": {4},
    }
    assert ports_by_class(build(f"smbi:{n}x{n}")) == {
        "corner": {4},
        "border": {5},
        "interior": {4},
    }
    alter = ports_by_class(build(f"smalter:{n}x{n}"))
    if n % 2 == 0:
        assert alter == {"corner": {4}, "border": {4}, "interior": {4}}
    else:
        assert alter == {"corner": {3}, "border": {4}, "interior": {4}}


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_smalter_corners4_costs_one_five_link_chiplet_per_side(n):
    G = build(f"smalter:{n}x{n},corners=4")
    ports = links_per_node(G)
    corners = [0, n - 1, n * n - n, n * n - 1]
    assert all(ports[c] == 4 for c in corners)
    sides = {
        "north": list(range(n)),
        "south": [(n - 1) * n + c for c in range(n)],
        "west": [r * n for r in range(n)],
        "east": [r * n + n - 1 for r in range(n)],
    }
    for side, nodes in sides.items():
        assert sum(ports[v] == 5 for v in nodes) == 1, side
    assert max(ports.values()) == 5
    assert all(ports[v] == 4 for v in G if node_class(G, v) == "interior")


@pytest.mark.parametrize("io", ["north", "east", "south", "west"])
@pytest.mark.parametrize("n", [4, 5])
def test_partial_variants_leave_the_io_side_alone(io, n):
    side_nodes = {
        "north": set(range(n)),
        "south": {(n - 1) * n + c for c in range(n)},
        "west": {r * n for r in range(n)},
        "east": {r * n + n - 1 for r in range(n)},
    }[io]
    for family, per_side in (("partial-smbi", n - 1), ("partial-smalter", math.ceil((n - 1) / 2))):
        G = build(f"{family}:{n}x{n},io={io}")
        extra = added(G)
        assert len(extra) == 2 * 3 * per_side
        assert not any(u in side_nodes and v in side_nodes for u, v, _ in extra)
        assert G.graph["params"]["io"] == io
    assert build(f"partial-smbi:{n}x{n}").graph["params"]["io"] == "south"


@pytest.mark.parametrize("direction", ["cw", "ccw"])
@pytest.mark.parametrize(("r", "c"), [(4, 4), (3, 5), (2, 2)])
def test_smuni_one_way_arcs_all_run_the_same_way_round(direction, r, c):
    G = build(f"smuni:{r}x{c},dir={direction}")
    centre = ((c - 1) / 2, -(r - 1) / 2)
    for u, v, _k in added(G):
        assert not any(b == u and cls == "added" for _, b, cls in G.out_edges(v, data="cls"))
        (ux, uy), (vx, vy) = G.nodes[u]["pos"], G.nodes[v]["pos"]
        cross = (ux - centre[0]) * (vy - uy) - (uy - centre[1]) * (vx - ux)
        assert cross < 0 if direction == "cw" else cross > 0  # y up: clockwise turns right
    assert not symmetric(G)


def test_torus_wraps_every_row_and_column():
    G = build("torus:4x5")
    assert all(d == 4 for _, d in G.out_degree())
    assert G.has_edge(4, 0)
    assert G.has_edge(15, 0)
    assert G.edges[4, 0, 0]["cls"] == "other"


# ---------------------------------------------------------------- HexaMesh

BRIEF_343 = {
    0: [1, 3, 4],
    1: [0, 2, 4, 5],
    2: [1, 5, 6],
    3: [0, 4, 7],
    4: [0, 1, 3, 5, 7, 8],
    5: [1, 2, 4, 6, 8, 9],
    6: [2, 5, 9],
    7: [3, 4, 8],
    8: [4, 5, 7, 9],
    9: [5, 6, 8],
}


def test_hexamesh_343_matches_the_brief():
    # the brief numbers from the bottom row; 3-4-3 reads the same both ways
    G = build("hexamesh:3-4-3")
    assert {n: sorted(G.successors(n)) for n in G} == BRIEF_343
    assert G.number_of_edges() == 2 * 19
    assert nx.diameter(nx.Graph(G)) == 3
    assert symmetric(G)


def test_hexamesh_r2_facts():
    G = build("hexamesh:r2")
    assert (G.number_of_nodes(), G.number_of_edges() // 2) == (19, 42)
    assert nx.diameter(nx.Graph(G)) == 4
    assert G.graph["spec"] == "hexamesh:r2"
    assert (G.graph["rows"], G.graph["cols"]) == (5, 5)


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_full_hexagons(r):
    G = build(f"hexamesh:r{r}")
    assert G.number_of_nodes() == 3 * r * (r + 1) + 1
    # degree sum: inner hexagon of radius r-1 has 6 links each, 6 corners 3, 6(r-1) others 4
    assert G.number_of_edges() // 2 == 9 * r * r + 3 * r
    assert nx.diameter(nx.Graph(G)) == 2 * r
    assert set(links_per_node(G).values()) == ({3, 6} if r == 1 else {3, 4, 6})
    assert all(c == "mesh" for *_, c in G.edges(data="cls"))


@given(st.lists(st.integers(1, 6), min_size=1, max_size=6).filter(lambda rows: sum(rows) >= 2))
def test_hexamesh_any_rows(rows):
    G = hexamesh(rows)
    assert G.number_of_nodes() == sum(rows)
    assert nx.is_connected(nx.Graph(G))
    assert symmetric(G)
    assert max(links_per_node(G).values()) <= 6
    assert build(G.graph["spec"]).graph == G.graph
    # brick rule: a link joins (y, x)-(y, x+-2) or (y, x)-(y+-1, x+-1), nothing else
    for u, v in G.edges():
        (yu, xu), (yv, xv) = (
            (G.nodes[u]["row"], G.nodes[u]["col"]),
            (G.nodes[v]["row"], G.nodes[v]["col"]),
        )
        assert (yu == yv and abs(xu - xv) == 2) or (abs(yu - yv) == 1 and abs(xu - xv) == 1)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.integers(1, 7))
def test_hexamesh_odd_palindromes_read_the_same_from_the_bottom(half, middle):
    rows = [*half, middle, *half[::-1]]
    G = hexamesh(rows)
    bottom_up = sorted(G, key=lambda n: (-G.nodes[n]["row"], G.nodes[n]["col"]))
    flipped = nx.relabel_nodes(nx.DiGraph(G), {n: i for i, n in enumerate(bottom_up)})
    assert sorted(flipped.edges()) == sorted(nx.DiGraph(G).edges())


@pytest.mark.parametrize("bad", [[], [0, 3], [1], [2, -1]])
def test_hexamesh_rejects_bad_rows(bad):
    with pytest.raises(SpecError):
        hexamesh(bad)


# ---------------------------------------------------------------- memory


@given(sizes, sizes, st.sets(st.sampled_from(["north", "east", "south", "west"]), min_size=1))
def test_memory_on_grids(r, c, sides):
    base = build(f"smbi:{r}x{c}")
    snapshot = (dict(base.graph), sorted(base.edges(keys=True)))
    G = attach_memory(base, sorted(sides))
    assert (dict(base.graph), sorted(base.edges(keys=True))) == snapshot  # input untouched
    per_side = {"north": c, "south": c, "east": r, "west": r}
    memory = [n for n, k in G.nodes(data="kind") if k == "memory"]
    assert memory == list(range(r * c, r * c + sum(per_side[s] for s in sides)))
    for m in memory:
        row, col = G.nodes[m]["row"], G.nodes[m]["col"]
        assert row in (-1, r) or col in (-1, c)
        (target,) = set(G.successors(m))
        assert G.nodes[target]["kind"] == "compute"
        assert abs(G.nodes[target]["row"] - row) + abs(G.nodes[target]["col"] - col) == 1
        assert G.edges[m, target, 0]["cls"] == "memory"
        assert G.number_of_edges(m, target) == 1
    canonical = [s for s in ("north", "east", "south", "west") if s in sides]
    assert G.graph["spec"] == f"smbi:{r}x{c},memory={'+'.join(canonical)}"
    assert same_topology(build(G.graph["spec"]), G)
    # the top-left corner gets one memory link per chosen side that touches it
    assert G.out_degree(0) == base.out_degree(0) + len(sides & {"north", "west"})


def test_memory_side_order_is_north_east_south_west():
    G = build("mesh:2x3,memory=west+south+east+north")
    sides = [G.nodes[n]["row"] if G.nodes[n]["col"] in range(3) else None for n in range(6, 16)]
    assert sides == [-1, -1, -1, None, None, 2, 2, 2, None, None]
    assert [G.nodes[n]["col"] for n in (9, 10, 14, 15)] == [3, 3, -1, -1]


def test_memory_corner_needs_a_sixth_port():
    # SMBi corner: 4 links + north and west memory = 6 links, router radix 7
    G = build("smbi:4x4,memory=north+west")
    assert links_per_node(G)[0] == 6


@pytest.mark.parametrize("r", [1, 2, 3])
def test_hexamesh_memory_on_every_side_fits_six_ports(r):
    G = build(f"hexamesh:r{r},memory=north+east+south+west")
    compute = [n for n, k in G.nodes(data="kind") if k == "compute"]
    assert all(links_per_node(G)[n] == 6 for n in compute)
    memory = [n for n, k in G.nodes(data="kind") if k == "memory"]
    # north/south: a row of L chiplets gets L+1; east/west: one per row
    assert len(memory) == 2 * (r + 2) + 2 * (2 * r + 1)
    assert not any(G.nodes[v]["kind"] == "memory" for m in memory for v in G.successors(m))


def test_memory_errors():
    with pytest.raises(TopologyError):
        attach_memory(build("torus:4x4"), ["south"])
    with pytest.raises(TopologyError):
        attach_memory(build("mesh:4x4,memory=south"), ["north"])
    with pytest.raises(SpecError):
        attach_memory(build("mesh:4x4"), ["up"])
    with pytest.raises(SpecError):
        build("kite-small:4x4,memory=south")


# ---------------------------------------------------------------- interposer topologies

# adjacency copied by hand from the SuperMesh artifact's 4x4 anynet generators
ARTIFACT_KITE_SMALL = {
    0: [1, 4, 5], 1: [0, 2, 4, 6], 2: [1, 3, 5, 7], 3: [2, 6, 7], 4: [0, 1, 8, 9],
    5: [0, 2, 8, 10], 6: [1, 3, 9, 11], 7: [2, 3, 10, 11], 8: [4, 5, 12, 13],
    9: [4, 6, 12, 14], 10: [5, 7, 13, 15], 11: [6, 7, 14, 15], 12: [8, 9, 13],
    13: [8, 10, 12, 14], 14: [9, 11, 13, 15], 15: [10, 11, 14],
}  # fmt: skip
ARTIFACT_DOUBLE_BUTTERFLY = {
    0: [1, 9], 1: [0, 2, 6, 8], 2: [1, 3, 5, 11], 3: [2, 10], 4: [5, 13], 5: [2, 4, 6, 12],
    6: [1, 5, 7, 15], 7: [6, 14], 8: [1, 9], 9: [0, 8, 10, 14], 10: [3, 9, 11, 13],
    11: [2, 10], 12: [5, 13], 13: [4, 10, 12, 14], 14: [7, 9, 13, 15], 15: [6, 14],
}  # fmt: skip


def adjacency(G: nx.MultiDiGraph) -> dict[int, list[int]]:
    return {n: sorted(G.successors(n)) for n in G}


def test_kite_small_and_double_butterfly_match_the_artifact():
    assert adjacency(build("kite-small:4x4")) == ARTIFACT_KITE_SMALL
    assert adjacency(build("double-butterfly:4x4")) == ARTIFACT_DOUBLE_BUTTERFLY


def row_col(G, n):
    return G.nodes[n]["row"], G.nodes[n]["col"]


@given(sizes, sizes)
def test_kite_small_is_all_diagonals_plus_the_perimeter(r, c):
    G = build(f"kite-small:{r}x{c}")
    expected = set()
    for a in range(r):
        for b in range(c):
            for da, db in ((1, -1), (1, 1)):
                if 0 <= a + da < r and 0 <= b + db < c:
                    expected.add(frozenset({(a, b), (a + da, b + db)}))
            for da, db in ((0, 1), (1, 0)):
                on_side = (da == 0 and a in (0, r - 1)) or (db == 0 and b in (0, c - 1))
                if a + da < r and b + db < c and on_side:
                    expected.add(frozenset({(a, b), (a + da, b + db)}))
    got = {frozenset({row_col(G, u), row_col(G, v)}) for u, v in G.edges()}
    if min(r, c) >= 3:  # in 2-wide arrays a border chiplet fills its 4 ports earlier
        assert got == expected
    assert max(links_per_node(G).values()) <= 4


@given(st.integers(3, 9), st.integers(3, 9))
def test_folded_torus_rows_and_columns_are_rings_of_short_links(r, c):
    G = build(f"folded-torus:{r}x{c}")
    assert all(p == 4 for p in links_per_node(G).values())
    for u, v, d in G.edges(data=True):
        (a, b), (x, y) = row_col(G, u), row_col(G, v)
        assert a == x or b == y
        assert d["latency"] == abs(a - x) + abs(b - y) <= 2
        assert d["cls"] == ("mesh" if d["latency"] == 1 else "other")
    for a in range(r):
        row = nx.Graph(G.subgraph(range(a * c, (a + 1) * c)))
        assert nx.is_connected(row)
        assert all(d == 2 for _, d in row.degree())


@given(st.sampled_from([2, 4, 8]), st.integers(2, 9))
def test_double_butterfly_rows_are_chains_with_xor_cross_links(r, c):
    if c < r // 2 + 1:  # no cross link yet joins rows 1 apart: the network falls apart
        with pytest.raises(SpecError, match="falls apart"):
            build(f"double-butterfly:{r}x{c}")
        return
    G = build(f"double-butterfly:{r}x{c}")
    assert nx.is_strongly_connected(G)
    cross = 0
    for u, v in nx.Graph(G).edges():
        (a, b), (x, y) = sorted([row_col(G, u), row_col(G, v)], key=lambda p: p[1])
        assert y - b == 1
        if a != x:
            cross += 1
            assert a ^ x == butterfly_stride(r, b)
    assert cross == r * (c - 1)
    assert G.number_of_edges() == 2 * 2 * r * (c - 1)
    assert max(links_per_node(G).values()) <= 4


def test_kite_link_lengths_and_medium_size():
    G = build("kite-small:4x4")
    assert G.edges[0, 5, 0]["latency"] == pytest.approx(math.sqrt(2))
    assert G.edges[0, 1, 0]["cls"] == "mesh"
    M = build("kite-medium:4x4")
    assert M.number_of_edges() == 2 * 31  # the artifact's hand-drawn instance has 32
    assert max(links_per_node(M).values()) == 4
    assert {d["latency"] for *_, d in M.edges(data=True)} == {1.0, math.sqrt(2), 2.0}


def test_hexamesh_node_classes():
    G = build("hexamesh:r2")
    classes = Counter(node_class(G, n) for n in G)
    assert classes == {"interior": 7, "border": 12}  # interior: the radius-1 hexagon


def test_butterfly_strides():
    assert [butterfly_stride(4, g) for g in range(3)] == [2, 1, 2]
    assert [butterfly_stride(8, g) for g in range(7)] == [4, 2, 4, 1, 4, 2, 4]


def test_butterdonut_rows_are_folded_rings_without_vertical_links():
    G = build("butterdonut:8x8")
    for u, v in G.edges():
        (a, b), (x, y) = row_col(G, u), row_col(G, v)
        assert not (b == y and a != x)
    assert max(links_per_node(G).values()) == 4
    assert G.number_of_edges() == 2 * (8 * 8 + 8 * 7)  # 8 rings of 8 links + 8 cross per gap


@pytest.mark.parametrize(("r", "c"), [(4, 4), (8, 8), (4, 6)])
def test_cmesh_concentrates_four_chiplets_per_router(r, c):
    G = build(f"cmesh:{r}x{c}")
    chiplets = [n for n, k in G.nodes(data="kind") if k == "compute"]
    routers = [n for n, k in G.nodes(data="kind") if k == "router"]
    assert chiplets == list(range(r * c))
    assert routers == list(range(r * c, r * c + r * c // 4))
    for n in chiplets:
        (router,) = set(G.successors(n))
        rr, cc = divmod(router - r * c, c // 2)
        assert (G.nodes[n]["row"] // 2, G.nodes[n]["col"] // 2) == (rr, cc)
        assert G.edges[n, router, 0]["latency"] == 1 / 20  # 1 cycle against 20 (BRIEF 4)
    mesh = nx.Graph(G.subgraph(routers))
    assert nx.is_isomorphic(mesh, nx.grid_2d_graph(r // 2, c // 2))
    assert all(G.edges[u, v, 0]["latency"] == 2.0 for u, v in mesh.edges())


@pytest.mark.parametrize(
    "family", ["folded-torus", "kite-small", "kite-medium", "double-butterfly"]
)
def test_conc4_puts_the_family_on_the_router_grid(family):
    G = build(f"{family}:8x8,conc=4")
    routers = [n for n, k in G.nodes(data="kind") if k == "router"]
    H = nx.relabel_nodes(nx.Graph(G.subgraph(routers)), {n: n - 64 for n in routers})
    assert nx.utils.edges_equal(sorted(H.edges()), sorted(nx.Graph(build(f"{family}:4x4")).edges()))
    assert all(G.out_degree(n) == 1 for n in range(64))


@pytest.mark.parametrize(
    "spec",
    [
        "double-butterfly:3x4",
        "butterdonut:6x6",
        "cmesh:5x5",
        "cmesh:2x2",
        "kite-small:2x2,conc=4",
        "folded-torus:2x2",
        "kite-medium:2x4",
        "folded-torus:4x4,conc=2",
        "kite-small:5x4,conc=4",
    ],
)
def test_interposer_bad_sizes(spec):
    with pytest.raises(SpecError):
        build(spec)


# ---------------------------------------------------------------- every family


@given(topology_specs(max_side=7))
def test_round_trips_and_regeneration(spec):
    G = build(spec)
    assert same_topology(from_json(to_json(G)), G)
    assert same_topology(build(G.graph["spec"]), G)
    assert set(G.graph) >= {"name", "spec", "family", "rows", "cols", "params"}
    assert all(k in ("compute", "memory", "io", "router") for _, k in G.nodes(data="kind"))


@given(topology_specs(max_side=7))
def test_every_bidirectional_family_is_symmetric(spec):
    G = build(spec)
    assert symmetric(G) == (G.graph["family"] != "smuni")
    assert nx.is_strongly_connected(G)
