"""Reading topologies: supermesh's own files in every format, and files other tools wrote.

The files in ``data/`` were not written by supermesh: ``networkx_grid_4x4.graphml`` is what
``networkx.write_graphml(nx.grid_2d_graph(4, 4))`` writes, ``graphviz_chip.gv`` what Graphviz's
``dot -Tdot`` printed for a hand-drawn chip, ``yed_chip.graphml`` a file as yEd saves it, and the
anynet files are written the way BookSim users write them (a relay router for a doubled link;
concentrating routers in a file with no extension). Expected values are hand counts of those
files, or facts about the networks they describe (a 4x4 grid is the 4x4 mesh).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from supermesh.errors import InputFileError, SpecError, TopologyError
from supermesh.export import export_text
from supermesh.testing.strategies import topology_specs
from supermesh.topologies import build, metrics, read_topology, to_json
from supermesh.topologies.formats import format_of

DATA = Path(__file__).parent / "data"

SPECS = [
    "mesh:4x4",
    "smbi:5x5",
    "smalter:5x5,corners=4",
    "partial-smalter:6x6,io=east",
    "smuni:4x4,dir=ccw",
    "hexamesh:r2,memory=south",
    "mesh:3x4,memory=south+north",
    "kite-small:8x8,conc=4",
    "cmesh:4x4",
]


@pytest.mark.parametrize("fmt", ["json", "graphml", "dot"])
@pytest.mark.parametrize("spec", SPECS)
def test_own_files_read_back_exactly(tmp_path, spec, fmt):
    G = build(spec)
    path = tmp_path / f"topology.{fmt}"
    path.write_text(export_text(G, fmt))
    assert to_json(read_topology(path)) == to_json(G)


@settings(max_examples=15, deadline=None)
@given(topology_specs())
def test_own_graphml_and_dot_read_back_exactly_for_any_spec(tmp_path_factory, spec):
    G = build(spec)
    folder = tmp_path_factory.mktemp("rt")
    for fmt in ("graphml", "dot"):
        path = folder / f"t.{fmt}"
        path.write_text(export_text(G, fmt))
        assert to_json(read_topology(path)) == to_json(G), fmt


@pytest.mark.parametrize("spec", [s for s in SPECS if not s.startswith("smuni")])
def test_own_anynet_keeps_links_and_latencies_but_not_positions(tmp_path, spec):
    G = build(spec)
    path = tmp_path / "net.anynet"
    path.write_text(export_text(G, "anynet"))
    H = read_topology(path)
    assert sorted(H.edges(keys=True)) == sorted(G.edges(keys=True))
    for u, v, k, d in G.edges(keys=True, data=True):
        # whole cycles: a latency under one cycle (a chiplet's port to its router) becomes one
        cycles = max(1, round(d["latency"] * 20))
        assert H.edges[u, v, k]["latency"] == pytest.approx(cycles / 20)
        if k > 0:  # a relayed link: the header names its class
            assert H.edges[u, v, k]["cls"] == d["cls"]
    m, n = metrics(G), metrics(H)
    same = (
        ("links", "arcs") if "memory" in spec else ("links", "arcs", "diameter", "arc_connectivity")
    )
    for key in same:  # memory chiplets read back as compute chiplets: their counts change
        assert m[key] == n[key], key


def test_anynet_makes_one_way_arcs_two_way_as_booksim_does(tmp_path):
    G = build("smuni:3x3")
    path = tmp_path / "uni.anynet"
    path.write_text(export_text(G, "anynet"))
    H = read_topology(path)
    # 8 one-way perimeter arcs of SMUni 3x3 each gain the reverse BookSim adds (latency 1 cycle)
    assert H.number_of_edges() == G.number_of_edges() + 8
    assert all(H.has_edge(v, u) for u, v in G.edges())


def test_networkx_grid_graphml_is_the_mesh():
    T = read_topology(DATA / "networkx_grid_4x4.graphml")
    M = build("mesh:4x4")
    assert sorted(T.edges(keys=True)) == sorted(M.edges(keys=True))
    assert (T.graph["rows"], T.graph["cols"]) == (4, 4)
    assert T.nodes[6]["label"] == (1, 2)
    assert T.nodes[6]["pos"] == M.nodes[6]["pos"] == (2.0, -1.0)
    assert {d["kind"] for _, d in T.nodes(data=True)} == {"compute"}


def test_graphviz_output_with_subgraph_and_parallel_edges():
    T = read_topology(DATA / "graphviz_chip.gv")
    assert T.graph["name"] == "chip"
    labels = {d["label"]: n for n, d in T.nodes(data=True)}
    assert sorted(labels) == ["c0", "c1", "c2", "c3", "mem"]
    c0, c1, mem = labels["c0"], labels["c1"], labels["mem"]
    assert T.nodes[mem]["kind"] == "memory"
    assert T.nodes[c0]["pos"] == (27.0, 162.0)  # Graphviz's layout, in points
    # the two c0 -- c1 edges are a doubled link: two arcs per direction
    assert T.number_of_edges(c0, c1) == T.number_of_edges(c1, c0) == 2
    assert T.edges[c0, c1, 0]["latency"] == 1.5
    assert T.edges[c0, c1, 1]["cls"] == "added"
    assert T.number_of_edges() == 2 * 6


def test_yed_graphml_positions_kinds_and_directed_edges():
    T = read_topology(DATA / "yed_chip.graphml")
    assert [T.nodes[i]["label"] for i in range(3)] == ["n0", "n1", "n2"]
    assert T.nodes[0]["pos"] == (15.0, -15.0)  # the centre of a 30x30 box at (0, 0), y up
    assert T.nodes[2]["pos"] == (15.0, -115.0)
    assert T.nodes[2]["kind"] == "memory"
    assert T.nodes[0]["kind"] == "compute"
    assert T.edges[0, 1, 0]["bandwidth"] == 2.0
    assert T.edges[1, 0, 0]["bandwidth"] == 1.0
    assert T.number_of_edges() == 4  # yEd's edges are directed


def test_stock_booksim_relay_router_becomes_a_parallel_link():
    T = read_topology(DATA / "booksim_relay_2x3.anynet")
    assert T.number_of_nodes() == 6  # router 6 has no terminal: a relay, merged
    assert T.number_of_edges(0, 1) == T.number_of_edges(1, 0) == 2
    assert T.edges[0, 1, 1]["latency"] == 1.0  # 10 + 10 cycles = one base link
    assert T.number_of_edges() == 2 * 8
    kept = read_topology(DATA / "booksim_relay_2x3.anynet", relays="keep")
    assert kept.number_of_nodes() == 7
    assert kept.nodes[6]["kind"] == "router"
    assert kept.edges[0, 6, 0]["latency"] == 0.5


def test_anynet_without_extension_with_concentrating_routers():
    assert format_of(DATA / "anynet_file", (DATA / "anynet_file").read_text()) == "anynet"
    T = read_topology(DATA / "anynet_file")
    kinds = [T.nodes[i]["kind"] for i in range(7)]
    assert kinds == ["compute"] * 4 + ["router"] * 3
    assert sorted(T.successors(0)) == [4]
    assert sorted(T.successors(4)) == [0, 1, 5, 6]
    # router 1 lists router 2 with 3 cycles; the reverse BookSim adds has 1 cycle
    assert T.edges[5, 6, 0]["latency"] == pytest.approx(3 / 20)
    assert T.edges[6, 5, 0]["latency"] == pytest.approx(1 / 20)
    assert T.number_of_edges() == 8 + 6


def _bad(tmp_path, name, text, **options):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises((InputFileError, TopologyError)) as info:
        read_topology(path, **options)
    message = str(info.value)
    assert "\n" not in message
    return message


GRAPHML = '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n{}\n</graphml>'


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            '<graph edgedefault="undirected">\n<node id="a"/>\n<node id="b">',
            "line 5: not well-formed",
        ),
        (
            '<graph edgedefault="undirected">\n<node id="a"/>\n<edge source="a" target="z"/>'
            "\n</graph>",
            'line 4: <edge source="a" target="z">: no node "z"',
        ),
        ('<graph>\n<node id="a"/>\n<node id="a"/>\n</graph>', 'line 4: <node id="a"> repeats'),
        (
            '<key id="k" for="edge" attr.name="bandwidth" attr.type="double"/>\n'
            '<graph>\n<node id="a"/><node id="b"/>\n<edge source="a" target="b">'
            '<data key="k">fast</data></edge>\n</graph>',
            "line 5: <data key=\"k\"> of this edge: 'fast' is not a double",
        ),
        ('<graph>\n<node id="a"><data key="nope">1</data></node>\n</graph>', "line 3: <data"),
        ('<graph>\n<node id="a"><graph/></node>\n</graph>', "line 3: nested or second <graph>"),
        ("<graph>\n<hyperedge/>\n</graph>", "line 3: <hyperedge> has no meaning"),
    ],
    ids=[
        "cut-short",
        "missing-node",
        "repeated-node",
        "bad-number",
        "undeclared-key",
        "nested",
        "hyperedge",
    ],
)
def test_bad_graphml_names_the_line(tmp_path, body, says):
    assert says in _bad(tmp_path, "bad.graphml", GRAPHML.format(body))


def test_graphml_entity_expansion_is_refused(tmp_path):
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE graphml [\n<!ENTITY a "aaaaaaaaaa">\n'
        '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
        '<graphml><graph><node id="&b;"/></graph></graphml>'
    )
    assert "line 3: declares the entity 'a'" in _bad(tmp_path, "bomb.graphml", bomb)


def test_graphml_values_that_are_no_topology_name_the_node_or_edge(tmp_path):
    body = '<key id="k" for="node" attr.name="kind" attr.type="string"/>\n<graph>\n'
    text = GRAPHML.format(body + '<node id="a"><data key="k">gpu</data></node>\n</graph>')
    assert "node 'a' has kind 'gpu'" in _bad(tmp_path, "kind.graphml", text)
    loop = GRAPHML.format('<graph>\n<node id="a"/>\n<edge source="a" target="a"/>\n</graph>')
    assert "edge 'a' -> 'a' is a self-loop" in _bad(tmp_path, "loop.graphml", loop)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("graph {\n a -- b;\n c -> d;\n}", "line 3: edge operator '->' in a graph"),
        ('digraph {\n a -> b [label="open\n];\n}', "line 2: a quoted string is not closed"),
        ("graph {\n a -- b\n", "expected '}', found the end of the file"),
        ("graph {\n a -- ;\n}", "line 2: expected a node name"),
        ("grph {\n a -- b\n}", "line 1: a DOT file starts with graph or digraph"),
        ("graph {\n a -- b [latency=-1];\n}", "edge 'a' -- 'b' latency is -1.0; it must be"),
        ("graph {\n a -- b [bandwidth=wide];\n}", "edge 'a' -- 'b' bandwidth is 'wide'"),
        ('graph {\n a [pos="1,x"];\n b [pos="2,0"]\n}', "node 'a' pos is '1,x'"),
    ],
)
def test_bad_dot_names_the_line(tmp_path, text, says):
    assert says in _bad(tmp_path, "bad.dot", text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("router 0 node 0 router 1\nrouter 1 node 1 rooter 0\n", "line 2: expected 'router'"),
        ("router 0 node 0\nrouter 1 node 0\n", "line 2: node 0 is on router 1 and router 0"),
        ("router 0 node 0\nrouter 1 node 2\n", "node 1 is missing"),
        ("router 0 node 0 router x\n", "line 1: router id must be a non-negative integer"),
        ("router 0 router 1\n", "attaches no terminal"),
        ("router 0 node 0 router 0\n", "line 1: router 0 links to itself"),
    ],
)
def test_bad_anynet_names_the_line(tmp_path, text, says):
    assert says in _bad(tmp_path, "bad.anynet", text)


def test_format_by_extension_name_or_first_words(tmp_path):
    for name, text, fmt in [
        ("a.GV", "", "dot"),
        ("a.txt", '{"format": "supermesh-topology"}', "json"),
        ("a.xml", '<?xml version="1.0"?>\n<graphml>', "graphml"),
        ("a", "// comment\nstrict digraph { }", "dot"),
        ("a", "// supermesh topology\nrouter 0 node 0", "anynet"),
    ]:
        assert format_of(tmp_path / name, text) == fmt
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(InputFileError, match="cannot tell the format") as info:
        read_topology(path)
    assert "--input-format" in info.value.hint
    with pytest.raises(SpecError, match="unknown topology format 'yaml'"):
        read_topology(path, "yaml")


def test_a_format_given_overrides_the_extension(tmp_path):
    path = tmp_path / "net.txt"
    path.write_text(export_text(build("smbi:2x2"), "dot"))
    assert read_topology(path, "dot").number_of_edges() == 16
    assert build(str(path), format="dot").number_of_edges() == 16
    with pytest.raises(SpecError, match="not a file"):
        build("smbi:2x2", format="dot")
    with pytest.raises(SpecError, match="takes no reading options"):
        read_topology(tmp_path / "x.json", multiplicity="n")


def test_build_reads_every_format_by_extension(tmp_path):
    G = build("smalter:4x4")
    for fmt in ("json", "graphml", "dot", "anynet"):
        path = tmp_path / f"t.{fmt}"
        path.write_text(export_text(G, fmt))
        assert build(str(path)).number_of_edges() == G.number_of_edges()
