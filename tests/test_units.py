"""Sizes: parse_size / format_size against hand-computed byte counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import SpecError
from supermesh.units import format_size, parse_size


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4MiB", 4 * 1024 * 1024),
        ("512 MiB", 512 * 2**20),
        ("1GiB", 2**30),
        ("375KiB", 375 * 1024),
        ("1.5KiB", 1536),
        ("4096", 4096),
        ("64B", 64),
        ("1MB", 1_000_000),
        ("2kb", 2000),
        ("1gb", 10**9),
        ("4m", 4 * 2**20),
        (12, 12),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "MiB", "4 XB", "-1MiB", "0", "0.3B", "1.0001KiB", "4MiB!"])
def test_parse_size_rejects(bad):
    with pytest.raises(SpecError) as err:
        parse_size(bad)
    assert err.value.hint


@pytest.mark.parametrize(
    "big",
    ["1" + "0" * 400, "99999999999999999999999999GiB", "9" * 5000, "2PiB", "1025TiB"],
    ids=lambda text: text[:20],
)
def test_parse_size_says_a_long_number_is_too_large(big):
    # 2^50 bytes (1 PiB) has 16 digits: each of these is a number with a unit, and too large
    with pytest.raises(SpecError, match=r"is more than 1PiB"):
        parse_size(big)


def test_leading_zeros_are_not_digits_of_size():
    assert parse_size("0" * 5000 + "1.5KiB") == 1536


def test_format_size_examples():
    assert format_size(4 * 2**20) == "4MiB"
    assert format_size(1536) == "1.5KiB"
    assert format_size(1000) == "1000B"
    assert format_size(2**30) == "1GiB"


@given(st.integers(min_value=1, max_value=2**40))
def test_format_then_parse_roundtrips(n):
    assert parse_size(format_size(n)) == n
