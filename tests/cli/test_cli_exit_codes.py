"""The exit-code table (README, docs/guide/conventions.md) row by row, for the rows the other
command tests do not reach: 1 for a failed re-check (``prove``), a failed script (``gallery``)
and a solver that found nothing within its limit (``design``); 2 for a missing command.

The other rows have their tests beside their commands: ``bound`` / ``trees`` / ``design``
infeasible (test_cli_bound, test_cli_trees, test_cli_design), ``verify`` errors
(test_cli_verify), a failed ``sweep`` case (test_cli_sim), 130 on Ctrl-C (test_prove), and 2 on
bad input everywhere (test_cli_fuzz, test_cli_input).
"""

from __future__ import annotations

from pathlib import Path

import supermesh.trees.prove.size as prove_size


def _one_error(err: str) -> list[str]:
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("error: ")
    assert lines[1].startswith("hint: ")
    return lines


def test_no_command_is_one_short_error(run_cli):
    code, out, err = run_cli()
    assert code == 2
    assert out == ""
    lines = _one_error(err)
    assert lines[0] == "error: Missing command."
    assert "Usage" not in err  # not the whole --help folded into one line
    assert "sim" in lines[1]  # the hint names the commands
    assert max(map(len, lines)) < 200


def test_a_failed_recheck_in_prove_is_exit_1(run_cli, monkeypatch):
    # the independent re-check of every size disagrees: a finding, shown in the table
    monkeypatch.setattr(prove_size, "recheck_document", lambda doc, G: ["planted finding"])
    code, out, _ = run_cli("prove", "smbi", "--grids", "2..3", "--workers", "1")
    assert code == 1
    assert "CHECK FAILED: planted finding" in out


def test_a_failed_gallery_script_is_exit_1(run_cli, tmp_path, monkeypatch):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "plot_bad.py").write_text('"""Bad.\n====\n"""\nraise RuntimeError("boom")\n')
    monkeypatch.chdir(tmp_path)  # a relative --gallery, as typed from the checkout
    code, out, err = run_cli("gallery", "--gallery", "scripts", "-o", "pictures")
    assert code == 1
    assert "RuntimeError: boom" in " ".join(out.replace("│", " ").split())
    assert "can't open file" not in out
    assert err == ""  # nothing drawn, so no 'wrote' line
    assert list(Path("pictures").iterdir()) == []


def test_a_solver_that_finds_nothing_in_its_limit_is_exit_1(run_cli, tmp_path):
    out_file = tmp_path / "d.json"
    code, _, err = run_cli(
        "design", "smbi:6x6", "--target-trees", "5", "--time-limit", "0.001", "-o", str(out_file)
    )
    assert code == 1
    lines = _one_error(err)
    assert "within the time limit" in lines[0]
    assert "--time-limit" in lines[1]
    assert not out_file.exists()
