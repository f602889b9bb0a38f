"""Sentences for the proofs of the design search (kept apart from the search)."""

from __future__ import annotations

from typing import Any

from supermesh.units import plural

__all__ = ["counting_text", "optimality_text", "solver_reason"]


def optimality_text(
    status: str, cost: int, bound: int, counting: dict[str, Any], cuts: int, nogoods: int = 0
) -> str:
    """The proof of a design's cost, in words.

    Examples
    --------
    >>> c = {"ends": 16, "links": 8, "cost": 8, "tight": True}
    >>> optimality_text("optimal", 8, 8, c, 32)[:48]
    'Counting proves the minimum: chiplets short of e'
    """
    if status != "optimal":
        return (
            f"The time ran out: this design costs {cost}, and no design costs less than {bound} "
            f"(gap {cost - bound}); the lower bound comes from the solver over {cuts} cut "
            "conditions and from counting link ends."
        )
    solver = (
        f"CP-SAT proved that no choice of candidates within the port budgets costing less than "
        f"{cost} meets the {cuts} cut conditions found by max-flow (each is necessary: a node "
        "set needs one entering arc per tree rooted outside it, from the base or from chosen "
        "links crossing it), and this design meets every condition."
    )
    if nogoods:
        solver = solver[:-1] + (
            f"; {nogoods} cheaper designs that met the cuts were ruled out, with every subset of "
            "their links, because their trees could not be packed within the height limit "
            "(CP-SAT proofs), and this design's trees were packed."
        )
    if counting.get("tight"):
        return "Counting proves the minimum: " + counting_text(counting) + " " + solver
    return (
        solver + f" (Counting link ends alone gives only {counting['cost']}: cuts beyond single "
        "chiplets matter here.)"
    )


def counting_text(counting: dict[str, Any]) -> str:
    """The counting argument of :func:`~supermesh.trees.design.proof.counting_bound` in words.

    Examples
    --------
    >>> counting_text({"ends": 16, "links": 8, "cost": 8, "sides": []})[:44]
    'chiplets short of entering or leaving arcs n'
    """
    text = f"chiplets short of entering or leaving arcs need {counting['ends']} link ends in all"
    if not counting.get("sides"):
        return (
            text + ", and each added link has two ends, so at least "
            f"{plural(counting['links'], 'link')} (cost {counting['cost']}) are needed."
        )
    big = ", ".join(f"{a} (other side {b})" for a, b in counting["sides"])
    return (
        text + "; the usable candidate links form a bipartite graph (two colours, like a "
        "chessboard) and every link has one end of each colour, so each group needs at least as "
        f"many links as its more needy colour needs ends: {big}; in all at least "
        f"{plural(counting['links'], 'link')} (cost {counting['cost']})."
    )


def solver_reason(master: Any) -> dict[str, Any]:
    """The reason dict when only the solver's proof of infeasibility is available."""
    if master.nogoods:
        return {
            "kind": "packing",
            "nogoods": master.nogoods,
            "text": (
                f"every design meeting the cut conditions failed to carry the trees within the "
                f"height limit ({master.nogoods} design{'s' if master.nogoods > 1 else ''} and "
                "all their subsets ruled out by packing their trees, CP-SAT proofs)"
            ),
        }
    return {
        "kind": "solver",
        "cuts": len(master.cuts),
        "text": (
            f"CP-SAT proved that the port budgets and the {len(master.cuts)} cut conditions "
            "found by max-flow (each necessary for the trees) cannot all be met"
        ),
    }
