"""Writing files (topologies.output.write_files): all or nothing, umask modes, links kept,
devices and FIFOs written through, full disks and closed pipes as one error line."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from supermesh.errors import InputFileError
from supermesh.topologies.output import ensure_directory, write_files, write_text_atomic


@pytest.fixture
def umask():
    def set_mask(mask: int) -> None:
        os.umask(mask)

    old = os.umask(0o022)
    yield set_mask
    os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_new_files_honour_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    path = tmp_path / "a.json"
    write_text_atomic(path, "{}")
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    path = tmp_path / "a.json"
    path.write_text("old")
    path.chmod(0o640)
    write_text_atomic(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_symlink_is_followed_and_kept(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_text_atomic(link, "new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_hard_links_keep_sharing_the_file(tmp_path):
    first = tmp_path / "a.json"
    first.write_text("old")
    second = tmp_path / "b.json"
    os.link(first, second)
    write_text_atomic(first, "new")
    assert second.read_text() == "new"
    assert first.stat().st_ino == second.stat().st_ino


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_a_device_node_is_written_through_not_replaced(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null
    write_text_atomic(null, "gone")
    assert stat.S_ISCHR(null.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]  # no temporary left


def test_a_fifo_without_reader_is_refused_with_one_reader_written(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="no process is reading"):
        write_text_atomic(fifo, "data")
    got: list[bytes] = []
    opened = threading.Event()

    def reader() -> None:
        with open(fifo, "rb") as fh:
            opened.set()
            got.append(fh.read())

    thread = threading.Thread(target=reader)
    thread.start()
    # the reader's open blocks until a writer comes; ours waits for the reader in turn
    for _ in range(200):
        try:
            write_text_atomic(fifo, "data")
            break
        except InputFileError:
            threading.Event().wait(0.01)
    thread.join(5)
    assert got == [b"data"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_disk_is_one_error():
    with pytest.raises(InputFileError, match="No space left") as err:
        write_text_atomic("/dev/full", "x" * 100_000)
    assert err.value.hint


def test_all_files_or_none(tmp_path):
    first = tmp_path / "a.json"
    with pytest.raises(InputFileError, match="does not exist"):
        write_files([(first, "one"), (tmp_path / "missing" / "b.png", b"two")])
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InputFileError, match="it is a folder"):
        write_files([(first, "one"), (tmp_path, b"two")])
    assert list(tmp_path.iterdir()) == []


def test_an_old_file_survives_a_refused_write(tmp_path):
    keep = tmp_path / "keep.json"
    keep.write_text("precious")
    with pytest.raises(InputFileError):
        write_files([(keep, "new"), ("", "x")])
    assert keep.read_text() == "precious"


def test_folders_are_made_for_folder_outputs(tmp_path):
    made = ensure_directory(tmp_path / "a" / "b")
    assert made.is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputFileError, match="not a folder"):
        ensure_directory(tmp_path / "file")


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from supermesh.cli import main; main()", *args],
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        **kwargs,
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_cli_on_a_full_disk_and_a_full_stdout():
    proc = _cli("topo", "smbi:4x4", "-o", "/dev/full", "--format", "json", stdout=subprocess.PIPE)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0].startswith("error: cannot write /dev/full")
    assert len(proc.stderr.splitlines()) == 2
    with open("/dev/full", "w") as full:
        proc = _cli("topo", "smbi:4x4", stdout=full)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: cannot write to standard output: No space left on device",
        "hint: the output was cut short; write it to a file with -o, or read all of it",
    ]


def test_cli_with_a_closed_pipe():
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone (`| head -1` after its line): writes get EPIPE
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "from supermesh.cli import main; main()", "verify", "x.json"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            cwd=Path(__file__).parent,
        )
        assert proc.returncode == 2  # unreadable input: verify had nothing to print
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "from supermesh.cli import main; main()",
                "sim",
                "--list-params",
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: cannot write to standard output: it was closed",
        "hint: the output was cut short; write it to a file with -o, or read all of it",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "{trees}"],
        ["topo", "smbi:4x4"],
        ["sweep", "mesh:2x2", "--sizes", "1KiB", "-a", "ring", "--no-compare"],
    ],
    ids=lambda args: args[0],
)
def test_tables_to_a_closed_pipe(tmp_path, args):
    # rich prints the tables; on a closed pipe it exits 1 without a word by itself
    # (`verify F | head -1`), which reads as a negative answer
    from supermesh.testing.examples import smbi_corner_trees

    trees = tmp_path / "trees.json"
    trees.write_text(json.dumps(smbi_corner_trees(4).to_json()))
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = _cli(*(a.replace("{trees}", str(trees)) for a in args), stdout=write_end)
    finally:
        os.close(write_end)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "error: cannot write to standard output: it was closed",
        "hint: the output was cut short; write it to a file with -o, or read all of it",
    ]
