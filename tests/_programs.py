"""Random simulator programs for the engine tests: blocks over a few arcs, groups, dependencies.

One strategy serves the engine, link-cost and frontier tests; each names the ranges it needs
(the engine's periodic path wants equal chunk counts along a dependency, the others allow a
dependency on any block with at least as many chunks).
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from supermesh.sim import PhaseBuilder, Program


@st.composite
def block_programs(
    draw,
    *,
    arcs: int = 5,
    blocks: int = 10,
    groups: int = 3,
    chunks: int = 4,
    equal_counts: bool = True,
    durations: Sequence[float] = (1.0, 2.5, 7.0, 10.0),
    delays: Sequence[float] = (0.0, 0.5, 3.0),
    later_starts: Sequence[float | None] = (None, 0.0, 2.0),
    releases: Sequence[float] = (0.0, 1.0, 2.5),
    barriers: Sequence[float] = (0.0, 1.0),
) -> Program:
    """Up to ``arcs`` arcs, 1-2 phases of up to ``blocks`` blocks in up to ``groups + 1`` groups,
    each block of 1 to ``chunks`` chunks depending on up to 3 earlier blocks (of the same count
    if ``equal_counts``, else of at least its count)."""
    n_arcs = draw(st.integers(1, arcs))
    arc_index: dict = {}
    phases = []
    for p in range(draw(st.integers(1, 2))):
        pb = PhaseBuilder(arc_index)
        n_blocks = draw(st.integers(1, blocks))
        group_of = sorted(
            draw(st.lists(st.integers(0, groups), min_size=n_blocks, max_size=n_blocks))
        )
        counts: list[int] = []
        for b in range(n_blocks):
            count = draw(st.integers(1, chunks))
            earlier = [
                d for d in range(b) if (counts[d] == count if equal_counts else counts[d] >= count)
            ]
            deps = (
                draw(st.lists(st.sampled_from(earlier), max_size=3, unique=True)) if earlier else []
            )
            a = draw(st.integers(0, n_arcs - 1))
            pb.add(
                (a, a + 1, 0),
                count=count,
                duration=draw(st.sampled_from(list(durations))),
                payload=1,
                group=group_of[b],
                deps=deps,
                delay=draw(st.sampled_from(list(delays))),
            )
            counts.append(count)
        start = (
            draw(st.sampled_from(list(later_starts))) if p else draw(st.sampled_from([0.0, 1.0]))
        )
        phases.append(pb.build(start=start, final_delay=draw(st.sampled_from([0.0, 4.0]))))
    return Program(
        list(arc_index),
        phases,
        release=draw(st.sampled_from(list(releases))),
        barrier=draw(st.sampled_from(list(barriers))),
        drain=draw(st.sampled_from([0.0, 19.0])),
    )
