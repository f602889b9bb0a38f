"""Family proofs: the all-sizes claims against a range, certificate files, resumption, the CLI."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from supermesh.errors import SpecError
from supermesh.parallel import SerialExecutor
from supermesh.topologies import arc_connectivity, build
from supermesh.trees.prove.cases import cases_for
from supermesh.trees.prove.certificate import recheck_document
from supermesh.trees.prove.family import parse_family, parse_sizes, prove_family
from supermesh.trees.prove.result import SizeTask
from supermesh.trees.prove.size import prove_size
from supermesh.trees.prove.statement import family_statement

SERIAL = SerialExecutor()


def in_degrees(spec: str) -> Counter:
    G = build(spec)
    return Counter(d for _, d in G.in_degree())


# --- the numbers the all-sizes arguments rest on, recounted from the graphs -----------------


@pytest.mark.parametrize("n", range(3, 16))
def test_counting_facts_of_the_arguments(n):
    rc = n * n
    mesh = build(f"mesh:{n}x{n}")
    assert sorted(d for _, d in mesh.in_degree())[:4] == [2, 2, 2, 2]  # 8 < 3 x 3
    smbi = in_degrees(f"smbi:{n}x{n}")
    assert smbi[4] == 4 + (n - 2) ** 2  # corners and interior: 4 in-arcs
    assert build(f"smbi:{n}x{n}").number_of_edges() == 4 * rc + 4 * n - 8
    if n % 2 == 0:
        assert in_degrees(f"smalter:{n}x{n}") == Counter({4: rc})  # 4-regular
    else:
        assert in_degrees(f"smalter:{n}x{n}") == Counter({3: 4, 4: rc - 4})  # 4RC - 4 arcs
    assert in_degrees(f"smuni:{n}x{n}") == Counter({3: 4, 4: rc - 4})
    assert in_degrees(f"torus:{n}x{n}") == Counter({4: rc})
    south = [(n - 1) * n + c for c in range(n)]
    G = build(f"partial-smalter:{n}x{n}")
    assert all(G.in_degree(v) <= 3 for v in south)  # 3L < 4(L - 1) once L >= 5


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_smalter_even_is_4_arc_connected_but_2xc_is_not(n):
    assert arc_connectivity(build(f"smalter:{n}x{n}")) == 4
    assert arc_connectivity(build(f"smalter:2x{n}")) == 2  # the column cuts the argument names
    assert arc_connectivity(build(f"smbi:{n}x{n}")) == 4
    assert arc_connectivity(build(f"torus:{n}x{n}")) == 4


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_hexamesh_facts(r):
    G = build(f"hexamesh:r{r}")
    assert sorted(d for _, d in G.in_degree())[:6] == [3] * 6  # 18 < 4 x 5
    assert arc_connectivity(G) == 3


# --- every all-sizes claim agrees with the per-size proofs over a range ---------------------

FAMILIES = [
    ("mesh", "2..7"),
    ("smbi", "2..8"),
    ("smalter", "2..7"),
    ("smalter", "4x6,5x7,2x6,4x5"),
    ("smalter,corners=4", "3..7:2"),
    ("partial-smbi", "2..7"),
    ("partial-smalter,io=west", "2..7"),
    ("smuni,dir=ccw", "2..6"),
    ("torus", "3..5"),
    ("hexamesh", "1..3"),
    ("mesh,memory=south", "2..5"),
    ("smbi,memory=north+east", "3..5"),
]


@pytest.mark.parametrize(("family", "sizes"), FAMILIES)
def test_all_sizes_statement_holds_on_the_range(family, sizes):
    fp = prove_family(family, sizes, executor=SERIAL, time_limit=20)
    assert fp.proven, [(s.size, s.findings) for s in fp.sizes if not s.proven]
    a = fp.all_sizes
    assert a is not None
    assert a["statement"]
    assert a["argument"]
    assert a["contradicted"] == []
    assert a["checked"] == [s.size for s in fp.sizes]


def test_known_answers_from_the_brief():
    fp = prove_family("smbi", "3..4", executor=SERIAL)
    assert [s.max_trees for s in fp.sizes] == [5, 4]  # 3x3 SMBi fits 5 with free roots
    odd = prove_family("smalter", "5..5", roots=["corners", "sides"], executor=SERIAL)
    assert odd.sizes[0].choices["sides"].status == "infeasible"  # only corners work
    even = prove_family("smalter", "6..8:2", roots=["sides"], executor=SERIAL, time_limit=30)
    for s in even.sizes:  # mid-side roots need exactly the bound + 1
        c = s.choices["sides"]
        assert c.status == "optimal"
        assert c.height == c.lower_bound
        n = int(s.size.split("x")[0])
        assert c.height == (n // 2 + n - 1) + 1


def test_no_statement_for_families_without_an_argument():
    assert cases_for("kite-small") == []
    assert family_statement("hexamesh:r2,memory=south") is None
    fp = prove_family("hexamesh,memory=south", "1..1", executor=SERIAL)
    assert fp.all_sizes is None
    assert fp.sizes[0].proven


def test_family_statement_for_report():
    st = family_statement("smalter:8x8")
    assert st["size"] == "8x8"
    assert "4-regular" in st["argument"]
    assert family_statement(build("mesh:4x4"))["statement"].startswith("Every R x C mesh")


# --- certificate files: written, re-checked, reused, repaired --------------------------------


def test_resume_reuses_valid_files_and_redoes_corrupted_ones(tmp_path):
    first = prove_family("smbi", "3..5", out_dir=tmp_path, executor=SERIAL)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["smbi_3x3.json", "smbi_4x4.json", "smbi_5x5.json"]
    assert not any(s.reused for s in first.sizes)
    # a truncated file and a forged claim (one arc moved onto another tree's arc)
    (tmp_path / "smbi_3x3.json").write_text('{"format": "supermesh-proof", "vers')
    doc = json.loads((tmp_path / "smbi_5x5.json").read_text())
    trees = doc["choices"]["corners"]["packing"]["sets"][0]["trees"]
    trees[1]["arcs"][0] = trees[0]["arcs"][0]
    (tmp_path / "smbi_5x5.json").write_text(json.dumps(doc))
    assert recheck_document(doc) != []
    second = prove_family("smbi", "3..5", out_dir=tmp_path, executor=SERIAL)
    assert [s.reused for s in second.sizes] == [False, True, False]
    assert all(s.proven for s in second.sizes)
    for p in tmp_path.iterdir():
        assert recheck_document(json.loads(p.read_text())) == []
    assert [s.to_json()["heights"] for s in second.sizes] == [
        s.to_json()["heights"] for s in first.sizes
    ]


def test_no_partial_file_after_an_interrupted_write(tmp_path, monkeypatch):
    target = tmp_path / "smbi_4x4.json"

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prove_size(SizeTask("smbi:4x4", "4x4", out_path=str(target)))
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary


def test_interrupted_sweep_keeps_finished_files_whole(tmp_path, monkeypatch):
    import supermesh.trees.prove.size as ps

    real = ps._compute

    def stop_at_5(task):
        if task.spec == "smbi:5x5":
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(ps, "_compute", stop_at_5)
    with pytest.raises(KeyboardInterrupt):
        prove_family("smbi", "3..6", out_dir=tmp_path, executor=SERIAL)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["smbi_3x3.json", "smbi_4x4.json"]
    for p in tmp_path.iterdir():
        assert recheck_document(json.loads(p.read_text())) == []


# --- parsing and the CLI ---------------------------------------------------------------------


def test_parsing():
    assert parse_sizes("4..6") == [(4, 4), (5, 5), (6, 6)]
    assert parse_sizes("4x4, 6x8") == [(4, 4), (6, 8)]
    assert parse_family("smalter:NxN,corners=4") == ("smalter", ",corners=4", False)
    for bad in ("6..4", "4x", "a..b", ""):
        with pytest.raises(SpecError):
            parse_sizes(bad)
    with pytest.raises(SpecError):
        parse_family("smbx")
    with pytest.raises(SpecError):
        prove_family("torus", "2..3", executor=SERIAL)  # torus starts at 3x3
    with pytest.raises(SpecError):
        prove_family("smbi", "2..3", roots=["middle"], executor=SERIAL)


def test_cli_json_shape(run_cli, tmp_path):
    code, out, _ = run_cli(
        "prove", "smbi", "--grids", "2..4", "--json", "--workers", "1", "-o", str(tmp_path)
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["family"] == "smbi"
    assert doc["direction"] == "out"
    assert [s["size"] for s in doc["sizes"]] == ["2x2", "3x3", "4x4"]
    four = doc["sizes"][2]
    assert four["max_trees"] == 4
    assert four["heights"] == {"corners": 6, "sides": 5}
    assert four["certificate"] == str(tmp_path / "smbi_4x4.json")
    assert set(doc["all_sizes"]) >= {"statement", "argument", "checked", "contradicted"}


@pytest.mark.parametrize(("family", "grids"), [("hexamesh", "1..2"), ("smalter", "3..4")])
def test_certificate_files_are_the_same_bytes_run_to_run(run_cli, tmp_path, family, grids):
    """The same inputs give the same files (the README's promise): no wall-clock figure in a
    certificate, whether the sizes ran serially or on two workers."""
    texts = []
    for name, workers in (("a", "1"), ("b", "2")):
        code, _, err = run_cli(
            "prove",
            family,
            "--grids",
            grids,
            "--workers",
            workers,
            "-q",
            "-o",
            str(tmp_path / name),
        )
        assert code == 0, err
        texts.append({p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())})
    assert len(texts[0]) == 2
    assert texts[0] == texts[1]
    for data in texts[0].values():
        assert b"wall" not in data
        assert b"seconds" not in data


def test_cli_table_and_null_statement(run_cli):
    code, out, _ = run_cli("prove", "mesh", "--grids", "4x4,5x6", "--workers", "1")
    assert code == 0
    assert "impossible" in out
    assert "For every size" in out
    code, out, _ = run_cli(
        "prove", "hexamesh,memory=south", "--grids", "1..1", "--workers", "1", "--json"
    )
    assert code == 0
    assert json.loads(out)["all_sizes"] is None


def test_cli_errors_and_interrupt(run_cli, monkeypatch):
    code, _, err = run_cli("prove", "smbi", "--grids", "9..2")
    assert code == 2
    assert "error:" in err
    assert "hint:" in err
    code, _, err = run_cli("prove", "smbi", "--roots", "middle", "--workers", "1")
    assert code == 2

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("supermesh.trees.prove.family.prove_family", interrupted)
    monkeypatch.setattr("supermesh.cli.prove.prove_family", interrupted)
    code, _, err = run_cli("prove", "smbi", "--grids", "2..3", "--workers", "1")
    assert code == 130
    assert "interrupted" in err
