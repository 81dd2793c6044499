"""The text of one UTF-8 file, read in windows of lines or characters through its LineIndex."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from agentpager.engine.lazytext import LazyText, Text
from agentpager.engine.lineindex import FileChanged, LineIndex, Stamp, iter_bytes, iter_text
from agentpager.engine.utf8 import decode_chunks

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path turned into something that is not a regular file after it was checked."""


def open_regular(path: str) -> tuple[int, os.stat_result]:
    """Open ``path`` for reading without blocking on a FIFO; refuse anything but a regular file."""
    fd = os.open(path, _OPEN_FLAGS)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegularFile(path)
    return fd, st


class TextFile:
    """A file whose bytes after ``base`` (a byte-order mark) are UTF-8 text.

    The index survives between reads while the file is unchanged, is extended when the file grows
    and rebuilt when it is replaced or truncated.
    """

    def __init__(self, path: str, base: int = 0) -> None:
        self.path = path
        self.index = LineIndex(base)

    @contextmanager
    def open(self) -> Iterator[TextReader]:
        """A reader over the file as it is now. Use what it returns before the block ends."""
        fd, st = open_regular(self.path)
        try:
            with self.index.lock:
                self.index.sync(fd, Stamp.of(st))
                generation = self.index.generation
            yield TextReader(fd, self.index, generation)
        finally:
            os.close(fd)


class TextReader:
    """One consistent view of a TextFile: every answer describes the same bytes.

    Another reader of the same file (a viewer following it, say) may extend the shared index: that
    only adds lines after these. If it starts the index over because the file was replaced or
    truncated, this reader's answers raise FileChanged rather than mix two versions.
    """

    def __init__(self, fd: int, index: LineIndex, generation: int) -> None:
        self.fd = fd
        self.index = index
        self.generation = generation

    def _check(self) -> None:
        if self.index.generation != self.generation:
            raise FileChanged("the file was replaced or truncated during the read")

    def build_index(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.index.scan(self.fd, progress=progress, cancel=cancel, generation=self.generation)

    def line_count(self) -> int:
        """Lines in the whole file (scanning what is not yet indexed)."""
        self.build_index()
        with self.index.lock:
            self._check()
            return self.index.line_count(self.fd)

    def lines_text(self, first: int, last: int) -> Text:
        """Lines ``first..last`` (1-based, inclusive, existing) joined by ``\\n``."""
        with self.index.lock:
            self._check()
            start = self.index.line_start(self.fd, first)
            end = self.index.line_end(self.fd, last)
        return LazyText.of(lambda: iter_text(self.fd, start, end, join_lines=True), end - start)

    def iter_lines(self, first: int, last: int) -> Iterator[str]:
        """Lines ``first..last`` one at a time."""
        if first > last:
            return
        pending = ""
        for chunk in self.lines_text(first, last):
            pieces = (pending + chunk).split("\n")
            pending = pieces.pop()
            yield from pieces
        yield pending

    def char_count(self) -> int:
        """Characters in the whole decoded file."""
        self.build_index()
        with self.index.lock:
            self._check()
            self.index.ensure_chars(self.fd)
            return self.index.char_count()

    def chars_text(self, offset: int, length: int) -> Text:
        """``length`` characters from character ``offset`` (both within the file)."""
        self.char_count()
        with self.index.lock:
            self._check()
            start, start_chars = self.index.char_checkpoint(offset)
            end = self.index.size
        skip = offset - start_chars

        def chunks() -> Iterator[str]:
            to_skip, wanted = skip, length
            for text in decode_chunks(iter_bytes(self.fd, start, end)):
                if to_skip:
                    dropped = min(to_skip, len(text))
                    text, to_skip = text[dropped:], to_skip - dropped
                piece = text[:wanted]
                if piece:
                    yield piece
                    wanted -= len(piece)
                if not wanted:
                    return

        # A character (or a replaced invalid byte) takes at most four bytes.
        return LazyText.of(chunks, byte_size=4 * length, length=length)
