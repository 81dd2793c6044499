"""The text of one UTF-8 file, read in windows of lines or characters through its LineIndex."""

from __future__ import annotations

import errno
import functools
import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO, Literal

from agentpager.engine import lineindex
from agentpager.engine.lazytext import LazyText, Text
from agentpager.engine.lineindex import (
    Cancelled,
    FileChanged,
    LineIndex,
    Stamp,
    iter_bytes,
    iter_text,
    read_exact,
)
from agentpager.engine.savedindex import SAVED_MIN_BYTES, IndexStore
from agentpager.engine.utf8 import decode_chunks

if TYPE_CHECKING:
    from agentpager.engine.patterns import Matcher

SEARCH_LINE_LIMIT = 32 << 20
"""Lines up to this many bytes are searched whole; longer ones a block at a time."""

Reopener = Callable[[], int]
"""Opens the file as it is now and returns a descriptor the caller closes."""


def path_opener(path: str) -> Reopener:
    """An opener of a file named by a path that is not a workspace's (a transcript, a cache entry).

    It does not block on a FIFO; TextFile refuses anything that is not a regular file.
    """
    return functools.partial(os.open, path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))


def open_regular(path: str) -> BinaryIO:
    """``open(path, "rb")`` for a file named by a path that is not a workspace's (a session, a file
    beside it, a cache entry): never blocks on a FIFO (opened without waiting for a writer), and
    refuses what is not a regular file (OSError EINVAL, ``not a regular file``) before reading."""
    fd = regular_descriptor(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def regular_descriptor(path: str) -> int:
    """``open_regular``'s descriptor, without a file object (for ``os.pread``: a session's ends are
    read so, 20,000 of them at a listing)."""
    fd = path_opener(path)()
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def path_of(fd: int) -> str:
    """A name that opens the file ``fd`` is open on, whatever becomes of its own name: for libraries
    that take a path. On Linux it is opened afresh, at its start; elsewhere ``/dev/fd`` shares the
    descriptor's offset (which only ``pread`` is used with, so it stays at 0)."""
    return f"{_descriptor_directory()}/{fd}"


@functools.cache
def _descriptor_directory() -> str:
    return "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"


@dataclass
class SharedIndex:
    """A file's LineIndex, shared by the TextFiles that read the file, and the copy of it saved in the
    cache dir (``saved``, under ``key``: the file's real path) for other processes."""

    index: LineIndex
    saved: IndexStore | None = None
    key: str = ""
    restore: bool = True
    """Start from the saved copy: only on the first open (a saved index found wrong is not reused)."""
    saved_version: tuple[Stamp, int] | None = None
    """The version of the file and the index generation last saved or restored."""


class TextFile:
    """A file whose bytes after ``base`` (a byte-order mark) are UTF-8 text.

    ``opener`` gives a descriptor of the file each time it is read: a copy of one a tool call
    opened, or the file opened again beneath the workspace root for a viewer that follows it. The
    index (``shared``) survives between reads while the file is unchanged, is extended when the file
    grows and rebuilt when it is replaced or truncated; a big file's complete index is also kept in
    the cache dir for other processes, and a process starts from the one kept (see SharedIndex).
    """

    def __init__(self, opener: Reopener, shared: SharedIndex | None = None) -> None:
        self._opener = opener
        self._shared = shared or SharedIndex(LineIndex())
        self._index = self._shared.index

    @property
    def indexed(self) -> tuple[int, int]:
        """Bytes indexed so far, of how many (both after the base)."""
        return self._index.scanned - self._index.base, self._index.size - self._index.base

    @contextmanager
    def open(self) -> Iterator[TextReader]:
        """A reader over the file as it is now. Use what it returns before the block ends."""
        fd = self._opener()
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise FileChanged("the file is no longer a regular file")
            shared = self._shared
            with self._index.lock:
                if shared.saved is not None and shared.restore and st.st_size >= SAVED_MIN_BYTES:
                    shared.restore = False
                    found = shared.saved.load(shared.key)
                    if found is not None and self._index.restore(fd, found):
                        shared.saved_version = found.stamp, self._index.generation
                self._index.sync(fd, Stamp.of(st))
                generation = self._index.generation
            yield TextReader(fd, self._index, generation)
            self._save()
        finally:
            os.close(fd)

    def _save(self) -> None:
        """Keep a complete index of a big file that was not kept yet at this version."""
        shared = self._shared
        if shared.saved is None or self._index.size < SAVED_MIN_BYTES:
            return
        found = self._index.checkpoints()
        if found is not None and (found.stamp, self._index.generation) != shared.saved_version:
            shared.saved.save(shared.key, found)
            shared.saved_version = found.stamp, self._index.generation


class TextReader:
    """One consistent view of a TextFile: every answer describes the same bytes.

    Another reader of the same file (a viewer following it, say) may extend the shared index: that
    only adds lines after these. If it starts the index over because the file was replaced or
    truncated, this reader's answers raise FileChanged rather than mix two versions.
    """

    def __init__(self, fd: int, index: LineIndex, generation: int) -> None:
        self._fd = fd
        self._index = index
        self._generation = generation

    def _check(self) -> None:
        if self._index.generation != self._generation:
            raise FileChanged("the file was replaced or truncated during the read")

    @property
    def size(self) -> int:
        """The file's size in bytes, as this reader sees it."""
        return self._index.size

    def ends_with_newline(self) -> bool:
        """Whether the last line ends with a newline (False for an empty file)."""
        total = self.line_count()
        with self._index.lock:
            self._check()
            return total > 0 and self._index.newline_count == total

    @property
    def generation(self) -> int:
        """Which version of the file this reader reads: another reader of the same TextFile reads
        the same bytes while it has the same generation."""
        return self._generation

    def read_at(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes of the file at byte ``offset`` (from its very start, a BOM included)."""
        return os.pread(self._fd, length, offset)

    def read_exact(self, offset: int, length: int) -> bytes:
        """``length`` bytes at byte ``offset``; FileChanged when the file no longer holds them."""
        return read_exact(self._fd, length, offset)

    def byte_chunks(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes ``[start, end)`` of the file (default: to its end), a block at a time."""
        return iter_bytes(self._fd, start, self._index.size if end is None else end)

    def newline_count(self) -> int:
        """Newlines in the whole file (scanning what is not yet indexed)."""
        self.build_index()
        with self._index.lock:
            self._check()
            return self._index.newline_count

    def line_offset(self, line: int) -> int:
        """Byte offset where line ``line`` (1-based) starts; the size when the file has fewer lines.

        Only as far as that line is indexed: a block first (the first lines need no more), then as many
        blocks at once as the scan threads count.
        """
        index = self._index
        if line <= 1:
            return 0
        while index.newline_count < line - 1 and not index.complete:
            step = min(2 * lineindex.SCAN_THREADS * lineindex.BLOCK_SIZE, max(lineindex.BLOCK_SIZE, index.scanned))
            index.scan(self._fd, until=index.scanned + step, generation=self._generation)
        with index.lock:
            self._check()
            return index.line_start(self._fd, line) if index.newline_count >= line - 1 else index.size

    def decoded(self) -> Iterator[str]:
        """The whole text, decoded a block at a time (invalid bytes become U+FFFD)."""
        return decode_chunks(iter_bytes(self._fd, self._index.base, self._index.size))

    def build_index(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self._index.scan(self._fd, progress=progress, cancel=cancel, generation=self._generation)

    def line_count(self) -> int:
        """Lines in the whole file (scanning what is not yet indexed)."""
        self.build_index()
        with self._index.lock:
            self._check()
            return self._index.line_count(self._fd)

    def lines_text(self, first: int, last: int) -> Text:
        """Lines ``first..last`` (1-based, inclusive, existing) joined by ``\\n``."""
        with self._index.lock:
            self._check()
            start = self._index.line_start(self._fd, first)
            end = self._index.line_end(self._fd, last)
        return LazyText.of(lambda: iter_text(self._fd, start, end, join_lines=True), end - start)

    def available_lines(self) -> int:
        """Lines that can be read now: all of them once indexed, else those already scanned whole."""
        with self._index.lock:
            self._check()
            return self._index.line_count(self._fd) if self._index.complete else self._index.newline_count

    def line_prefixes(self, first: int, last: int, limit: int) -> Iterator[tuple[str, bool]]:
        """Each of lines ``first..last``: its first ``limit`` characters, and whether it is longer.

        Only as much of the file is indexed as these lines need; they are read a block at a time and
        what a line holds past a block is skipped, so memory holds one block, whatever the range.
        Use it before the reader's block ends.
        """
        # A character takes at most four bytes: this many bytes always hold ``limit`` of them.
        prefix_bytes = 4 * limit + 4
        read_size = max(lineindex.BLOCK_SIZE, 2 * prefix_bytes)
        self._index.scan_to_line(self._fd, last, self._generation)
        with self._index.lock:
            self._check()
            position = self._index.line_start(self._fd, first)
            end = self._index.line_end(self._fd, last)
        line = first
        while line <= last:
            data = read_exact(self._fd, min(read_size, end - position), position)
            at_end = position + len(data) >= end
            if not at_end:
                newline = data.rfind(b"\n")
                if newline < 0:  # a line longer than a read: its prefix, then on to the next line
                    yield data[:prefix_bytes].decode("utf-8", "replace")[:limit], True
                    line += 1
                    if line <= last:
                        with self._index.lock:
                            self._check()
                            position = self._index.line_start(self._fd, line)
                    continue
                data = data[: newline + 1]
            position += len(data)
            # Whole lines decode as the whole file does: a newline always starts a character afresh.
            text = data.decode("utf-8", "replace").replace("\r\n", "\n")
            texts = (text if at_end else text[:-1]).split("\n")  # the range's end is the last line's
            line += len(texts)
            yield from [(text[:limit], len(text) > limit) for text in texts]

    def sample(self, start: int, length: int) -> str:
        """About ``length`` bytes of the file's text from byte ``start``, for an estimate (a character
        the end cuts in two becomes U+FFFD)."""
        return "".join(iter_text(self._fd, start, min(start + length, self._index.size), join_lines=False))

    def line_span(self, first: int, last: int) -> tuple[int, int]:
        """Byte offsets of lines ``first..last`` in the file, the last line's break included."""
        self._index.scan_to_line(self._fd, last + 1, self._generation)
        with self._index.lock:
            self._check()
            start = self._index.line_start(self._fd, first)
            end = self._index.line_start(self._fd, last + 1) if last <= self._index.newline_count else self._index.size
        return start, end

    def char_offset(self, line: int) -> int:
        """Characters of the decoded file before line ``line`` begins."""
        self.char_count()
        with self._index.lock:
            self._check()
            return self._index.char_offset_at(self._fd, self._index.line_start(self._fd, line))

    def line_at_byte(self, position: int) -> int:
        """The line (1-based) that byte ``position`` of the file is in."""
        self.build_index()
        with self._index.lock:
            self._check()
            return self._index.newlines_before(self._fd, max(position, self._index.base)) + 1

    def line_at_char(self, offset: int) -> int:
        """The line (1-based) that character ``offset`` of the decoded file is in."""
        self.char_count()
        with self._index.lock:
            self._check()
            start, start_chars = self._index.char_checkpoint(offset)
            newlines = self._index.newlines_before(self._fd, start)
        # The checkpoint is at most a block before the offset: decode that far and count.
        skip = offset - start_chars
        for text in decode_chunks(iter_bytes(self._fd, start, self._index.size)):
            newlines += text.count("\n", 0, skip)
            skip -= len(text)
            if skip <= 0:
                break
        return newlines + 1

    def position(self, offset: int, unit: Literal["char", "byte"]) -> tuple[int, int]:
        """Where character (or byte) ``offset`` of the file is: its line, and the characters of that
        line before it. A byte offset must be on a character boundary."""
        if unit == "char":
            line = self.line_at_char(offset)
            return line, offset - self.char_offset(line)
        line = min(self.line_at_byte(offset), max(self.line_count(), 1))
        self.char_count()
        with self._index.lock:
            self._check()
            start = self._index.line_start(self._fd, line)
            return line, self._index.char_offset_at(self._fd, offset) - self._index.char_offset_at(self._fd, start)

    def search(
        self,
        pattern: Matcher,
        cancel: threading.Event | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Iterator[int]:
        """Numbers of the lines where ``pattern`` matches, in order, reading a block at a time.

        Compile the pattern with ``re.MULTILINE`` for ``^`` and ``$`` to match at line ends. A line
        longer than SEARCH_LINE_LIMIT is searched a block at a time, so a match across two pieces
        is missed there.
        """
        total = self.line_count()
        line, position = 1, self._index.base
        end = self._index.size
        while line <= total:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            data = read_exact(self._fd, min(lineindex.BLOCK_SIZE, end - position), position)
            if position + len(data) == end:  # the rest of the file: its last line ends at the end
                cut = len(data) - 1 if data.endswith(b"\n") else len(data)
            else:
                cut = data.rfind(b"\n")
            if cut < 0:
                if self._line_matches(pattern, line, cancel):
                    yield line
                line += 1
                position = self._index.line_start(self._fd, line) if line <= total else end
                continue
            text = data[:cut].replace(b"\r\n", b"\n").decode("utf-8", "replace")
            if text.endswith("\r") and cut < len(data):
                text = text[:-1]  # the CR of the CRLF that ends this chunk
            counted, counted_lines, last_found = 0, line, 0
            for start in pattern.starts(text, cancel):
                counted_lines += text.count("\n", counted, start)
                counted = start
                if counted_lines != last_found:
                    last_found = counted_lines
                    yield counted_lines
            line += text.count("\n") + 1
            position += cut + 1
            if progress is not None:
                progress(position, end)

    def _line_matches(self, pattern: Matcher, line: int, cancel: threading.Event | None) -> bool:
        start, end = self._index.line_start(self._fd, line), self._index.line_end(self._fd, line)
        if end - start <= SEARCH_LINE_LIMIT:
            return pattern.search(str(self.lines_text(line, line)), cancel)
        return any(pattern.search(text, cancel) for text in decode_chunks(iter_bytes(self._fd, start, end)))

    def line_spans(self, first: int = 1) -> Iterator[tuple[int, int, int, bool]]:
        """``(number, start, end, ended)``: the byte offsets of each line's text from line ``first``
        on and whether a newline ends it, indexing the file as it goes (see ``LineIndex.line_spans``)."""
        return self._index.line_spans(self._fd, first, self._generation)

    def iter_lines(self, first: int = 1, batch_bytes: int = 1 << 20) -> Iterator[tuple[int, str]]:
        """Numbered lines from ``first`` to the end, read about ``batch_bytes`` at a time.

        Memory holds one batch, or one line when a line is longer than a batch.
        """
        total = self.line_count()
        number = first
        while number <= total:
            start, _ = self.line_span(number, number)
            last = min(total, max(number, self.line_at_byte(start + batch_bytes) - 1))
            for offset, line in enumerate(str(self.lines_text(number, last)).split("\n")):
                yield number + offset, line
            number = last + 1

    def char_count(self) -> int:
        """Characters in the whole decoded file."""
        self._index.want_chars()
        self.build_index()
        with self._index.lock:
            self._check()
            self._index.ensure_chars(self._fd)
            return self._index.char_count()

    def chars_text(self, offset: int, length: int) -> Text:
        """``length`` characters from character ``offset`` (both within the file)."""
        self.char_count()
        with self._index.lock:
            self._check()
            start, start_chars = self._index.char_checkpoint(offset)
            end = self._index.size
        skip = offset - start_chars

        def chunks() -> Iterator[str]:
            to_skip, wanted = skip, length
            for text in decode_chunks(iter_bytes(self._fd, start, end)):
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
