"""A design search too large for the memory cap is refused before any work, naming its estimate."""

from __future__ import annotations

import time

import pytest

from supermesh.errors import ResourceError
from supermesh.topologies import build
from supermesh.trees.design import design


def test_a_wafer_design_is_refused_at_once(run_cli):
    began = time.perf_counter()
    with pytest.raises(ResourceError, match=r"mesh:96x96 \(9,216 nodes\).*GiB"):
        design(build("mesh:96x96"), trees=4)
    assert time.perf_counter() - began < 10.0
    code, out, err = run_cli("design", "mesh:96x96", "--target-trees", "4")
    assert code == 2
    assert out == ""
    assert err.startswith("error: a design search on mesh:96x96")
    assert "\nhint: " in err


def test_a_raised_cap_lets_it_through(monkeypatch):
    from supermesh.trees.design.master import check_design_size

    monkeypatch.setenv("SUPERMESH_MAX_MEMORY", "8GiB")
    check_design_size(build("mesh:96x96"))  # 4.6 GiB estimated: under 8 GiB
