"""What the public API accepts as a topology: a topology, or any networkx graph converted.

:func:`as_topology` is the one normalising helper: a topology passes through untouched,
anything else networkx goes through
:func:`~supermesh.topologies.formats.convert.from_networkx` with its defaults;
:func:`topology_input` wraps a function so that it does this to its first argument.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import networkx as nx

from supermesh.topologies.formats.convert import from_networkx
from supermesh.topologies.formats.labels import is_int
from supermesh.topologies.model import NODE_KINDS

__all__ = ["as_topology", "is_topology", "takes_topology", "topology_input"]


def is_topology(G: Any) -> bool:
    """Whether ``G`` already is a topology: a MultiDiGraph with integer ids and every attribute.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import build
    >>> is_topology(build("mesh:2x2")), is_topology(nx.path_graph(3))
    (True, False)
    """
    if not isinstance(G, nx.MultiDiGraph):
        return False
    for n, d in G.nodes(data=True):
        if not is_int(n) or d.get("kind") not in NODE_KINDS or "pos" not in d:
            return False
    return all(
        is_int(k) and "cls" in d and "bandwidth" in d and "latency" in d
        for _, _, k, d in G.edges(keys=True, data=True)
    )


def as_topology(G: Any) -> nx.MultiDiGraph:
    """``G`` itself if it is a topology, else :func:`from_networkx` of it with the defaults.

    Parameters
    ----------
    G : networkx graph

    Returns
    -------
    networkx.MultiDiGraph

    Raises
    ------
    TopologyError
        As :func:`from_networkx`.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import build
    >>> G = build("smbi:2x2")
    >>> as_topology(G) is G, as_topology(nx.cycle_graph(4)).number_of_edges()
    (True, 8)
    """
    return G if is_topology(G) else from_networkx(G)


F = TypeVar("F", bound=Callable[..., Any])


def takes_topology(func: Callable[..., Any]) -> bool:
    """Whether ``func``'s first parameter is annotated as a topology (a ``MultiDiGraph``)."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(params) and "MultiDiGraph" in str(params[0].annotation)


def topology_input(func: F) -> F:
    """Wrap ``func`` so that a networkx graph given as its first argument goes through
    :func:`as_topology` first; anything else (a spec string, a path) passes unchanged.

    This is how every public function of :mod:`supermesh` that takes a topology accepts any
    networkx graph: the package map wraps them once, where they are looked up.

    Examples
    --------
    >>> import networkx as nx
    >>> from supermesh.topologies import compute_nodes
    >>> topology_input(compute_nodes)(nx.path_graph(["a", "b", "c"]))
    [0, 1, 2]
    """
    first = next(iter(inspect.signature(func).parameters))

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], nx.Graph):
            args = (as_topology(args[0]), *args[1:])
        elif isinstance(kwargs.get(first), nx.Graph):
            kwargs[first] = as_topology(kwargs[first])
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
