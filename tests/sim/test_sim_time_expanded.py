"""A throughput run also tries TE-CCL's and TACOS's schedules where its trees do not stream.

Independent facts: the other algorithms' own runs (``--algorithm teccl`` / ``tacos``, each built
by its own module), and the size rule's arithmetic (a rank's share in 12 KiB chunks).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supermesh.sim import get_preset, run_algorithm
from supermesh.sim.throughput_run import throughput_program
from supermesh.sim.time_expanded import (
    EPOCH_CHUNKS,
    SYNTHESISED_CHUNKS,
    SYNTHESISED_UP_TO,
    synthesised_choice,
    synthesised_runs,
)
from supermesh.topologies import build

MIB = 1 << 20


SYNTHESISED = ("TE-CCL", "TACOS", "epochs")


def synthesised(result, kinds=SYNTHESISED):
    return [t for t in result.meta["tried"] if t["rule"].startswith(kinds)]


@pytest.mark.parametrize("collective", ["allgather", "reducescatter"])
def test_smbi_5x5_at_1_mib_runs_faster_than_every_synthesiser(collective):
    # the trees' best one-round list schedule at 1 MiB (paper preset) is 13,212 ns for an
    # AllGather, TE-CCL's own run 12,276 ns. 3 chunks a rank need 18 epochs (24 x 3 chunks into
    # 4 links) and the list schedule meets that: 18 transfers of 41,943 B / 3 = 13,982 B, sent
    # as 4 packets of 4 KiB at 25 B/ns, plus a 20 ns hop each
    params, cache = get_preset("paper"), {}
    G = build("smbi:5x5")
    ours = run_algorithm(G, "throughput", collective, MIB, params, cache=cache)
    teccl = run_algorithm(G, "teccl", collective, MIB, params, cache=cache)
    tacos = run_algorithm(G, "tacos", collective, MIB, params, cache=cache)
    assert ours.time < min(teccl.time, tacos.time)
    assert ours.time == pytest.approx(18 * (4 * 4096 / 25 + 20), rel=1e-12)
    assert ours.meta["chunk_bytes"] == 13_982
    tries = synthesised(ours, ("TE-CCL", "TACOS"))
    assert [t["rule"].split(":")[0] for t in tries] == ["TE-CCL epochs", "TACOS greedy"]
    assert tries[0]["trees"] == 25 * 4  # TE-CCL's own: one tree per chunk, 4 chunks a rank
    trees = [t for t in ours.meta["tried"] if t not in synthesised(ours)]
    assert min(t["time"] for t in trees) > ours.time  # the trees alone were slower


def test_smbi_5x5_allreduce_at_1_mib_overlaps_faster_than_the_epochs():
    # the epochs' AllReduce runs its two phases in turn, 2 x 18 transfers of 4 packets and a
    # hop (see above); trees whose reduce and broadcast overlap on opposite arcs beat it, and
    # so every synthesiser
    params, cache = get_preset("paper"), {}
    G = build("smbi:5x5")
    ours = run_algorithm(G, "throughput", "allreduce", MIB, params, cache=cache)
    teccl = run_algorithm(G, "teccl", "allreduce", MIB, params, cache=cache)
    tacos = run_algorithm(G, "tacos", "allreduce", MIB, params, cache=cache)
    assert ours.lower_bound <= ours.time < 2 * 18 * (4 * 4096 / 25 + 20)
    assert ours.time < min(teccl.time, tacos.time)
    assert ours.meta["order"] == "justified"


def test_smbi_5x5_at_64_mib_runs_an_epoch_schedule_at_the_bound():
    # 24 chunks of each of 4 come into every rank over its 4 links: 24 epochs at the least, and
    # the list schedule meets it, so the run is 24 transfers of a quarter share (64 MiB / 25 / 4
    # = 671,089 B, sent as 164 packets of 4 KiB) at 25 B/ns plus a 20 ns hop each
    paper = get_preset("paper")
    r = run_algorithm(build("smbi:5x5"), "throughput", "allgather", 64 * MIB, paper)
    assert r.meta["chunk_bytes"] == 671_089
    assert r.time == pytest.approx(24 * (164 * 4096 / 25 + 20), rel=1e-12)
    assert r.lower_bound == pytest.approx(64 * MIB * 6 / 25 / 25)  # 25/6 links a rank in
    assert r.time <= 1.002 * r.lower_bound
    assert synthesised(r, ("TE-CCL", "TACOS")) == []  # 214 preset chunks a rank: not run


def test_where_the_trees_stream_no_synthesiser_runs():
    # mesh 4x4 has rings: at 512 MiB they run within 0.03% of the cut bound
    r = run_algorithm(build("mesh:4x4"), "throughput", "allgather", 512 * MIB, get_preset("paper"))
    assert r.time <= 1.002 * r.lower_bound
    assert synthesised(r) == []


def test_large_grids_and_long_shares_skip_the_synthesisers():
    paper = get_preset("paper")
    # 7x7 has 49 ranks
    assert SYNTHESISED_UP_TO < 49
    slow = throughput_program(build("mesh:3x3"), "allgather", MIB, paper, synthesised=False)
    big = synthesised_choice(build("mesh:7x7"), "allgather", MIB, paper, slow, bound=1.0)
    assert big is slow
    # mesh 3x3 at 8 MiB: 932 KiB a rank is 76 chunks of 12 KiB, above the 64 they are tried at;
    # the epoch runs, which send each chunk whole, still are
    assert (8 * MIB / 9) / paper.chunk_bytes > SYNTHESISED_CHUNKS
    slow = throughput_program(build("mesh:3x3"), "allgather", MIB, paper, synthesised=False)
    kept, _ = synthesised_choice(build("mesh:3x3"), "allgather", 8 * MIB, paper, slow, bound=1.0)
    rules = [t["rule"] for t in kept.meta["tried"]]
    assert not any(r.startswith(("TE-CCL", "TACOS")) for r in rules)
    assert sum(r.startswith("epochs") for r in rules) == len(EPOCH_CHUNKS)


def test_off_means_off():
    paper = get_preset("paper")
    program, _ = throughput_program(
        build("smbi:5x5"), "allgather", MIB, paper, rings=False, synthesised=False
    )
    assert not any(t["rule"].startswith(SYNTHESISED) for t in program.meta["tried"])


def test_a_synthesiser_that_refuses_the_topology_is_left_out():
    # TACOS runs an AllReduce's ReduceScatter backwards on its AllGather's trees: SMUni's
    # one-way arcs have no reverse, so only TE-CCL (which solves each direction) competes
    runs = synthesised_runs(build("smuni:3x3"), "allreduce", MIB, get_preset("paper"))
    assert [p.meta["tried"][0]["rule"].split(":")[0] for p, _ in runs] == ["TE-CCL epochs"]


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    family=st.sampled_from(["mesh", "smbi", "smalter"]),
    side=st.sampled_from([2, 3, 4]),
    collective=st.sampled_from(["allgather", "reducescatter", "allreduce"]),
    mib=st.sampled_from([1, 2]),
)
def test_a_throughput_run_is_never_slower_than_the_synthesisers(family, side, collective, mib):
    params, cache = get_preset("paper"), {}
    G = build(f"{family}:{side}x{side}")
    ours = run_algorithm(G, "throughput", collective, mib * MIB, params, cache=cache)
    for other in ("teccl", "tacos"):
        theirs = run_algorithm(G, other, collective, mib * MIB, params, cache=cache)
        assert ours.time <= theirs.time * (1 + 1e-12)
    assert ours.time == pytest.approx(min(t["time"] for t in ours.meta["tried"]), rel=1e-12)


def test_an_epoch_run_is_deterministic_to_the_byte():
    # TE-CCL's solve records its wall time; a throughput run that keeps an epoch schedule must
    # not carry it, or the same inputs would give different files
    def once():
        r = run_algorithm(build("mesh:3x3"), "throughput", "allgather", MIB, get_preset("paper"))
        assert r.meta["tried"][-1]["rule"]  # every try is named
        return r

    first, second = once(), once()
    kept = min(first.meta["tried"], key=lambda t: t["time"])
    assert kept["rule"].startswith("epochs")
    assert "solve_seconds" not in json.dumps(first.to_json())
    assert json.dumps(first.to_json(), sort_keys=True) == json.dumps(
        second.to_json(), sort_keys=True
    )
