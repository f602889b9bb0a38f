"""What a TE-CCL solve returns: chunk sends over a time-expanded network, with an honest status.

A :class:`TecclSolution` is one solved *loop body*: every source's data cut into ``chunks``
chunks (TE-CCL's chunks per GPU), and for each chunk the arcs it crosses and the epoch of each
crossing (:class:`Send`). An epoch is the time of one chunk transfer over one link; a chunk sent
in epoch ``t`` is held by the receiver from epoch ``t + 1`` on. The solution is valid when

- every arc carries at most its capacity (chunks per epoch) in every epoch;
- a chiplet sends only chunks it holds (its own, or received in an earlier epoch);
- AllGather: every rank receives every chunk of every other rank exactly once (copies are free:
  a chiplet may send one chunk to several neighbours); AllToAll: chunk ``j`` of the block from
  ``s`` to ``d`` follows one path from ``s`` to ``d`` (no copies).

``epochs`` is the finish time (the last delivery is in epoch ``epochs - 1``) and ``lower_bound``
a proven lower bound on it; ``status`` is ``"optimal"`` only when the two are equal.

Chunk ids: AllGather (and ReduceScatter, AllReduce) chunk ``r * chunks + j`` is chunk ``j`` of
the rank at position ``r`` in ``ranks``; AllToAll chunk ``(r * n + q) * chunks + j`` is chunk
``j`` of the block from rank position ``r`` to rank position ``q`` (``n`` ranks, ``r != q``).

JSON (``format: "supermesh-teccl"``, ``version: 1``): the fields below, ``sends`` as
``[chunk, src, dst, key, epoch]`` lists in epoch order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from supermesh.errors import InputFileError
from supermesh.topologies.model import Arc

__all__ = ["FORMAT", "METHODS", "PROBLEMS", "STATUSES", "Send", "TecclSolution"]

FORMAT = "supermesh-teccl"
PROBLEMS = ("allgather", "alltoall")
"""What a solve schedules: AllGather (copies allowed) or AllToAll (point to point)."""
METHODS = ("milp", "lp-rounding", "greedy")
STATUSES = ("optimal", "feasible")


@dataclass(frozen=True, order=True)
class Send:
    """Chunk ``chunk`` crosses ``arc`` during ``epoch`` (ordered by epoch, then chunk, arc).

    Examples
    --------
    >>> Send(2, 0, (0, 1, 0)) < Send(2, 1, (0, 1, 0))
    True
    """

    epoch: int
    chunk: int
    arc: Arc


@dataclass(frozen=True)
class TecclSolution:
    """One solved loop body (see the module docstring).

    Attributes
    ----------
    topology : str
        Spec of the network the solve ran on (for ReduceScatter: the reversed network's spec
        is not a spec, so the original's, with ``reversed`` set).
    problem : {"allgather", "alltoall"}
    ranks : tuple of int
        The compute chiplets, in rank order.
    chunks : int
        Chunks per source (AllGather) or per source-destination block (AllToAll).
    sends : tuple of Send
        Sorted.
    epochs : int
        Finish time in epochs.
    lower_bound : int
        Proven lower bound on the finish time (epochs).
    status : {"optimal", "feasible"}
        ``"optimal"`` iff ``epochs == lower_bound``.
    method : {"milp", "lp-rounding", "greedy"}
        How the sends were found (``milp``: CP-SAT on the integer model; ``lp-rounding``: the
        LP relaxation repaired into a schedule; ``greedy``: the list schedule alone).
    reversed : bool
        The sends are on the reversed network (a ReduceScatter solved as an AllGather there).
    stats : dict
        Solver facts: ``solve_seconds``, ``bound_from`` (which argument proves the lower
        bound), ``stopped`` (``"time limit"`` when a solve ran out of time), model sizes.

    Examples
    --------
    >>> s = TecclSolution("mesh:1x2", "allgather", (0, 1), 1,
    ...                   (Send(0, 0, (0, 1, 0)), Send(0, 1, (1, 0, 0))), 1, 1, "optimal", "milp")
    >>> TecclSolution.from_json(s.to_json()) == s
    True
    """

    topology: str
    problem: str
    ranks: tuple[int, ...]
    chunks: int
    sends: tuple[Send, ...]
    epochs: int
    lower_bound: int
    status: str
    method: str
    reversed: bool = False
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def gap(self) -> int:
        """Epochs between the finish time and the proven lower bound."""
        return self.epochs - self.lower_bound

    def origin(self, chunk: int) -> int:
        """The chiplet where ``chunk`` starts (see the module docstring for the numbering)."""
        if self.problem == "allgather":
            return self.ranks[chunk // self.chunks]
        return self.ranks[chunk // self.chunks // len(self.ranks)]

    def destination(self, chunk: int) -> int | None:
        """AllToAll: the chiplet ``chunk`` goes to; AllGather: ``None`` (every rank)."""
        if self.problem == "allgather":
            return None
        return self.ranks[chunk // self.chunks % len(self.ranks)]

    def chunk_ids(self) -> list[int]:
        """Every chunk id of the problem, ascending."""
        n = len(self.ranks)
        if self.problem == "allgather":
            return list(range(n * self.chunks))
        return [
            (r * n + q) * self.chunks + j
            for r in range(n)
            for q in range(n)
            if r != q
            for j in range(self.chunks)
        ]

    def max_arc_load(self) -> int:
        """Most sends on one arc over the whole loop body."""
        load: dict[Arc, int] = {}
        for s in self.sends:
            load[s.arc] = load.get(s.arc, 0) + 1
        return max(load.values(), default=0)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring)."""
        return {
            "format": FORMAT,
            "version": 1,
            "topology": self.topology,
            "problem": self.problem,
            "ranks": list(self.ranks),
            "chunks": self.chunks,
            "epochs": self.epochs,
            "lower_bound": self.lower_bound,
            "status": self.status,
            "method": self.method,
            "reversed": self.reversed,
            "stats": self.stats,
            "sends": [[s.chunk, *s.arc, s.epoch] for s in self.sends],
        }

    @classmethod
    def from_json(cls, doc: Any, *, source: str = "TE-CCL solution") -> TecclSolution:
        """Read what :meth:`to_json` wrote; raises InputFileError when malformed."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputFileError(f"{source} is not a TE-CCL solution (format {FORMAT!r})")
        try:
            sends = tuple(
                sorted(
                    Send(int(e), int(c), (int(u), int(v), int(k))) for c, u, v, k, e in doc["sends"]
                )
            )
            sol = cls(
                topology=str(doc["topology"]),
                problem=str(doc["problem"]),
                ranks=tuple(int(r) for r in doc["ranks"]),
                chunks=int(doc["chunks"]),
                sends=sends,
                epochs=int(doc["epochs"]),
                lower_bound=int(doc["lower_bound"]),
                status=str(doc["status"]),
                method=str(doc["method"]),
                reversed=bool(doc.get("reversed", False)),
                stats=dict(doc.get("stats", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputFileError(f"{source} is malformed ({exc})") from None
        if sol.problem not in PROBLEMS or sol.status not in STATUSES or sol.method not in METHODS:
            raise InputFileError(f"{source} has an unknown problem, status or method")
        return sol
