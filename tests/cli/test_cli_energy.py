"""``--energy-model`` in ``sim``, ``sweep`` and ``report``; the breakdown in their output."""

from __future__ import annotations

import json

import pytest


def sim_json(run_cli, *args: str) -> dict:
    code, out, err = run_cli("sim", "mesh:2x2", "-a", "ring", "--size", "16KiB", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def test_sim_json_has_the_breakdown_and_the_flits(run_cli):
    doc = sim_json(run_cli, "--no-links")
    e = doc["energy"]
    assert e["model"] == "dsent"
    for part in ("router_static", "router_dynamic", "link_static", "link_dynamic", "total"):
        assert e[f"{part}_joules"] > 0
        assert e["power_watts"][part] == pytest.approx(e[f"{part}_joules"] / (doc["cycles"] * 1e-9))
    # a 4-chiplet ring AllReduce of 16 KiB: 2 x 3 steps x 4 links, one 17-flit packet each
    assert e["flits"] == 24 * 17
    assert e["router_flits"] == 2 * 24 * 17
    assert (e["routers"], e["channels"]) == (4, 8)
    assert doc["energy_joules"] == e["total_joules"]


def test_sim_energy_model_changes_only_the_energy(run_cli):
    dsent = sim_json(run_cli, "--no-links")
    paper = sim_json(run_cli, "--no-links", "--energy-model", "paper-text")
    assert paper["cycles"] == dsent["cycles"]
    assert paper["energy"]["model"] == "paper-text"
    assert paper["energy"]["link_dynamic_joules"] == pytest.approx(24 * 17 * 2048 * 1.75e-12)
    assert paper["energy"]["link_static_joules"] == 0
    custom = sim_json(run_cli, "--no-links", "--energy-model", "dsent,link_pj_per_bit=1")
    assert custom["energy"]["model"] == "dsent,link_pj_per_bit=1"
    assert custom["energy"]["constants"]["link_pj_per_bit"] == 1
    assert custom["params"]["energy_model"] == "dsent,link_pj_per_bit=1"


def test_sim_table_shows_the_components(run_cli):
    code, out, _ = run_cli("sim", "smbi:3x3", "-a", "ring", "--size", "64KiB")
    assert code == 0
    assert "dsent model" in out
    assert "router static / dynamic" in out
    assert "link static / dynamic" in out
    assert "flit hops" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sim", "mesh:2x2", "--energy-model", "dsnet"], "unknown energy model 'dsnet'"),
        (["sim", "mesh:2x2", "--energy-model", "dsent,x=1"], "unknown energy constant 'x'"),
        (["sweep", "mesh:2x2", "--energy-model", "dsent,link_pj_per_bit=-2"], ">= 0"),
        (["report", "mesh:2x2", "--energy-model", ""], "empty"),
    ],
)
def test_a_bad_energy_model_is_one_error_line(run_cli, args, message):
    code, out, err = run_cli(*args)
    assert code == 2
    assert out == ""
    first = err.splitlines()[0]
    assert first.startswith("error: ")
    assert message in first
    assert err.splitlines()[1].startswith("hint: ")
    assert "Traceback" not in err


def test_sweep_rows_carry_the_components(run_cli, tmp_path):
    path = tmp_path / "rows.csv"
    code, out, err = run_cli(
        "sweep",
        "smbi:3x3",
        "--sizes",
        "64KiB",
        "-a",
        "ring",
        "--energy-model",
        "paper-text",
        "--json",
        "-o",
        str(path),
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["energy_model"] == "paper-text"
    (row,) = doc["rows"]
    parts = ("router_static", "router_dynamic", "link_static", "link_dynamic")
    assert row["energy_joules"] == pytest.approx(sum(row[f"{p}_joules"] for p in parts))
    assert row["router_dynamic_joules"] == row["link_static_joules"] == 0  # the text's model
    assert row["flits"] > 0
    header = path.read_text().splitlines()[0].split(",")
    assert {"flits", *(f"{p}_joules" for p in parts)} <= set(header)


def test_report_shows_the_energy_ratio_next_to_the_speedup(run_cli):
    code, out, err = run_cli(
        "report", "smbi:4x4", "mesh:4x4", "--no-design", "--size", "1MiB", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["energy_model"] == "dsent"
    ratios, speedups = doc["energy_ratios"], doc["speedups"]
    assert ratios["mesh:4x4"] == dict.fromkeys(("allreduce", "reducescatter", "allgather"), 1.0)
    smbi = doc["topologies"][0]["sim"]
    mesh = doc["topologies"][1]["sim"]
    for c in ("allreduce", "reducescatter", "allgather"):
        assert ratios["smbi:4x4"][c] == pytest.approx(
            smbi[c]["energy_joules"] / mesh[c]["energy_joules"], abs=1e-4
        )
        assert ratios["smbi:4x4"][c] < 1 < speedups["smbi:4x4"][c]
    code, out, _ = run_cli("report", "smbi:4x4", "mesh:4x4", "--no-design", "--size", "1MiB")
    assert code == 0
    assert "x the energy" in out
    assert "dsent energy" in out
