"""List schedules over the time-expanded network: the repair of an LP solution, or a greedy alone.

Both walk the epochs in order and fill every arc up to its capacity with chunks its source holds
at the start of the epoch, so whatever they return keeps capacities and causality by
construction; they stop when every chiplet has what it needs (each epoch moves at least one
chunk closer, so they always stop on a strongly connected network).

Which chunk an arc takes when it has several candidates:

- with an LP solution (``guide``): the chunk whose LP flow on this arc, summed up to this epoch,
  is the largest (AllToAll: the destination whose LP flow on the arc so far most exceeds what
  the arc already carried for it): the schedule follows the fractional one as closely as whole
  chunks allow, and drifts from it only where the LP split a chunk;
- then the chunk the most ranks still lack (AllGather) or the one farthest from its destination
  (AllToAll), then the lowest id (deterministic).

An AllGather sends a chunk to a relay (a chiplet that is not a rank) only when the relay is
closer than the sender to some rank that lacks it; an AllToAll chunk moves only along arcs that
bring it closer to its destination.
"""

from __future__ import annotations

import numpy as np

from supermesh.errors import SolverError
from supermesh.sim.teccl.model import Send
from supermesh.sim.teccl.network import Network

__all__ = ["round_alltoall", "round_gather"]

_NEVER = np.iinfo(np.int64).max // 4


def _stalled(t: int) -> SolverError:
    return SolverError(
        f"the list schedule moved nothing in epoch {t}",
        hint="the network is not strongly connected between the ranks",
    )


def round_gather(
    net: Network, chunks: int, guide: np.ndarray | None = None
) -> tuple[list[Send], int]:
    """An AllGather list schedule (see the module docstring).

    Parameters
    ----------
    net : Network
    chunks : int
        Chunks per rank (``K``).
    guide : numpy.ndarray, optional
        LP flows ``x[chunk, arc, epoch]`` (chunk ids as in
        :mod:`~supermesh.sim.teccl.model`).

    Returns
    -------
    (list of Send, int)
        The sends and the finish time in epochs.

    Raises
    ------
    SolverError
        If some epoch can move nothing (a rank unreachable).

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> sends, epochs = round_gather(network_of(build("mesh:2x2")), 1)
    >>> epochs, len(sends)  # a 2x2 ring: 2 epochs, 4 x 3 receipts
    (2, 12)
    """
    n, m = net.size, len(net.nodes)
    nc = n * chunks
    rank_pos = np.array([net.index[r] for r in net.ranks])
    is_rank = np.zeros(m, dtype=bool)
    is_rank[rank_pos] = True
    held = np.full((nc, m), _NEVER, dtype=np.int64)
    held[np.arange(nc), rank_pos[np.arange(nc) // chunks]] = 0
    src = np.array([net.index[a[0]] for a in net.arcs])
    dst = np.array([net.index[a[1]] for a in net.arcs])
    cum = np.cumsum(guide, axis=2) if guide is not None else None
    horizon = guide.shape[2] if guide is not None else 0
    order = np.arange(nc)
    sends: list[Send] = []
    t = 0
    while (held[:, rank_pos] == _NEVER).any():
        incoming = np.zeros((nc, m), dtype=bool)
        lacking = (held[:, rank_pos] > t).sum(axis=1)
        moved = 0
        for i, arc in enumerate(net.arcs):
            u, v = src[i], dst[i]
            ok = (held[:, u] <= t) & (held[:, v] == _NEVER) & ~incoming[:, v]
            if not is_rank[v]:
                closer = net.dist[v, rank_pos] < net.dist[u, rank_pos]
                ok &= (held[:, rank_pos][:, closer] == _NEVER).any(axis=1)
            cand = order[ok]
            if not len(cand):
                continue
            lp = cum[cand, i, min(t, horizon - 1)] if cum is not None else np.zeros(len(cand))
            # sort keys, last one primary: id, lacking ranks (more first), LP flow (more first)
            pick = cand[np.lexsort((cand, -lacking[cand], -np.round(lp, 9)))][: int(net.cap[i])]
            for c in pick:
                held[c, v] = t + 1
                incoming[c, v] = True
                sends.append(Send(t, int(c), arc))
            moved += len(pick)
        if not moved:
            raise _stalled(t)
        t += 1
    return sends, t


def round_alltoall(
    net: Network, chunks: int, guide: np.ndarray | None = None
) -> tuple[list[Send], int]:
    """An AllToAll list schedule (see the module docstring).

    Parameters
    ----------
    net : Network
    chunks : int
        Chunks per source-destination block (``K``).
    guide : numpy.ndarray, optional
        LP flows ``f[destination rank position, arc, epoch]`` (chunks heading to that rank).

    Returns
    -------
    (list of Send, int)
        The sends and the finish time in epochs.

    Raises
    ------
    SolverError
        If some epoch can move nothing.

    Examples
    --------
    >>> from supermesh.topologies import build
    >>> from supermesh.sim.teccl.network import network_of
    >>> sends, epochs = round_alltoall(network_of(build("mesh:2x2")), 1)
    >>> epochs, len(sends)  # 16 hops on 8 arcs fit in 2 epochs; the greedy needs 3
    (3, 16)
    """
    n = net.size
    rank_pos = np.array([net.index[r] for r in net.ranks])
    ids, at, dest = [], [], []
    for r in range(n):
        for q in range(n):
            if r != q:
                for j in range(chunks):
                    ids.append((r * n + q) * chunks + j)
                    at.append(rank_pos[r])
                    dest.append(q)
    cid = np.array(ids, dtype=np.int64)
    pos = np.array(at, dtype=np.int64)
    dq = np.array(dest, dtype=np.int64)  # destination rank position
    dnode = rank_pos[dq]
    ready = np.zeros(len(cid), dtype=np.int64)
    done = pos == dnode
    src = np.array([net.index[a[0]] for a in net.arcs])
    dst = np.array([net.index[a[1]] for a in net.arcs])
    cum = np.cumsum(guide, axis=2) if guide is not None else None
    horizon = guide.shape[2] if guide is not None else 0
    carried = np.zeros((n, len(net.arcs)))
    sends: list[Send] = []
    t = 0
    while not done.all():
        moving = np.zeros(len(cid), dtype=bool)
        moved = 0
        for i, arc in enumerate(net.arcs):
            u, v = src[i], dst[i]
            ok = (pos == u) & ~done & ~moving & (ready <= t)
            ok &= net.dist[v, dnode] < net.dist[u, dnode]
            cand = np.flatnonzero(ok)
            if not len(cand):
                continue
            if cum is not None:
                want = cum[dq[cand], i, min(t, horizon - 1)] - carried[dq[cand], i]
            else:
                want = np.zeros(len(cand))
            far = net.dist[u, dnode[cand]]
            pick = cand[np.lexsort((cid[cand], -far, -np.round(want, 9)))][: int(net.cap[i])]
            for c in pick:
                moving[c] = True
                carried[dq[c], i] += 1
                sends.append(Send(t, int(cid[c]), arc))
            moved += len(pick)
        if not moved:
            raise _stalled(t)
        # deliveries land at the end of the epoch
        for s in sends[len(sends) - moved :]:
            c = int(np.searchsorted(cid, s.chunk))
            pos[c] = net.index[s.arc[1]]
            ready[c] = t + 1
            done[c] = pos[c] == dnode[c]
        t += 1
    return sends, t
