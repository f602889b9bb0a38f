"""A resumed ``prove`` re-checks every file it would reuse with verify's checker (issue 15).

Twenty corruptions of certificate files (the four that crashed the resume, the eight that were
reused as given, and more): each size is computed again, the result says why, and the file left
behind checks. A file edited into another valid statement is reused, because verify re-derives
it.
"""

from __future__ import annotations

import json
import shutil

import pytest

from supermesh.cli import main
from supermesh.parallel import SerialExecutor
from supermesh.trees.prove.family import prove_family
from supermesh.verify import check_file

SERIAL = SerialExecutor()


@pytest.fixture(scope="module")
def proofs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("proofs")
    prove_family("smbi", "3..4", out_dir=directory, executor=SERIAL)
    return directory


def _set(doc, path, value):
    *head, last = path
    for p in head:
        doc = doc[p]
    if value is _DELETE:
        del doc[last]
    else:
        doc[last] = value


_DELETE = object()
C = ("choices", "corners")
CORRUPTIONS = {
    # the four that crashed the resume
    "packing=1.5": ("4x4", (*C, "packing"), 1.5),
    "roots=1.5": ("4x4", (*C, "roots"), 1.5),
    "span=3": ("4x4", (*C, "span"), 3),
    "max_trees=Infinity": ("4x4", ("max_trees",), float("inf")),
    # the eight that were reused as given
    "lower deleted": ("4x4", ("lower",), _DELETE),
    "sides.lower_bound=99": ("4x4", ("choices", "sides", "lower_bound"), 99),
    "relay_only=[1,2,3]": ("4x4", (*C, "relay_only"), [1, 2, 3]),
    "max_trees_roots=[0]*5": ("3x3", ("max_trees_roots",), [0, 0, 0, 0, 0]),
    "entering_per_set=[0]": ("4x4", ("upper", "entering_per_set"), [0]),
    "made-up method": ("4x4", (*C, "method"), "magic"),
    "planted finding": ("4x4", ("findings",), ["the arcs do not add up"]),
    "upper.required=99": ("4x4", ("upper", "required"), 99),
    # more
    "upper set changed": ("4x4", ("upper", "sets", 0), [0, 1]),
    "max_trees=5": ("4x4", ("max_trees",), 5),
    "corners.height=7": ("4x4", (*C, "height"), 7),
    "corners.bound=cpsat": ("4x4", (*C, "bound"), "cpsat"),
    "corners.status=feasible": ("4x4", (*C, "status"), "feasible"),
    "status=partial": ("4x4", ("status",), "partial"),
    "an arc moved": ("4x4", (*C, "packing", "sets", 0, "trees", 1, "arcs", 0), [0, 1, 0]),
    "size=5x5": ("4x4", ("size",), "5x5"),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_a_corrupted_file_is_recomputed_and_the_reason_given(proofs, tmp_path, name):
    size, path, value = CORRUPTIONS[name]
    shutil.copytree(proofs, tmp_path, dirs_exist_ok=True)
    target = tmp_path / f"smbi_{size}.json"
    doc = json.loads(target.read_text())
    _set(doc, path, value)
    target.write_text(json.dumps(doc))  # Infinity comes out as the bare literal
    if name != "max_trees=Infinity":  # verify refuses the bare literal as unreadable (exit 2)
        assert not check_file(target).ok
    fp = prove_family("smbi", size, out_dir=tmp_path, executor=SERIAL)
    (proof,) = fp.sizes
    assert not proof.reused
    assert proof.recomputed  # says why the file there was not reused
    assert proof.proven
    assert check_file(target).ok
    assert json.loads(target.read_text()) == json.loads((proofs / target.name).read_text())


def test_a_file_edited_into_another_true_statement_is_reused(proofs, tmp_path):
    shutil.copytree(proofs, tmp_path, dirs_exist_ok=True)
    target = tmp_path / "smbi_4x4.json"
    doc = json.loads(target.read_text())
    doc["max_trees_roots"] = [0, 0, 0, 0]  # SMBi 4x4 carries 4 trees all rooted at 0 too
    target.write_text(json.dumps(doc))
    report = check_file(target)
    assert report.ok
    claim = next(c for c in report.claims if c.field == "max_trees_roots")
    assert (claim.verdict, claim.argument) == ("re-derived", "Edmonds' condition holds (max-flow)")
    (proof,) = prove_family("smbi", "4", out_dir=tmp_path, executor=SERIAL).sizes
    assert proof.reused
    assert proof.recomputed is None


def test_the_cli_says_which_files_it_recomputed(proofs, tmp_path, capsys):
    shutil.copytree(proofs, tmp_path, dirs_exist_ok=True)
    target = tmp_path / "smbi_4x4.json"
    doc = json.loads(target.read_text())
    doc["findings"] = ["planted"]
    target.write_text(json.dumps(doc))
    try:
        main(["prove", "smbi", "--grids", "3..4", "-o", str(tmp_path), "--workers", "1"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr().out
    assert code == 0  # recomputed: the planted finding is gone
    assert "4x4: the file already there was not reused: verify found: findings lists 1" in out
    assert "re-checked (reused)" in out  # 3x3
