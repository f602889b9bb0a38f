"""``supermesh verify``: exit codes, output, and robustness against malformed documents."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.cli import main
from supermesh.errors import SupermeshError
from supermesh.testing.examples import smbi_corner_trees
from supermesh.topologies import build, to_json
from supermesh.trees.schedule.build import build_schedule
from supermesh.verify import check_document


def schedule_doc(n=4, **kw):
    kw.setdefault("chunks", 3)
    return build_schedule(build(f"smbi:{n}x{n}"), "allreduce", smbi_corner_trees(n), **kw).to_json()


def run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_valid_topology_file(tmp_path, capsys):
    code, out, _ = run(["verify", write(tmp_path, "t.json", to_json(build("smbi:4x4")))], capsys)
    assert code == 0
    assert out.startswith("OK: topology smbi:4x4: 16 nodes, 72 arcs")


def test_edited_topology_no_longer_matches_its_spec(tmp_path, capsys):
    doc = to_json(build("smbi:3x3"))
    doc["arcs"] = [a for a in doc["arcs"] if (a["src"], a["dst"], a["key"]) != (0, 1, 1)]
    code, out, _ = run(["verify", write(tmp_path, "t.json", doc)], capsys)
    assert code == 1
    assert "spec-mismatch" in out
    assert "0->1 key 1" in out


def test_topology_with_bad_arcs_gives_findings(tmp_path, capsys):
    doc = to_json(build("mesh:2x2"))
    doc["arcs"].append({"src": 0, "dst": 9, "key": 0})
    doc["arcs"].append({"src": 1, "dst": 1, "key": 0, "bandwidth": -1})
    code, out, _ = run(["verify", write(tmp_path, "t.json", doc), "--json"], capsys)
    report = json.loads(out)
    assert code == 1
    assert not report["ok"]
    assert {f["code"] for f in report["findings"]} >= {"node-out-of-range", "self-loop"}


def test_tree_file_against_named_topology_file(tmp_path, capsys):
    write(tmp_path, "topo.json", to_json(build("smbi:4x4")))
    doc = smbi_corner_trees(4).to_json()
    doc["topology"] = "topo.json"  # relative to the tree file, not to the working directory
    code, out, _ = run(["verify", write(tmp_path, "trees.json", doc)], capsys)
    assert code == 0
    assert "4 tree(s)" in out


def test_tree_file_findings_json(tmp_path, capsys):
    doc = smbi_corner_trees(4).to_json()
    doc["sets"][0]["trees"][1]["arcs"][0] = [3, 7, 0]  # now tree 0's key
    doc["sets"][0]["trees"][2]["height"] = 5
    code, out, _ = run(["verify", write(tmp_path, "trees.json", doc), "--json"], capsys)
    report = json.loads(out)
    assert code == 1
    assert report["kind"] == "trees"
    found = {(f["code"], f["tree"]) for f in report["findings"]}
    assert ("arc-overused", 1) in found
    assert ("height-mismatch", 2) in found


def test_valid_schedule_file(tmp_path, capsys):
    doc = schedule_doc(nbytes=4 * 2**20, chunks=None)
    code, out, _ = run(["verify", write(tmp_path, "s.json", doc)], capsys)
    assert code == 0
    first, second = out.splitlines()[:2]
    assert first == (
        "OK: schedule allreduce on smbi:4x4: 120 entries, 86 chunk(s) per tree, deadlock-free: "
        "0 error(s), 0 warning(s)"
    )
    assert second.startswith("deadlock-free: the wait-for graph on the 240 FIFO entries")


def test_schedule_with_a_missing_dependency(tmp_path, capsys):
    doc = schedule_doc()
    e = next(e for e in doc["entries"] if len(e["deps"]) == 2)
    dropped = e["deps"].pop()
    code, out, _ = run(["verify", write(tmp_path, "s.json", doc), "--json"], capsys)
    report = json.loads(out)
    assert code == 1
    assert report["kind"] == "schedule"
    (f,) = report["findings"]
    assert (f["code"], f["entry"], f["node"]) == ("deps-incomplete", e["id"], e["src"])
    assert f"does not wait for entries [{dropped}]" in f["message"]
    assert report["deadlock"]["deadlock_free"]


def test_schedule_that_deadlocks(tmp_path, capsys):
    doc = schedule_doc(n=3)
    leaf = next(e for e in doc["entries"] if e["phase"] == "rs" and not e["deps"])
    gather = next(e for e in doc["entries"] if e["phase"] == "ag" and e["tree"] == leaf["tree"])
    leaf["deps"] = [gather["id"]]  # a reduction that waits for the gather of its own result
    code, out, _ = run(["verify", write(tmp_path, "s.json", doc), "--json"], capsys)
    report = json.loads(out)
    assert code == 1
    assert "deadlock-cycle" in {f["code"] for f in report["findings"]}
    assert not report["deadlock"]["deadlock_free"]
    assert len(report["deadlock"]["cycle"]) >= 2


def test_schedule_with_dangling_dependency_is_not_analysed(tmp_path, capsys):
    doc = schedule_doc(n=2, chunks=1)
    doc["entries"][3]["deps"] = [999]
    code, out, _ = run(["verify", write(tmp_path, "s.json", doc)], capsys)
    assert code == 1
    assert "error   dep-missing: entry 3" in out
    assert "warning deadlock-unchecked" in out
    assert "deadlock not analysed" in out.splitlines()[0]


def test_schedule_on_a_link_the_topology_lacks(tmp_path, capsys):
    doc = schedule_doc(n=2, chunks=1)
    doc["topology"] = "mesh:2x2"  # the schedule uses the doubled perimeter links of smbi
    code, out, _ = run(["verify", write(tmp_path, "s.json", doc)], capsys)
    assert code == 1
    assert "arc-missing" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": "supermesh-schedule", "topology": "mesh:2x2"}', "lacks the field"),
        (
            '{"format": "supermesh-schedule", "topology": "mesh:2x2", "collective": "allreduce",'
            ' "chunks": 1, "entries": [{"id": 0}], "tables": {}, "roots": [], "ranks": []}',
            "lacks the field",
        ),
        (
            '{"format": "supermesh-schedule", "topology": "mesh:2x2", "collective": "allreduce",'
            ' "chunks": "many", "entries": [], "tables": {}, "roots": [], "ranks": []}',
            "chunks must be an integer of at least 1, not 'many'",
        ),
    ],
)
def test_unreadable_schedule_exits_2(tmp_path, capsys, text, message):
    code, out, err = run(["verify", write(tmp_path, "x.json", text)], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: ")
    assert message in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"format": "nope"}', "does not read"),
        ('{"format": "supermesh-trees", "topology": "mesh:2x2"}', "direction"),
        ('{"format": "supermesh-topology", "nodes": 3, "arcs": []}', "lists"),
        (
            '{"format": "supermesh-trees", "topology": "mesh:99999999x9", "direction": "out",'
            ' "status": "feasible", "trees": []}',
            "too large",
        ),
    ],
)
def test_unreadable_input_exits_2_with_one_line(tmp_path, capsys, text, message):
    code, out, err = run(["verify", write(tmp_path, "x.json", text)], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("topology", ["x" * 5000, "mesh:2x2\x00", "nope", "gone.json", 7])
def test_unusable_topology_names_are_input_errors(topology):
    doc = smbi_corner_trees(2).to_json()
    doc["topology"] = topology
    with pytest.raises(SupermeshError):
        check_document(doc)


def test_missing_file(tmp_path, capsys):
    code, _, err = run(["verify", str(tmp_path / "none.json")], capsys)
    assert code == 2
    assert "cannot read" in err


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 20)
    | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
TREE_KEYS = [
    "format", "topology", "direction", "status", "sets", "trees", "span", "lower_bound",
    "objective", "certificate", "stats", "root", "arcs", "height", "share", "set",
]  # fmt: skip
SCHEDULE_KEYS = [
    "collective", "chunks", "barrier", "roots", "ranks", "entries", "tables", "id", "phase",
    "set", "tree", "root", "chunk_first", "chunk_last", "src", "dst", "key", "step", "depth",
    "deps", "op", "on_recv", "0", "3",
]  # fmt: skip


def _checked(doc):
    try:
        report = check_document(doc)
    except SupermeshError:
        return None
    json.dumps(report.to_json())
    return report


@given(json_values)
def test_random_documents_never_crash(doc):
    _checked(doc)


def _mutate(doc, path, value):
    node = doc
    for step in path[:-1]:
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and node and isinstance(step, int):
            node = node[step % len(node)]
        else:
            break
    last = path[-1]
    if isinstance(node, dict):
        node[str(last)] = value
    elif isinstance(node, list) and node:
        node[(last if isinstance(last, int) else 0) % len(node)] = value


@given(
    st.sampled_from(["trees", "topology"]),
    st.lists(st.sampled_from(TREE_KEYS) | st.integers(0, 3), min_size=1, max_size=4),
    json_values,
)
def test_mutated_valid_documents_never_crash(kind, path, value):
    doc = smbi_corner_trees(2).to_json() if kind == "trees" else to_json(build("smbi:2x2"))
    _mutate(doc, path, value)
    _checked(doc)


@given(
    st.lists(st.sampled_from(SCHEDULE_KEYS) | st.integers(0, 12), min_size=1, max_size=4),
    json_values | st.integers(-(10**12), 10**12),
)
def test_mutated_schedule_documents_never_crash(path, value):
    doc = schedule_doc(n=2, chunks=2)
    _mutate(doc, path, value)
    _checked(doc)


@given(
    st.integers(0, 3),
    st.sampled_from(["root", "height", "share", "arcs"]),
    json_values,
)
def test_mutated_tree_fields_never_crash(i, field, value):
    doc = smbi_corner_trees(2).to_json()
    doc["sets"][0]["trees"][i][field] = value
    _checked(doc)
