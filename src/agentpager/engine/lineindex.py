"""A sparse index of line starts (and, on demand, character counts) over a UTF-8 file.

One checkpoint per block of about 1 MiB records how many newlines (and characters) come before it,
so any line or character offset is found by scanning a single block. Blocks are read with
``os.pread`` rather than through ``mmap``: a file truncated under a mapping kills the process with
SIGBUS, and a viewer of growing logs meets truncated files. A block's newlines are counted (see
``newline_scan``) faster than ``wc -l`` and with the GIL released, so several blocks are counted at
once and a UI thread keeps running.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import mmap
import os
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from agentpager.engine import newline_scan
from agentpager.engine.utf8 import decode_chunks, decoded_length, restart_point

BLOCK_SIZE = 1 << 20
READ_SIZE = 1 << 18
"""Newlines are counted, and found, this many bytes at a time: a buffer that stays in the CPU's
cache made reading and counting 1 GB twice as fast as with 1 MiB reads. Listing a 463 MB session's
calls took 0.100 s in such pieces, 0.109 s in 64 KiB ones (best of 8; ``wc -l``: 0.054 s)."""
BLOCKS_PER_SCAN = 16
"""Blocks counted per scan thread between two looks at ``cancel`` and ``progress``."""
_NEWLINE = 10
T = TypeVar("T")
_CACHED_BLOCKS = 8


def aligned_buffer(size: int) -> mmap.mmap | bytearray:
    """A writable buffer of ``size`` bytes starting on a page: an anonymous mapping (never a file's:
    see the module's docstring). Read into a ``bytearray`` that malloc placed on its heap instead,
    a 463 MB session's calls were listed in 0.25 s, not 0.10 s, and its newlines counted in 0.31 s,
    not 0.12-0.17 s (``wc -l``: 0.06-0.08 s). Private: Python maps it shared by default, and the
    worker processes forked to read sessions then read their files into one buffer (a first
    ``--full`` left about 50 of 20,000 sessions with another file's lines)."""
    if not size:
        return bytearray()
    private = getattr(mmap, "MAP_PRIVATE", None)
    if private is None:  # Windows: no fork
        return mmap.mmap(-1, size)
    return mmap.mmap(-1, size, flags=private | mmap.MAP_ANONYMOUS)


class BlockBuffer:
    """A buffer reused for every block a thread reads, with the block-level counts.

    Reading each MiB into a fresh ``bytes`` made scanning six times slower than ``wc -l``: glibc
    hands freed blocks back to the system, so every new one page-faults in again. The buffer is a
    page-aligned anonymous mapping (see ``aligned_buffer``).
    """

    def __init__(self) -> None:
        self._data = aligned_buffer(0)

    def read(self, fd: int, length: int, offset: int) -> memoryview:
        """``length`` bytes at ``offset`` (valid until the next read); FileChanged if they are gone."""
        if len(self._data) < length:
            self._data = aligned_buffer(max(length, BLOCK_SIZE + 3))
        view = memoryview(self._data)[:length]
        if os.preadv(fd, [view], offset) != length:
            raise FileChanged(f"the file no longer holds {length} bytes at {offset}")
        return view

    def count_newlines(self, end: int) -> int:
        """Newlines among the first ``end`` bytes read."""
        return newline_scan.count(self._data, end)

    def count_characters(self, end: int) -> int:
        """Characters the first ``end`` bytes read decode to (they must start at a restart point)."""
        if end >= newline_scan.NUMPY_MIN_BYTES:
            np = newline_scan.numpy_module()
            if int(np.frombuffer(self._data, dtype=np.uint8, count=end).max(initial=0)) < 0x80:
                return end
        return decoded_length(memoryview(self._data)[:end])


class _Piece(threading.local):
    """A thread's buffer for finding newlines."""

    def __init__(self) -> None:
        self.data = aligned_buffer(READ_SIZE)


_piece = _Piece()


def newline_offsets(fd: int, start: int, end: int, load_numpy: bool = True) -> Sequence[int]:
    """Offsets from ``start`` of the newlines in the bytes ``[start, end)``; FileChanged when the
    file no longer holds them. ``load_numpy``: see ``newline_scan.offsets``."""
    data = _piece.data
    view = memoryview(data)
    pieces = []
    position = start
    while position < end:
        length = min(len(data), end - position)
        if os.preadv(fd, [view[:length]], position) != length:
            raise FileChanged(f"the file no longer holds {length} bytes at {position}")
        pieces.append(newline_scan.offsets(data, length, position - start, load_numpy))
        position += length
    return newline_scan.joined(pieces) if pieces else []


_thread_buffers = threading.local()
SCAN_THREADS = max(1, min(4, os.cpu_count() or 1))
"""numpy and pread release the GIL, so blocks are counted on this many threads at once."""


def block_buffer() -> BlockBuffer:
    """This thread's BlockBuffer."""
    buffer = getattr(_thread_buffers, "buffer", None)
    if buffer is None:
        buffer = _thread_buffers.buffer = BlockBuffer()
    return buffer


_scan_tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_scan_threads: list[threading.Thread] = []
_scan_threads_lock = threading.Lock()


def _scan_thread() -> None:
    while True:
        _scan_tasks.get()()


def _in_parallel(jobs: list[Callable[[], T]]) -> list[T]:
    """Each job's result, the jobs run at once: the first on this thread, the others on the scan
    threads (started once; a ThreadPoolExecutor would import logging, 15 ms of a cold call)."""
    with _scan_threads_lock:
        while len(_scan_threads) < len(jobs) - 1:
            thread = threading.Thread(target=_scan_thread, name="agentpager-scan", daemon=True)
            thread.start()
            _scan_threads.append(thread)
    outcomes: list[tuple[bool, Any]] = [(False, None)] * len(jobs)
    finished = threading.Semaphore(0)

    def run(number: int) -> None:
        try:
            outcomes[number] = (True, jobs[number]())
        except BaseException as error:
            outcomes[number] = (False, error)
        finally:
            if number:  # a scan thread's job: this thread waits for it
                finished.release()

    for number in range(1, len(jobs)):
        _scan_tasks.put(functools.partial(run, number))
    run(0)
    for _ in range(1, len(jobs)):
        finished.acquire()
    for succeeded, outcome in outcomes:
        if not succeeded:
            raise outcome
    return [outcome for _, outcome in outcomes]


def count_blocks(fd: int, ranges: list[tuple[int, int]], chars: bool, newlines: bool = True) -> list[tuple[int, int]]:
    """(newlines, characters) in each byte range, several ranges at once on the scan threads."""

    def count(byte_range: tuple[int, int]) -> tuple[int, int]:
        start, end = byte_range
        buffer = block_buffer()
        if chars:  # characters are counted from a restart point: the whole block at once
            buffer.read(fd, end - start, start)
            return buffer.count_newlines(end - start) if newlines else 0, buffer.count_characters(end - start)
        found = 0
        for offset in range(start, end, READ_SIZE):
            length = min(READ_SIZE, end - offset)
            buffer.read(fd, length, offset)
            found += buffer.count_newlines(length)
        return found, 0

    def count_run(run: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [count(byte_range) for byte_range in run]

    if len(ranges) < 2 or SCAN_THREADS == 1:
        return count_run(ranges)
    # Each thread counts a run of neighbouring ranges: a task per range cost a third of a 1 GB scan.
    size = -(-len(ranges) // SCAN_THREADS)
    runs = [ranges[first : first + size] for first in range(0, len(ranges), size)]
    return [counts for run in _in_parallel([functools.partial(count_run, run) for run in runs]) for counts in run]


class FileChanged(OSError):
    """The file changed under a read in a way the index cannot absorb; read again."""


class Cancelled(Exception):
    """A scan was stopped by its caller."""


@dataclass(frozen=True)
class Stamp:
    """What identifies one version of a file's bytes (the ctime too: a file rewritten in place with
    the same size and mtime set back still changes it)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class Checkpoints:
    """A complete index of one version of a file: offsets and counts before each checkpoint."""

    stamp: Stamp
    base: int
    starts: list[int]
    newlines: list[int]
    chars: list[int] | None
    fingerprint: bytes
    """The file's first and last 4 KiB before ``stamp.size``."""

    def consistent(self) -> bool:
        """Whether these could describe a complete scan (a damaged save does not)."""
        starts, newlines, chars = self.starts, self.newlines, self.chars
        if not (len(starts) == len(newlines) >= 1 and starts[0] == self.base and newlines[0] == 0):
            return False
        if starts[-1] != max(self.stamp.size, self.base):
            return False
        blocks = zip(itertools.pairwise(starts), itertools.pairwise(newlines), strict=True)
        if not all(end > start and 0 <= count - before <= end - start for (start, end), (before, count) in blocks):
            return False
        return chars is None or (len(chars) == len(starts) and chars[0] == 0 and chars == sorted(chars))


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
        self._reopen_last = False
        """The last block ended at an old end of file: the next scan counts it again, grown."""

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
                self._reopen_last = len(self._starts) > 1
                self.stamp = stamp
            else:
                self._reset(stamp)
            self._fingerprint = self._read_fingerprint(fd, stamp.size)

    def checkpoints(self) -> Checkpoints | None:
        """What a complete scan found, to keep for another process (None before the scan is done)."""
        with self.lock:
            if not self.complete or self.stamp is None:
                return None
            chars = None if self._chars is None else list(self._chars)
            return Checkpoints(
                self.stamp, self.base, list(self._starts), list(self._newlines), chars, self._fingerprint
            )

    def restore(self, fd: int, saved: Checkpoints) -> bool:
        """Start from checkpoints another process saved, if ``fd`` still holds the bytes they describe
        (its first and last 4 KiB before their size); :meth:`sync` then keeps, extends or drops them."""
        with self.lock:
            if self.stamp is not None or saved.base != self.base or not saved.consistent():
                return False
            if saved.fingerprint != self._read_fingerprint(fd, saved.stamp.size):
                return False
            self._reset(saved.stamp)
            self._starts, self._newlines = list(saved.starts), list(saved.newlines)
            self._chars = None if saved.chars is None else list(saved.chars)
            self._fingerprint = saved.fingerprint
            return True

    def _read_fingerprint(self, fd: int, size: int) -> bytes:
        """The first and last 4 KiB before ``size``: unchanged bytes there mean the file grew."""
        head = os.pread(fd, min(4096, size), 0)
        tail = os.pread(fd, min(4096, size), max(0, size - 4096))
        return head + tail

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

        ``progress(scanned, size)`` is called after each few blocks; a set ``cancel`` event stops
        the scan with :class:`Cancelled`, keeping what was scanned. A ``generation`` other than the
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
                    self._scan_blocks(fd, target)
            if progress is not None:
                progress(self.scanned, self.size)

    def scan_to_line(self, fd: int, line: int, generation: int | None = None) -> None:
        """Scan until line ``line`` is whole (or the file ends): the top of a file shows at once."""
        while self.newline_count < line and not self.complete:
            self.scan(fd, until=self.scanned + 1, generation=generation)

    def line_spans(
        self, fd: int, first: int = 1, generation: int | None = None
    ) -> Iterator[tuple[int, int, int, bool]]:
        """``(number, start, end, ended)`` of each line from ``first`` to the end of the file: the
        byte offsets of its text, without its ``\n`` (a ``\r`` before it stays), and whether a
        newline ends it (only the last line's may be missing: it may be still being written).

        Blocks not yet indexed are indexed on the way, each read once (their newline offsets found
        as they are counted), so listing the lines of a file costs about what ``wc -l`` does. A
        ``generation`` other than the index's means the file was replaced: FileChanged.
        """
        self.scan_to_line(fd, first - 1, generation)
        with self.lock:
            if first - 1 > self.newline_count:
                return
            start = self.line_start(fd, first)
            block = bisect.bisect_right(self._starts, start) - 1
        number = first
        while True:
            with self.lock:
                if generation is not None and generation != self.generation:
                    raise FileChanged("the file was replaced while its lines were read")
                if self._reopen_last and block >= len(self._starts) - 2:
                    # The last block grew (maybe while its old end was being read): read it again
                    # from where this left off.
                    block = len(self._starts) - 2
                    self._scan_block_with_newlines(fd)
                elif block == len(self._starts) - 1:
                    if self.scanned >= self.size:
                        break
                    self._scan_block_with_newlines(fd)
                block_start, positions = self._starts[block], self._block_newlines(fd, block)
            for offset in positions[bisect.bisect_left(positions, start - block_start) :]:
                end = block_start + int(offset)
                yield number, start, end, True
                number, start = number + 1, end + 1
            block += 1
        if start < self.size:
            yield number, start, self.size, False

    def _scan_block_with_newlines(self, fd: int) -> None:
        """Index the next block (or the last one again, grown), keeping its newline offsets."""
        reopen = self._reopen_last
        start = self._starts[-2] if reopen else self.scanned
        end = self._block_end(fd, start)
        positions = newline_offsets(fd, start, end)
        chars = count_blocks(fd, [(start, end)], True, newlines=False)[0][1] if self._chars is not None else 0
        if reopen:
            self._reopen_last = False
            self._starts.pop()
            self._newlines.pop()
            if self._chars is not None:
                self._chars.pop()
        self._starts.append(end)
        self._newlines.append(self._newlines[-1] + len(positions))
        if self._chars is not None:
            self._chars.append(self._chars[-1] + chars)
        self._positions[len(self._starts) - 2] = positions
        self._positions.move_to_end(len(self._starts) - 2)
        if len(self._positions) > _CACHED_BLOCKS:
            self._positions.popitem(last=False)

    def _block_end(self, fd: int, start: int) -> int:
        """Where the block starting at ``start`` ends: a restart point about a block on, or the end."""
        nominal = start + BLOCK_SIZE
        if nominal + 3 >= self.size:
            return self.size
        around = read_exact(fd, 6, nominal - 3)
        return nominal - 3 + restart_point(around, 3)

    def _scan_blocks(self, fd: int, target: int) -> None:
        """Scan the next few blocks, counting them on the scan threads at once.

        A reopened last block is counted again and replaced in one step, so a concurrent reader
        only ever sees the index grow: every line it was told of stays where it was.
        """
        reopen = self._reopen_last
        start = self._starts[-2] if reopen else self.scanned
        ranges: list[tuple[int, int]] = []
        while (start < target or not ranges) and len(ranges) < BLOCKS_PER_SCAN * SCAN_THREADS:
            end = self._block_end(fd, start)
            ranges.append((start, end))
            start = end
        counts = count_blocks(fd, ranges, self._chars is not None)
        if reopen:
            self._reopen_last = False
            self._positions.pop(len(self._starts) - 2, None)
            self._starts.pop()
            self._newlines.pop()
            if self._chars is not None:
                self._chars.pop()
        for (_, end), (newlines, chars) in zip(ranges, counts, strict=True):
            self._starts.append(end)
            self._newlines.append(self._newlines[-1] + newlines)
            if self._chars is not None:
                self._chars.append(self._chars[-1] + chars)

    def want_chars(self) -> None:
        """Count characters in the same pass as newlines, if the scan has not begun."""
        with self.lock:
            if self._chars is None and self.scanned == self.base:
                self._chars = [0]

    def ensure_chars(self, fd: int) -> None:
        """Add character counts to every scanned block (the character-offset tools need them)."""
        with self.lock:
            if self._chars is not None:
                return
            counts = count_blocks(fd, list(itertools.pairwise(self._starts)), True, newlines=False)
            chars = [0]
            for _, count in counts:
                chars.append(chars[-1] + count)
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
            positions = newline_offsets(fd, self._starts[block], self._starts[block + 1], load_numpy=False)
            if len(positions) != self._newlines[block + 1] - self._newlines[block]:
                # The bytes are not the ones counted (changed in place, or a saved index that lies).
                self._reset(None)
                raise FileChanged("the file no longer holds the lines its index counted")
            self._positions[block] = positions
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

    def newlines_before(self, fd: int, position: int) -> int:
        """Newlines in the scanned bytes before byte ``position``."""
        with self.lock:
            block = max(0, bisect.bisect_right(self._starts, position) - 1)
            if block == len(self._starts) - 1:
                return self.newline_count
            inside = self._block_newlines(fd, block)
            return self._newlines[block] + bisect.bisect_left(inside, position - self._starts[block])

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

    def char_offset_at(self, fd: int, position: int) -> int:
        """Characters before byte ``position``, which must be a restart point (a line start is)."""
        assert self._chars is not None, "ensure_chars() first"
        block = bisect.bisect_right(self._starts, position) - 1
        start = self._starts[block]
        return self._chars[block] + decoded_length(read_exact(fd, position - start, start))

    def char_checkpoint(self, offset: int) -> tuple[int, int]:
        """The last checkpoint at or before character ``offset``: (byte offset, character offset)."""
        assert self._chars is not None, "ensure_chars() first"
        block = max(0, bisect.bisect_right(self._chars, offset) - 1)
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
