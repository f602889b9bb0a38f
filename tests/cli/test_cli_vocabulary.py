"""One vocabulary across commands: the same option means the same thing everywhere.

``--time-limit`` has one default and one help text in every command that packs trees with
CP-SAT (``schedule`` too: it builds the trees ``sim`` builds); ``--roots`` reads one grammar in
every command that takes root lists.
"""

from __future__ import annotations

import click
import pytest

from supermesh.cli import cli

SOLVERS = ["design", "prove", "report", "schedule", "sim", "sweep", "trees"]
SHARED_HELP = "Seconds of solver work for each CP-SAT solve"


def _option(command: str, flag: str) -> click.Option | None:
    ctx = click.Context(cli)
    found = cli.get_command(ctx, command)
    assert found is not None
    for param in found.params:
        if isinstance(param, click.Option) and flag in param.opts:
            return param
    return None


@pytest.mark.parametrize("command", SOLVERS)
def test_one_time_limit_default_and_help(command):
    option = _option(command, "--time-limit")
    assert option is not None, f"{command} solves but has no --time-limit"
    assert option.default == 60.0
    assert (option.help or "").startswith(SHARED_HELP)


def test_schedule_passes_its_time_limit_to_the_tree_search(run_cli, monkeypatch):
    import supermesh.cli.schedule as schedule_cli

    seen = {}
    real = schedule_cli.phase_packings

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(schedule_cli, "phase_packings", spy)
    code, _, err = run_cli("schedule", "smbi:3x3", "-c", "allreduce", "--time-limit", "7")
    assert code == 0, err
    assert seen["time_limit"] == 7.0
    for args in (["--trees", "x.json"], ["-a", "tacos"]):
        code, _, err = run_cli(
            "schedule", "mesh:2x2", "-c", "allreduce", *args, "--time-limit", "7"
        )
        assert code == 2
        assert err.startswith("error: --time-limit does not apply")


# (command line before --roots, whether it takes sets split by ';')
ROOT_TAKERS = [
    (["bound", "smbi:4x4"], False),
    (["trees", "smbi:4x4", "--method", "construct"], False),
    (["sim", "smbi:4x4", "--size", "64KiB", "-c", "broadcast"], True),
    (["schedule", "smbi:4x4", "-c", "broadcast"], True),
    (["design", "smbi:3x3", "--target-trees", "4"], True),
]


@pytest.mark.parametrize(("head", "sets"), ROOT_TAKERS, ids=[h[0] for h, _ in ROOT_TAKERS])
def test_one_roots_grammar_in_every_command(run_cli, head, sets):
    for bad, message in (
        ("0,,3", "--roots '0,,3' has an empty entry"),
        ("a,b", "--roots 'a' is not a root name"),
        ("", "--roots '' is empty"),
    ):
        code, _, err = run_cli(*head, "--roots", bad)
        assert code == 2, (bad, err)
        assert err.splitlines()[0] == f"error: {message}"
    code, _, err = run_cli(*head, "--roots", "0;5")
    if sets:
        assert "takes one root set" not in err
    else:
        assert code == 2
        assert "this command takes one root set" in err
    code, _, err = run_cli(*head, "--roots", " CORNERS ")  # any case, spaces dropped
    assert "is not a root" not in err
    assert code in (0, 1), err


def test_one_preset_help_in_every_command_that_simulates():
    options = {c: _option(c, "--preset") for c in ("sim", "sweep", "report")}
    helps = {c: (o.help or "") if o is not None else "" for c, o in options.items()}
    assert len(set(helps.values())) == 1, helps
    assert "booksim" in helps["report"]
    assert "25 GB/s" in helps["report"]
