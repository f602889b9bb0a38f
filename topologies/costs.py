"""Link costs in spec strings: ``bandwidth`` and ``latency`` options for every family.

Every spec accepts, after the family's own options::

    bandwidth=B  latency=L                 every arc
    CLASS-bandwidth=B  CLASS-latency=L     the arcs of one class (mesh, added, memory, other)

Values are relative to one base die-to-die link (:mod:`supermesh.topologies.model`): a bandwidth
must be positive, a latency non-negative. A class option wins over the all-arc one, whatever the
order. Examples: ``smbi:4x4,added-latency=2`` (the perimeter's extra links twice as long),
``mesh:4x4,bandwidth=2``, ``folded-torus:4x4,other-latency=3``. The options are kept, in a
canonical order, in the topology's ``spec`` so that it regenerates the same network.
"""

from __future__ import annotations

import math

import networkx as nx

from supermesh.errors import SpecError
from supermesh.topologies.model import ARC_CLASSES

__all__ = ["COST_KEYS", "set_link_costs", "split_cost_options"]

_ATTRS = ("bandwidth", "latency")
COST_KEYS: tuple[str, ...] = _ATTRS + tuple(f"{c}-{a}" for c in ARC_CLASSES for a in _ATTRS)
"""Spec option names that set link costs."""


def _value(key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    positive = key.endswith("bandwidth")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        need = "a positive number" if positive else "a non-negative number"
        raise SpecError(
            f"option {key}={text!r} is not {need}",
            hint=f"e.g. {key}=2 (relative to one base link = 1)",
        )
    return value


def split_cost_options(spec: str) -> tuple[str, dict[str, float]]:
    """Take the link-cost options out of a spec string.

    Parameters
    ----------
    spec : str
        ``FAMILY:SIZE,key=value,...``.

    Returns
    -------
    rest : str
        The spec without the cost options.
    costs : dict
        Option name (one of :data:`COST_KEYS`) -> value.

    Raises
    ------
    SpecError
        A cost value that is not a number in range, or an option given twice.

    Examples
    --------
    >>> split_cost_options("smbi:4x4,added-latency=2,corners=4")
    ('smbi:4x4,corners=4', {'added-latency': 2.0})
    """
    head, *options = spec.split(",")
    rest = [head]
    costs: dict[str, float] = {}
    for text in options:
        key, eq, value = (part.strip() for part in text.partition("="))
        if eq and key in COST_KEYS:
            if key in costs:
                raise SpecError(f"option {key!r} is given twice in {spec!r}", hint="give it once")
            costs[key] = _value(key, value)
        else:
            rest.append(text)
    return ",".join(rest), costs


def set_link_costs(G: nx.MultiDiGraph, costs: dict[str, float]) -> nx.MultiDiGraph:
    """Set arc bandwidths and latencies from cost options, in place; returns ``G``.

    The class options override the all-arc ones; ``G.graph["spec"]`` gains the options in the
    order of :data:`COST_KEYS`.

    Parameters
    ----------
    G : networkx.MultiDiGraph
    costs : dict
        As :func:`split_cost_options` returns them.

    Returns
    -------
    networkx.MultiDiGraph

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> G = set_link_costs(build("smbi:2x2"), {"latency": 3.0, "added-latency": 2.0})
    >>> G.edges[0, 1, 0]["latency"], G.edges[0, 1, 1]["latency"], G.graph["spec"]
    (3.0, 2.0, 'smbi:2x2,latency=3,added-latency=2')
    """
    if not costs:
        return G
    for _, _, data in G.edges(data=True):
        for attr in _ATTRS:
            for key in (f"{data.get('cls', 'other')}-{attr}", attr):
                if key in costs:
                    data[attr] = float(costs[key])
                    break
    text = ",".join(f"{k}={costs[k]:g}" for k in COST_KEYS if k in costs)
    G.graph["spec"] = f"{G.graph.get('spec', '')},{text}"
    params = dict(G.graph.get("params") or {})
    params["link_costs"] = {k: costs[k] for k in COST_KEYS if k in costs}
    G.graph["params"] = params
    return G
