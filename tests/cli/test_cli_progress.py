"""Long work shows progress on stderr while a terminal is attached; never with --json, --quiet
or without a terminal (stdout keeps only the table or the one JSON document)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COMMANDS = [
    (["sim", "smbi:4x4", "-c", "allgather", "--size", "64MiB"], "allgather on smbi:4x4"),
    (["trees", "smbi:4x4", "--root-sets", "--method", "paper"], "trees on smbi:4x4"),
    (["design", "mesh:3x3", "--target-trees", "3"], "design on mesh:3x3"),
    (["sweep", "mesh:3x3", "--sizes", "1MiB,2MiB", "-a", "ring"], "ring"),
    (["prove", "smbi", "--grids", "2..3", "--workers", "1"], "prove smbi"),
    (["gallery", "--only", "supermesh_variants", "--quick", "-o", "{tmp}"], "plot_"),
    (["report", "mesh:2x2", "smbi:2x2", "--no-design", "--size", "64KiB"], "report: trees"),
]


def _run(args: list[str], terminal: bool) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (or a pipe); return (code, out, err)."""
    cmd = [sys.executable, "-c", "from supermesh.cli import main; main()", *args]
    env = dict(os.environ, COLUMNS="100", TERM="xterm")
    if not terminal:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        return proc.returncode, proc.stdout, proc.stderr
    leader, follower = os.openpty()
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, env=env
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closes with the process
                break
            if not data:
                break
            chunks.append(data)
        out = proc.stdout.read().decode() if proc.stdout else ""
        if proc.stdout:
            proc.stdout.close()
        code = proc.wait()
    finally:
        os.close(leader)
    return code, out, b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize(("args", "shown"), COMMANDS, ids=lambda v: str(v)[:30])
def test_progress_on_a_terminal_only(tmp_path, args, shown):
    args = [a.replace("{tmp}", str(tmp_path / "g")) for a in args]
    code, out, err = _run(args, terminal=True)
    assert code in (0, 1), err
    assert shown in err, err
    assert shown not in out or args[0] in ("sweep", "gallery")  # the table may name it too
    if args[0] not in ("sim", "sweep"):  # the switch is shared: two commands show it off
        return
    code, out, err = _run(args, terminal=False)
    assert code in (0, 1), err
    assert "\x1b[" not in err  # no terminal, no live display
    for switch in ("--quiet", "--json"):  # either turns the display off on a terminal too
        code, _, err = _run([*args, switch], terminal=True)
        assert code in (0, 1), err
        assert shown not in err
