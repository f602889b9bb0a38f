"""docs/schemas: every file the tool writes validates against its schema, and the schemas name
the same values as the code (so that they document what is really written)."""

from __future__ import annotations

import csv
import json

import pytest
from _oracle_common import Invalid, check_schema, validator
from _oracle_sweep import _typed

from supermesh.sim.collectives import SIM_COLLECTIVES
from supermesh.sim.compare import COMPARE_FIELDS
from supermesh.sim.defaults import ALGORITHMS as SIM_ALGORITHMS
from supermesh.sim.sweep import ROW_FIELDS
from supermesh.testing.corpus import CORPUS, KIND_OF
from supermesh.topologies.model import ARC_CLASSES, NODE_KINDS
from supermesh.trees.schedule.model import COLLECTIVES, FIELDS, PHASES, ROUTE_COLLECTIVES
from supermesh.verify.sweep import ALGORITHMS, COLUMNS, SPEEDUPS
from supermesh.verify.sweep import COLLECTIVES as SWEEP_COLLECTIVES
from supermesh.verify.trees.file import METHODS

SCHEMA_OF = {
    "topology": "topology",
    "design": "design",
    "trees": "trees",
    "schedule": "schedule",
    "proof": "proof",
}


@pytest.mark.parametrize("name", sorted(n for n in CORPUS if KIND_OF[n] != "sweep"))
def test_every_json_file_the_tool_writes_validates(corpus, name):
    doc = json.loads(corpus[name].read_text())
    check_schema(doc, SCHEMA_OF[KIND_OF[name]])


def test_every_sweep_row_validates(corpus):
    rows = list(csv.reader(corpus["sweep"].read_text().splitlines()))
    assert rows[0] == list(COLUMNS + SPEEDUPS) == list(ROW_FIELDS + COMPARE_FIELDS)
    assert len(rows) == 13  # 2 topologies x 2 sizes x 3 algorithms
    for cells in rows[1:]:
        check_schema(_typed(cells, rows[0]), "sweep-row")


def test_a_schema_refuses_what_the_format_does_not_allow(corpus):
    doc = json.loads(corpus["trees-out"].read_text())
    doc["sets"][0]["trees"][0]["share"] = 0.0
    with pytest.raises(Invalid, match="share"):
        check_schema(doc, "trees")
    doc = json.loads(corpus["schedule-allreduce"].read_text())
    doc["chunks"] = 3.0  # a JSON integer is written without a fraction
    with pytest.raises(Invalid, match="chunks"):
        check_schema(doc, "schedule")


def _enum(schema_name, *path):
    node = validator(schema_name).schema
    for p in path:
        node = node[p]
    return node["enum"]


def test_the_schemas_name_the_codes_values():
    assert _enum("topology", "$defs", "node", "properties", "kind") == list(NODE_KINDS)
    assert _enum("topology", "$defs", "arc", "properties", "cls") == list(ARC_CLASSES)
    assert _enum("trees", "properties", "method") == list(METHODS)
    assert _enum("schedule", "properties", "collective") == list(COLLECTIVES + ROUTE_COLLECTIVES)
    assert _enum("schedule", "$defs", "entry", "properties", "phase") == list(PHASES)
    assert validator("schedule").schema["$defs"]["entry"]["required"] == list(FIELDS)
    assert _enum("sweep-row", "properties", "algorithm") == list(ALGORITHMS) == list(SIM_ALGORITHMS)
    assert validator("sweep-row").schema["required"] == list(ROW_FIELDS)
    assert _enum("sweep-row", "properties", "collective") == list(SWEEP_COLLECTIVES)
    assert list(SWEEP_COLLECTIVES) == list(SIM_COLLECTIVES)
    assert list(validator("sweep-row").schema["properties"])[-2:] == list(COMPARE_FIELDS)


def test_every_schema_is_draft_2020_12():
    for name in ("topology", "design", "trees", "schedule", "proof", "sweep-row"):
        schema = validator(name).schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        type(validator(name)).check_schema(schema)
