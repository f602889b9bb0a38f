"""The answer of :func:`supermesh.trees.design.optimise.design`, and how it is put together."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from supermesh.topologies.metrics import links_per_node
from supermesh.trees.design.cuts import Requirement, with_links
from supermesh.trees.design.text import optimality_text
from supermesh.trees.packing.model import Budget
from supermesh.units import plural

__all__ = ["STATUSES", "DesignResult", "ResultBuilder"]

STATUSES = ("optimal", "feasible", "infeasible")


@dataclass(frozen=True)
class DesignResult:
    """The answer of :func:`design`.

    Attributes
    ----------
    base : str
        Spec of the base topology.
    target : dict
        ``trees``, ``roots`` (``"any"``, a list, or a list of root sets), ``direction``,
        ``span`` (``"compute"`` or a list), ``max_height``.
    status : {"optimal", "feasible", "infeasible"}
        ``optimal``: the cost is proven minimal. ``feasible``: a design that reaches the target,
        but the time ran out before minimality was proven (``lower_bound`` and ``gap`` say how
        far). ``infeasible``: no choice of candidates within the budgets reaches the target.
    additions : tuple of (int, int)
        The chosen links ``(u, v)``, ``u < v``; each is one more bidirectional link.
    cost : int or None
    lower_bound : int or None
        Proven lower bound on the cost of any design reaching the target.
    exact : bool
        Whether the design is proven to carry the trees (see the module docstring).
    proof : dict
        ``text`` plus the data behind it: the solver status, the number of cuts, the counting
        bound (``counting``: per-node link ends needed, ``links``, ``cost``, ``tight``).
    reason : dict or None
        When infeasible: ``kind`` (``port-budget``, ``candidates``, ``cut``, ``parity``,
        ``solver`` or ``packing``), ``text`` and its data (a set, a cycle, a node).
    ports : dict
        ``budget`` (links per chiplet allowed; router radix = that + 1), ``base_max`` and, for
        the design, ``max_links``, ``router_radix`` and ``above_base`` (chiplets that end with
        more links than the base's largest, e.g. the 5-link chiplets of an odd-N design).
    topology : networkx.MultiDiGraph or None
        Base plus the added links (class ``"added"``), spec ``"<base>+design"``.
    stats : dict
        Candidates, rounds, cuts, warm start, timings.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.trees.design import design
    >>> r = design(build("mesh:4x4"), trees=4, time_limit=30)
    >>> r.status, r.cost, len(r.additions)
    ('optimal', 8, 8)
    """

    base: str
    target: dict[str, Any]
    status: str
    additions: tuple[tuple[int, int], ...]
    cost: int | None
    lower_bound: int | None
    exact: bool
    proof: dict[str, Any]
    reason: dict[str, Any] | None
    ports: dict[str, Any]
    topology: nx.MultiDiGraph | None = field(default=None, compare=False, repr=False)
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def gap(self) -> int | None:
        """``cost - lower_bound`` (0 when optimal), ``None`` when infeasible."""
        if self.cost is None or self.lower_bound is None:
            return None
        return self.cost - self.lower_bound

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict of every field but the topology (write that with ``write_topology``)."""
        return {
            "base": self.base,
            "target": self.target,
            "status": self.status,
            "additions": [list(p) for p in self.additions],
            "links_added": len(self.additions),
            "arcs_added": 2 * len(self.additions),
            "cost": self.cost,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "exact": self.exact,
            "proof": self.proof,
            "reason": self.reason,
            "ports": self.ports,
            "topology": None if self.topology is None else self.topology.graph.get("spec"),
            "stats": self.stats,
        }


@dataclass(frozen=True)
class ResultBuilder:
    """Builds the :class:`DesignResult` of one search (what :func:`design` knows at the end).

    Attributes
    ----------
    G, cands, reqs, span, budget, base_max, target, counting, start
        The base, candidates, requirements, span, port budgets, the base's largest link count,
        the target dict, the counting bound and the start time of the search.
    limit : Budget, optional
        The search's work budget (its ``work_limit``, ``work_used`` and ``stopped`` go into
        the statistics).
    """

    G: nx.MultiDiGraph
    cands: Sequence[Any]
    reqs: Sequence[Requirement]
    span: Sequence[int]
    budget: Mapping[int, int]
    base_max: int
    target: dict[str, Any]
    counting: dict[str, Any]
    start: float
    limit: Budget | None = None

    def _stats(self, master: Any, rounds: int, warm: str | None) -> dict[str, Any]:
        extra = {} if self.limit is None else self.limit.stats()
        return {
            "candidates": len(self.cands),
            "families": sorted({f for c in self.cands for f in c.family.split("+")}),
            "rounds": rounds,
            "cuts": len(master.cuts),
            "nogoods": master.nogoods,
            "warm_start": warm,
            **extra,
            "wall_time": round(time.perf_counter() - self.start, 3),
        }

    def _ports(self, T: nx.MultiDiGraph | None) -> dict[str, Any]:
        limits = sorted(set(self.budget.values()))
        out: dict[str, Any] = {"budget": limits[0] if len(limits) == 1 else limits}
        out["base_max"] = self.base_max
        if T is not None:
            final = links_per_node(T)
            out["max_links"] = max(final.values())
            out["router_radix"] = out["max_links"] + 1
            out["above_base"] = [v for v, n in sorted(final.items()) if n > self.base_max]
        return out

    def _claims(self, status: str, cost: int, lower: int) -> dict[str, Any]:
        """What a design file claims, for ``supermesh verify``: its status and cost, the
        candidates offered (families, explicit links, costs other than 1) and the port budget."""
        names = {f for c in self.cands for f in c.family.split("+")}
        limits = set(self.budget.values())
        return {
            "status": status,
            "cost": cost,
            "lower_bound": lower,
            "candidates": {
                "families": sorted(names - {"list"}),
                "links": [[c.u, c.v] for c in self.cands if "list" in c.family.split("+")],
                "costs": {f"{c.u}-{c.v}": c.cost for c in self.cands if c.cost != 1},
            },
            "max_links": next(iter(limits))
            if len(limits) == 1
            else {str(v): m for v, m in sorted(self.budget.items())},
        }

    def infeasible(self, reason: dict, master: Any, rounds: int, warm: str | None) -> DesignResult:
        """The result for an unreachable target, with its reason."""
        proof = {"solver": "INFEASIBLE", "cuts": len(master.cuts), "counting": self.counting}
        proof["text"] = "no choice of candidate links within the port budgets works: "
        proof["text"] += reason["text"]
        return DesignResult(
            str(self.G.graph.get("spec", "")), self.target, "infeasible", (), None, None, True,
            proof, reason, self._ports(None), None, self._stats(master, rounds, warm),
        )  # fmt: skip

    def found(
        self,
        sel: Sequence[int],
        bound: int,
        exact: bool,
        master: Any,
        rounds: int,
        warm: str | None,
        packed: list[dict[str, Any]] | None,
    ) -> DesignResult:
        """The result for the design ``sel`` (candidate indices) and a proven cost ``bound``."""
        pairs = tuple(self.cands[i].pair for i in sorted(sel))
        cost = sum(self.cands[i].cost for i in sel)
        status = "optimal" if bound >= cost else "feasible"
        T = with_links(self.G, pairs)
        spec = str(self.G.graph.get("spec", ""))
        T.graph["spec"] = f"{spec}+design"
        T.graph["name"] = (
            f"{self.G.graph.get('name', spec)} + design ({plural(self.target['trees'], 'tree')})"
        )
        T.graph["params"] = {
            **self.G.graph.get("params", {}),
            "design": {
                "base": spec,
                "target": self.target,
                "added": [list(p) for p in pairs],
                **self._claims(status, cost, min(bound, cost)),
            },
        }
        counting = {**self.counting, "tight": self.counting["cost"] >= cost}
        proof = {
            "lower_bound": min(bound, cost),
            "solver": "OPTIMAL" if status == "optimal" else "FEASIBLE (time limit)",
            "cuts": len(master.cuts),
            "counting": counting,
            "nogoods": master.nogoods,
            "text": optimality_text(
                status, cost, min(bound, cost), counting, len(master.cuts), master.nogoods
            ),
        }
        if packed is not None:
            proof["packings"] = packed
        return DesignResult(
            spec, self.target, status, pairs, cost, min(bound, cost), exact, proof, None,
            self._ports(T), T, self._stats(master, rounds, warm),
        )  # fmt: skip
