"""Bad input, command by command: one ``error:`` line, one ``hint:`` line, exit 2, no file.

Every case here was found by trying (issue 14): a user typing what a user types. Each call runs
the real entry point (:func:`supermesh.cli.main`) in this process.
"""

from __future__ import annotations

import json
import os

import pytest

NINES = "9" * 5000


def assert_refused(code: int, out: str, err: str, *needles: str) -> None:
    """Exit 2 with exactly an error line and a hint line, naming what was wrong."""
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 2, err
    assert lines[0].startswith("error: "), err
    assert lines[1].startswith("hint: "), err
    assert len(lines[1]) > len("hint: ") + 3, err
    assert "Traceback" not in err + out
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


SET_CASES = [
    ("flit_time=abc", "flit_time=abc is not a number"),
    ("hop_latency=abc", "hop_latency=abc is not a number"),
    ("name=foo", "name is fixed by the preset"),
    ("unit=parsec", "unit is fixed by the preset"),
    ("flit_time=1e308", "flit_time=1e308 is out of range"),
    ("flit_time=-5", "flit_time=-5 is out of range"),
    ("chunk_bytes=1.5", "chunk_bytes=1.5 is not an integer"),
    ("hop_latency=-100", "hop_latency=-100 is out of range"),
    ("drain=-5", "drain=-5 is out of range"),
    ("reduce_delay=-1", "reduce_delay=-1 is out of range"),
    ("header_flits=-3", "header_flits=-3 is out of range"),
    ("barrier_delay=-1", "barrier_delay=-1 is out of range"),
    ("energy_model=dsent", "the energy model has its own option"),
    ("link_energy_pj_per_bit=-1", "energy constants are not simulation parameters"),
    ("link_pj_per_bit=1", "energy constants are not simulation parameters"),
    ("cut_through=maybe", "cut_through=maybe is not true or false"),
    ("flit_time=nan", "is not a number"),
    ("flit_time=inf", "is not a number"),
    ("flit_time=²", "is not a number"),
    ("nosuch=1", "unknown simulation parameter 'nosuch'"),
    ("flit_time", "is not NAME=VALUE"),
]


@pytest.mark.parametrize(("pair", "message"), SET_CASES)
def test_set_checks_type_and_range(run_cli, pair, message):
    assert_refused(*run_cli("sim", "smbi:4x4", "--set", pair), message)


def test_set_accepts_typed_values(run_cli):
    code, out, err = run_cli("sim", "mesh:2x2", "-a", "ring", "--set", "hop_latency=12", "--set",
        "cut_through=true", "--json", "--no-links",
    )  # fmt: skip
    assert code == 0, err
    params = json.loads(out)["params"]
    assert params["hop_latency"] == 12
    assert params["cut_through"] is True


def test_list_params_names_every_parameter_with_unit_and_range(run_cli):
    code, out, _ = run_cli("sim", "--list-params")
    assert code == 0
    for needle in ("flit_time", "time unit", "> 0", "chunk_bytes", "int 1 .. 2^40", "flits"):
        assert needle in out
    assert max(len(line) for line in out.splitlines()) <= 80


NUMBER_CASES = [
    (["sim", "smbi:4x4", "--time-limit", "-1"], "--time-limit '-1' is out of range"),
    (["sim", "smbi:4x4", "--time-limit", "nan"], "--time-limit 'nan' is not a finite number"),
    (["trees", "smbi:4x4", "--time-limit", "-inf"], "--time-limit '-inf'"),
    (["trees", "smbi:4x4", "--time-limit", "0"], "--time-limit '0' is out of range"),
    (["sweep", "smbi:4x4", "--time-limit", "-1"], "--time-limit"),
    (["report", "smbi:4x4", "--time-limit", "-1"], "--time-limit"),
    (["prove", "smalter", "--grids", "6", "--time-limit", "-1"], "--time-limit"),
    (["design", "mesh:3x3", "--target-trees", "3", "--time-limit", "-1"], "--time-limit '-1'"),
    (["design", "mesh:3x3", "--target-trees", "99999999999999999999"], "--target-trees"),
    (["prove", "smbi", "--grids", "4", "--workers", "99999999999999999999"], "--workers"),
    (["trees", "smbi:4x4", "--max-height", "-1"], "--max-height '-1' is out of range"),
    (["trees", "smbi:4x4", "--k", "²"], "--k '²' is not a whole number"),
    (["trees", "smbi:4x4", "--throughput", "--min-rate", "2"], "--min-rate '2'"),
    (["trees", "smbi:3x3", "--throughput", "--parts", "99999999999999999999"], "--parts"),
    (["schedule", "smbi:4x4", "-c", "allreduce", "--chunks", "0"], "--chunks '0'"),
    (
        ["schedule", "smbi:4x4", "-c", "allreduce", "--chunks", "100000", "--max-steps", "1e9"],
        "--max-steps '1e9' is not a whole number",
    ),
    (
        ["schedule", "smbi:4x4", "-c", "allreduce", "--max-steps", "1000000000"],
        "--max-steps '1000000000' is out of range",
    ),
    (["design", "mesh:3x3", "--target-trees", "3", "--cost", "foo=1"], "'foo' is neither"),
]


@pytest.mark.parametrize(("args", "message"), NUMBER_CASES, ids=lambda v: " ".join(v)[:40])
def test_every_numeric_option_is_validated_in_its_own_name(run_cli, args, message):
    assert_refused(*run_cli(*args), message)


SIZE_CASES = [
    (["sim", "smbi:4x4", "--size", "1" + "0" * 400], "--size '1000"),
    (["sim", "smbi:4x4", "--size", "99999999999999999999999999GiB"], "--size '9"),
    (["report", "smbi:4x4", "--size", "99999999999999999999999999GiB"], "--size '9"),
    (["sweep", "smbi:4x4", "--sizes", "99999999999999999999999999GiB"], "--sizes '9"),
    (["schedule", "smbi:4x4", "-c", "allreduce", "--size", "9" * 30 + "GiB"], "--size '9"),
    (["schedule", "smbi:4x4", "-c", "allreduce", "--size", ""], "--size '' is not a number"),
    (["sweep", "smbi:4x4", "--sizes", ""], "--sizes '' names no size"),
    (["sweep", "smbi:4x4", "-c", ""], "--collectives '' names nothing"),
    (["sweep", "smbi:4x4", "-a", ","], "--algorithms"),
    (["sim", "smbi:4x4", "--size", "2PiB"], "is more than 1PiB"),
    (["sim", "smbi:4x4", "--size", "1²MiB"], "--size"),
]


@pytest.mark.parametrize(("args", "message"), SIZE_CASES, ids=lambda v: " ".join(v)[:40])
def test_sizes_and_lists(run_cli, args, message):
    code, out, err = run_cli(*args)
    assert_refused(code, out, err, message)
    if len(args[-1]) > 25:  # a long number with a unit is too large, not a malformed size
        assert "is more than 1PiB" in err


SPEC_CASES = [
    "hexamesh:²",
    "smalter:5x5,corners=²",
    "kite-small:8x8,conc=²",
    f"mesh:{NINES}x4",
    "partial-smbi:4x4,io=up",
    "smalter:4x4,corners=5",
    "mesh:٣x3",
    "nosuch:3x3",
    "mesh",
]


@pytest.mark.parametrize("spec", SPEC_CASES, ids=lambda s: s[:20])
@pytest.mark.parametrize("command", ["topo", "bound", "sim"])
def test_bad_specs_get_a_hint(run_cli, command, spec):
    code, out, err = run_cli(command, spec)
    assert_refused(code, out, err)
    assert len(err) < 400  # a 5,000-digit spec is cut in the message


@pytest.mark.parametrize("spec", ["smbi:4X4", "SMBi:4x4", "SMBI:4x4", "Smbi:4X4"])
def test_specs_are_case_insensitive(run_cli, spec):
    code, out, err = run_cli("topo", spec, "--json")
    assert code == 0, err
    assert json.loads(out)["spec"] == "smbi:4x4"


def test_names_are_case_insensitive_everywhere(run_cli):
    # one rule for every name a user types, as for specs: options' choices, --set names and
    # the energy model's name and constants
    code, out, err = run_cli("sim", "mesh:2x2", "-c", "AllGather", "-a", "RING", "--preset",
        "BOOKSIM", "--energy-model", "DSENT,LINK_PJ_PER_BIT=1", "--set", "FLIT_TIME=2",
        "--json", "--no-links",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["collective"], doc["algorithm"], doc["preset"]) == ("allgather", "ring", "booksim")
    assert doc["params"]["flit_time"] == 2
    assert doc["energy"]["constants"]["link_pj_per_bit"] == 1.0
    for args in (
        ["bound", "mesh:2x2", "--direction", "IN", "--roots", "0"],
        ["trees", "smbi:3x3", "--method", "Construct", "--roots", "CORNERS"],
        ["sweep", "mesh:2x2", "-c", "AllGather", "-a", "Ring", "--sizes", "64KiB", "--json"],
    ):
        code, out, err = run_cli(*args)
        assert code == 0, (args, err)


def test_every_option_with_fixed_names_takes_any_case():
    import click

    from supermesh.cli import cli

    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if isinstance(param.type, click.Choice):
                assert not param.type.case_sensitive, (name, param.name)


def test_prove_refuses_a_size_in_the_family(run_cli):
    assert_refused(*run_cli("prove", "smbi:8x8", "--grids", "4"), "names a size (8x8)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prove", "smbi", "--sizes", "4"], "prove --sizes is now --grids"),
        (["prove", "smbi", "--out-dir", "x"], "prove --out-dir is now -o/--output"),
        (["sweep", "smbi:4x4", "--csv", "x.csv"], "sweep --csv is now -o/--output"),
    ],
)
def test_renamed_options_say_their_new_name(run_cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert_refused(*run_cli(*args), message)
    assert list(tmp_path.iterdir()) == []


def test_prove_scheduler_must_be_an_address(run_cli):
    assert_refused(
        *run_cli("prove", "smbi", "--grids", "4", "--scheduler", "not a url"),
        "is not a scheduler address",
    )


def test_missing_collective_is_one_line(run_cli):
    assert_refused(*run_cli("schedule", "smbi:4x4"), "Missing option", "allgather")


def test_hexamesh_with_memory_gets_compute_roots_by_default(run_cli):
    # once refused with a hint; the defaults now work on every family (issue 14)
    code, out, err = run_cli("trees", "hexamesh:r2,memory=south", "--json")
    assert code == 0, err
    roots = [t["root"] for s in json.loads(out)["sets"] for t in s["trees"]]
    assert len(roots) == 4
    assert all(r < 19 for r in roots)  # r2: 19 compute chiplets, then the memory chiplets


def test_hexamesh_corner_roots_refused_with_a_hint_trees_accepts(run_cli):
    # without --roots, trees off the grid packs the most distinct roots that fit (issue 14)
    code, out, err = run_cli("trees", "hexamesh:r2,memory=south")
    assert code == 0, err
    code, out, err = run_cli("trees", "hexamesh:r2,memory=south", "--roots", "corners")
    assert_refused(code, out, err)
    assert "--roots free" not in err
    assert "--roots 0,3,7" in err or "comma list of node ids" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sim", "smbi:4x4", "-a", "ring", "--roots", "0"], "--roots does not apply to -a ring"),
        (["sim", "smbi:4x4", "-a", "ring", "--time-limit", "5"], "--time-limit does not apply"),
        (["sim", "smbi:4x4", "-a", "throughput", "--roots", "0"], "--roots does not apply"),
        (["trees", "smbi:4x4", "--min-rate", "0.5"], "--min-rate does not apply"),
        (["topo", "smbi:4x4", "--format", "dot"], "--format applies to -o"),
        (["schedule", "smbi:4x4", "-c", "allreduce", "--max-steps", "8"], "--max-steps"),
        (["bound", "smbi:4x4", "--collective", "allgather", "--roots", "0"], "--roots"),
        (["sim", "mesh:2x2", "-c", "alltoall", "--roots", "0"], "--roots does not apply to -c"),
        (["sim", "mesh:2x2", "-a", "tacos", "--time-limit", "5"], "--time-limit does not apply"),
        (["schedule", "mesh:2x2", "-c", "allreduce", "-a", "tacos", "--roots", "0"], "own trees"),
        (["schedule", "mesh:2x2", "-c", "alltoall"], "point-to-point routes, not trees"),
        (["schedule", "mesh:2x2", "-c", "allgather", "-a", "direct"], "AllToAll tables"),
        (["sweep", "mesh:2x2", "--format", "csv"], "--format does not apply without -o"),
        (["sweep", "mesh:2x2", "--scheduler", "tcp://h:1", "--workers", "2"], "--workers does"),
        (["prove", "smbi", "--scheduler", "tcp://h:1", "--workers", "2"], "--workers does not"),
    ],
    ids=lambda v: " ".join(v)[:40],
)
def test_options_that_would_be_ignored_are_refused(run_cli, args, message):
    assert_refused(*run_cli(*args), message)


@pytest.mark.parametrize(
    "roots", ["0,,3", "a,b", "0;1", "²", "", "corners;free", "0,3,99999999999"]
)
def test_one_roots_grammar(run_cli, roots):
    assert_refused(*run_cli("bound", "smbi:4x4", "--roots", roots), "--roots")


def test_roots_sets_with_semicolons_in_sim(run_cli):
    code, out, err = run_cli("sim", "smbi:4x4", "-c", "allgather", "--roots",
        "0,3,12,15;1,2,13,14;4,7,8,11;5,6,9,10", "--json", "--no-links",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["meta"]["sets"] == 4


def test_sweep_checks_every_spec_before_running(run_cli, tmp_path):
    out_csv = tmp_path / "k.csv"
    code, out, err = run_cli("sweep", "mesh:3x3", "nosuch:3x3", "-o", str(out_csv))
    assert_refused(code, out, err, "unknown topology 'nosuch'")
    assert not out_csv.exists()


def test_size_in_decimal_units_is_shown_as_typed(run_cli):
    code, out, err = run_cli("sim", "mesh:2x2", "-a", "ring", "--size", "4mb")
    assert code == 0, err
    assert "4MB" in out  # 4,000,000 bytes, not 3906.25KiB
    assert "3906" not in out


def test_bound_exits_one_on_a_negative_answer(run_cli):
    code, out, _ = run_cli("bound", "mesh:4x4", "--roots", "0,3,15")
    assert code == 1
    assert "do NOT fit" in out
    code, _, _ = run_cli("bound", "mesh:4x4", "--roots", "free")
    assert code == 0  # a count is an answer, not a refusal


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "nonexist.json"],
        ["topo", "nonexist.json"],
        ["sim", "smbi:4x4", "--trees", "nonexist.json"],
    ],
)
def test_missing_files_get_a_hint(run_cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    assert_refused(*run_cli(*args), "nonexist.json")


def test_a_topology_file_with_a_dangling_arc_gets_a_hint(run_cli, tmp_path):
    _, out, _ = run_cli("topo", "mesh:2x2", "--json")
    doc = json.loads(out)
    doc["arcs"].append({"src": 0, "dst": 77, "key": 0, "cls": "mesh"})
    path = tmp_path / "dangling.json"
    path.write_text(json.dumps(doc))
    assert_refused(*run_cli("topo", str(path)), "names a node that does not exist")


@pytest.mark.parametrize("value", [-1.0, 0.0, 1e400])
def test_a_topology_file_with_a_bad_bandwidth_is_refused(run_cli, tmp_path, value):
    _, out, _ = run_cli("topo", "mesh:2x2", "--json")
    text = out.replace('"bandwidth": 1.0', f'"bandwidth": {value!r}', 1)
    path = tmp_path / "bandwidth.json"
    path.write_text(text.replace("inf", "1e400"))
    code, out, err = run_cli("sim", str(path), "-a", "ring")
    assert_refused(code, out, err)
    assert "bandwidth" in err or "too large" in err


def test_input_format_takes_any_case(run_cli, tmp_path):
    path = tmp_path / "chip.txt"  # an extension that names no format
    assert run_cli("topo", "mesh:2x2", "-o", str(path), "--format", "dot")[0] == 0
    code, out, err = run_cli("topo", str(path), "--input-format", "DOT", "--json")
    assert code == 0, err
    assert len(json.loads(out)["nodes"]) == 4
    assert_refused(*run_cli("topo", str(path), "--input-format", "xml"), "--input-format")


@pytest.fixture
def special_files(tmp_path):
    """A FIFO, a .json symlink to /dev/zero, and a tree file whose topology is that symlink."""
    import os

    from supermesh.testing.examples import smbi_corner_trees

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    trees = smbi_corner_trees(2).to_json()
    trees["topology"] = "zero.json"  # read relative to the tree file
    named = tmp_path / "trees_on_zero.json"
    named.write_text(json.dumps(trees))
    return {"fifo": str(fifo), "zero": str(zero), "named": str(named)}


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("kind", ["/dev/zero", "/dev/urandom", "fifo", "zero"])
@pytest.mark.parametrize(
    "argv", [["verify", "{}"], ["topo", "{}"], ["sim", "smbi:2x2", "--trees", "{}"]]
)
def test_devices_and_fifos_are_refused_unread(run_cli, special_files, kind, argv):
    # reading /dev/zero or a FIFO without a writer would never end
    path = special_files.get(kind, kind)
    code, out, err = run_cli(*(a.replace("{}", path) for a in argv))
    assert_refused(code, out, err)
    if argv[0] != "topo" or path.endswith(".json"):  # a bare /dev path is no spec and no file
        assert "is not a regular file" in err


def test_a_tree_file_naming_a_device_as_its_topology(run_cli, special_files):
    code, out, err = run_cli("verify", special_files["named"])
    assert_refused(code, out, err, "zero.json", "is not a regular file")


def test_python_dash_m_runs_the_same_command_line(tmp_path):
    import subprocess
    import sys

    ok = subprocess.run(
        [sys.executable, "-m", "supermesh", "topo", "mesh:2x2", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert ok.returncode == 0
    assert len(json.loads(ok.stdout)["nodes"]) == 4
    bad = subprocess.run(
        [sys.executable, "-m", "supermesh", "topo", "nosuch:2x2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[0].startswith("error: ")
