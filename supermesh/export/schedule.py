"""A schedule as the text of a file: CSV rows, lossless JSON or an MSCCL XML algorithm."""

from __future__ import annotations

import json
from typing import Any

from supermesh.trees.schedule.model import Schedule

__all__ = ["EXTENSIONS", "FORMATS", "schedule_text"]

FORMATS = ("csv", "json", "msccl")
EXTENSIONS = {"csv": "csv", "json": "json", "xml": "msccl"}
"""File extension -> format (see :func:`supermesh.export.formats.format_for`)."""


def schedule_text(schedule: Schedule, fmt: str, **msccl: Any) -> str:
    """The schedule as the text of a ``fmt`` file.

    Parameters
    ----------
    schedule : Schedule
    fmt : {"csv", "json", "msccl"}
        :func:`~supermesh.export.table.schedule_csv`, :meth:`Schedule.to_json` or
        :func:`~supermesh.export.msccl.msccl_xml`.
    **msccl
        Passed to :func:`~supermesh.export.msccl.msccl_xml` (``limits``, ``chunks_per_loop``).

    Returns
    -------
    str

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.schedule import build_schedule, collective_trees
    >>> G = build("smbi:2x2")
    >>> s = build_schedule(G, "allreduce", collective_trees(G, "allreduce"), chunks=1)
    >>> schedule_text(s, "csv").splitlines()[0].split(",")[:3]
    ['chiplet', 'role', 'id']
    """
    if fmt == "csv":
        from supermesh.export.table import schedule_csv

        return schedule_csv(schedule)
    if fmt == "msccl":
        from supermesh.export.msccl import msccl_xml

        return msccl_xml(schedule, **msccl)
    return json.dumps(schedule.to_json(), indent=1) + "\n"
