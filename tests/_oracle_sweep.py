"""The campaign's judge of sweep CSVs, from docs/schemas/sweep-row.schema.json.

A sweep CSV is valid when its header is the documented one and every row, read back into typed
values (integers, numbers, empty cells as null), is schema-valid and satisfies the documented
relations (chiplets of the topology, algbw = bytes / time, ratio = time / bound, energy = the sum
of its components, seconds, one unit and one seconds-per-unit for the file); its simulated values
(speedups included) are those of the original row for the same case (the simulator's output,
trusted). The two speedup columns are there unless the sweep ran with ``--no-compare``.
Dropping or repeating a row keeps it valid: each row is a claim of its own.
"""

from __future__ import annotations

import math
from typing import Any

from _oracle_common import Invalid, check_schema, compute, need
from _oracle_trees import topology

COLUMNS = [
    "topology",
    "chiplets",
    "collective",
    "algorithm",
    "bytes",
    "time",
    "unit",
    "seconds",
    "algbw",
    "lower_bound",
    "ratio_to_bound",
    "max_link_utilization",
    "energy_joules",
    "router_static_joules",
    "router_dynamic_joules",
    "link_static_joules",
    "link_dynamic_joules",
    "flits",
    "error",
]
SPEEDUPS = ["speedup_vs_mesh", "speedup_vs_tacos"]
PARTS = [
    "router_static_joules",
    "router_dynamic_joules",
    "link_static_joules",
    "link_dynamic_joules",
]
INTS = {"chiplets", "bytes", "flits"}
NUMBERS = {
    "time",
    "seconds",
    "algbw",
    "lower_bound",
    "ratio_to_bound",
    "max_link_utilization",
    "energy_joules",
    *PARTS,
}
SIMULATED = NUMBERS | {"flits", *SPEEDUPS}


def _typed(cells: list[str], header: list[str] = COLUMNS) -> dict[str, Any]:
    need(len(cells) == len(header), "a row of the wrong length")
    row: dict[str, Any] = {}
    for name, text in zip(header, cells, strict=True):
        if text == "":
            row[name] = None
        elif name in INTS:
            need(text.isdigit() and str(int(text)) == text, f"{name} is not an integer")
            row[name] = int(text)
        elif name in NUMBERS or name in SPEEDUPS:
            try:
                row[name] = float(text)
            except ValueError:
                raise Invalid(f"{name} is not a number") from None
        else:
            row[name] = text
    if row["error"] is None and row["unit"] is None:
        raise Invalid("no unit")
    return row


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def sweep_problem(rows: Any, original: list[list[str]]) -> None:
    """Raise :class:`Invalid` unless the sweep CSV rows (header first) are valid."""
    need(rows and rows[0] in (COLUMNS, COLUMNS + SPEEDUPS), "the header")
    header = rows[0]
    need(header == original[0], "the columns of the sweep that ran")
    truth = {tuple(r[i] for i in (0, 2, 3, 4)): r for r in original[1:]}
    units, ratios = set(), []
    for cells in rows[1:]:
        row = _typed(cells, header)
        check_schema(row, "sweep-row")
        need(row["chiplets"] == len(compute(topology(row["topology"]))) or row["error"], "chiplets")
        case = (cells[0], cells[2], cells[3], cells[4])
        need(case in truth, "a case the sweep did not run")
        for i, name in enumerate(header):
            if name in SIMULATED or name in ("error", "unit"):
                need(cells[i] == truth[case][i], f"{name} is not the simulated value")
        units.add(row["unit"])
        if row["error"] is not None:
            need(all(row[n] is None for n in SIMULATED if n in row), "an error row with results")
            continue
        need(all(row[n] is not None and math.isfinite(row[n]) for n in NUMBERS), "results missing")
        need(_close(row["algbw"], row["bytes"] / row["time"]), "algbw")
        need(_close(row["ratio_to_bound"], row["time"] / row["lower_bound"]), "ratio")
        need(_close(row["energy_joules"], sum(row[n] for n in PARTS)), "energy components")
        if row["unit"] == "seconds":
            need(_close(row["seconds"], row["time"]), "seconds")
        else:
            ratios.append(row["seconds"] / row["time"])
    need(len(units) <= 1 and all(_close(r, ratios[0]) for r in ratios), "units")
