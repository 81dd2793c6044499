"""Counting and finding newlines in a buffer, each way (tests/scanners.py), against bytes methods."""

from __future__ import annotations

import mmap

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scanners import SCANNERS, scanner

from agentpager.engine import newline_scan


def expected_offsets(data: bytes, base: int) -> list[int]:
    return [base + offset for offset, byte in enumerate(data) if byte == 10]


def in_mapping(data: bytes) -> mmap.mmap:
    """The data in an anonymous mapping, the buffer the line index reads into (a page or more)."""
    buffer = mmap.mmap(-1, max(len(data), 1))
    buffer[: len(data)] = data
    return buffer


chunks = st.lists(st.sampled_from([b"\n", b"a", b"\r\n", b"\xc3\xa9", b"x" * 37, b"\n" * 300]), max_size=60)


@pytest.mark.parametrize("name", SCANNERS)
@settings(max_examples=examples(200), deadline=None)
@given(parts=chunks, cut=st.integers(0, 64))
def test_counts_and_offsets_equal_those_of_bytes(name: str, parts: list[bytes], cut: int) -> None:
    data = b"".join(parts)
    end = max(0, len(data) - cut)
    with scanner(name):
        buffer = in_mapping(data)
        assert newline_scan.count(buffer, end) == data[:end].count(b"\n")
        assert list(newline_scan.offsets(buffer, end, 1000, load_numpy=True)) == expected_offsets(data[:end], 1000)


@pytest.mark.parametrize("name", SCANNERS)
@pytest.mark.parametrize("size", [15, 16, 17, 255 * 16 - 1, 255 * 16, 255 * 16 + 1, 300_000])
def test_runs_of_newlines_longer_than_a_counter_holds(name: str, size: int) -> None:
    """The C module counts 16 bytes at a time in byte-wide counters summed every 255 rounds."""
    data = b"\n" * size + b"z" + b"\n" * (size // 3)
    with scanner(name):
        buffer = in_mapping(data)
        assert newline_scan.count(buffer, len(data)) == size + size // 3
        assert newline_scan.count(buffer, size) == size
        found = newline_scan.offsets(buffer, len(data), 0, load_numpy=True)
        assert list(found) == expected_offsets(data, 0)


def test_the_c_module_refuses_an_end_outside_the_buffer() -> None:
    with scanner("c"):
        for end in (-1, 5):
            with pytest.raises(ValueError, match="outside the buffer"):
                newline_scan.count(b"a\nb\n", end)
            with pytest.raises(ValueError, match="outside the buffer"):
                newline_scan.offsets(b"a\nb\n", end, 0, load_numpy=False)


def test_joined_offsets_keep_their_order_whatever_each_piece_is() -> None:
    with scanner("numpy"):
        dense = newline_scan.offsets(in_mapping(b"\n" * 5), 5, 0, load_numpy=True)
    with scanner("bytes"):
        sparse = newline_scan.offsets(in_mapping(b"ab\n"), 3, 5, load_numpy=False)
    with scanner("c"):
        native = newline_scan.offsets(in_mapping(b"\n\n"), 2, 8, load_numpy=False)
    assert list(newline_scan.joined([dense, sparse, native])) == [0, 1, 2, 3, 4, 7, 8, 9]
    assert list(newline_scan.joined([sparse, native])) == [7, 8, 9]
