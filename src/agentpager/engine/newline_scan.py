"""Counting and finding the newlines in a buffer just read.

The C module ``_newlines``, built with the package, does both with the GIL released, so the scan
threads count blocks at once and a cold ``agentpager call`` never imports numpy (0.07-0.1 s of it).
Where no C compiler built it, numpy and bytes methods do the same work.
"""

from __future__ import annotations

import functools
import mmap
import os
import sys
from array import array
from collections.abc import Sequence
from typing import Any

try:
    from agentpager.engine import _newlines as _native
except ImportError:  # the package was built without a C compiler
    _native = None  # type: ignore[assignment]

NUMPY_MIN_BYTES = 1 << 16
"""Without the C module, smaller buffers are counted with bytes methods: importing numpy (55 ms)
would cost more. Nor does finding the lines of one block import it: numpy is used there once a scan
has loaded it."""
SPARSE_NEWLINES = 64
"""Without the C module, up to this many newlines in a buffer are found with ``find``; more, with numpy."""
_NEWLINE = 10
Data = mmap.mmap | bytearray | bytes


@functools.cache
def numpy_module() -> Any:
    # OpenBLAS would start a thread per core while numpy loads; nothing here multiplies matrices.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy

    return numpy


def native() -> bool:
    """Whether the C module counts (the benchmark says which did)."""
    return _native is not None


def count(data: Data, end: int) -> int:
    """Newlines among the first ``end`` bytes of ``data``."""
    if _native is not None:
        return _native.count(data, end)
    if end < NUMPY_MIN_BYTES:
        return data[:end].count(b"\n")
    np = numpy_module()
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8, count=end) == _NEWLINE))


def offsets(data: Data, end: int, base: int, load_numpy: bool) -> Sequence[int]:
    """``base`` plus the offset of each newline among the first ``end`` bytes of ``data``.

    Without the C module they are found with ``find`` (memchr) while there are few of them, as in a
    log of long lines; a buffer with more than SPARSE_NEWLINES (and past NUMPY_MIN_BYTES) is left to
    numpy, unless numpy is not loaded yet and ``load_numpy`` is false.
    """
    if _native is not None:
        found = array("q")
        found.frombytes(_native.offsets(data, end, base))
        return found
    numpy_allowed = load_numpy or "numpy" in sys.modules
    positions: list[int] = []
    offset = data.find(b"\n", 0, end)
    while offset >= 0:
        if len(positions) >= SPARSE_NEWLINES and end >= NUMPY_MIN_BYTES and numpy_allowed:
            np = numpy_module()
            return np.flatnonzero(np.frombuffer(data, dtype=np.uint8, count=end) == _NEWLINE) + base
        positions.append(base + offset)
        offset = data.find(b"\n", offset + 1, end)
    return positions


def joined(pieces: list[Sequence[int]]) -> Sequence[int]:
    """The offsets of several buffers (each from ``offsets``) as one sequence."""
    if len(pieces) == 1:
        return pieces[0]
    if all(isinstance(piece, (list, array)) for piece in pieces):
        whole = array("q")
        for piece in pieces:
            whole.extend(piece)
        return whole
    np = numpy_module()
    return np.concatenate([np.asarray(piece, dtype=np.int64) for piece in pieces])
