"""``supermesh topo``: metrics table, JSON, every output format, drawings, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from supermesh.topologies import build, read_topology


def test_table(run_cli):
    code, out, err = run_cli("topo", "smbi:4x4")
    assert code == 0
    assert err == ""
    assert "smbi:4x4" in out
    assert "16 compute" in out
    assert "36 / 72" in out  # 24 mesh links + 12 doubled perimeter links; 72 arcs
    assert "24 (33.3%)" in out


def test_json_has_nodes_arcs_metrics(run_cli):
    code, out, _ = run_cli("topo", "hexamesh:r2,memory=south", "--json")
    assert code == 0
    doc = json.loads(out)
    assert len(doc["nodes"]) == 19 + 4
    assert {"id", "kind", "pos"} <= set(doc["nodes"][0])
    assert len(doc["arcs"]) == 2 * (42 + 6)  # 4 memory bricks under 3 chiplets: 1+2+2+1 links
    assert {"src", "dst", "key", "cls", "bandwidth", "latency"} <= set(doc["arcs"][0])
    assert doc["metrics"]["chiplets"] == {"compute": 19, "memory": 4}


def test_json_keeps_parallel_arcs(run_cli):
    _, out, _ = run_cli("topo", "smbi:2x2", "--json")
    arcs = [(a["src"], a["dst"], a["key"]) for a in json.loads(out)["arcs"]]
    assert (0, 1, 0) in arcs
    assert (0, 1, 1) in arcs
    assert len(arcs) == 16


@pytest.mark.parametrize(
    ("name", "fmt", "marker"),
    [
        ("t.json", None, '"format": "supermesh-topology"'),
        ("t.anynet", None, "router 0 node 0"),
        ("t.dot", None, "digraph"),
        ("t.gv", None, "digraph"),
        ("t.graphml", None, "<graphml"),
        ("t.txt", "anynet", "relay router"),
    ],
)
def test_output_formats(run_cli, tmp_path, name, fmt, marker):
    path = tmp_path / name
    args = ["smbi:4x4", "-o", str(path)] + (["--format", fmt] if fmt else [])
    code, _, err = run_cli("topo", *args)
    assert code == 0, err
    assert marker in path.read_text()


def test_draw_and_file_as_spec(run_cli, tmp_path):
    topo = tmp_path / "hm.json"
    code, _, _ = run_cli("topo", "hexamesh:3-4-3", "-o", str(topo))
    assert code == 0
    picture = tmp_path / "pics" / "hm.png"
    code, _, err = run_cli("topo", str(topo), "--draw", str(picture))
    assert code == 2  # a missing folder is refused, not silently made
    assert "the folder" in err
    assert "does not exist" in err
    assert not (tmp_path / "pics").exists()
    picture.parent.mkdir()
    code, out, err = run_cli("topo", str(topo), "--draw", str(picture))
    assert code == 0
    assert err == f"wrote {picture}\n"
    assert "hexamesh:3-4-3" in out
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    G, H = build("hexamesh:3-4-3"), read_topology(topo)
    assert sorted(G.edges(keys=True, data=True)) == sorted(H.edges(keys=True, data=True))


BAD = [
    ("meshh:4x4", "unknown topology 'meshh'"),
    ("mesh:1x1", "at least 2x2"),
    ("hexamesh:r0", "radius"),
    ("mesh4x4", "malformed"),
    ("mesh:4by4", "not RxC"),
    ("mesh:4x4,colour=red", "unknown option 'colour'"),
    ("mesh:4x4,memory", "not key=value"),
    ("smalter:5x5,corners=5", "corners"),
    ("double-butterfly:3x4", "power-of-two"),
    ("cmesh:5x5", "even"),
    ("torus:4x4,memory=south", "unknown option 'memory'"),
]


@pytest.mark.parametrize(("spec", "message"), BAD)
def test_bad_spec_is_one_line_exit_2_nothing_written(run_cli, tmp_path, spec, message):
    out_file, pic = tmp_path / "out.json", tmp_path / "pic.png"
    code, out, err = run_cli("topo", spec, "-o", str(out_file), "--draw", str(pic))
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert all(line.startswith(("error: ", "hint: ")) for line in lines)
    assert "Traceback" not in err
    assert not out_file.exists()
    assert not pic.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "not valid JSON"),
        ('{"format": "something-else"}', "not a supermesh topology"),
        ('{"format": "supermesh-topology", "nodes": [{"id": 0}], "arcs": [{"src": 0}]}', "lacks"),
    ],
)
def test_bad_file_is_exit_2(run_cli, tmp_path, content, message):
    path = tmp_path / "topo.json"
    if content is not None:
        path.write_text(content)
    out_file = tmp_path / "out.anynet"
    code, out, err = run_cli("topo", str(path), "-o", str(out_file))
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert message in err.splitlines()[0]
    assert not out_file.exists()


def test_bad_draw_extension_and_format_write_nothing(run_cli, tmp_path):
    out_file = tmp_path / "t.json"
    code, _, err = run_cli(
        "topo", "mesh:4x4", "-o", str(out_file), "--draw", str(tmp_path / "p.gif")
    )
    assert code == 2
    assert "gif" in err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run_cli("topo", "mesh:4x4", "-o", str(tmp_path / "t.xyz"))
    assert code == 2
    assert "--format" in err
    assert list(tmp_path.iterdir()) == []


def test_existing_file_survives_an_error(run_cli, tmp_path):
    keep = tmp_path / "keep.json"
    keep.write_text("precious")
    code, _, _ = run_cli("topo", "mesh:0x4", "-o", str(keep))
    assert code == 2
    assert keep.read_text() == "precious"


def test_console_script_exit_code_and_stderr():
    proc = subprocess.run(
        [sys.executable, "-c", "from supermesh.cli import main; main()", "topo", "kite:4x4"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: unknown topology 'kite'")
    assert "kite-small" in proc.stderr  # the hint lists the accepted names
