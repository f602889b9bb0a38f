"""Strict readers of the values in the package's JSON files: counts, numbers, node lists.

Every ``from_json`` of a data type (trees: :mod:`supermesh.trees.model`; schedules:
:mod:`supermesh.trees.schedule.model`) reads its integers and numbers through these, so that a
file edited by hand is refused the same way everywhere: with
:class:`~supermesh.errors.InputFileError` naming the field (``where``) and the value as written
(cut to 40 characters), never a bool taken for a number, a float for a count, or NaN for a share.
"""

from __future__ import annotations

import math
from typing import Any

from supermesh.errors import InputFileError

__all__ = ["json_count", "json_number", "node_list", "shown"]


def json_count(value: Any, where: str, *, minimum: int = 0, optional: bool = False) -> Any:
    """``value`` when it is an integer (not a bool) of at least ``minimum``, else raise.

    ``optional``: ``None`` is allowed too (and returned). Shared by the ``from_json`` readers.

    Raises
    ------
    InputFileError
        Naming ``where`` and the value.

    Examples
    --------
    >>> json_count(3, "chunks", minimum=1)
    3
    >>> json_count(3.7, "chunks", minimum=1)
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: chunks must be an integer of at least 1, not 3.7
    """
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputFileError(
            f"{where} must be an integer of at least {minimum}, not {shown(value)}",
            hint="was the file edited by hand? write it again with the command that made it",
        )
    return value


def json_number(value: Any, where: str) -> float:
    """``value`` as a float when it is a finite number (not a bool), else raise.

    Examples
    --------
    >>> json_number(0.25, "share")
    0.25
    >>> json_number(float("nan"), "share")
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: share must be a finite number, not nan
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputFileError(f"{where} must be a finite number, not {shown(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise InputFileError(f"{where} must be a finite number, not {shown(value)}")
    return x


def shown(value: Any) -> str:
    """``value`` as an error message quotes it: its ``repr``, cut to 40 characters.

    Examples
    --------
    >>> print(shown("x" * 50))
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...
    """
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def node_list(value: Any, where: str) -> list[int]:
    """``value`` when it is a list of node ids (integers, not negative), else raise.

    Raises
    ------
    InputFileError
        Naming ``where`` (and the entry, for a bad one) and the value.

    Examples
    --------
    >>> node_list([0, 3], "span")
    [0, 3]
    >>> node_list([0, -1], "span")
    Traceback (most recent call last):
    ...
    supermesh.errors.InputFileError: span entry #1 must be an integer of at least 0, not -1
    """
    if not isinstance(value, list):
        raise InputFileError(f"{where} must be a list of node ids, not {shown(value)}")
    return [json_count(x, f"{where} entry #{i}") for i, x in enumerate(value)]
