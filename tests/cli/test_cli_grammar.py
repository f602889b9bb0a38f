"""Counts of one read as English: "1 size", "1 row", "entered by 1 arc", "At most 1 tree".

Each command line below produces a count of exactly one somewhere in its output (a one-size
proof, a one-row sweep, cmesh's single chiplet-router link, one added link); the noun after it
must be singular, and no output may pair "1" with a plural noun.
"""

from __future__ import annotations

import re

import pytest

ONE_PLURAL = re.compile(
    r"(?<![\d.,/])\b1 (?:arc-disjoint \S+ )?"
    r"(trees|arcs|sizes|rows|roots|links|chiplets|sets|files|errors|root sets|out-trees|in-trees)\b"
)

CASES = [
    (["prove", "smbi", "--grids", "3..3", "--workers", "1"], "out-trees, 1 size;"),
    (["bound", "cmesh:4x4", "--roots", "0,1"], "entered by 1 arc,"),
    (["bound", "cmesh:4x4", "--roots", "free"], "At most 1 tree with free roots"),
    (["report", "cmesh:4x4", "mesh:2x2", "--no-sim"], "1 tree, roots 0;"),
    (["report", "cmesh:4x4", "mesh:2x2", "--no-sim"], "for 1 tree "),
    (
        ["design", "mesh:2x2", "--target-trees", "1"],
        "Target: 1 arc-disjoint spanning tree for any 1 root (",
    ),
    (
        ["design", "mesh:3x3", "--target-trees", "2", "--roots", "0,8", "--max-height", "3",
         "--add", "diagonal", "--max-links", "5"],
        "Optimal: 1 link added (2 arcs), cost 1.",
    ),
    (["design", "mesh:2x2", "--target-trees", "2", "--roots", "0"], "1 root given for a target"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "singular"), CASES, ids=[" ".join(a)[:40] for a, _ in CASES])
def test_a_count_of_one_takes_the_singular(run_cli, args, singular):
    code, out, err = run_cli(*args)
    assert code in (0, 1, 2), err
    text = " ".join((out + err).split())  # tables wrap cells: read them as one line
    text = text.replace("│", " ")
    text = " ".join(text.split())
    assert singular in text, text
    assert not ONE_PLURAL.search(text), ONE_PLURAL.search(text)


def test_a_one_row_sweep_says_row_and_wrote_once(run_cli, tmp_path):
    out_csv = tmp_path / "k.csv"
    code, out, err = run_cli(
        "sweep", "mesh:2x2", "--sizes", "1MiB", "-a", "ring", "-o", str(out_csv)
    )
    assert code == 0, err
    assert out.strip() == f"1 row (0 errors) in {out_csv}"
    assert err == f"wrote {out_csv}\n"
