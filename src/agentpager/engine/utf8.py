"""UTF-8 facts the index, the byte-range tool and every output share.

Python's decoder (``errors="replace"``) restarts at every byte that cannot continue the sequence in
progress. Cutting the bytes at such a restart point and decoding the pieces separately gives exactly
the text of decoding the whole, which is what lets a window be decoded on its own.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator

_SURROGATE = re.compile("[\ud800-\udfff]")


def is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def restart_point(data: bytes, pos: int) -> int:
    """The first offset >= ``pos`` in ``data`` where decoding starts afresh.

    That is a byte that is not a continuation byte, or one preceded by three continuation bytes
    (no UTF-8 character has more than three). Found within four bytes; ``len(data)`` at the latest.
    """
    while pos < len(data):
        byte = data[pos]
        if not is_continuation(byte):
            return pos
        if pos >= 3 and all(is_continuation(data[pos - k]) for k in (1, 2, 3)):
            return pos
        pos += 1
    return len(data)


def decode_chunks(chunks: Iterable[bytes]) -> Iterator[str]:
    """Decode a stream of byte chunks as one UTF-8 text with ``errors="replace"``."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for chunk in chunks:
        text = decoder.decode(chunk)
        if text:
            yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


def decoded_length(data: bytes | memoryview) -> int:
    """Characters in ``data`` decoded with replacement (``data`` must start at a restart point)."""
    return len(codecs.utf_8_decode(data, "replace", True)[0])


def printable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD, so that it encodes as UTF-8.

    Surrogates come from file names that are not UTF-8 (Python decodes each such byte as one) and
    from JSON arguments (``"\\udcff"``). One for one, so lengths measured before stay true.
    """
    if text.isascii():  # told by CPython without reading the text
        return text
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
