"""Topology exports: JSON round trip, BookSim anynet keeps parallel links, dot, GraphML."""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given

from supermesh.errors import SupermeshError
from supermesh.export import FORMATS, anynet_text, export_text
from supermesh.testing.strategies import topology_specs
from supermesh.topologies import build, from_json, metrics


def stock_booksim_channels(text: str) -> tuple[dict[tuple[int, int], int], dict[int, int]]:
    """Read an anynet file the way stock BookSim's AnyNet::readFile does.

    One entry per (router, router) direction (a repeated pair overwrites); a listed link also
    creates its reverse with latency 1 unless the reverse already exists; a bare number after a
    link sets its latency. Returns (channel -> latency, terminal node -> router).
    """
    channels: dict[tuple[int, int], int] = {}
    terminals: dict[int, int] = {}
    for line in text.splitlines():
        if not line:
            continue
        tokens = line.split()
        assert tokens[0] == "router", f"stock BookSim asserts on line {line!r}"
        head = int(tokens[1])
        i, last = 2, None
        while i < len(tokens):
            kind = tokens[i]
            if kind == "node":
                terminals[int(tokens[i + 1])] = head
                last, i = None, i + 2
            elif kind == "router":
                other = int(tokens[i + 1])
                channels[head, other] = 1
                channels.setdefault((other, head), 1)
                last, i = (head, other), i + 2
            else:
                assert last is not None
                channels[last] = int(kind)
                i += 1
    return channels, terminals


def test_anynet_keeps_every_smbi_link_through_relays():
    G = build("smbi:4x4")
    text = anynet_text(G, header=False)
    channels, terminals = stock_booksim_channels(text)
    assert terminals == {i: i for i in range(16)}
    relays = sorted({r for pair in channels for r in pair if r >= 16})
    assert len(relays) == 12  # one per doubled perimeter link
    for relay in relays:
        ends = sorted(b for a, b in channels if a == relay)
        u, v = ends
        assert G.number_of_edges(u, v) == 2  # a parallel pair, its second link relayed
        assert channels[u, relay] + channels[relay, v] == 20
    direct = {(a, b) for a, b in channels if a < 16 and b < 16}
    assert direct == {(u, v) for u, v in G.edges()}
    # arcs kept: direct channels + one two-hop path per relayed arc
    assert len(direct) + len(relays) * 2 == G.number_of_edges()


def test_anynet_header_explains_relays_and_comments():
    text = export_text(build("smbi:2x2"), "anynet")
    header = [line for line in text.splitlines() if line.startswith("//")]
    body = [line for line in text.splitlines() if not line.startswith("//")]
    assert any("relay router" in line for line in header)
    assert any("grep -v" in line for line in header)
    assert all(line.startswith("router ") for line in body)
    assert sum("relay router" in line and "<->" in line for line in header) == 4


def test_anynet_latency_scale_and_one_way_arcs():
    text = anynet_text(build("kite-small:2x2"), header=False, cycles_per_unit=10)
    channels, _ = stock_booksim_channels(text)
    assert channels[0, 3] == 14  # diagonal: sqrt(2) pitches
    assert channels[0, 1] == 10
    uni = anynet_text(build("smuni:2x2"))
    assert "one-way arcs" in uni
    with pytest.raises(AssertionError, match="stock BookSim asserts"):
        stock_booksim_channels(uni)  # hence the header's advice to strip the // lines
    stripped = "\n".join(line for line in uni.splitlines() if not line.startswith("//"))
    channels, _ = stock_booksim_channels(stripped)
    assert channels[0, 4] == 10  # the one-way extra arc 0 -> 1 relayed through router 4
    assert channels[4, 1] == 10


@given(topology_specs(max_side=5))
def test_anynet_every_arc_is_a_channel_or_relayed(spec):
    G = build(spec)
    _, terminals = stock_booksim_channels(anynet_text(G, header=False))
    n = G.number_of_nodes()
    assert sorted(terminals) == list(range(n))
    listed = Counter()
    for line in anynet_text(G, header=False).splitlines():
        head = int(line.split()[1])
        for other in re.findall(r"router (\d+) \d+", line):
            listed[head, int(other)] += 1
    assert max(listed.values(), default=1) == 1  # nothing for BookSim to merge
    relayed = sum(1 for (a, b) in listed if a < n <= b)
    direct = sum(1 for (a, b) in listed if a < n and b < n)
    assert direct + relayed == G.number_of_edges()


def test_dot_lists_every_arc():
    G = build("smalter:4x4,memory=south")
    text = export_text(G, "dot")
    edges = re.findall(r"^\s+(\d+) -> (\d+) \[key=(\d+), cls=\"(\w+)\"", text, re.M)
    assert sorted((int(u), int(v), int(k)) for u, v, k, _ in edges) == sorted(G.edges(keys=True))
    assert Counter(c for *_, c in edges) == Counter(c for *_, c in G.edges(data="cls"))
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)  # braces inside strings (params JSON)
    assert bare.count("{") == bare.count("}") == 1


@given(topology_specs(max_side=5))
def test_graphml_round_trip_keeps_parallel_arcs(spec):
    G = build(spec)
    H = nx.read_graphml(io.StringIO(export_text(G, "graphml")), force_multigraph=True)
    got = sorted((int(u), int(v), d["key"], d["cls"]) for u, v, d in H.edges(data=True))
    want = sorted((u, v, k, c) for u, v, k, c in G.edges(keys=True, data="cls"))
    assert got == want
    assert H.graph["spec"] == G.graph["spec"]
    assert {int(n): d["kind"] for n, d in H.nodes(data=True)} == dict(G.nodes(data="kind"))


def test_json_export_reads_back_with_metrics():
    G = build("hexamesh:3-4-3,memory=north")
    m = metrics(G)
    doc = json.loads(export_text(G, "json", metrics=m))
    assert doc["metrics"] == m
    H = from_json(doc)
    assert sorted(H.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    assert H.graph == G.graph


def test_unknown_format():
    assert set(FORMATS) == {"json", "anynet", "dot", "graphml"}
    with pytest.raises(SupermeshError, match="xml"):
        export_text(build("mesh:2x2"), "xml")
