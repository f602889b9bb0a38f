"""The one JSON reader (topologies.io.read_json_file): strict JSON from regular files only."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supermesh.errors import InputFileError
from supermesh.topologies.io import read_json_file


def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("pic.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("latin.json", '{"name": "café"}'.encode("latin-1"), "not UTF-8 text (byte 0xe9"),
        ("nan.json", b'{"share": NaN}', "NaN is not a JSON number"),
        ("inf.json", b'{"share": -Infinity}', "-Infinity is not a JSON number"),
        ("huge.json", b'{"share": 1e400}', "too large for a float"),
        ("dup.json", b'{"format": "a", "format": "b"}', "'format' appears twice"),
        ("cut.json", b'{"format": "supermesh-trees", "sets": [', "not valid JSON (line 1"),
        ("digits.json", b'{"n": ' + b"9" * 5000 + b"}", "more than"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else "",
)
def test_bad_files_are_refused_with_the_reason(tmp_path, name, data, says):
    path = _write(tmp_path, name, data)
    with pytest.raises(InputFileError) as info:
        read_json_file(path)
    assert says in str(info.value)
    assert info.value.hint


def test_a_picture_gets_a_hint_that_names_it(tmp_path):
    path = _write(tmp_path, "plot.png", b"\x89PNG\r\n\x1a\n\x00")
    with pytest.raises(InputFileError) as info:
        read_json_file(path)
    assert "picture" in info.value.hint


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_before_reading(special):
    if not os.path.exists(special):
        pytest.skip(f"{special} does not exist here")
    with pytest.raises(InputFileError, match="not a regular file"):
        read_json_file(special)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="not a regular file"):
        read_json_file(fifo)


def test_a_symlink_to_a_device_is_refused_and_to_a_file_followed(tmp_path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="not a regular file"):
        read_json_file(link)
    real = _write(tmp_path, "real.json", b'{"a": [1, 2]}')
    good = tmp_path / "good.json"
    good.symlink_to(real)
    assert read_json_file(good) == {"a": [1, 2]}


def test_directories_and_missing_files(tmp_path):
    with pytest.raises(InputFileError, match="directory"):
        read_json_file(tmp_path)
    with pytest.raises(InputFileError, match="No such file") as info:
        read_json_file(tmp_path / "nope.json")
    assert info.value.hint


def test_the_size_cap(tmp_path):
    path = _write(tmp_path, "big.json", b'{"a": "' + b"x" * 200 + b'"}')
    with pytest.raises(InputFileError, match="more than the 100 bytes"):
        read_json_file(path, max_bytes=100)
    assert read_json_file(path, max_bytes=1000)["a"] == "x" * 200


@given(st.binary(max_size=200))
def test_any_bytes_parse_or_give_one_input_error(data):
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        fh.write(data)
    try:
        doc = read_json_file(fh.name)
    except InputFileError as exc:
        message = str(exc)
    else:  # what parses is exactly what strict JSON gives
        message = ""
        assert doc == json.loads(data.decode("utf-8"))
    finally:
        os.unlink(fh.name)
    assert message or doc is not None or data.strip() == b"null"
