"""Sampled start times of every block of a phase, stored flat.

The engine keeps up to 64 start times per block for the result's time series, each standing for
the busy time of the transfers between it and the next sample. A throughput packing of a 32x32
SuperMesh has 4 million blocks of one chunk each: a pair of a numpy array and a float per block
would cost about a gigabyte, so :class:`Samples` keeps the times of blocks recorded together
(:meth:`Samples.put_many`) in one array, and still answers ``samples[b]`` per block.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Samples"]


class Samples:
    """Per block of a phase: sampled start times and the busy time each sample stands for.

    Parameters
    ----------
    blocks : int
        Number of blocks of the phase.

    Examples
    --------
    >>> s = Samples(3)
    >>> s.put(2, np.array([5.0, 9.0]), 2.0)
    >>> s.put_many(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 3.0, 4.0]), np.ones(2))
    >>> s[1][0].tolist(), s[2][1], len(s)
    ([3.0, 4.0], 2.0, 3)
    >>> [x.tolist() for x in s.points()]  # block by block
    [[1.0, 3.0, 4.0, 5.0, 9.0], [1.0, 1.0, 1.0, 2.0, 2.0]]
    """

    def __init__(self, blocks: int) -> None:
        self._times: list[np.ndarray] = []
        self._weights: list[np.ndarray] = []
        self._piece = np.full(blocks, -1, dtype=np.int64)
        self._at = np.zeros(blocks, dtype=np.int64)
        self._count = np.zeros(blocks, dtype=np.int64)
        self._weight = np.zeros(blocks, dtype=np.float64)

    def __len__(self) -> int:
        return len(self._piece)

    def __getitem__(self, b: int) -> tuple[np.ndarray, float]:
        """Block ``b``'s sampled start times and the busy time each stands for."""
        piece = int(self._piece[b])
        if piece < 0:
            return np.empty(0), 0.0
        at = int(self._at[b])
        return self._times[piece][at : at + int(self._count[b])], float(self._weight[b])

    def put(self, b: int, times: np.ndarray, weight: float) -> None:
        """Record block ``b``'s samples (each standing for ``weight`` of busy time)."""
        self.put_many(np.array([b]), np.array([len(times)]), times, np.array([weight]))

    def put_many(
        self, blocks: np.ndarray, counts: np.ndarray, times: np.ndarray, weights: np.ndarray
    ) -> None:
        """Record several blocks: ``blocks[i]`` has the next ``counts[i]`` of ``times``."""
        self._piece[blocks] = len(self._times)
        self._at[blocks] = np.cumsum(counts) - counts
        self._count[blocks] = counts
        self._weight[blocks] = weights
        self._times.append(np.asarray(times, dtype=np.float64))
        self._weights.append(np.repeat(np.asarray(weights, dtype=np.float64), counts))

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """Every sample of the phase, block by block: start times and the busy time of each."""
        if not self._times:
            return np.empty(0), np.empty(0)
        sizes = np.array([len(t) for t in self._times], dtype=np.int64)
        blocks = np.flatnonzero((self._piece >= 0) & (self._count > 0))
        begin = (np.cumsum(sizes) - sizes)[self._piece[blocks]] + self._at[blocks]
        counts = self._count[blocks]
        rank = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        idx = np.repeat(begin, counts) + rank
        return np.concatenate(self._times)[idx], np.concatenate(self._weights)[idx]
