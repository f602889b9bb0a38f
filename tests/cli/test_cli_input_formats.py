"""Commands read the user's own networks: GraphML, DOT and anynet by extension or --input-format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "topologies" / "data"


def test_bound_on_a_networkx_grid_graphml(run_cli):
    code, out, _ = run_cli(
        "bound", str(DATA / "networkx_grid_4x4.graphml"), "--roots", "corners", "--json"
    )
    assert code == 1  # a negative answer, with its certificate
    doc = json.loads(out)
    assert doc["feasible"] is False  # a corner of the 4x4 mesh is entered by 2 arcs
    assert doc["certificate"]["entering_arcs"] == 2


def test_topo_converts_a_booksim_file_to_json(tmp_path, run_cli):
    out_file = tmp_path / "chip.json"
    code, _, _ = run_cli("topo", str(DATA / "booksim_relay_2x3.anynet"), "-o", str(out_file))
    assert code == 0
    doc = json.loads(out_file.read_text())
    assert len(doc["nodes"]) == 6
    assert len(doc["arcs"]) == 16


def test_input_format_for_a_file_without_a_telling_name(tmp_path, run_cli):
    path = tmp_path / "network.cfg"
    shutil.copy(DATA / "graphviz_chip.gv", path)
    code, _, err = run_cli("topo", str(path), "--json")
    assert code == 0  # recognised by its first word
    code, out, _ = run_cli("topo", str(path), "--input-format", "dot", "--json")
    assert code == 0
    labels = [n["label"] for n in json.loads(out)["nodes"]]
    assert labels == ["c0", "c1", "c2", "c3", "mem"]
    code, _, err = run_cli("trees", str(path), "--input-format", "anynet")
    assert code == 2
    assert "line 1: a line starts with 'router' or 'node', not 'graph'" in err


def test_a_bad_file_gets_one_error_line_with_its_line(tmp_path, run_cli):
    path = tmp_path / "bad.graphml"
    path.write_text('<graphml>\n<graph>\n<edge source="a" target="b"/>\n</graph>\n</graphml>\n')
    code, out, err = run_cli("sim", str(path))
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith("error: ")
    assert 'line 3: <edge source="a" target="b">' in lines[0]
    assert lines[1].startswith("hint: ")
    assert len(lines) == 2


@pytest.mark.parametrize("command", ["topo", "bound", "trees", "schedule", "sim", "design"])
def test_every_command_that_reads_a_topology_has_the_option(run_cli, command):
    code, out, _ = run_cli(command, "--help")
    assert code == 0
    assert "--input-format [json|graphml|dot|anynet]" in out
