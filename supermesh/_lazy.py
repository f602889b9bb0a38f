"""Lazy public names: ``import supermesh`` stays fast (no CP-SAT, igraph or matplotlib loaded).

A package lists its public API explicitly as ``name -> module``; the module is imported the first
time the name is used (PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    namespace: MutableMapping[str, Any] | None = None,
    adapt: Callable[[str, Any], Any] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of a package with lazily imported names.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (for error messages).
    exports : mapping
        Public name -> module that defines it.
    namespace : mapping, optional
        The package's ``globals()``, so that ``dir()`` also lists what it defines eagerly; a
        name once imported is kept there (looked up directly from then on).
    adapt : callable, optional
        ``adapt(name, obj)`` returns what the package offers under ``name`` (the public map
        wraps the functions that take a topology, so that they accept any networkx graph).

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("demo", {"sqrt": "math"})
    >>> getattr_("sqrt")(9.0), "sqrt" in dir_()
    (3.0, True)
    """

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        obj = getattr(importlib.import_module(exports[name]), name)
        if adapt is not None:
            obj = adapt(name, obj)
        if namespace is not None:
            namespace[name] = obj  # the same object on every lookup
        return obj

    def __dir__() -> list[str]:
        return sorted({*exports, *(namespace or {})})

    return __getattr__, __dir__
