"""From an opened file to what the tools read: UTF-8 text, a refusal for binary, or a failed conversion.

Every kind of text ends up as a UTF-8 file read through one TextFile: plain UTF-8 files directly
(after a BOM), UTF-16/32 text re-encoded once into the cache, documents converted once into it. The
file is classified, converted and re-encoded from the descriptor its caller opened, never by name.
"""

from __future__ import annotations

import codecs
import os
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentpager.engine import cache
from agentpager.engine.classify import DOCUMENT_MIMES, HEAD_SIZE, Classification, classify
from agentpager.engine.documents import ConversionError, convert_document
from agentpager.engine.lineindex import Cancelled, LineIndex, Stamp, iter_bytes
from agentpager.engine.textfile import Reopener, TextFile, path_of, path_opener


class Opened(Protocol):
    """A file its caller opened (and closes)."""

    fd: int
    st: os.stat_result
    real: str
    """Its real path, which names it in the caches."""
    display: str
    """Its display path: a zip's extension there decides whether it is a document."""


@dataclass(frozen=True)
class TextContent:
    file: TextFile
    classification: Classification


@dataclass(frozen=True)
class BinaryContent:
    mime: str


@dataclass(frozen=True)
class UnconvertibleContent:
    reason: str
    mime: str


Content = TextContent | BinaryContent | UnconvertibleContent


class ContentStore:
    """Classifies files and keeps their indexes between calls."""

    def __init__(self, cache_dir: Path | None = None, capacity: int = 64) -> None:
        self.cache_dir = cache_dir or cache.cache_root()
        self._indexes: OrderedDict[tuple[str, int], LineIndex] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def inspect(self, opened: Opened) -> Classification:
        """What the file holds (binary, document, or text and its encoding), decided from its head."""
        return classify(os.pread(opened.fd, HEAD_SIZE, 0), opened.fd, opened.display)

    def content(self, opened: Opened, reopen: Reopener, cancel: threading.Event | None = None) -> Content:
        """What a text tool reads from the file (converting a document on first use).

        ``reopen`` gives each reader of a plain text file its descriptor. With ``cancel``, a
        conversion runs in a child process that setting ``cancel`` kills (raising Cancelled): it
        neither holds the GIL nor writes to the terminal.
        """
        found = self.inspect(opened)
        stamp = Stamp.of(opened.st)
        if found.kind == "binary":
            return BinaryContent(found.mime)
        if found.kind == "document":
            try:
                if cancel is not None:
                    self._convert_in_child(opened, found, stamp, cancel)
                path = self.convert(opened.fd, opened.real, found, stamp)
            except ConversionError as error:
                return UnconvertibleContent(error.reason, found.mime)
            return TextContent(self._derived_file(path), found)
        if found.encoding != "utf-8":
            return TextContent(self._derived_file(self._reencode(opened, found, stamp)), found)
        return TextContent(TextFile(reopen, self._index(opened.real, found.bom_length)), found)

    def utf8_file(self, real_path: str, reopen: Reopener, base: int = 0) -> TextFile:
        """The file's bytes after ``base`` as UTF-8 text, as they are: not classified, no byte-order mark
        skipped unless ``base`` says so (for agents that read every file as UTF-8). ``reopen`` as for
        ``content``."""
        return TextFile(reopen, self._index(real_path, base))

    def _derived_file(self, path: Path) -> TextFile:
        """A converted or re-encoded text in the cache (which is ours: it is opened by its name)."""
        return TextFile(path_opener(str(path)), self._index(str(path), 0))

    def _index(self, key: str, base: int) -> LineIndex:
        with self._lock:
            found = self._indexes.get((key, base))
            if found is None:
                found = self._indexes[key, base] = LineIndex(base)
                if len(self._indexes) > self._capacity:
                    self._indexes.popitem(last=False)
            else:
                self._indexes.move_to_end((key, base))
            return found

    def _conversion_entries(self, real_path: str, stamp: Stamp) -> tuple[Path, Path]:
        """Where a document's Markdown, or the reason it could not be converted, is cached."""
        markdown = cache.entry_path(self.cache_dir, "documents", real_path, stamp, ".md")
        return markdown, markdown.with_suffix(".failed")

    def convert(self, fd: int, real_path: str, found: Classification, stamp: Stamp) -> Path:
        """The cached Markdown of the document open as ``fd``, converted now if need be; ConversionError if not."""
        markdown, failure = self._conversion_entries(real_path, stamp)
        if markdown.exists():
            return markdown
        if failure.exists():
            raise ConversionError(failure.read_text(encoding="utf-8"))
        try:
            text = convert_document(path_of(fd), found.document_type)
        except ConversionError as error:
            cache.write_atomically(failure, [error.reason.encode("utf-8")])
            raise
        cache.write_atomically(markdown, [text.encode("utf-8", "replace")])
        return markdown

    def _convert_in_child(self, opened: Opened, found: Classification, stamp: Stamp, cancel: threading.Event) -> None:
        if any(entry.exists() for entry in self._conversion_entries(opened.real, stamp)):
            return
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentpager.engine.content",
                str(opened.fd),
                opened.real,
                found.document_type,
                str(self.cache_dir),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(opened.fd,),
        )
        while True:
            try:
                child.wait(timeout=0.05)
                return
            except subprocess.TimeoutExpired:
                if cancel.is_set():
                    child.kill()
                    child.wait()
                    raise Cancelled() from None

    def _reencode(self, opened: Opened, found: Classification, stamp: Stamp) -> Path:
        target = cache.entry_path(self.cache_dir, "reencoded", opened.real, stamp, ".txt")
        if not target.exists():
            cache.write_atomically(target, _reencoded(opened.fd, found, stamp.size))
        return target


def _reencoded(fd: int, found: Classification, size: int) -> Iterator[bytes]:
    """The text of a UTF-16/32 file, after its BOM, as UTF-8 (invalid units become U+FFFD)."""
    decoder = codecs.getincrementaldecoder(found.encoding)("replace")
    for chunk in iter_bytes(fd, found.bom_length, size):
        yield decoder.decode(chunk).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")


def _convert_main(argv: list[str]) -> int:
    """``python -m agentpager.engine.content FD REAL_PATH TYPE CACHE_DIR``: convert one document into the cache."""
    fd, real_path, document_type, cache_dir = int(argv[0]), *argv[1:]
    found = Classification("document", mime=DOCUMENT_MIMES[document_type], document_type=document_type)
    try:
        ContentStore(Path(cache_dir)).convert(fd, real_path, found, Stamp.of(os.fstat(fd)))
    except ConversionError:
        pass  # the failure is cached for the parent to read
    return 0


if __name__ == "__main__":
    raise SystemExit(_convert_main(sys.argv[1:]))
