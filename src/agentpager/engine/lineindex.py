"""A sparse index of line starts (and, on demand, character counts) over a UTF-8 file.

One checkpoint per block of about 1 MiB records how many newlines (and characters) come before it,
so any line or character offset is found by scanning a single block. Blocks are read with
``os.pread`` rather than through ``mmap``: a file truncated under a mapping kills the process with
SIGBUS, and a viewer of growing logs meets truncated files. numpy counts a block's newlines at about
``wc -l`` speed, releasing the GIL so a UI thread keeps running.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agentpager.engine.utf8 import decode_chunks, decoded_length, restart_point

BLOCK_SIZE = 1 << 20
NUMPY_MIN_BYTES = 1 << 16
"""Smaller blocks are scanned with bytes methods: importing numpy (55 ms) would cost more."""
_NEWLINE = 10
_CACHED_BLOCKS = 8


@functools.cache
def _numpy() -> Any:
    import numpy

    return numpy


def count_newlines(data: bytes, end: int) -> int:
    """Newlines in ``data[:end]``."""
    if end < NUMPY_MIN_BYTES:
        return data.count(b"\n", 0, end)
    np = _numpy()
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8, count=end) == _NEWLINE))


def newline_offsets(data: bytes) -> Sequence[int]:
    """Offsets of the newlines in ``data``, in order."""
    if len(data) < NUMPY_MIN_BYTES:
        return [match.start() for match in re.finditer(b"\n", data)]
    np = _numpy()
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _NEWLINE)


class FileChanged(Exception):
    """The file changed under a read in a way the index cannot absorb; read again."""


class Cancelled(Exception):
    """A scan was stopped by its caller."""


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of a file's bytes."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_exact(fd: int, length: int, offset: int) -> bytes:
    """``length`` bytes at ``offset``, or FileChanged when the file no longer has them."""
    data = os.pread(fd, length, offset)
    if len(data) != length:
        raise FileChanged(f"expected {length} bytes at {offset}, got {len(data)}")
    return data


class LineIndex:
    """Checkpoints over the bytes ``[base, size)`` of one file.

    ``base`` skips a byte-order mark. Scanning is incremental: a partly built index answers for the
    lines it has covered, which lets a viewer show the top of a huge file while the rest is counted.
    All methods take the file descriptor to read from; the caller keeps the index in step with the
    file through :meth:`sync`.
    """

    def __init__(self, base: int = 0) -> None:
        self.base = base
        self.lock = threading.RLock()
        self.generation = 0
        """Counts the times the index started over: a reader of an older generation is stale."""
        self._reset(None)

    def _reset(self, stamp: Stamp | None) -> None:
        self.generation += 1
        self.stamp = stamp
        self._starts = [self.base]
        self._newlines = [0]
        self._chars: list[int] | None = None
        self._positions: OrderedDict[int, Sequence[int]] = OrderedDict()
        self._fingerprint = b""

    # -- keeping in step with the file ------------------------------------------------------------

    @property
    def size(self) -> int:
        """The number of bytes this index describes (the file's size when it was last synced)."""
        return max(self.stamp.size, self.base) if self.stamp else self.base

    @property
    def scanned(self) -> int:
        return self._starts[-1]

    @property
    def complete(self) -> bool:
        return self.stamp is not None and self.scanned >= self.size

    def sync(self, fd: int, stamp: Stamp) -> None:
        """Bring the index up to ``stamp``: keep it, extend it over appended bytes, or start over."""
        with self.lock:
            if stamp == self.stamp:
                return
            old = self.stamp
            if (
                old is not None
                and (stamp.dev, stamp.ino) == (old.dev, old.ino)
                and stamp.size > old.size
                and self._fingerprint == self._read_fingerprint(fd, old.size)
            ):
                self._drop_last_block()
                self.stamp = stamp
            else:
                self._reset(stamp)
            self._fingerprint = self._read_fingerprint(fd, stamp.size)

    def _read_fingerprint(self, fd: int, size: int) -> bytes:
        """The first and last 4 KiB before ``size``: unchanged bytes there mean the file grew."""
        head = os.pread(fd, min(4096, size), 0)
        tail = os.pread(fd, min(4096, size), max(0, size - 4096))
        return head + tail

    def _drop_last_block(self) -> None:
        """Forget the last block, which ended at the old end of file and may now be longer."""
        if len(self._starts) > 1:
            self._starts.pop()
            self._newlines.pop()
            if self._chars is not None:
                self._chars.pop()
        self._positions.pop(len(self._starts) - 1, None)

    # -- scanning ---------------------------------------------------------------------------------

    def scan(
        self,
        fd: int,
        until: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        cancel: threading.Event | None = None,
        generation: int | None = None,
    ) -> None:
        """Scan blocks until byte ``until`` (default: the end) is covered.

        ``progress(scanned, size)`` is called after each block; a set ``cancel`` event stops the
        scan with :class:`Cancelled`, keeping what was scanned. A ``generation`` other than the
        index's means ``fd`` is no longer the file indexed: FileChanged.
        """
        target = self.size if until is None else min(until, self.size)
        while self.scanned < target:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            with self.lock:
                if generation is not None and generation != self.generation:
                    raise FileChanged("the file was replaced while it was being indexed")
                if self.scanned < target:
                    self._scan_block(fd)
            if progress is not None:
                progress(self.scanned, self.size)

    def _scan_block(self, fd: int) -> None:
        start = self.scanned
        data = read_exact(fd, min(BLOCK_SIZE + 3, self.size - start), start)
        end = len(data) if start + len(data) == self.size else restart_point(data, BLOCK_SIZE)
        self._starts.append(start + end)
        self._newlines.append(self._newlines[-1] + count_newlines(data, end))
        if self._chars is not None:
            self._chars.append(self._chars[-1] + decoded_length(data[:end]))

    def ensure_chars(self, fd: int) -> None:
        """Add character counts to every scanned block (the character-offset tools need them)."""
        with self.lock:
            if self._chars is not None:
                return
            chars = [0]
            for first, last in zip(self._starts, self._starts[1:]):
                chars.append(chars[-1] + decoded_length(read_exact(fd, last - first, first)))
            self._chars = chars

    # -- lines ------------------------------------------------------------------------------------

    @property
    def newline_count(self) -> int:
        return self._newlines[-1]

    def line_count(self, fd: int) -> int:
        """Lines in the scanned bytes: newlines, plus a last line that has no newline."""
        with self.lock:
            if self.scanned == self.base:
                return 0
            last = read_exact(fd, 1, self.scanned - 1)
            return self.newline_count + (last[0] != _NEWLINE)

    def _block_newlines(self, fd: int, block: int) -> Sequence[int]:
        """Offsets of the newlines in ``block``, relative to its start."""
        positions = self._positions.get(block)
        if positions is None:
            first, last = self._starts[block], self._starts[block + 1]
            positions = self._positions[block] = newline_offsets(read_exact(fd, last - first, first))
            if len(self._positions) > _CACHED_BLOCKS:
                self._positions.popitem(last=False)
        else:
            self._positions.move_to_end(block)
        return positions

    def newline_position(self, fd: int, k: int) -> int:
        """Byte offset of the ``k``-th newline (1-based, ``k <= newline_count``)."""
        with self.lock:
            block = bisect.bisect_right(self._newlines, k - 1) - 1
            return self._starts[block] + int(self._block_newlines(fd, block)[k - 1 - self._newlines[block]])

    def line_start(self, fd: int, line: int) -> int:
        """Byte offset where ``line`` (1-based) begins."""
        return self.base if line == 1 else self.newline_position(fd, line - 1) + 1

    def line_end(self, fd: int, line: int) -> int:
        """Byte offset where ``line``'s text ends: before its ``\\n`` or ``\\r\\n``, or at the end."""
        if line > self.newline_count:
            return self.scanned
        end = self.newline_position(fd, line)
        if end > self.base and read_exact(fd, 1, end - 1) == b"\r":
            return end - 1
        return end

    # -- characters -------------------------------------------------------------------------------

    def char_count(self) -> int:
        assert self._chars is not None, "ensure_chars() first"
        return self._chars[-1]

    def char_checkpoint(self, offset: int) -> tuple[int, int]:
        """The last checkpoint at or before character ``offset``: (byte offset, character offset)."""
        assert self._chars is not None, "ensure_chars() first"
        block = max(0, bisect.bisect_right(self._chars, offset) - 1)
        block = min(block, len(self._starts) - 1)
        return self._starts[block], self._chars[block]


def iter_bytes(fd: int, start: int, end: int) -> Iterator[bytes]:
    """The bytes ``[start, end)`` a block at a time; FileChanged when the file no longer holds them."""
    position = start
    while position < end:
        length = min(BLOCK_SIZE, end - position)
        yield read_exact(fd, length, position)
        position += length


def _without_crlf(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Replace each ``\\r\\n`` by ``\\n``, also across chunk boundaries."""
    carry = b""
    for chunk in chunks:
        data = carry + chunk
        carry = b"\r" if data.endswith(b"\r") else b""
        if carry:
            data = data[:-1]
        yield data.replace(b"\r\n", b"\n")
    if carry:
        yield carry


def iter_text(fd: int, start: int, end: int, join_lines: bool) -> Iterator[str]:
    """Decoded text of the bytes ``[start, end)``.

    With ``join_lines`` the range holds whole lines and each line break becomes one ``\\n``: the
    lines joined by ``\\n``, as the line tools show them.
    """
    chunks = iter_bytes(fd, start, end)
    return decode_chunks(_without_crlf(chunks) if join_lines else chunks)
