"""A root-set search too big for its limit is refused at once, with its estimate and a hint."""

from __future__ import annotations

import re
import time

import pytest

from supermesh.errors import ResourceError
from supermesh.topologies import build
from supermesh.trees.roots import root_sets
from supermesh.trees.roots.search import check_search_size, start_seconds


def test_a_wafer_scale_search_is_refused_before_any_work():
    G = build("smbi:64x64")
    began = time.perf_counter()
    with pytest.raises(ResourceError, match=r"smbi:64x64 \(4,096 nodes\).*3.6 h.*10 min"):
        root_sets(G, time_limit=5.0)
    assert time.perf_counter() - began < 5.0  # nothing packed: the estimate comes first


def test_the_hint_names_a_limit_that_lets_it_run():
    G = build("smbi:32x32")
    with pytest.raises(ResourceError) as info:
        check_search_size(G, 60.0)
    needed = int(re.search(r"--time-limit (\d+)", info.value.hint or "").group(1))
    check_search_size(G, float(needed))  # the limit the hint names passes the check
    with pytest.raises(ResourceError):
        check_search_size(G, float(needed - 1))


def test_sizes_that_ran_before_still_run():
    # 16x16 took 100 s measured; 24x24 is under the 10-minute net of any limit
    check_search_size(build("smbi:16x16"), 5.0)
    check_search_size(build("smbi:24x24"), 5.0)
    assert start_seconds(36) < start_seconds(256) < start_seconds(576) < 600


def test_cli_prints_one_error_and_one_hint(run_cli):
    code, out, err = run_cli("trees", "smbi:64x64", "--root-sets", "--time-limit", "5")
    assert code == 2
    lines = err.strip().splitlines()
    assert out == ""
    assert len(lines) == 2
    assert lines[0].startswith("error: ")
    assert lines[1].startswith("hint: ")
    assert "3.6 h" in lines[0]
    assert "--time-limit 1280" in lines[1]
