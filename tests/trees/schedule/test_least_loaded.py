"""Whole chunks for trees that may split a vector at will: each quota rounded, the busiest link
least busy.

Checked by hand, by the rounding's own properties over random trees and links, against every
rounding where each tree uses one link (water filling is then the best), and on mesh 8x8, where
an AllReduce's 2,048 chunks of 32 KiB cross each of 63 merges twice and the 112 edges share them
alike: 1,152 a link.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.sim import get_preset
from supermesh.sim.packing import packing_program
from supermesh.sim.throughput_run import undirected_choice
from supermesh.topologies import build
from supermesh.trees.schedule.weighted import least_loaded_counts


def _loads(counts, uses, links):
    load = [0] * links
    for c, u in zip(counts, uses, strict=True):
        for a in u:
            load[a] += c
    return load


def test_the_chunk_left_over_goes_where_a_link_is_idle():
    # two trees on link 0 and one on link 1, 1.5 chunks each, 5 in all: rounded down 3, then
    # one to the tree alone on link 1, one to the first on link 0
    assert least_loaded_counts([1.5, 1.5, 1.5], [[0], [0], [1]], 5) == [2, 1, 2]
    # a tree on a link twice loads it twice: the other tree takes the chunk
    assert least_loaded_counts([0.5, 0.5], [[0, 0], [1]], 1) == [0, 1]
    # a slower link counts its chunks for more
    assert least_loaded_counts([0.5, 0.5], [[0], [1]], 1, capacity=[0.5, 1.0]) == [0, 1]


@st.composite
def _cases(draw):
    links = draw(st.integers(1, 5))
    n = draw(st.integers(1, 6))
    uses = [draw(st.lists(st.integers(0, links - 1), min_size=1, max_size=4)) for _ in range(n)]
    quota = [draw(st.floats(0, 6, allow_nan=False)) for _ in range(n)]
    low, high = sum(math.floor(q) for q in quota), sum(math.ceil(q) for q in quota)
    return quota, uses, draw(st.integers(low, high)), links


@given(_cases())
def test_counts_round_each_quota_and_add_up(case):
    quota, uses, total, _ = case
    counts = least_loaded_counts(quota, uses, total)
    assert sum(counts) == total
    for c, q in zip(counts, quota, strict=True):
        assert math.floor(q) <= c <= math.ceil(q)


@given(_cases(), st.data())
def test_trees_on_one_link_each_fill_the_links_like_water(case, data):
    # each tree on a single link: the chunk left over going to the least-loaded link each time
    # is the best rounding (water filling), checked against every rounding
    quota, _, total, links = case
    uses = [[data.draw(st.integers(0, links - 1))] for _ in quota]
    busiest = max(_loads(least_loaded_counts(quota, uses, total), uses, links))
    choices = [sorted({math.floor(q), math.ceil(q)}) for q in quota]
    best = min(max(_loads(c, uses, links)) for c in itertools.product(*choices) if sum(c) == total)
    assert busiest == best


def test_refusals():
    with pytest.raises(SpecError, match="cannot be had"):
        least_loaded_counts([1.5, 1.5], [[0], [1]], 5)
    with pytest.raises(SpecError, match="non-negative"):
        least_loaded_counts([-1.0], [[0]], 0)
    with pytest.raises(SpecError, match="link lists"):
        least_loaded_counts([1.0, 1.0], [[0]], 2)


def test_mesh_8x8_allreduce_chunks_load_every_link_alike():
    G = build("mesh:8x8")
    params = dataclasses.replace(get_preset("paper"), chunk_bytes=32 << 10)
    prog = packing_program(
        G,
        undirected_choice(G).packing,
        "allreduce",
        64 << 20,
        params,
        order="justified",
        barrier=False,
    )
    arcs = np.bincount(prog.phases[0].arc)
    # each of the 2,048 chunks is reduced over 63 edges and broadcast back over them
    assert arcs.sum() == 2 * 63 * 2048
    # 224 arcs: 1,152 each if alike; rounding every tree's share up put 1,167 on the busiest
    assert len(arcs) == 224
    assert 1152 <= arcs.max() <= 1156
