"""A fuzzer over every command's options and files: no traceback ever.

Hypothesis draws a command line from each command's own options, with values from pools of
what users and fuzzers type (empty, negative, NaN, infinity, 20-digit and 5,000-digit numbers,
Unicode digits, malformed lists, paths that cannot be written) and files of every kind of
damage (empty, binary, Latin-1, huge numbers, nesting 5,000 deep, NaN literals, every field of a
real file given a value of the wrong type, node ids out of range, a file for another topology).
The oracle: the command exits 0, 1 or 2, never with another exception; an exit 2 prints exactly
one ``error:`` line and one ``hint:`` line; an unreadable input file always gives exit 2.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supermesh.cli import main

NINES = "9" * 5000
INTS = ["0", "1", "2", "3", "-1", "²", "٣", "99999999999999999999", "1.5", "", "abc", NINES, "64"]
REALS = ["0.5", "1", "0", "-1", "nan", "inf", "-inf", "1e308", "abc", "", "1e-300", "²"]
TIME_LIMITS = ["1", "0.5", "0", "-1", "nan", "inf", "-inf", "1e308", "abc", "", "1_0"]
SIZES = ["4MiB", "1KiB", "1", "0", "", "-1", "4mb", "1.5B", "9" * 30 + "GiB", "1e9", "²MiB",
         "1" + "0" * 400, "64MiB", "1.5KiB", "4 XB"]  # fmt: skip
ROOTS = ["corners", "sides", "free", "0", "0,3", "0,3,12,15", "0,,3", "a,b", "0;1", "²",
         "", "corners;free", "0,99999", "0,1;2,3", "1" * 40, "CORNERS", " 0 , 1 "]  # fmt: skip
SPECS = ["mesh:2x2", "smbi:3x3", "smalter:3x3", "mesh:3x3,memory=south", "hexamesh:r1",
         "cmesh:4x4", "smuni:3x3", "SMBi:3X3", "hexamesh:²", "smalter:5x5,corners=²",
         f"mesh:{NINES}x4", "nosuch:3x3", "mesh", "", "mesh:0x0", "torus:3x3",
         "partial-smbi:3x3,io=up"]  # fmt: skip
COLLECTIVES = ["allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall", "",
               "nosuch", "AllGather"]  # fmt: skip
ALGORITHMS = ["pipeline", "tto", "paper", "throughput", "ring", "direct", "multitree", "tacos",
              "teccl", "x"]  # fmt: skip
FORMATS = ["json", "graphml", "dot", "anynet", "DOT", "x", ""]
ENERGY = ["dsent", "paper-text", "x", "", "dsent,foo=1", "dsent,router_static_w=-1",
          "dsent,router_static_w=nan", "paper-text,link_pj_per_bit=²"]  # fmt: skip
WORKERS = ["1", "2", "0", "-1", "²", NINES, ""]
SCHEDULERS = ["not a url", "", "tcp://", "tcp://host", "²", "tcp://127.0.0.1:99999999"]
SETS = ["flit_time=abc", "hop_latency=-100", "name=foo", "flit_time=1e308", "chunk_bytes=1.5",
        "unit=parsec", "cut_through=maybe", "drain=0", "hop_latency=12", "=", "x", "drain=²",
        "header_flits=99999999999999999999", "flit_time=nan", "report=seconds"]  # fmt: skip


def _files(root: Path) -> dict[str, list[str]]:
    """Damaged and sound input files, by kind: 'unreadable' ones must give exit 2."""
    from supermesh.topologies import build, to_json
    from supermesh.trees.packing.construct import construct_trees
    from supermesh.trees.schedule.build import build_schedule

    def put(name: str, data: str | bytes) -> str:
        path = root / name
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return str(path)

    unreadable = [
        put("empty.json", b""),
        put("binary.json", b"\x89PNG\r\n\x1a\n\0\0\0binary"),
        put("latin1.json", '{"a": "caf\xe9"}'.encode("latin-1")),
        put("nested.json", "[" * 5000 + "]" * 5000),
        put("nan.json", '{"format": "supermesh-topology", "x": NaN}'),
        put("infinity.json", '{"a": Infinity}'),
        put("hugeint.json", '{"a": ' + NINES + "}"),
        put("hugefloat.json", '{"a": 1e999}'),
        put("dupkey.json", '{"a": 1, "a": 2}'),
        put("cut.json", '{"format": "supermesh-trees", "sets": ['),
        put("pic.png", b"\x89PNG\r\n\x1a\n\0\0\0"),
        put("binary.graphml", b"<graphml\0\0\xff"),
        put("cut.dot", "digraph { 0 -> "),
        put("latin1.anynet", "router 0 node caf\xe9".encode("latin-1")),
        str(root / "missing.json"),
        str(root),  # a folder
    ]
    G = build("smbi:3x3")
    topology = to_json(G)
    packing = construct_trees(G, [0, 2, 8, 6])
    trees = packing.to_json()
    schedule = build_schedule(G, "allreduce", packing, chunks=2).to_json()
    sound = [
        put("topology.json", json.dumps(topology)),
        put("trees.json", json.dumps(trees)),
        put("schedule.json", json.dumps(schedule)),
        put("mesh_trees.json", json.dumps(construct_trees(build("mesh:2x2"), [0]).to_json())),
    ]
    wrong = ["x", -1, [], {}, None, 1e300, True, [[]], {"a": 1}, 10**6]
    damaged = []
    for kind, doc in (("topology", topology), ("trees", trees), ("schedule", schedule)):
        paths = [(k,) for k in doc]
        for key in ("nodes", "arcs", "sets", "entries", "trees"):
            if isinstance(doc.get(key), list) and doc[key] and isinstance(doc[key][0], dict):
                paths += [(key, 0, k) for k in doc[key][0]]
        for i, path in enumerate(paths):
            value = wrong[i % len(wrong)]
            mutant = copy.deepcopy(doc)
            target: Any = mutant
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
            damaged.append(put(f"{kind}_{i}.json", json.dumps(mutant)))
    out_of_range = copy.deepcopy(trees)
    out_of_range["sets"][0]["trees"][0]["arcs"][0] = [0, 9999, 0]
    damaged.append(put("trees_out_of_range.json", json.dumps(out_of_range)))
    return {"unreadable": unreadable, "sound": sound, "damaged": damaged}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, list[str]]:
    return _files(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module")
def outdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz_out")


def _outputs(outdir: Path, ext: str) -> list[str]:
    return [str(outdir / f"out.{ext}"), "", str(outdir / "missing" / f"x.{ext}"), str(outdir),
            f"/proc/x.{ext}", str(outdir / "out.txt")]  # fmt: skip


def _options(command: str, files: dict[str, list[str]], outdir: Path) -> dict[str, list[str]]:
    any_file = files["unreadable"] + files["sound"] + files["damaged"]
    common = {"--json": [], "--quiet": []}
    spec_file = {"--input-format": FORMATS}
    table: dict[str, dict[str, list[str]]] = {
        "topo": {"-o": _outputs(outdir, "json"), "--format": ["json", "dot", "x"],
                 "--draw": _outputs(outdir, "png"), **spec_file},
        "bound": {"--roots": ROOTS, "--direction": ["out", "in", "x"], "--distinct": [],
                  "--collective": ["allgather", "allreduce", "x"], **spec_file},
        "trees": {"--roots": ROOTS, "--k": INTS, "--method": ["cpsat", "construct", "tto", "x"],
                  "--time-limit": TIME_LIMITS, "--max-height": INTS, "-o": _outputs(outdir, "json"),
                  "--throughput": [], "--parts": [*INTS, "auto"], "--min-rate": REALS,
                  "--direction": ["in", "out"], "--draw": _outputs(outdir, "png"), **spec_file},
        "sim": {"-c": COLLECTIVES, "--size": SIZES, "-a": ALGORITHMS, "--set": SETS,
                "--trees": any_file, "--roots": ROOTS, "--time-limit": TIME_LIMITS,
                "--no-links": [], "--preset": ["booksim", "paper", "x"],
                "--energy-model": ENERGY, **spec_file},
        "schedule": {"-c": COLLECTIVES, "--size": SIZES, "--chunks": INTS, "--trees": any_file,
                     "--roots": ROOTS, "-o": _outputs(outdir, "csv") + _outputs(outdir, "xml"),
                     "--max-steps": INTS, "--chunks-per-loop": INTS, "--time-limit": TIME_LIMITS,
                     "-a": [*ALGORITHMS, "tacos", "teccl", "direct"], **spec_file},
        "verify": {},
        "sweep": {"--sizes": [*SIZES, "1KiB:4KiB", "4KiB:1KiB", ","], "-c": COLLECTIVES,
                  "-a": [*ALGORITHMS, "ring,direct", "ring,tacos", ","], "--set": SETS,
                  "--per-chiplet": SIZES, "-o": _outputs(outdir, "csv"),
                  "--energy-model": ENERGY, "--no-compare": [], "--compare": [],
                  "--workers": WORKERS, "--scheduler": SCHEDULERS,
                  "--time-limit": TIME_LIMITS},
        "prove": {"--roots": ["corners", "sides", "free", "x", "", ","],
                  "--time-limit": TIME_LIMITS, "--workers": WORKERS, "--scheduler": SCHEDULERS,
                  "--direction": ["in", "out"], "-o": _outputs(outdir, "d")},
        "design": {"--add": ["perimeter-parallel", "diagonal", "0-1", "x", ""],
                   "--roots": [*ROOTS, "any"], "--max-links": INTS, "--max-radix": INTS,
                   "--cost": ["diagonal=2", "foo=1", "0-1=3", "=", "x=²"],
                   "--time-limit": TIME_LIMITS, "--max-height": INTS,
                   "-o": _outputs(outdir, "json"), **spec_file},
        "report": {"--size": SIZES, "--preset": ["booksim", "paper", "x"],
                   "--energy-model": ENERGY, "--no-sim": [], "--time-limit": TIME_LIMITS},
        "gallery": {"-o": _outputs(outdir, "d"), "--gallery": [*any_file, "/nonexistent"],
                    "--only": ["nosuch", "²"], "--quick": []},
    }  # fmt: skip
    return common | table[command]


# what stands first on the command line (a spec, a file, a family) and what every call needs so
# that a sound value stays small (prove: two sizes, serial; design: a target; sweep: one size)
HEADS: dict[str, tuple[list[str], list[str]]] = {
    "topo": (SPECS, []),
    "bound": (SPECS, []),
    "trees": (SPECS, ["--time-limit", "2"]),
    "sim": (SPECS, ["--time-limit", "2"]),
    "schedule": (SPECS, ["-c", "allreduce"]),
    "verify": ([], []),
    "sweep": (SPECS, ["--sizes", "1MiB", "-a", "ring"]),
    "prove": (["smbi", "mesh", "smalter,corners=4", "hexamesh", "smbi:8x8", "nosuch", ""],
              ["--grids", "2..3", "--workers", "1", "--time-limit", "2"]),
    "design": (["mesh:2x2", "mesh:3x3", "nosuch:3x3"], ["--target-trees", "2"]),
    # report: the design comparison is the slow part and has its own tests; gallery: only
    # scripts that do not exist, so that a sound call stays quick
    "report": (["mesh:2x2", "smbi:3x3", "nosuch:3x3", "SMBi:3X3", "", "mesh:2x2,bandwidth=-1"],
               ["--no-design", "--size", "64KiB", "--time-limit", "2"]),
    "gallery": ([], ["--only", "no_such_script"]),
}  # fmt: skip


def _call(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()


def _check(argv: list[str], code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 2, (argv, err)
        assert lines[0].startswith("error: "), (argv, err)
        assert lines[1].startswith("hint: "), (argv, err)


@st.composite
def command_lines(draw: Any, command: str, files: dict[str, list[str]], outdir: Path) -> list:
    heads, needed = HEADS[command]
    options = _options(command, files, outdir)
    any_file = files["unreadable"] + files["sound"] + files["damaged"]
    if command == "verify":
        head = [draw(st.sampled_from(any_file))]
    elif command in ("topo", "bound", "sim", "trees") and draw(st.booleans()):
        head = [draw(st.sampled_from(any_file))]  # a file where a spec goes
    elif command in ("sweep", "report"):
        head = draw(st.lists(st.sampled_from(heads), min_size=1, max_size=3))
    elif command == "gallery":
        head = []
    else:
        head = [draw(st.sampled_from(heads))]
    argv = [command, *head, *needed]
    names = draw(st.lists(st.sampled_from(sorted(options)), max_size=4, unique=True))
    for name in names:
        values = options[name]
        argv += [name] if not values else [name, draw(st.sampled_from(values))]
    return argv


FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(HEADS))
def test_no_command_line_gives_a_traceback(command, files, outdir):
    @FUZZ
    @given(st.data())
    def check(data: Any) -> None:
        argv = data.draw(command_lines(command, files, outdir))
        _check(argv, *_call(argv))

    check()


# a sound spec drawn by the public strategies (every family, every option) is never bad input
SOUND_CALLS: dict[str, list[str]] = {
    "topo": ["--json"],
    "bound": [],
    "trees": ["--time-limit", "2"],
    "sim": ["--size", "64KiB", "--no-links", "--time-limit", "2"],
    "schedule": [],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(SOUND_CALLS))
def test_every_spec_the_public_strategies_draw_is_taken(command):
    from supermesh.testing.strategies import topology_specs

    @FUZZ
    @given(topology_specs(max_side=4), st.sampled_from(COLLECTIVES[:6]))
    def check(spec: str, collective: str) -> None:
        argv = [command, spec, *SOUND_CALLS[command]]
        if command in ("sim", "schedule"):
            argv += ["-c", collective]
        if command == "schedule" and collective == "alltoall":
            argv += ["-a", "direct"]
        code, out, err = _call(argv)
        _check(argv, code, out, err)
        assert code in (0, 1), (argv, err)

    check()


READERS = {
    "verify": ["verify", "{}"],
    "topo": ["topo", "{}", "--json"],
    "trees": ["trees", "{}", "--json", "--time-limit", "2"],
    "bound": ["bound", "{}"],
    "sim": ["sim", "smbi:3x3", "--trees", "{}", "--no-links", "--json"],
    "schedule": ["schedule", "smbi:3x3", "-c", "allreduce", "--trees", "{}"],
    "schedule -a": ["schedule", "{}", "-c", "alltoall", "-a", "direct", "--chunks", "1"],
    "sweep": ["sweep", "{}", "--sizes", "64KiB", "-a", "ring", "--no-compare", "--json"],
}
# bound reads damaged topologies as topo, schedule -a and sweep do, without the slow metrics
# and simulations
KINDS = [
    (kind, reader)
    for kind in ("unreadable", "damaged", "sound")
    for reader in sorted(READERS)
    if not (kind == "damaged" and reader in ("topo", "trees", "schedule -a", "sweep"))
]


@pytest.mark.parametrize(("kind", "reader"), KINDS)
def test_every_file_everywhere(kind, reader, files):
    """Each file given to each command that reads one: unreadable input is exit 2, always."""
    # a damaged file goes to verify and to the commands that read its kind
    reads = {"bound": ("topology",), "sim": ("trees",), "schedule": ("trees",)}
    for path in files[kind]:
        name = Path(path).name
        if kind == "damaged" and reader in reads and not name.startswith(reads[reader]):
            continue
        argv = [a.replace("{}", path) for a in READERS[reader]]
        code, out, err = _call(argv)
        _check(argv, code, out, err)
        if kind == "unreadable":
            assert code == 2, (argv, err)


def test_a_tree_file_for_another_topology_is_refused(files):
    other = next(p for p in files["sound"] if p.endswith("mesh_trees.json"))
    for argv in (
        ["sim", "smbi:3x3", "--trees", other],
        ["schedule", "smbi:3x3", "-c", "allreduce", "--trees", other],
    ):
        code, out, err = _call(argv)
        _check(argv, code, out, err)
        assert code == 2
        assert "holds trees for mesh:2x2, not for smbi:3x3" in err
