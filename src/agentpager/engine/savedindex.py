"""Line indexes kept in the cache dir, so a new process answers for a big file without scanning it.

One entry per file (``indexes/{key of its real path}.idx``), replaced by the index of its newest
version. It is never trusted as it is: LineIndex.restore checks that the file still holds the
bytes it describes, and LineIndex.sync then keeps it (same device, inode, size, mtime and ctime),
extends it (the file grew and its old bytes are unchanged) or drops it.

Format (little-endian): the magic, the CRC-32 of the rest (uint32), then ``dev ino size mtime_ns
ctime_ns base`` and the checkpoint count n (int64 each), a flag for character counts and the
fingerprint's length, the fingerprint, then n int64 byte offsets, n int64 newline counts and, if
flagged, n int64 character counts.
"""

from __future__ import annotations

import struct
import zlib
from array import array
from pathlib import Path

from agentpager.engine.cache import CacheDir, file_key
from agentpager.engine.lineindex import Checkpoints, Stamp

MAGIC = b"agentpager-index-1\n"
_CRC = struct.Struct("<I")
SAVED_MIN_BYTES = 16 << 20
"""Smaller files are scanned again: that takes a few milliseconds."""
_HEADER = struct.Struct("<7q2q")


class IndexStore:
    """Where the indexes of a cache dir are saved and loaded."""

    def __init__(self, cache: CacheDir) -> None:
        self.cache = cache

    def _path(self, real_path: str) -> Path:
        return self.cache.root / "indexes" / f"{file_key(real_path)}.idx"

    def load(self, real_path: str) -> Checkpoints | None:
        """The checkpoints saved for the file, if an entry can be read (not yet checked against it)."""
        path = self._path(real_path)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if not self.cache.lookup(path):
            return None
        try:
            return _decoded(data)
        except (ValueError, struct.error, IndexError):
            return None

    def save(self, real_path: str, checkpoints: Checkpoints) -> None:
        try:
            self.cache.write(self._path(real_path), [_encoded(checkpoints)])
        except OSError:
            pass  # a cache that cannot be written only costs the next process a scan


def _encoded(found: Checkpoints) -> bytes:
    stamp = found.stamp
    count = len(found.starts)
    header = _HEADER.pack(
        stamp.dev, stamp.ino, stamp.size, stamp.mtime_ns, stamp.ctime_ns, found.base, count,
        found.chars is not None, len(found.fingerprint),
    )  # fmt: skip
    arrays = [found.starts, found.newlines] + ([found.chars] if found.chars is not None else [])
    body = header + found.fingerprint + b"".join(array("q", values).tobytes() for values in arrays)
    return MAGIC + _CRC.pack(zlib.crc32(body)) + body


def _decoded(data: bytes) -> Checkpoints:
    if not data.startswith(MAGIC):
        raise ValueError("not an index")
    (crc,) = _CRC.unpack_from(data, len(MAGIC))
    offset = len(MAGIC) + _CRC.size
    if zlib.crc32(memoryview(data)[offset:]) != crc:
        raise ValueError("damaged")
    dev, ino, size, mtime_ns, ctime_ns, base, count, has_chars, fingerprint_length = _HEADER.unpack_from(data, offset)
    offset += _HEADER.size
    fingerprint = data[offset : offset + fingerprint_length]
    offset += fingerprint_length
    arrays = []
    for _ in range(3 if has_chars else 2):
        values = array("q")
        values.frombytes(data[offset : offset + 8 * count])
        if len(values) != count:
            raise ValueError("truncated")
        arrays.append(values.tolist())
        offset += 8 * count
    if offset != len(data):
        raise ValueError("trailing bytes")
    chars = arrays[2] if has_chars else None
    return Checkpoints(Stamp(dev, ino, size, mtime_ns, ctime_ns), base, arrays[0], arrays[1], chars, fingerprint)
