"""From a real path to what the tools read: UTF-8 text, a refusal for binary, or a failed conversion.

Every kind of text ends up as a UTF-8 file read through one TextFile: plain UTF-8 files directly
(after a BOM), UTF-16/32 text re-encoded once into the cache, documents converted once into it.
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

from agentpager.engine import cache
from agentpager.engine.classify import DOCUMENT_MIMES, HEAD_SIZE, Classification, classify
from agentpager.engine.documents import ConversionError, convert_document
from agentpager.engine.lineindex import Cancelled, Stamp, iter_bytes
from agentpager.engine.textfile import TextFile, open_regular


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


Content = TextContent | BinaryContent | UnconvertibleContent


class ContentStore:
    """Classifies files and keeps their TextFiles, with their indexes, between calls."""

    def __init__(self, cache_dir: Path | None = None, capacity: int = 64) -> None:
        self.cache_dir = cache_dir or cache.cache_root()
        self._files: OrderedDict[tuple[str, int], TextFile] = OrderedDict()
        self._capacity = capacity

    def inspect(self, real_path: str, display_name: str) -> tuple[Classification, Stamp]:
        """Classify the file from its head; also say which version of it was looked at."""
        fd, st = open_regular(real_path)
        try:
            head = os.pread(fd, HEAD_SIZE, 0)
        finally:
            os.close(fd)
        return classify(head, real_path, display_name), Stamp.of(st)

    def content(self, real_path: str, display_name: str, cancel: threading.Event | None = None) -> Content:
        """What a text tool reads from the file (converting a document on first use).

        With ``cancel``, a conversion runs in a child process that setting ``cancel`` kills
        (raising Cancelled): it neither holds the GIL nor writes to the terminal.
        """
        found, stamp = self.inspect(real_path, display_name)
        if found.kind == "binary":
            return BinaryContent(found.mime)
        if found.kind == "document":
            try:
                if cancel is not None:
                    self._convert_in_child(real_path, found, stamp, cancel)
                path = self.convert(real_path, found, stamp)
            except ConversionError as error:
                return UnconvertibleContent(error.reason)
            return TextContent(self._text_file(str(path), 0), found)
        if found.encoding != "utf-8":
            path = self._reencode(real_path, found, stamp)
            return TextContent(self._text_file(str(path), 0), found)
        return TextContent(self._text_file(real_path, found.bom_length), found)

    def utf8_file(self, real_path: str) -> TextFile:
        """The file's bytes as UTF-8 text, as they are: not classified, no byte-order mark skipped
        (for agents that read every file as UTF-8)."""
        return self._text_file(real_path, 0)

    def _text_file(self, path: str, base: int) -> TextFile:
        key = (path, base)
        found = self._files.get(key)
        if found is None:
            found = self._files[key] = TextFile(path, base)
            if len(self._files) > self._capacity:
                self._files.popitem(last=False)
        else:
            self._files.move_to_end(key)
        return found

    def _conversion_entries(self, real_path: str, stamp: Stamp) -> tuple[Path, Path]:
        """Where a document's Markdown, or the reason it could not be converted, is cached."""
        markdown = cache.entry_path(self.cache_dir, "documents", real_path, stamp, ".md")
        return markdown, markdown.with_suffix(".failed")

    def convert(self, real_path: str, found: Classification, stamp: Stamp) -> Path:
        """The cached Markdown of a document, converted now if need be; ConversionError if not."""
        markdown, failure = self._conversion_entries(real_path, stamp)
        if markdown.exists():
            return markdown
        if failure.exists():
            raise ConversionError(failure.read_text(encoding="utf-8"))
        try:
            text = convert_document(real_path, found.document_type)
        except ConversionError as error:
            cache.write_atomically(failure, [error.reason.encode("utf-8")])
            raise
        cache.write_atomically(markdown, [text.encode("utf-8", "replace")])
        return markdown

    def _convert_in_child(self, real_path: str, found: Classification, stamp: Stamp, cancel: threading.Event) -> None:
        if any(entry.exists() for entry in self._conversion_entries(real_path, stamp)):
            return
        child = subprocess.Popen(
            [sys.executable, "-m", "agentpager.engine.content", real_path, found.document_type, str(self.cache_dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
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

    def _reencode(self, real_path: str, found: Classification, stamp: Stamp) -> Path:
        target = cache.entry_path(self.cache_dir, "reencoded", real_path, stamp, ".txt")
        if not target.exists():
            cache.write_atomically(target, _reencoded(real_path, found))
        return target


def _reencoded(path: str, found: Classification) -> Iterator[bytes]:
    """The text of a UTF-16/32 file, after its BOM, as UTF-8 (invalid units become U+FFFD)."""
    decoder = codecs.getincrementaldecoder(found.encoding)("replace")
    fd, st = open_regular(path)
    try:
        for chunk in iter_bytes(fd, found.bom_length, st.st_size):
            yield decoder.decode(chunk).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
    finally:
        os.close(fd)


def _convert_main(argv: list[str]) -> int:
    """``python -m agentpager.engine.content PATH TYPE CACHE_DIR``: convert one document into the cache."""
    real_path, document_type, cache_dir = argv
    fd, st = open_regular(real_path)
    os.close(fd)
    found = Classification("document", mime=DOCUMENT_MIMES[document_type], document_type=document_type)
    try:
        ContentStore(Path(cache_dir)).convert(real_path, found, Stamp.of(st))
    except ConversionError:
        pass  # the failure is cached for the parent to read
    return 0


if __name__ == "__main__":
    raise SystemExit(_convert_main(sys.argv[1:]))
