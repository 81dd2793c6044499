"""OpenCode's ``read``: a file's numbered lines, a directory's entries, or an attachment.

Followed from OpenCode 1.18.33's code as its binary embeds it: ``packages/opencode/src/tool/read.ts``
(``ReadTool``), ``session/instruction.ts`` (``Instruction.resolve``) and its type sniffing (magic
bytes, then the ``mime-types`` lookup by extension):

- ``filePath`` is resolved against the session's directory (``path.resolve``); a path outside it asks
  the ``external_directory`` permission, which ``opencode run`` refuses: "The user rejected
  permission to use this specific tool call." Nothing is there: ``File not found: PATH``, followed by
  up to three names of its directory (in the order the directory lists them) that contain the
  missing name or are contained in it, case aside.
- A directory: its entries, ``/`` after directories (and links to them), sorted by ``localeCompare``,
  ``offset`` (1-based) and ``limit`` (2,000) counted in entries.
- The first 4,096 bytes decide the rest: PNG, JPEG, GIF and WebP images and PDFs (by their magic
  bytes, else by extension) answer ``Image read successfully`` or ``PDF read successfully`` and go to
  the model as an attachment; an extension of ``BINARY_EXTENSIONS``, a NUL byte, or more than 30%
  control bytes: ``Cannot read binary file: PATH``.
- Text is decoded as UTF-8 (``TextDecoder``: a leading BOM dropped, bad bytes as U+FFFD) and split by
  Effect's ``Stream.splitLines``: at ``\\n``, ``\\r\\n`` and a lone ``\\r``, no empty line after the last
  break. Lines from ``offset`` (0 counts as 1), at most ``limit``, each cut after 2,000 UTF-16 units
  with ``... (line truncated to 2000 chars)``, while their UTF-8 bytes and the newlines between them
  stay within 50 KB; every line is counted unless the cap stopped the reading.
- ``AGENTS.md``, ``CLAUDE.md`` or ``CONTEXT.md`` (the first there) of each directory between the file
  and the session's directory, nearest first, is appended once per session in a
  ``<system-reminder>`` (``Instructions from: PATH`` and its text), unless it is the file read.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from agentpager.engine.utf8 import decode_chunks
from agentpager.tools.base import Call
from agentpager.tools.errors import ToolError
from agentpager.tools.js.collation import sort_key
from agentpager.tools.js.strings import js_length, js_prefix
from agentpager.tools.paths import Placed, is_within, look_up

MAX_LINES = 2000
MAX_LINE_LENGTH = 2000
LINE_CUT = f"... (line truncated to {MAX_LINE_LENGTH} chars)"
MAX_BYTES = 50 * 1024
SAMPLE_BYTES = 4096
REJECTED = "The user rejected permission to use this specific tool call."
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
BINARY_EXTENSIONS = frozenset(
    [
        ".zip",
        ".tar",
        ".gz",
        ".exe",
        ".dll",
        ".so",
        ".class",
        ".jar",
        ".war",
        ".7z",
        ".doc",
        ".docx",
        ".xls",
        ".xlsx",
        ".ppt",
        ".pptx",
        ".odt",
        ".ods",
        ".odp",
        ".bin",
        ".dat",
        ".obj",
        ".o",
        ".a",
        ".lib",
        ".wasm",
        ".pyc",
        ".pyo",
    ]
)
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_EXTENSION_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".jpe": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
}
"""The ``mime-types`` lookups that matter here: the types read as attachments."""
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"BM", "image/bmp"),
    (b"%PDF-", "application/pdf"),
)
_BLOCK = 1 << 20
_KEEP = MAX_LINE_LENGTH + 1
"""Characters kept of a line: enough to cut it as OpenCode does (a character is one or two units)."""
_BREAK = re.compile(r"\r\n?|\n")
INSTRUCTIONS_STATE = "opencode_instructions"
"""The instruction files a session has had appended (``Call.state``), as the agent names them."""


@dataclass(frozen=True)
class Where:
    """A path as the agent names it (``shown``) and where it is in the workspace (``local``)."""

    shown: str
    local: str


@dataclass
class Session:
    """The session's directory as the agent named it, and the workspace that plays it."""

    directory: str
    root: str
    """The workspace root's real path."""

    def where(self, file_path: str) -> Where | None:
        """``path.resolve(directory, file_path)``, placed in the workspace; None outside it."""
        shown = os.path.normpath(os.path.join(self.directory, file_path))
        if is_within(shown, self.directory):
            return Where(shown, os.path.join(self.root, os.path.relpath(shown, self.directory)))
        if is_within(shown, self.root):
            return Where(shown, shown)
        return None

    def shown(self, local: str) -> str:
        relative = os.path.relpath(local, self.root)
        return self.directory if relative == "." else os.path.join(self.directory, relative)


def session_of(call: Call) -> Session:
    directory = call.settings.get("directory")
    return Session(os.path.normpath(str(directory)) if directory else call.root.real, call.root.real)


def mime_of(sample: bytes, path: str) -> str:
    """``sniff``: the type the first bytes show, else the extension's (``application/octet-stream``)."""
    for magic, mime in _MAGIC:
        if sample.startswith(magic):
            return mime
    if sample.startswith(b"RIFF") and sample[8:12] == b"WEBP":
        return "image/webp"
    return _EXTENSION_TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream")


def is_binary(path: str, sample: bytes) -> bool:
    if os.path.splitext(path)[1].lower() in BINARY_EXTENSIONS:
        return True
    if not sample:
        return False
    if b"\0" in sample:
        return True
    controls = sum(1 for byte in sample if byte < 9 or 13 < byte < 32)
    return controls / len(sample) > 0.3


@dataclass
class Lines:
    """What ``ReadTool.lines`` gathers: the lines shown, the lines counted, and why it stopped."""

    raw: list[str] = field(default_factory=list)
    count: int = 0
    cut: bool = False
    """The 50 KB cap stopped the reading (``count`` is then where it stopped)."""
    more: bool = False


class _Splitter:
    """``Stream.splitLines`` over decoded pieces of text, keeping at most ``_KEEP`` characters a line."""

    def __init__(self) -> None:
        self.head = ""
        self.long = False
        self.after_cr = False

    def lines(self, text: str) -> Iterator[tuple[str, bool]]:
        """The lines ``text`` ends, each as (its first characters, whether it had more)."""
        if not text:
            return
        start = 1 if self.after_cr and text.startswith("\n") else 0
        self.after_cr = False
        for found in _BREAK.finditer(text, start):
            yield self._take(text[start : found.start()])
            start = found.end()
            self.after_cr = found.group() == "\r" and start == len(text)
        self._add(text[start:])

    def count(self, text: str) -> int:
        """How many lines ``text`` ends, without building them."""
        if not text:
            return 0
        skip = 1 if self.after_cr and text.startswith("\n") else 0
        ended = text.count("\n", skip) + text.count("\r") - text.count("\r\n")
        last = max(text.rfind("\n"), text.rfind("\r"))
        if last >= skip:
            self.head, self.long = "", False
        self.after_cr = last >= skip and text.endswith("\r")
        self._add(text[last + 1 :] if last >= skip else text[skip:])
        return ended

    def end(self) -> Iterator[tuple[str, bool]]:
        if self.head or self.long:
            yield self._take("")

    def _add(self, piece: str) -> None:
        room = _KEEP - len(self.head)
        if len(piece) > room:
            self.long = True
        if room > 0:
            self.head += piece[:room]

    def _take(self, piece: str) -> tuple[str, bool]:
        self._add(piece)
        line = (self.head, self.long)
        self.head, self.long = "", False
        return line


def blocks(fd: int, position: int = 0) -> Iterator[bytes]:
    """The file open at ``fd``, a MiB at a time, from ``position``."""
    while data := os.pread(fd, _BLOCK, position):
        position += len(data)
        yield data


def _decoded(fd: int) -> Iterator[str]:
    """The file's text, a block at a time, as ``TextDecoder("utf-8")`` decodes it (a BOM dropped)."""
    texts = decode_chunks(blocks(fd))
    first = next(texts, "")
    if first.removeprefix("\ufeff"):
        yield first.removeprefix("\ufeff")
    yield from texts


def _shown_line(head: str, long: bool) -> str:
    if long or js_length(head) > MAX_LINE_LENGTH:
        return js_prefix(head, MAX_LINE_LENGTH) + LINE_CUT
    return head


def utf8_length(text: str) -> int:
    """``Buffer.byteLength(text, "utf-8")``: a lone surrogate counts as U+FFFD, 3 bytes."""
    return len(text.encode("utf-8", "replace" if not text.isascii() else "strict"))


def read_lines(fd: int, offset: int, limit: int) -> Lines:
    """The lines from ``offset`` (1-based), as many as ``limit`` and 50 KB allow, and the count."""
    found = Lines()
    size = 0
    splitter = _Splitter()

    def take(line: tuple[str, bool]) -> bool:
        """One line counted and kept if it is shown; False once the cap stops the reading."""
        found.count += 1
        if found.count < offset:
            return True
        if len(found.raw) >= limit:
            found.more = True
            return True
        nonlocal size
        text = _shown_line(*line)
        length = utf8_length(text) + (1 if found.raw else 0)
        if size + length > MAX_BYTES:
            found.cut = found.more = True
            return False
        found.raw.append(text)
        size += length
        return True

    for text in _decoded(fd):
        counting = len(found.raw) >= limit and found.count >= offset - 1
        if counting or found.count + text.count("\n") + text.count("\r") < offset - 1:
            ended = splitter.count(text)
            found.count += ended
            found.more = found.more or (counting and ended > 0)
            continue
        for line in splitter.lines(text):
            if not take(line):
                return found
    for line in splitter.end():
        take(line)
    return found


def _entries(call: Call, session: Session, placed: Placed) -> list[str]:
    """``ReadTool.list``: the names, ``/`` after directories and links to them, in ``localeCompare`` order."""
    assert placed.fd is not None
    names = []
    with os.scandir(placed.fd) as entries:
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.is_symlink():
                target = look_up(call.root, os.path.join(placed.real, entry.name))
                if not target.inside:
                    call.uncertain = f"{entry.name} leads outside the workspace, which agentpager does not look at"
                is_dir = target.inside and target.st is not None and stat.S_ISDIR(target.st.st_mode)
            names.append(entry.name + "/" if is_dir else entry.name)
    return sorted(names, key=sort_key)


def _directory(call: Call, session: Session, where: Where, placed: Placed, offset: int, limit: int | None) -> str:
    if placed.fd is None:
        call.uncertain = "the directory cannot be read here; OpenCode's error for that was not recorded"
        raise ToolError(f"EACCES: permission denied, scandir '{where.shown}'")
    names = _entries(call, session, placed)
    limit = MAX_LINES if limit is None else limit
    start = max(offset, 1) - 1
    shown = names[start : start + limit]
    truncated = start + len(shown) < len(names)
    note = (
        f"\n(Showing {len(shown)} of {len(names)} entries. Use 'offset' parameter to read beyond entry "
        f"{start + 1 + len(shown)})"
        if truncated
        else f"\n({len(names)} entries)"
    )
    return "\n".join(
        [f"<path>{where.shown}</path>", "<type>directory</type>", "<entries>", "\n".join(shown), note, "</entries>"]
    )


def _missing(call: Call, session: Session, where: Where) -> ToolError:
    """``ReadTool.miss``: the error, with the names of the directory that look like the one asked for."""
    parent, name = os.path.dirname(where.local), os.path.basename(where.shown).lower()
    similar: list[str] = []
    directory = look_up(call.root, parent)
    if directory.inside and directory.st is not None and stat.S_ISDIR(directory.st.st_mode):
        placed = call.place(directory.real, os.path.dirname(where.shown))
        if placed.fd is not None:
            with os.scandir(placed.fd) as entries:
                for entry in entries:
                    lower = entry.name.lower()
                    if name in lower or lower in name:
                        similar.append(os.path.join(os.path.dirname(where.shown), entry.name))
                        if len(similar) == 3:
                            break
    if similar:
        return ToolError(f"File not found: {where.shown}\n\nDid you mean one of these?\n" + "\n".join(similar))
    return ToolError(f"File not found: {where.shown}")


def _instructions(call: Call, session: Session, where: Where) -> list[tuple[str, str]]:
    """``Instruction.resolve``: (path as shown, text) of the instruction files not yet loaded, nearest first."""
    loaded: set[str] = call.state.setdefault(INSTRUCTIONS_STATE, set())
    found = []
    shown_dir = os.path.dirname(where.shown)
    while shown_dir.startswith(session.directory) and shown_dir != session.directory:
        local_dir = session.where(shown_dir)
        for name in INSTRUCTION_FILES if local_dir is not None else ():
            assert local_dir is not None
            target = look_up(call.root, os.path.join(local_dir.local, name))
            if target.st is None and target.inside:
                continue
            shown = os.path.join(shown_dir, name)
            if shown != where.shown and shown not in loaded and target.inside:
                text = _text_of(call, target.real, shown)
                if text:
                    found.append((shown, text))
            break
        shown_dir = os.path.dirname(shown_dir)
    return found


def _text_of(call: Call, real: str, shown: str) -> str:
    """A file's whole text as ``readFileString`` gives it ("" for anything that is not a readable file)."""
    placed = call.place(real, shown)
    if placed.fd is None or placed.st is None or not stat.S_ISREG(placed.st.st_mode):
        return ""
    return "".join(_decoded(placed.fd))


def read(call: Call, filePath: str, offset: int | None, limit: int | None) -> str:  # noqa: N803 - OpenCode's name
    for name, value in (("offset", offset), ("limit", limit)):
        if value is not None and value < 0:
            raise ToolError(
                f"The read tool was called with invalid arguments: SchemaError(Expected a value greater than or "
                f'equal to 0, got {value}\n  at ["{name}"]).\nPlease rewrite the input so it satisfies the expected schema.'
            )
    session = session_of(call)
    where = session.where(filePath)
    if where is None:
        raise ToolError(REJECTED)
    found = look_up(call.root, where.local)
    if not found.inside:
        call.uncertain = "the path leads outside the workspace, which agentpager never reads (OpenCode reads it)"
        raise ToolError(REJECTED)
    if found.st is None:
        if "\0" in filePath:  # no file has one: said as for a missing file
            call.uncertain = "the path holds a NUL byte; what OpenCode (Bun) says of it was not recorded"
        raise _missing(call, session, where)
    placed = call.place(found.real, where.shown)
    if placed.st is not None and stat.S_ISDIR(placed.st.st_mode):
        return _directory(call, session, where, placed, offset or 1, limit)
    instructions = _instructions(call, session, where)
    if placed.fd is None:
        call.uncertain = "the file cannot be read here; OpenCode's error for that was not recorded"
        raise ToolError(f"EACCES: permission denied, open '{where.shown}'")
    size = placed.st.st_size if placed.st is not None else 0
    sample = os.pread(placed.fd, min(SAMPLE_BYTES, size), 0) if size else b""
    mime = mime_of(sample, where.shown)
    loaded: set[str] = call.state.setdefault(INSTRUCTIONS_STATE, set())
    if mime in IMAGE_TYPES or mime == "application/pdf":
        loaded.update(path for path, _ in instructions)
        return "PDF read successfully" if mime == "application/pdf" else "Image read successfully"
    if is_binary(where.shown, sample):
        raise ToolError(f"Cannot read binary file: {where.shown}")
    first = offset or 1
    lines = read_lines(placed.fd, first, MAX_LINES if limit is None else limit)
    if lines.count < first and not (lines.count == 0 and first == 1):
        raise ToolError(f"Offset {first} is out of range for this file ({lines.count} lines)")
    last = first + len(lines.raw) - 1
    numbered = "\n".join(f"{first + n}: {line}" for n, line in enumerate(lines.raw))
    if lines.cut:
        note = f"(Output capped at 50 KB. Showing lines {first}-{last}. Use offset={last + 1} to continue.)"
    elif lines.more:
        note = f"(Showing lines {first}-{last} of {lines.count}. Use offset={last + 1} to continue.)"
    else:
        note = f"(End of file - total {lines.count} lines)"
    output = f"<path>{where.shown}</path>\n<type>file</type>\n<content>\n{numbered}\n\n{note}\n</content>"
    if instructions:
        loaded.update(path for path, _ in instructions)
        texts = "\n\n".join(f"Instructions from: {path}\n{text}" for path, text in instructions)
        output += f"\n\n<system-reminder>\n{texts}\n</system-reminder>"
    return output
