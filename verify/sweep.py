"""Check a sweep CSV (``supermesh sweep --csv``): every row against the row schema and itself.

The columns (``docs/schemas/sweep-row.schema.json`` describes one row), in this order::

    topology, chiplets, collective, algorithm, bytes, time, unit, seconds, algbw, lower_bound,
    ratio_to_bound, max_link_utilization, energy_joules, router_static_joules,
    router_dynamic_joules, link_static_joules, link_dynamic_joules, flits, error

and, unless the sweep ran with ``--no-compare``, two more: ``speedup_vs_mesh``,
``speedup_vs_tacos``.

What a row must satisfy (recounted here; none of the simulator runs):

- ``topology`` builds and ``chiplets`` is its number of compute chiplets; ``collective`` and
  ``algorithm`` are known names; ``bytes`` a positive integer; ``unit`` the same in every row.
- a row with an ``error`` message has no results; any other row has all of them: ``time``,
  ``seconds``, ``lower_bound`` finite and positive, the energies finite and at least 0,
  ``flits`` a count, ``max_link_utilization`` in ``[0, 1]``;
- ``algbw = bytes / time``, ``ratio_to_bound = time / lower_bound`` and ``energy_joules`` the
  sum of its four components (relative tolerance ``1e-6``), ``ratio_to_bound >= 1`` (no schedule
  beats the cut bound); ``seconds = time`` when the unit is ``seconds``, else ``seconds / time``
  is one constant (the preset's seconds per unit) for the whole file;
- a speedup is empty or positive; ``speedup_vs_mesh`` is empty on a topology without a grid (and
  on an error row), ``speedup_vs_tacos`` for a collective TACOS does not synthesise; where the
  baseline's row (the same case on ``mesh:RxC``, or with algorithm ``tacos``) is in the file,
  the speedup is its time over this row's, rounded to 4 decimals (a mesh row's own
  ``speedup_vs_mesh`` and a TACOS row's ``speedup_vs_tacos`` are therefore 1).

The simulated values themselves (times, bounds, utilisations, energies, and speedups whose
baseline row is not in the file) are the simulator's: verify holds them to these relations but
does not simulate again, so they are one unproven claim of the file.
"""

from __future__ import annotations

import csv
import io
import math
import os
import stat
from pathlib import Path

from supermesh.errors import InputFileError, SupermeshError
from supermesh.topologies.io import MAX_FILE_BYTES
from supermesh.topologies.spec import build
from supermesh.verify.claims import unproven, unproven_findings
from supermesh.verify.documents import FileReport, expected_compute
from supermesh.verify.findings import Finding

__all__ = [
    "ALGORITHMS",
    "COLUMNS",
    "SPEEDUPS",
    "check_sweep_file",
    "check_sweep_rows",
    "read_csv_file",
]

COMPONENTS = ("router_static", "router_dynamic", "link_static", "link_dynamic")
COLUMNS = (
    "topology", "chiplets", "collective", "algorithm", "bytes", "time", "unit", "seconds",
    "algbw", "lower_bound", "ratio_to_bound", "max_link_utilization", "energy_joules",
    *(f"{c}_joules" for c in COMPONENTS), "flits", "error",
)  # fmt: skip
"""The header of a sweep CSV, in order (followed by :data:`SPEEDUPS` unless ``--no-compare``)."""
SPEEDUPS = ("speedup_vs_mesh", "speedup_vs_tacos")
"""The comparison columns a sweep adds by default."""
ALGORITHMS = (
    "pipeline", "tto", "paper", "throughput", "tacos", "ring", "bidir-ring", "direct",
    "multitree", "teccl",
)  # fmt: skip
"""The algorithms a sweep row may name (``supermesh sim -a``)."""
COLLECTIVES = ("allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall")
TACOS_COLLECTIVES = ("allgather", "reducescatter", "allreduce")
RESULTS = (
    "time", "seconds", "algbw", "lower_bound", "ratio_to_bound", "max_link_utilization",
    "energy_joules", *(f"{c}_joules" for c in COMPONENTS), "flits",
)  # fmt: skip
_TOL = 1e-6
_SHOWN = 20


def read_csv_file(path: str | Path, *, max_bytes: int = MAX_FILE_BYTES) -> list[list[str]]:
    """Rows of a CSV file: a readable regular UTF-8 text file of at most ``max_bytes``.

    Parameters
    ----------
    path : str or Path
    max_bytes : int
        The largest file read.

    Returns
    -------
    list of list of str
        The rows, as the csv module reads them.

    Raises
    ------
    InputFileError
        Anything else, with the reason.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    ...     _ = f.write("a,b\\n1,2\\n")
    >>> read_csv_file(f.name)
    [['a', 'b'], ['1', '2']]
    """
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"cannot read {path}: it is not a regular file")
    if st.st_size > max_bytes:
        raise InputFileError(f"{path} is {st.st_size:,} bytes, more than this tool reads")
    try:
        data = Path(path).read_bytes()[: max_bytes + 1]
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if b"\0" in data[:8192]:
        raise InputFileError(f"{path} is a binary file, not CSV text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path} is not UTF-8 text (offset {exc.start})") from None
    try:
        return list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise InputFileError(f"{path} is not valid CSV: {exc}") from None


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() and str(int(text)) == text else None


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _TOL * max(abs(a), abs(b), 1e-300)


def _row(
    row: dict[str, str], sizes: dict[str, int | None], meshes: dict[str, str | None]
) -> tuple[list[str], float | None]:
    """The faults of one row, and its seconds-per-time ratio (None: error row or seconds unit)."""
    bad: list[str] = []
    spec = row["topology"]
    if spec not in sizes:
        meshes[spec] = None
        try:
            expected_compute(spec)
            G = build(spec)
            sizes[spec] = sum(1 for _, k in G.nodes(data="kind") if k == "compute")
            rows, cols = G.graph.get("rows"), G.graph.get("cols")
            if rows and cols and G.graph.get("family") != "hexamesh":
                meshes[spec] = f"mesh:{rows}x{cols}"  # the plain mesh a user would otherwise have
        except SupermeshError:
            sizes[spec] = None
    if sizes[spec] is None:
        bad.append(f"topology {spec!r} does not build")
    elif row["chiplets"] and _count(row["chiplets"]) != sizes[spec]:
        bad.append(f"chiplets is {row['chiplets']!r}, {spec} has {sizes[spec]}")
    if row["collective"] not in COLLECTIVES:
        bad.append(f"collective {row['collective']!r} is unknown")
    if row["algorithm"] not in ALGORITHMS:
        bad.append(f"algorithm {row['algorithm']!r} is unknown")
    nbytes = _count(row["bytes"])
    if not nbytes:
        bad.append(f"bytes {row['bytes']!r} is not a positive integer")
    for c in SPEEDUPS:
        if c in row and row[c] and not (_number(row[c]) or 0) > 0:
            bad.append(f"{c} {row[c]!r} is neither empty nor a positive number")
    if row.get("speedup_vs_mesh") and (row["error"] or meshes.get(spec) is None):
        bad.append("speedup_vs_mesh is given, but there is no mesh baseline for this row")
    if row.get("speedup_vs_tacos") and (row["error"] or row["collective"] not in TACOS_COLLECTIVES):
        bad.append("speedup_vs_tacos is given, but TACOS has no baseline for this row")
    if row["error"]:
        filled = [c for c in RESULTS if row[c]]
        if filled:
            bad.append(f"an error row has results: {', '.join(filled)}")
        return bad, None
    values = {c: _number(row[c]) for c in RESULTS}
    missing = [c for c, x in values.items() if x is None]
    if missing or not row["chiplets"]:
        bad.append(f"results missing or not finite numbers: {', '.join(missing or ['chiplets'])}")
        return bad, None
    v: dict[str, float] = {c: x for c, x in values.items() if x is not None}
    for c in ("time", "seconds", "lower_bound", "algbw", "ratio_to_bound"):
        if not v[c] > 0:
            bad.append(f"{c} {row[c]} is not positive")
    energies = ("energy_joules", *(f"{c}_joules" for c in COMPONENTS))
    if any(v[c] < 0 for c in energies) or not 0 <= v["max_link_utilization"] <= 1:
        bad.append("energies must be >= 0 and max_link_utilization in [0, 1]")
    if _count(row["flits"]) is None:
        bad.append(f"flits {row['flits']!r} is not a count")
    if bad:
        return bad, None
    parts = sum(v[c] for c in energies[1:])
    if not _close(v["energy_joules"], parts) and abs(v["energy_joules"] - parts) > 1e-300:
        bad.append(
            f"energy_joules {row['energy_joules']} is not the sum of its components {parts:.6g}"
        )
    if nbytes and not _close(v["algbw"], nbytes / v["time"]):
        bad.append(f"algbw {row['algbw']} is not bytes / time = {nbytes / v['time']:.6g}")
    if not _close(v["ratio_to_bound"], v["time"] / v["lower_bound"]):
        bad.append(
            f"ratio_to_bound {row['ratio_to_bound']} is not time / lower_bound = "
            f"{v['time'] / v['lower_bound']:.6g}"
        )
    if v["ratio_to_bound"] < 1 - _TOL:
        bad.append(f"time {row['time']} beats the cut bound {row['lower_bound']}")
    if row["unit"] == "seconds":
        if not _close(v["seconds"], v["time"]):
            bad.append("the unit is seconds but seconds is not time")
        return bad, None
    return bad, v["seconds"] / v["time"]


def _speedups(
    good: dict[int, dict[str, str]], meshes: dict[str, str | None]
) -> list[tuple[int, str]]:
    """Speedups whose baseline row is in the file, recomputed: base time / time, 4 decimals."""
    times: dict[tuple[str, ...], float] = {}
    for row in good.values():
        key = (row["topology"], row["collective"], row["algorithm"], row["bytes"])
        times.setdefault(key, float(row["time"]))
    bad = []
    for i, row in good.items():
        spec, coll, alg, size = row["topology"], row["collective"], row["algorithm"], row["bytes"]
        mesh = meshes.get(spec)
        bases = {
            "speedup_vs_mesh": None if mesh is None else (mesh, coll, alg, size),
            "speedup_vs_tacos": (spec, coll, "tacos", size) if coll in TACOS_COLLECTIVES else None,
        }
        for c, base in bases.items():
            if base is None or base not in times or not row[c]:
                continue
            want = times[base] / float(row["time"])
            if abs(float(row[c]) - want) > 5e-5 + _TOL * want:
                bad.append((i, f"{c} {row[c]} is not {base[0]}'s time / this time = {want:.4f}"))
    return bad


def check_sweep_rows(rows: list[list[str]], source: str = "sweep CSV") -> FileReport:
    """Check the rows of a sweep CSV, header first (see the module docstring).

    Parameters
    ----------
    rows : list of list of str
        The CSV's rows, the header first.
    source : str
        A label for the report.

    Returns
    -------
    FileReport
        Kind ``sweep``: ``sweep-mismatch`` errors and the one unproven claim ``rows``.

    Raises
    ------
    InputFileError
        If the header is not :data:`COLUMNS`.

    Examples
    --------
    >>> head = list(COLUMNS)
    >>> row = ["mesh:2x2", "4", "allreduce", "pipeline", "1024", "100", "cycle", "1e-7", "10.24",
    ...        "50", "2", "0.5", "1e-6", "4e-7", "3e-7", "2e-7", "1e-7", "96", ""]
    >>> check_sweep_rows([head, row]).verdict
    'OK (1 claim unproven)'
    """
    if not rows or tuple(rows[0]) not in (COLUMNS, COLUMNS + SPEEDUPS):
        raise InputFileError(
            f"{source} is not a sweep CSV: its header is not {','.join(COLUMNS)}",
            hint="verify reads the CSV of `supermesh sweep --csv`; schedule tables as .json",
        )
    header = tuple(rows[0])
    found: list[Finding] = []
    sizes: dict[str, int | None] = {}
    meshes: dict[str, str | None] = {}
    units = {r[6] for r in rows[1:] if len(r) == len(header)}
    ratios: list[tuple[int, float]] = []
    good: dict[int, dict[str, str]] = {}
    for i, cells in enumerate(rows[1:], start=1):
        if len(cells) != len(header):
            found.append(
                Finding("sweep-mismatch", f"row {i} has {len(cells)} cells, not {len(header)}")
            )
            continue
        row = dict(zip(header, cells, strict=True))
        bad, ratio = _row(row, sizes, meshes)
        if ratio is not None:
            ratios.append((i, ratio))
        if not bad and not row["error"]:
            good[i] = row
        for msg in bad[:3]:
            if len(found) < _SHOWN:
                found.append(Finding("sweep-mismatch", f"row {i}: {msg}"))
    if header == COLUMNS + SPEEDUPS:
        for i, msg in _speedups(good, meshes):
            if len(found) < _SHOWN:
                found.append(Finding("sweep-mismatch", f"row {i}: {msg}"))
    if len(units) > 1:
        found.append(Finding("sweep-mismatch", f"the rows mix units {sorted(units)}"))
    if ratios and any(not _close(r, ratios[0][1]) for _, r in ratios):
        i = next(i for i, r in ratios if not _close(r, ratios[0][1]))
        found.append(
            Finding(
                "sweep-mismatch",
                f"row {i}: seconds / time differs from row "
                f"{ratios[0][0]}'s: one preset has one time unit",
            )
        )
    n = len(rows) - 1
    claims = [
        unproven(
            "rows",
            f"the simulated times, bounds, energies and speedups of {n} row(s)",
            "the simulator's results: held to their relations, not simulated again",
        )
    ]
    found += unproven_findings(claims)
    summary = f"sweep: {n} row(s), {len(sizes)} topolog{'y' if len(sizes) == 1 else 'ies'}"
    return FileReport(source, "sweep", summary, tuple(found), claims=tuple(claims))


def check_sweep_file(path: str | Path) -> FileReport:
    """Read a sweep CSV and check it (:func:`check_sweep_rows`).

    Parameters
    ----------
    path : str or Path
        The CSV file written by ``supermesh sweep --csv``.

    Returns
    -------
    FileReport
        As :func:`check_sweep_rows`.

    Raises
    ------
    InputFileError
        If the file cannot be read or is not a sweep CSV.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sweep.csv"
    >>> row = ("mesh:2x2,4,allreduce,pipeline,1024,100,cycle,1e-7,10.24,50,2,0.5,"
    ...        "1e-6,4e-7,3e-7,2e-7,1e-7,96,")
    >>> _ = path.write_text(",".join(COLUMNS) + "\\n" + row + "\\n")
    >>> check_sweep_file(path).verdict
    'OK (1 claim unproven)'
    """
    return check_sweep_rows(read_csv_file(path), source=str(path))
