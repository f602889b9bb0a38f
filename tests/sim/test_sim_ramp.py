"""Chunks that ramp up and down: their sizes, and a justified AllReduce that runs them.

Sizes are checked against their definition (whole granules adding up to the data, one packet at
each end, rising to the plateau and falling back); the program against a hand count on a path
(the broadcast of the last, smallest chunk is all that follows the reduce), transfer by transfer
against the event oracle, and by the bytes each tree edge carries.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.sim import get_preset, run_program
from supermesh.sim.link_costs import apply_link_costs
from supermesh.sim.oracle import simulate_events
from supermesh.sim.packing import packing_program
from supermesh.sim.ramp import ramped_sizes
from supermesh.testing.examples import chiplet_path
from supermesh.testing.strategies import arborescences, multidigraphs
from supermesh.trees.model import Tree

path = chiplet_path


@given(
    nbytes=st.integers(1, 5_000_000),
    chunk=st.integers(1, 64).map(lambda k: k * 4096),
    ratio=st.sampled_from([0.5, 0.7, 0.85, 0.9, 0.95]),
)
def test_ramped_sizes_add_up_rise_and_fall(nbytes, chunk, ratio):
    g = 4096
    sizes = ramped_sizes(nbytes, chunk, ratio, g)
    assert sum(sizes) == math.ceil(nbytes / g) * g
    assert all(s % g == 0 and s >= g for s in sizes)
    top = sizes.index(max(sizes))
    rise, fall = sizes[: top + 1], sizes[top:]
    assert rise == sorted(rise)
    assert fall == sorted(fall, reverse=True)
    assert sizes[0] == sizes[-1]  # the same steps at both ends
    assert max(sizes) <= 1.5 * max(chunk, g) + g or len(sizes) == 1
    if nbytes >= 8 * chunk / (1 - ratio):  # room for whole ramps: down to one packet
        assert sizes[0] == g
    # neighbouring ramp steps at the ratio, to within the rounding to whole packets
    steps = [x for x in rise if x < max(sizes)]
    for a, b in itertools.pairwise(steps):
        assert b <= a / ratio + 2 * g


def test_ramped_sizes_refuse_a_ratio_outside_zero_and_one():
    for bad in (0.0, 1.0, 1.5, -0.2):
        with pytest.raises(SpecError):
            ramped_sizes(1 << 20, 65536, bad, 4096)


def test_on_a_path_the_largest_chunk_follows_the_reduce():
    # 0 - 1 - 2 rooted at 1: each chunk crosses a link into the root, then one out of it, the
    # links of a two-machine flow shop whose makespan is every chunk once plus the largest
    # (Johnson): ramps do not shorten a pipeline whose links are all as busy, and a link's
    # floor (its first chunk's hop, then all of its own) says less: every chunk plus the first
    G = path(3)
    tree = Tree(root=1, arcs=((1, 0, 0), (1, 2, 0)), height=1)
    params = dataclasses.replace(get_preset("paper"), chunk_bytes=65536)
    nbytes = 1 << 20
    sizes = ramped_sizes(nbytes, 65536, 0.5, params.packet_bytes)
    prog = packing_program(
        G, [tree], "allreduce", nbytes, params, barrier=False, order="justified", ramp=0.5
    )
    prog = apply_link_costs(G, prog, params)
    each = [params.serialisation(s) + params.hop_latency for s in sizes]
    assert run_program(prog).end == pytest.approx(sum(each) + max(each))
    assert simulate_events(prog).end == pytest.approx(sum(each) + max(each))
    assert prog.meta["ramp"] == 0.5
    assert prog.meta["ramp_floor"] == pytest.approx(sum(each) + each[0])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    ratio=st.sampled_from([0.6, 0.85]),
    preset=st.sampled_from(["paper", "booksim"]),
    collective=st.sampled_from(["allreduce", "allgather", "reducescatter"]),
)
def test_a_ramped_program_moves_every_byte_and_matches_the_oracle(data, ratio, preset, collective):
    G = data.draw(multidigraphs(max_nodes=6, max_arcs=10, symmetric=True))
    trees = [data.draw(arborescences(G)) for _ in range(data.draw(st.integers(1, 3)))]
    params = dataclasses.replace(get_preset(preset), chunk_bytes=4 * 4096)
    nbytes = data.draw(st.integers(1, 40)) * 4096
    prog = packing_program(
        G, trees, collective, nbytes, params, barrier=False, order="justified", ramp=ratio
    )
    (phase,) = prog.phases
    # every tree edge carries the tree's bytes, rounded up to packets, once a kind
    carried = Counter()
    for a, b, c in zip(
        phase.arc.tolist(), phase.payload.tolist(), phase.count.tolist(), strict=True
    ):
        carried[a] += b * c
    # each root's part of the vector, split by its trees' shares: M / roots each, or, for an
    # AllReduce whose roots' shares add up differently, in proportion to those sums
    roots = Counter()
    for t in trees:
        roots[t.root] += t.share
    uses = {"allgather": [0], "reducescatter": [1], "allreduce": [0, 1]}[collective]
    expect = Counter()
    for t in trees:
        part = nbytes / len(roots)
        if collective == "allreduce" and len(set(roots.values())) > 1:
            part = nbytes * roots[t.root] / sum(roots.values())
        b = part * t.share / roots[t.root]
        for u, v, k in t.arcs:
            for way in uses:
                expect[prog.arcs.index((u, v, k) if way == 0 else (v, u, k))] += (
                    math.ceil(b / 4096) * 4096
                )
    assert carried == expect
    prog = apply_link_costs(G, prog, params)
    end = run_program(prog).end
    assert simulate_events(prog).end == pytest.approx(end)
    assert end >= prog.meta["ramp_floor"] - 1e-6


def test_a_ramp_needs_the_justified_order_of_store_and_forward_chunks():
    G = path(3)
    tree = Tree(root=1, arcs=((1, 0, 0), (1, 2, 0)), height=1)
    params = get_preset("paper")
    with pytest.raises(SpecError):
        packing_program(G, [tree], "allreduce", 1 << 20, params, barrier=False, ramp=0.8)
    cut = dataclasses.replace(params, cut_through=True)
    with pytest.raises(SpecError):
        packing_program(
            G, [tree], "allreduce", 1 << 20, cut, barrier=False, order="justified", ramp=0.8
        )
