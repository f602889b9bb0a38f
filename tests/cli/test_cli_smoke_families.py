"""Every family of the README's topology table works from the defaults, at two sizes.

One spec per row of the table (README "Topologies"), at its smallest size and one larger:
``topo``, ``bound``, ``trees``, ``sim`` of every collective with the default algorithm,
``schedule`` + ``verify``, and ``report``. Each call exits 0, or 1 with its proof (an Edmonds /
Frank certificate: a node set and the arcs entering it) where the answer is negative; never 2,
never a traceback.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"

# (row of the README table, smallest spec, a larger spec)
FAMILIES = [
    ("mesh:RxC", "mesh:2x2", "mesh:4x4"),
    ("smbi:RxC", "smbi:2x2", "smbi:4x4"),
    ("smalter:RxC", "smalter:2x2", "smalter:3x3,corners=4"),
    ("partial-smbi:RxC", "partial-smbi:2x2", "partial-smalter:4x4,io=east"),
    ("smuni:RxC", "smuni:2x2", "smuni:4x4,dir=ccw"),
    ("torus:RxC", "torus:3x3", "torus:4x4"),
    ("hexamesh:rR", "hexamesh:r1", "hexamesh:3-4-3"),
    ("SPEC,memory=S1+S2", "mesh:2x2,memory=north", "hexamesh:r2,memory=south"),
    ("folded-torus:RxC", "folded-torus:3x3", "folded-torus:4x4"),
    ("kite-small:RxC", "kite-small:2x2", "kite-medium:4x4"),
    ("double-butterfly:RxC", "double-butterfly:2x2", "butterdonut:4x4"),
    ("cmesh:RxC", "cmesh:4x4", "cmesh:6x6"),
    ("SPEC,conc=4", "kite-small:4x4,conc=4", "kite-small:6x6,conc=4"),
]
SPECS = [spec for _, *specs in FAMILIES for spec in specs]
SIM_COLLECTIVES = ["allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall"]
PROOF = re.compile(r"entered by|ruled out|certificate|cut", re.IGNORECASE)


def ok_or_proof(run_cli, *args: str) -> str:
    code, out, err = run_cli(*args)
    where = " ".join(args)
    assert "Traceback" not in out + err, where
    assert code in (0, 1), f"{where}: exit {code}: {err}"
    if code == 1:
        assert PROOF.search(out + err), f"{where}: a negative answer without its proof"
    return out


def test_every_row_of_the_readme_table_is_covered() -> None:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| spec | what it is |") :].split("\n\n")[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    assert len(rows) == len(FAMILIES)
    for row, (first, *_) in zip(rows, FAMILIES, strict=True):
        assert f"`{first}" in row.split("|")[1]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_every_command_works_from_the_defaults(run_cli, tmp_path: Path, spec: str) -> None:
    limit = ("--time-limit", "5")
    ok_or_proof(run_cli, "topo", spec)
    ok_or_proof(run_cli, "bound", spec)
    ok_or_proof(run_cli, "trees", spec, *limit)
    for collective in SIM_COLLECTIVES:
        out = ok_or_proof(
            run_cli, "sim", spec, "-c", collective, "--size", "1MiB", "--json", *limit
        )
        assert json.loads(out)["cycles"] > 0
    for collective in ("allreduce", "reducescatter", "allgather"):
        path = tmp_path / f"{collective}.json"
        ok_or_proof(run_cli, "schedule", spec, "-c", collective, "-o", str(path))
        code, out, err = run_cli("verify", str(path))
        assert code == 0, f"verify {spec} {collective}: {out}{err}"
    out = ok_or_proof(run_cli, "report", spec, "--no-design", "--size", "1MiB", "--json", *limit)
    assert json.loads(out)["topologies"][0]["spec"]
