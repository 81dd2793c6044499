"""The sparse line index over several blocks: line and character lookups."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from scanners import SCANNERS, scanner

from agentpager.engine import lineindex
from agentpager.engine.lineindex import LineIndex, Stamp


@pytest.fixture(params=SCANNERS)
def small_blocks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(lineindex, "BLOCK_SIZE", 16)
    with scanner(request.param):
        yield


def indexed(path: Path, base: int = 0) -> tuple[int, LineIndex]:
    fd = os.open(path, os.O_RDONLY)
    index = LineIndex(base)
    index.sync(fd, Stamp.of(os.fstat(fd)))
    index.scan(fd)
    return fd, index


def test_lines_across_blocks(tmp_path: Path, small_blocks: None) -> None:
    lines = [f"line {n}" * (n % 4) for n in range(1, 60)]
    data = ("\r\n".join(lines) + "\r\n").encode()
    (tmp_path / "f").write_bytes(data)
    fd, index = indexed(tmp_path / "f")
    try:
        assert len(index._starts) > 10, "the file spans many blocks"
        assert index.line_count(fd) == len(lines)
        for number, line in enumerate(lines, 1):
            start, end = index.line_start(fd, number), index.line_end(fd, number)
            assert data[start:end].decode() == line
    finally:
        os.close(fd)


def test_progress_and_cancel(tmp_path: Path, small_blocks: None) -> None:
    (tmp_path / "f").write_bytes(b"abc\n" * 400)
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        index = LineIndex()
        index.sync(fd, Stamp.of(os.fstat(fd)))
        seen: list[tuple[int, int]] = []
        cancel = threading.Event()

        def progress(scanned: int, size: int) -> None:
            seen.append((scanned, size))
            if len(seen) == 3:
                cancel.set()

        with pytest.raises(lineindex.Cancelled):
            index.scan(fd, progress=progress, cancel=cancel)
        assert not index.complete and index.scanned == seen[-1][0] < 1600
        assert index.newline_count == index.scanned // 4, "what was scanned is kept"
        index.scan(fd, progress=progress)
        assert index.complete and seen[-1] == (1600, 1600)
        assert index.line_count(fd) == 400
    finally:
        os.close(fd)


def test_characters_across_blocks(tmp_path: Path, small_blocks: None) -> None:
    text = "aé🎉\n" * 30 + "tail"
    data = text.encode() + b"\xff\xe2\x82"
    (tmp_path / "f").write_bytes(data)
    fd, index = indexed(tmp_path / "f")
    try:
        index.ensure_chars(fd)
        decoded = data.decode("utf-8", "replace")
        assert index.char_count() == len(decoded)
        for offset in range(0, len(decoded), 7):
            byte, chars = index.char_checkpoint(offset)
            assert chars <= offset
            assert data[byte:].decode("utf-8", "replace") == decoded[chars:]
    finally:
        os.close(fd)


def test_bom_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"\xef\xbb\xbfa\nb")
    fd, index = indexed(tmp_path / "f", base=3)
    try:
        assert index.line_count(fd) == 2
        assert (index.line_start(fd, 1), index.line_end(fd, 1)) == (3, 4)
    finally:
        os.close(fd)


def test_line_spans_index_the_file_as_they_go(tmp_path: Path, small_blocks: None) -> None:
    data = b"first\n\nthird line\r\n" + b"x" * 40 + b"\nlast"
    (tmp_path / "f").write_bytes(data)
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        index = LineIndex()
        index.sync(fd, Stamp.of(os.fstat(fd)))
        spans = [(number, data[start:end], ended) for number, start, end, ended in index.line_spans(fd)]
        assert spans == [
            (1, b"first", True),
            (2, b"", True),
            (3, b"third line\r", True),
            (4, b"x" * 40, True),
            (5, b"last", False),
        ]
        assert index.complete and index.line_count(fd) == 5, "the spans built the index"
        assert [number for number, *_ in index.line_spans(fd, 4)] == [4, 5]
        with open(tmp_path / "f", "ab") as grown:
            grown.write(b" line\nnew\n")
        index.sync(fd, Stamp.of(os.fstat(fd)))
        grown_data = data + b" line\nnew\n"
        assert [(n, grown_data[a:b], e) for n, a, b, e in index.line_spans(fd, 5)] == [
            (5, b"last line", True),
            (6, b"new", True),
        ]
        assert list(index.line_spans(fd, 7)) == []
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_process_reads_into_buffers_of_its_own() -> None:
    """The scan buffers are made once per thread, and the index's worker processes are forked: a
    buffer they shared mixed the files they read (a first ``--full`` of 20,000 sessions gave about
    50 of them another file's lines)."""
    buffer = lineindex.aligned_buffer(4096)
    buffer[:6] = b"parent"
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        buffer[:6] = b"child!"
        os._exit(0)
    os.waitpid(child, 0)
    assert buffer[:6] == b"parent"
