"""Python's ``re`` in a child process, for the patterns RE2 cannot run (see ``patterns``).

Run as ``python -I -S regex_child.py MEMORY_BYTES``: it imports only the standard library. The
parent kills it when an answer takes too long, which is how a match that backtracks for ever is
stopped without ever holding the parent's GIL. Should the parent die first, the child notices
within a second (``re`` runs signal handlers while it matches) and exits. Messages on stdin and stdout, integers little-endian:

- first the pattern: flags (u32), then the pattern as text; the answer is ``K``, or ``E`` and the
  text of ``re.error`` when the pattern is invalid;
- ``A`` n, then n texts: one byte per text, 1 when ``search`` finds a match in it;
- ``S`` and one text: n (u32), then the start (u64) of each match ``finditer`` finds;
- ``L`` and a line in pieces, each its length (u32) and raw bytes, a length of 0 ending it: one
  byte, 1 when ``search`` finds a match in the line decoded with ``surrogateescape``.

A text is its length (u32) and its UTF-8 bytes, lone surrogates included (``surrogatepass``).
"""

from __future__ import annotations

import os
import re
import resource
import signal
import struct
import sys
from collections.abc import Callable


def _text(read: Callable[[int], bytes]) -> str:
    (length,) = struct.unpack("<I", read(4))
    return read(length).decode("utf-8", "surrogatepass")


def main(argv: list[str]) -> int:
    memory = int(argv[0])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    parent = os.getppid()

    def exit_if_orphaned(signum: int, frame: object) -> None:
        if os.getppid() != parent:
            os._exit(1)

    signal.signal(signal.SIGALRM, exit_if_orphaned)
    signal.setitimer(signal.ITIMER_REAL, 1.0, 1.0)
    read, out = sys.stdin.buffer.read, sys.stdout.buffer
    (flags,) = struct.unpack("<I", read(4))
    pattern = _text(read)
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, RecursionError, OverflowError) as error:
        message = str(error).encode("utf-8", "surrogatepass")
        out.write(b"E" + struct.pack("<I", len(message)) + message)
        out.flush()
        return 0
    out.write(b"K")
    out.flush()
    while True:
        operation = read(1)
        if operation == b"A":
            (count,) = struct.unpack("<I", read(4))
            texts = [_text(read) for _ in range(count)]
            out.write(bytes(compiled.search(text) is not None for text in texts))
        elif operation == b"L":
            pieces = []
            while length := struct.unpack("<I", read(4))[0]:
                pieces.append(read(length))
            line = b"".join(pieces).decode("utf-8", "surrogateescape")
            del pieces
            out.write(bytes([compiled.search(line) is not None]))
        elif operation == b"S":
            starts = [match.start() for match in compiled.finditer(_text(read))]
            out.write(struct.pack(f"<I{len(starts)}Q", len(starts), *starts))
        else:
            return 0
        out.flush()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
