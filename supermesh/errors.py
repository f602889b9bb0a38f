"""The one exception family that user-caused errors raise.

Every error a user can cause (a bad spec, an unknown topology, a root out of range, an infeasible
request, a malformed file) is a :class:`SupermeshError`. Its message says what was wrong; its
``hint`` says what to do. The CLI prints both as one line each on stderr and exits with
``exit_code`` (2 for bad input, 1 for a negative answer), never with a traceback.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "InfeasibleError",
    "InputFileError",
    "ResourceError",
    "SolverError",
    "SpecError",
    "SupermeshError",
    "TopologyError",
]


class SupermeshError(Exception):
    """Base class of every error a user can cause.

    Parameters
    ----------
    message : str
        What was wrong, naming the bad value.
    hint : str, optional
        What to do about it (accepted forms, a suggested option).

    Examples
    --------
    >>> err = SupermeshError("unknown topology 'meshh'", hint="try one of: mesh, smbi")
    >>> str(err)
    "unknown topology 'meshh'"
    >>> err.hint
    'try one of: mesh, smbi'
    """

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SpecError(SupermeshError):
    """A topology spec string (or one of its options) is malformed or names nothing known."""


class TopologyError(SupermeshError):
    """A topology is not what an operation needs (size too small, node id out of range, ...)."""


class InputFileError(SupermeshError):
    """A file cannot be read, is not valid JSON, or lacks a field the format requires."""


class ResourceError(SupermeshError):
    """A request would need more memory or time than the documented cap (the figure is named).

    Raised before the work starts, so nothing is half done; the hint says what to ask instead.
    """


class SolverError(SupermeshError):
    """A solver could not produce an answer (for example a time limit with no solution found)."""

    exit_code = 1


class InfeasibleError(SupermeshError):
    """A request has no solution; ``certificate`` proves it.

    Parameters
    ----------
    message : str
        What cannot be done.
    certificate : dict
        A JSON-ready proof, for example ``{"set": [...], "entering_arcs": 3, "required": 4}``
        (Edmonds' condition violated by the node set).
    hint : str, optional
        What to do instead.
    """

    exit_code = 1

    def __init__(
        self, message: str, *, certificate: dict[str, Any], hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.certificate = certificate
