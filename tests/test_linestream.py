"""The engine's line streamer: blocks of whole lines, long lines never joined, and matched exactly."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentpager.engine import linestream
from agentpager.engine.linestream import LongLine, NotHeld, line_blocks
from agentpager.engine.patterns import Matcher, compile_regex


@contextlib.contextmanager
def small_limits(block: int = 16, line: int = 8) -> Iterator[None]:
    """Blocks of 16 bytes, lines held up to 8: every path on a few bytes."""
    old = linestream.BLOCK_BYTES, linestream.LINE_LIMIT
    linestream.BLOCK_BYTES, linestream.LINE_LIMIT = block, line
    try:
        yield
    finally:
        linestream.BLOCK_BYTES, linestream.LINE_LIMIT = old


def pieces_of(data: bytes, size: int) -> Iterator[bytes]:
    return (data[n : n + size] for n in range(0, len(data), size))


def reread_of(data: bytes):  # noqa: ANN201 - a Reread
    return lambda start, end: pieces_of(data[start:end], 3)


_BYTES = st.lists(st.sampled_from([b"a", b"b", b" ", b"\n", b"\n", b"\xc3\xa9", b"\xff", b"_", b"1"]), max_size=80)


@settings(max_examples=300, deadline=None)
@given(parts=_BYTES, chunk=st.integers(1, 20))
def test_blocks_and_long_lines_give_back_the_stream(parts: list[bytes], chunk: int) -> None:
    data = b"".join(parts)
    rebuilt: list[bytes] = []
    with small_limits():
        blocks = list(_described(line_blocks(pieces_of(data, chunk), reread_of(data)), data))
    for block in blocks:
        if isinstance(block, tuple):
            first, newline = block
            assert len(first) > 8 and b"\n" not in first
            rebuilt.append(first + b"\n" * newline)
        else:
            assert block.endswith(b"\n") or data.endswith(block), "only the last line may lack a newline"
            rebuilt.append(block)
    assert b"".join(rebuilt) == data


def _described(blocks: Iterator[bytes | LongLine], data: bytes) -> Iterator[bytes | tuple[bytes, bool]]:
    for block in blocks:
        if isinstance(block, LongLine):
            first = b"".join(block.pieces())
            assert b"".join(block.pieces()) == first == data[block.start : block.start + block.size], "read again"
            yield first, block.newline
        else:
            yield block


def test_a_long_line_of_a_pipe_is_read_once() -> None:
    with small_limits():
        (line, rest) = list(line_blocks(pieces_of(b"x" * 20 + b"\nok\n", 4)))
    assert isinstance(line, LongLine) and rest == b"ok\n"
    assert (line.size, line.newline, line.ascii, line.utf8) == (20, True, True, True)
    with pytest.raises(NotHeld):
        line.pieces()


def test_a_long_line_not_read_is_skipped() -> None:
    with small_limits(block=1):
        blocks = line_blocks(pieces_of(b"a\n" + b"x" * 30 + b"\nb\n", 5))
        assert next(blocks) == b"a\n"
        assert isinstance(next(blocks), LongLine)
        assert list(blocks) == [b"b\n"]


def test_a_long_line_is_never_joined() -> None:
    with small_limits(block=1 << 10, line=1 << 10):
        line = next(line_blocks(pieces_of(b"y" * (1 << 20), 1 << 12)))
        assert isinstance(line, LongLine)
        assert max(len(piece) for piece in line.pieces()) <= (1 << 10) + (1 << 12)


# -- matching a long line: windows (RE2) or the child, exactly as re on the whole line -------------

_PATTERNS = [
    "a",
    "ab",
    "^a",
    "a$",
    "^$",
    r"\bab\b",
    r"\Bb",
    "a.b",
    "[^a ]b",
    "é",
    "(?i)A",
    "a{3}",
    "b+a",
    "a.*b",
    r"(a)\1",
    r"(?<=b)a",
    r"\w+\s\w",
    "",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from([b"a", b"b", b" ", b"\xc3\xa9", b"_"]), max_size=60), chunk=st.integers(1, 9))
@example(parts=[b"b", b"a", b"b"], chunk=1)
@example(parts=[b"a", b"b", b" "] * 3, chunk=2)
def test_a_long_line_matches_as_re_matches_the_whole_line(parts: list[bytes], chunk: int) -> None:
    data = b"".join(parts)
    check(data, chunk)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from([b"a", b"b", b" ", b"\xc3\xa9", b"\xff", b"\xc3"]), max_size=30))
def test_bytes_that_are_not_utf8_go_to_the_child(parts: list[bytes]) -> None:
    check(b"".join(parts), 2)


@functools.cache
def _matchers() -> list[Matcher]:
    """Compiled once: the children of those that need one stay up between examples."""
    return [compile_regex(pattern, re.MULTILINE) for pattern in _PATTERNS]


def check(data: bytes, chunk: int) -> None:
    text = data.decode("utf-8", "surrogateescape")
    found = _search(_matchers(), data, chunk)
    assert found == [re.search(pattern, text, re.MULTILINE) is not None for pattern in _PATTERNS]


def _search(matchers: list, data: bytes, chunk: int) -> list[bool]:
    """A file of one long line, searched as it streams in ``chunk``-byte pieces."""
    with small_limits(block=1, line=0):
        line = next(line_blocks(pieces_of(data + b"\n", chunk), reread_of(data + b"\n")))
        if not isinstance(line, LongLine):  # its newline came with its first piece
            return [bool(m.matching_lines(line.removesuffix(b"\n"))) for m in matchers]
        return line.search(matchers)


def test_a_window_search_reads_with_the_bytes_around_it() -> None:
    """RE2 reads the context around a window: no ``^`` inside a line, no word boundary inside a word."""
    for pattern, data, expected in [
        ("^b", b"ab" * 50, False),
        ("a$", b"ab" * 50, False),
        (r"\bb", b"ab" * 50, False),
        ("b$", b"ab" * 50, True),
        (r"ba\b", b"ab" * 50 + b"a", True),
    ]:
        with compile_regex(pattern, re.MULTILINE) as matcher:
            assert _search([matcher], data, 3) == [expected], pattern


def test_matching_lines_of_bytes() -> None:
    with compile_regex("^a|b$", re.MULTILINE) as matcher:
        assert matcher.matching_lines(b"a\nxb\n\nc\xff\nb") == [0, 1, 4]
        assert matcher.matching_lines(b"\xffa\na") == [1]
    with compile_regex("^$", re.MULTILINE) as matcher:
        assert matcher.matching_lines(b"") == [0]
        assert matcher.matching_lines(b"x\n") == [1]
    with compile_regex("[^x]", re.MULTILINE) as matcher:
        assert matcher.matching_lines(b"x\n\xff\n\xc3\xa9") == [1, 2], "re's [^x] holds an invalid byte's character"
