"""Every command that writes says so the same way and writes files a user can share.

``wrote FILE`` on stderr for each file (``wrote N files to DIR/`` for a folder output), nothing
with ``-q``; a new file is 0666 less the umask (0644 under 022), data files and pictures alike;
``-o ''`` is refused; a second output that cannot be written leaves the first unwritten.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


# (command line with {d} for the output folder, the files it writes relative to {d})
WRITERS = [
    (["topo", "mesh:2x2", "-o", "{d}/a.json", "--draw", "{d}/a.png"], ["a.json", "a.png"]),
    (["trees", "smbi:3x3", "-o", "{d}/t.json", "--draw", "{d}/t.svg"], ["t.json", "t.svg"]),
    (["design", "mesh:3x3", "--target-trees", "3", "-o", "{d}/d.json", "--draw", "{d}/d.png"],
     ["d.json", "d.png"]),
    (["schedule", "smbi:3x3", "-c", "allreduce", "-o", "{d}/s.xml"], ["s.xml"]),
    (["sweep", "mesh:2x2", "--sizes", "1MiB", "-a", "ring", "--no-compare", "-o", "{d}/w.csv"],
     ["w.csv"]),
    (["prove", "mesh", "--grids", "2..2", "--workers", "1", "-o", "{d}/proofs"],
     ["proofs/mesh_2x2.json"]),
    (["gallery", "--only", "supermesh_variants", "--quick", "-o", "{d}/pictures"],
     ["pictures/plot_supermesh_variants.png"]),
]  # fmt: skip
FOLDERS = {"prove": "proofs", "gallery": "pictures"}


def _argv(args: list[str], folder: Path) -> list[str]:
    return [a.replace("{d}", str(folder)) for a in args]


@pytest.mark.parametrize(("args", "files"), WRITERS, ids=[a[0] for a, _ in WRITERS])
def test_wrote_lines_and_modes(run_cli, tmp_path, umask_022, args, files):
    code, _, err = run_cli(*_argv(args, tmp_path))
    assert code == 0, err
    if args[0] in FOLDERS:
        expected = [f"wrote {len(files)} file{'s' * (len(files) != 1)} to "
                    f"{tmp_path / FOLDERS[args[0]]}/"]  # fmt: skip
    else:
        expected = [f"wrote {tmp_path / f}" for f in files]
    assert err.splitlines() == expected
    for f in files:
        assert stat.S_IMODE((tmp_path / f).stat().st_mode) == 0o644, f
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    code, _, err = run_cli(*_argv(args, quiet), "-q")
    assert code == 0, err
    assert err == ""
    assert all((quiet / f).exists() for f in files)


@pytest.mark.parametrize(("args", "files"), WRITERS, ids=[a[0] for a, _ in WRITERS])
def test_an_empty_output_path_is_refused(run_cli, tmp_path, args, files):
    argv = _argv(args, tmp_path)
    argv[argv.index("-o") + 1] = ""
    code, _, err = run_cli(*argv)
    assert code == 2
    assert err.splitlines()[0] == "error: --output '' is an empty path"
    assert len(err.splitlines()) == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_second_output_that_fails_leaves_the_first_unwritten(run_cli, tmp_path):
    """/proc takes no new files: the picture fails only when written, after the JSON is
    ready; the JSON must not be put in place either."""
    first = tmp_path / "a.json"
    code, _, err = run_cli("topo", "mesh:2x2", "-o", str(first), "--draw", "/proc/x.png")
    assert code == 2
    assert err.startswith("error: cannot write /proc/x.png")
    assert list(tmp_path.iterdir()) == []


def test_help_says_what_happens_to_an_existing_file():
    """Every -o and --draw of every command says, in --help, that an existing file is replaced
    (a folder output: that the folder is created)."""
    import click

    from supermesh.cli import cli

    ctx = click.Context(cli)
    seen = 0
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if not {"--output", "--draw"} & set(param.opts):
                continue
            seen += 1
            text = " ".join((getattr(param, "help", "") or "").split())
            folder = name in FOLDERS
            assert ("created" if folder else "an existing file is replaced") in text, (name, text)
    assert seen == 10  # -o of 7 commands, --draw of topo, trees, design
