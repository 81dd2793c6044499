"""Lines of a byte stream, never more than a bound of any line held: how programs read lines.

``line_blocks`` cuts a stream into blocks of whole lines (about ``BLOCK_BYTES`` each; a line of up
to ``LINE_LIMIT`` bytes is held whole) and gives a longer line as a ``LongLine``, whose bytes come
a piece at a time: once from the stream and, when the stream can be read again (a file), again
from it. A long line is matched while it is read (``LongLine.search``: RE2 a window at a time, or
``re`` in the child), and written by copying its pieces. No line's pieces are ever joined here:
joining a carry with each chunk made one 256 MB line take 28 s and 549 MB in the shell programs.
"""

from __future__ import annotations

import codecs
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

from agentpager.engine.patterns import Matcher

BLOCK_BYTES = 1 << 20
LINE_LIMIT = 1 << 22
"""A line longer than this (4 MiB) is never held: it comes as a LongLine."""

Reread = Callable[[int, int], Iterator[bytes]]
"""The bytes ``[start, end)`` of a stream read again (a file's), a chunk at a time."""


class NotHeld(Exception):
    """A long line of a stream that cannot be read again (a pipe) was needed a second time."""


class _Stream:
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.pending = bytearray()
        self.offset = 0
        """Where ``pending`` starts in the stream."""
        self.done = False

    def fill(self) -> bool:
        """Read one more chunk into ``pending``; False at the end of the stream."""
        for chunk in self.chunks:
            if chunk:
                self.pending += chunk
                return True
        self.done = True
        return False

    def take(self, length: int) -> bytes:
        taken = bytes(self.pending[:length])
        del self.pending[:length]
        self.offset += length
        return taken


class LongLine:
    """A line longer than LINE_LIMIT, read a piece at a time (never joined).

    ``pieces()`` gives its bytes without its newline: the first time from the stream (what is not
    read of it then is skipped when the next line is asked for), later again from the file, or
    NotHeld for a pipe. ``size``, ``newline``, ``ascii``, ``utf8`` and ``nul`` describe it once it
    has been read through (``read_through()``).
    """

    def __init__(self, stream: _Stream, reread: Reread | None) -> None:
        self.start = stream.offset
        self.size = 0
        self.newline = False
        """Whether a newline ends it (not at the end of a stream that has none)."""
        self.ascii = True
        self.utf8 = True
        self.nul = False
        """Whether it holds a NUL byte."""
        self._stream = stream
        self._reread = reread
        self._first: Iterator[bytes] | None = self._from_stream()
        self._started = False

    def pieces(self) -> Iterator[bytes]:
        if not self._started:
            self._started = True
            assert self._first is not None
            return self._first
        if self._reread is None:
            raise NotHeld("a line over 4 MiB from a pipe was needed twice (it is never held)")
        self.read_through()
        return self._reread(self.start, self.start + self.size)

    def read_through(self) -> None:
        """Read what is left of it from the stream (skipping it)."""
        if self._first is not None:
            self._started = True
            for _ in self._first:
                pass

    def search(self, matchers: Sequence[Matcher], cancel: threading.Event | None = None) -> list[bool]:
        """Whether each pattern matches in the line, the line read once (twice from a file for a
        window RE2 could not search exactly: see ``patterns.LineSearch``); NotHeld for a pipe then."""
        searches = [matcher.line_search(cancel) for matcher in matchers]
        try:
            for piece in self.pieces():
                for search in searches:
                    search.feed(piece)
            found = [search.finish() for search in searches]
        finally:
            for search in searches:
                search.close()
        return [
            matcher.child_line_matches(self.pieces(), cancel) if result is None else result
            for matcher, result in zip(matchers, found, strict=True)
        ]

    def _from_stream(self) -> Iterator[bytes]:
        stream = self._stream
        decoder = codecs.getincrementaldecoder("utf-8")()
        piece = stream.take(len(stream.pending))
        while True:
            self.size += len(piece)
            self._describe(piece, decoder)
            yield piece
            if not stream.fill():
                break
            newline = stream.pending.find(b"\n")
            if newline >= 0:
                piece = stream.take(newline)
                stream.take(1)
                self.newline = True
                self.size += len(piece)
                self._describe(piece, decoder)
                yield piece
                break
            piece = stream.take(len(stream.pending))
        if self.utf8:
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self.utf8 = False
        self._first = None

    def _describe(self, piece: bytes, decoder: codecs.IncrementalDecoder) -> None:
        self.nul = self.nul or b"\0" in piece
        if piece.isascii() and not decoder.getstate()[0]:
            return
        self.ascii = False
        if self.utf8:
            try:
                decoder.decode(piece)
            except UnicodeDecodeError:
                self.utf8 = False


def line_blocks(
    chunks: Iterable[bytes],
    reread: Reread | None = None,
    offset: int = 0,
) -> Iterator[bytes | LongLine]:
    """The stream as blocks of whole lines and LongLines, in order.

    A block is cut after its last newline once ``block_bytes`` are read (it ends without one only at
    the end of a stream whose last line has none). ``reread`` reads the stream again (a file, where
    ``chunks`` start at ``offset``), so that a long line can be read more than once.
    """
    stream = _Stream(iter(chunks))
    stream.offset = offset
    block_bytes, line_limit = BLOCK_BYTES, LINE_LIMIT  # read here: a test makes them small
    while True:
        while len(stream.pending) < block_bytes and stream.fill():
            pass
        if not stream.pending:
            return
        cut = stream.pending.rfind(b"\n") + 1
        if not cut and not stream.done:
            cut = _end_of_first_line(stream, line_limit)
            if not cut:
                line = LongLine(stream, reread)
                yield line
                line.read_through()
                continue
        yield stream.take(cut or len(stream.pending))


def _end_of_first_line(stream: _Stream, line_limit: int) -> int:
    """Where the first line of ``pending`` (which holds no newline) ends, reading on up to
    ``line_limit`` bytes; 0 when it is longer (or the stream's whole rest when it ends first)."""
    searched = len(stream.pending)
    while len(stream.pending) <= line_limit:
        if not stream.fill():
            return len(stream.pending)
        newline = stream.pending.find(b"\n", searched)
        if newline >= 0:
            return newline + 1
        searched = len(stream.pending)
    return 0


def split_lines(block: bytes) -> list[bytes]:
    """A block's lines without their newlines (a block that ends with one has no empty last line)."""
    lines = block.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines
