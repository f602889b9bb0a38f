"""The mutation campaign: every file kind the tool writes, broken one field at a time.

Each mutant must be refused, caught, flagged unproven, or proven still valid by the oracle in
``tests/_oracle*.py`` (written from the documented file semantics, never calling verify or the code
that wrote the file). Accepted-but-wrong mutants and crashes fail the test. The seed is fixed;
the budget is 15 mutants per file in the ``ci`` profile (28 files: 420 mutants, about a minute
on 2 cores) and 200 under ``HYPOTHESIS_PROFILE=nightly`` (5,600, about 8 minutes);
``SUPERMESH_CAMPAIGN_MUTANTS=N`` sets it directly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _oracle import oracle

from supermesh.testing.corpus import CORPUS, KIND_OF
from supermesh.testing.mutations.campaign import OUTCOMES, run_campaign, tally
from supermesh.verify import check_file

SEED = 20251201
PER_FILE = int(
    os.environ.get(
        "SUPERMESH_CAMPAIGN_MUTANTS",
        200 if os.environ.get("HYPOTHESIS_PROFILE") == "nightly" else 15,
    )
)


def _read(path: Path) -> object:
    import csv

    if path.suffix == ".csv":
        return list(csv.reader(path.read_text().splitlines()))
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_originals_are_valid_to_verify_and_to_the_oracle(corpus, name):
    report = check_file(corpus[name])
    assert report.ok, [f.message for f in report.findings if f.is_error]
    doc = _read(corpus[name])
    assert oracle(KIND_OF[name], doc, doc) == (True, "valid")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_no_mutant_is_accepted_wrongly_or_crashes_verify(corpus, name, tmp_path):
    outcomes = run_campaign(
        {name: corpus[name]},
        KIND_OF,
        oracle,
        workdir=tmp_path,
        seed=SEED + sorted(CORPUS).index(name),
        per_file=PER_FILE,
    )
    counts = tally(outcomes)[KIND_OF[name]]
    print(name, dict(counts))  # the per-file counts, with -s
    bad = [
        f"{o.outcome}: {o.mutant.label}: {o.why}"
        for o in outcomes
        if o.outcome in ("accepted-but-wrong", "crash")
    ]
    assert bad == []
    assert counts["total"] == sum(counts[o] for o in OUTCOMES) == len(outcomes) > 0


def test_the_oracle_is_no_pushover(corpus):
    # a judge that calls everything invalid would make the campaign pass trivially: some mutants
    # of every kind are proven still valid, and some are not
    doc = _read(corpus["trees-out"])
    swapped = json.loads(json.dumps(doc))
    arcs = swapped["sets"][0]["trees"][0]["arcs"]
    arcs[0], arcs[1] = arcs[1], arcs[0]  # the order of a tree's arcs carries no meaning
    assert oracle("trees", doc, swapped) == (True, "valid")
    taller = json.loads(json.dumps(doc))
    taller["sets"][0]["trees"][0]["height"] += 1
    assert oracle("trees", doc, taller)[0] is False
