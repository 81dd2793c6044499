"""Measuring a file as Path.read_text() reads it, a block at a time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from agentpager.engine import lineindex
from agentpager.engine.pytext import Utf8Text, measure_utf8


def measured(path: Path) -> Utf8Text:
    fd = os.open(path, os.O_RDONLY)
    try:
        return measure_utf8(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


_PIECES = [
    b"a",
    b"\n",
    b"\r",
    b"\r\n",
    b"\x0c",
    b"\x1c",
    "é".encode(),
    "\u2028".encode(),
    "€".encode(),
    b"\xe9",
    b"\xc2",
]


@settings(max_examples=examples(300))
@given(data=st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join), block=st.integers(1, 9))
def test_the_same_as_read_text_whatever_the_blocks(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, block: int
) -> None:
    path = tmp_path_factory.mktemp("pytext") / "file"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lineindex, "BLOCK_SIZE", block)
        found = measured(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        assert found == Utf8Text(str(error), 0, 0, False)
        return
    lone_cr = "\r" in data.decode().replace("\r\n", "")
    assert found == Utf8Text("", len(text.split("\n")), len(text.splitlines()), lone_cr)


def test_literal_counts(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"one\r\ntwo\rthree\x0cfour\n")
    assert measured(path) == Utf8Text("", 4, 4, True)
    path.write_bytes(b"")
    assert measured(path) == Utf8Text("", 1, 0, False)
    path.write_bytes(b"ok\n\xff")
    assert measured(path).error == "'utf-8' codec can't decode byte 0xff in position 3: invalid start byte"
