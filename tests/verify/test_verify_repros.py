"""Every corruption issue 15 reported verify accepting (or crashing on), as a test.

Each starts from a file the tool wrote (the shared corpus) and makes the reported edit; verify
must fail it, refuse it (exit 2), or at least not vouch for the edited claim (no bare ``OK``).
"""

from __future__ import annotations

import json

import pytest

from supermesh.cli import main
from supermesh.verify import check_document


def run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def load(corpus, name):
    return json.loads(corpus[name].read_text())


def verify(doc, tmp_path, capsys, name="f.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return run(["verify", str(path)], capsys)


# --- claims verify cannot re-derive are no longer accepted ---------------------------------


def test_algorithm1_relabelled_optimal_is_not_accepted(corpus, tmp_path, capsys):
    # smbi:8x8 sides, Algorithm 1: heights 11/11/11/16, feasible, lower bound 11 (the
    # eccentricity); the tool's own optimum there is 11
    doc = load(corpus, "trees-algorithm1")
    assert [t["height"] for t in doc["sets"][0]["trees"]] == [11, 11, 11, 16]
    doc["status"], doc["lower_bound"], doc["sets"][0]["lower_bound"] = "optimal", 16, 16
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1  # stats.gap still says 5
    assert "stats-mismatch: stats.gap is 5" in out
    doc["stats"]["gap"] = 0  # the edit made consistent: the claim is still only the solver's
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 0
    assert out.startswith("OK (2 claims unproven)")  # the bound, and the optimum resting on it
    assert "lower_bound: no tree set with these roots has a tallest tree below 16: unproven" in out
    assert "eccentricity bound 11" in out


@pytest.mark.parametrize("name", ["trees-tto", "trees-memory"])
def test_relabelled_torus_is_not_accepted(corpus, tmp_path, capsys, name):
    doc = load(corpus, name)
    assert (doc["status"], doc["lower_bound"]) == ("optimal", 6)
    doc["topology"] = (
        "torus:4x4"  # the mesh trees are trees of the torus too; its eccentricity is 4
    )
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 0
    assert out.startswith("OK (2 claims unproven)")
    assert "above the eccentricity bound 4" in out


def test_span_edit_leaves_an_unproven_optimum(corpus, tmp_path, capsys):
    doc = load(corpus, "trees-tto")
    doc["span"] = [n for n in doc["span"] if n not in (0, 15)]  # every root eccentricity <= 5
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 0
    assert not out.startswith("OK:")
    assert "below 6: unproven" in out
    assert "eccentricity bound 5" in out


# --- schedule tables ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("depth", "code", "text"), [(-1, 2, "at least 0"), (10**19, 1, "depth-mismatch")]
)
def test_schedule_depth_is_checked(corpus, tmp_path, capsys, depth, code, text):
    doc = load(corpus, "schedule-allreduce")
    doc["entries"][5]["depth"] = depth
    got, out, err = verify(doc, tmp_path, capsys)
    assert got == code
    assert text in out + err


def test_schedule_nbytes_must_give_its_chunks(corpus, tmp_path, capsys):
    doc = load(corpus, "schedule-size")
    doc["nbytes"] = 10**9  # in 22 chunks of 12288 B per tree: impossible
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert "chunks-mismatch: chunks is 22, but nbytes 1000000000" in out


def test_schedule_deps_are_exact(corpus, tmp_path, capsys):
    doc = load(corpus, "schedule-allreduce")
    e = next(e for e in doc["entries"] if e["deps"])
    other = next(
        x["id"]
        for x in doc["entries"]
        if x["id"] not in e["deps"]
        and x["chunk_first"] <= e["chunk_first"]
        and x["chunk_last"] >= e["chunk_last"]
        and x["id"] != e["id"]
    )
    e["deps"] = sorted([*e["deps"], other])
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert "dep-extra" in out


@pytest.mark.parametrize("name", ["schedule-allgather", "schedule-reducescatter"])
@pytest.mark.parametrize("edit", ["permute", "duplicate", "missing"])
def test_schedule_ranks(corpus, tmp_path, capsys, name, edit):
    doc = load(corpus, name)
    ranks = doc["ranks"]
    if edit == "permute":
        ranks[0], ranks[1] = ranks[1], ranks[0]  # rank order numbers the blocks
    elif edit == "duplicate":
        ranks[-1] = ranks[0]
    else:
        ranks.remove(15)  # 15 still roots a tree and receives data
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    if edit == "missing":
        assert "roots-mismatch" in out
    else:
        assert "ranks-order" in out


def test_weighted_schedule_with_an_entry_in_another_set_does_not_crash(corpus, tmp_path, capsys):
    doc = load(corpus, "schedule-weighted")
    doc["entries"][10]["set"] = 1  # the table has one set
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert "names set 1 tree" in out


@pytest.mark.parametrize(("field", "value"), [("chunks", 3.7), ("chunk_bytes", -1)])
def test_schedule_counts_must_be_counts(corpus, tmp_path, capsys, field, value):
    doc = load(corpus, "schedule-allreduce")
    doc[field] = value
    code, out, err = verify(doc, tmp_path, capsys)
    assert (code, out) == (2, "")
    assert f"{field} must be an integer of at least 1, not {value}" in err


# --- tree files ----------------------------------------------------------------------------


def test_nan_share_is_refused_by_verify_and_by_sim(corpus, tmp_path, capsys):
    doc = load(corpus, "trees-weighted-parts")
    doc["sets"][0]["trees"][0]["share"] = float("nan")
    code, out, err = verify(doc, tmp_path, capsys)  # json.dumps writes the NaN literal
    assert (code, out) == (2, "")
    assert "NaN" in err
    code, _, err = run(
        ["sim", "smbi:4x4", "-c", "allgather", "--trees", str(tmp_path / "f.json")], capsys
    )
    assert code == 2
    assert err.startswith("error: ")


@pytest.mark.parametrize("value", ["-1", "garbage", "0"])
def test_algbw_links_must_be_a_positive_fraction(corpus, tmp_path, capsys, value):
    doc = load(corpus, "trees-weighted-parts")
    doc["stats"]["algbw_links"] = value
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert f"stats.algbw_links is '{value}', not a positive fraction" in out


def test_weighted_packing_with_an_empty_span_does_not_crash(corpus, tmp_path, capsys):
    doc = load(corpus, "trees-weighted-parts")
    doc["span"] = []
    code, out, err = verify(doc, tmp_path, capsys)
    assert (code, out) == (2, "")
    assert "span must be null or a nonempty list" in err


def test_top_level_trees_that_contradict_sets_are_an_error(corpus, tmp_path, capsys):
    doc = load(corpus, "trees-out")
    assert "trees" not in doc  # the trees are stored once, under sets
    doc["trees"] = doc["sets"][0]["trees"][:2]  # an old file's copy, edited
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert "duplicate-contradiction" in out
    doc["trees"] = doc["sets"][0]["trees"]  # an old file whose copy agrees is read as before
    code, out, _ = verify(doc, tmp_path, capsys)
    assert (code, out.split(":")[0]) == (0, "OK")


# --- topology files ------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [("bandwidth", 2.0), ("latency", 3.0)])
def test_topology_spec_covers_bandwidth_and_latency(corpus, tmp_path, capsys, field, value):
    doc = load(corpus, "topology")
    doc.pop("metrics")
    doc["arcs"][0][field] = value
    code, out, _ = verify(doc, tmp_path, capsys)
    assert code == 1
    assert f"has {field} {value}, spec 'smbi:4x4' gives 1.0" in out


def test_topology_positions_must_be_finite(corpus, tmp_path, capsys):
    doc = load(corpus, "topology")
    doc["nodes"][0]["pos"] = [float("nan"), float("inf")]
    code, out, err = verify(doc, tmp_path, capsys)
    assert (code, out) == (2, "")  # NaN and Infinity are not JSON
    assert "NaN" in err
    report = check_document(doc)  # the same document handed over in Python
    assert not report.ok
    assert "pos [nan, inf]" in report.findings[0].message


def test_a_repeated_format_key_is_refused(corpus, tmp_path, capsys):
    # a first "format" that a last-one-wins reader would drop
    text = corpus["topology"].read_text().replace('"format"', '"format": "x", "format"', 1)
    code, out, err = verify(text, tmp_path, capsys)
    assert (code, out) == (2, "")
    assert "the key 'format' appears twice" in err


# --- unreadable input is exit 2 ------------------------------------------------------------


def test_unreadable_input_exits_2(corpus, tmp_path, capsys):
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "bin.json").write_bytes(b"\x00\x01binary")
    (tmp_path / "cut.json").write_text('{"format": "supermesh-trees", "sets": [')
    doc = load(corpus, "trees-out")
    doc["topology"] = "missing-topology.json"
    (tmp_path / "dangling.json").write_text(json.dumps(doc))
    for name in ("nothing.json", "dir.json", "bin.json", "cut.json", "dangling.json"):
        code, out, err = run(["verify", str(tmp_path / name)], capsys)
        assert (code, out) == (2, ""), name
        assert err.startswith("error: ")


def test_certificate_files_and_designs_are_read(corpus, tmp_path, capsys):
    for name in ("proof-smbi", "proof-mesh", "design"):
        code, out, _ = run(["verify", str(corpus[name])], capsys)
        assert code == 0, out
        assert out.startswith("OK:"), out
    code, out, _ = run(["verify", str(corpus["sweep"])], capsys)
    assert (code, out.split(":")[0]) == (0, "OK (1 claim unproven)")
