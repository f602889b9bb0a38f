"""The all-sizes statement covering one topology, joined from its family's cases.

:func:`family_statement` finds the size of a built topology (``R x C``, or the radius of a full
HexaMesh) and joins the cases of :mod:`~supermesh.trees.prove.cases` that cover it, for
``supermesh report``; :func:`join_cases` joins them for a range of sizes too
(:func:`~supermesh.trees.prove.family.prove_family`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx

from supermesh.trees.prove.cases import Case, Size, cases_for

__all__ = ["family_statement"]


def _size_of(G: nx.MultiDiGraph) -> Size | None:
    if G.graph.get("family") == "hexamesh":
        rows = (G.graph.get("params") or {}).get("row_lengths") or []
        if len(rows) % 2 == 1 and rows == [
            *range((len(rows) + 1) // 2, len(rows) + 1),
            *range(len(rows) - 1, (len(rows) - 1) // 2, -1),
        ]:
            r = (len(rows) - 1) // 2
            return (r, r)
        return None
    rows, cols = G.graph.get("rows"), G.graph.get("cols")
    return (int(rows), int(cols)) if rows is not None and cols is not None else None


def family_statement(spec_or_G: str | Path | nx.MultiDiGraph) -> dict[str, Any] | None:
    """The all-sizes statement covering one topology, for ``supermesh report``.

    Parameters
    ----------
    spec_or_G : str, Path or networkx.MultiDiGraph
        A spec (``smbi:8x8``), a topology file, or a built topology.

    Returns
    -------
    dict or None
        ``{"family", "size", "statement", "argument", "applies", "construction"}`` of every case
        covering its size (statements joined), or ``None`` when no all-sizes claim is known
        (then only per-size proofs exist: ``supermesh prove``).

    Examples
    --------
    >>> family_statement("smalter:5x5")["applies"]
    "R, C odd (the paper's variant)"
    >>> family_statement("kite-small:4x4") is None
    True
    """
    if isinstance(spec_or_G, nx.MultiDiGraph):
        G = spec_or_G
    else:
        from supermesh.topologies import build

        G = build(spec_or_G)
    size = _size_of(G)
    family = str(G.graph.get("family", ""))
    if size is None:
        return None
    cases = [c for c in cases_for(family, G.graph.get("params")) if c.test(size)]
    if not cases:
        return None
    return {
        "family": family,
        "size": f"r{size[0]}" if family == "hexamesh" else f"{size[0]}x{size[1]}",
        **join_cases(cases),
    }


def join_cases(cases: list[Case]) -> dict[str, Any]:
    """One ``statement`` / ``argument`` dict from several cases (each prefixed by its sizes)."""
    if len(cases) == 1:
        return cases[0].to_json()
    return {
        "applies": "; ".join(c.applies for c in cases),
        "statement": " ".join(f"[{c.applies}] {c.statement}" for c in cases),
        "argument": " ".join(f"[{c.applies}] {c.argument}" for c in cases),
        "construction": ", ".join(sorted({c.construction for c in cases if c.construction})),
    }
