"""What a program sees while it runs: its arguments, its inputs, its stderr, its exit status.

Files are opened once, beneath the workspace root (a path whose real path is outside is
Unsupported, never read), and read through the ContentStore's raw view of that descriptor (bytes
from offset 0, the line index shared with the tools). Errors keep the real programs' split between a file that cannot be opened and one that
opens but cannot be read (a directory), because their messages differ.
"""

from __future__ import annotations

import errno
import functools
import getopt
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from agentpager.engine.content import ContentStore
from agentpager.engine.lineindex import BLOCK_SIZE, FileChanged
from agentpager.engine.linestream import Reread
from agentpager.engine.textfile import TextReader
from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Placed, Root, is_within, place
from agentpager.tools.shell.errors import Unsupported

Chunks = Iterator[bytes]


class ReadError(OSError):
    """The file opened but reading it failed (a directory: EISDIR)."""


@dataclass
class Context:
    """One run of a script: the workspace, the directory it is in, and the run's stderr."""

    root: Root
    store: ContentStore
    cwd: str
    """Absolute and lexical (symlinks kept), inside the root."""
    recorded_cwd: str | None = None
    """The directory the agent ran in, which the root stands for: absolute paths under it are mapped."""
    ripgrep: str = "13.0.0"
    """The ripgrep release the agent runs (``search.RipgrepRelease``)."""
    stderr: list[bytes] = field(default_factory=list)
    uncertain: str = ""
    """Why the real programs may print otherwise (an order that is not fixed), or ""."""

    def local(self, name: str) -> str:
        """``name`` joined to the working directory, an absolute path under the recorded cwd moved to the root."""
        return os.path.join(self.cwd, in_root(self.root, name, self.recorded_cwd))

    def open(self, name: str) -> Placed:
        """What a program's file argument names, opened beneath the root (close it); Unsupported when
        it lies outside the root."""
        if "\0" in name:
            raise Unsupported("a NUL byte in a path")
        try:
            return place(self.root, self.local(name), name)
        except ToolError:
            raise Unsupported(f"'{name}' is outside the workspace") from None


def in_root(root: Root, path: str, recorded_cwd: str | None) -> str:
    """``path``, or the same place under the root when it is absolute and under ``recorded_cwd``."""
    if recorded_cwd and os.path.isabs(path):
        normal, base = os.path.normpath(path), os.path.normpath(recorded_cwd)
        if is_within(normal, base):
            return os.path.join(root.path, os.path.relpath(normal, base))
    return path


def strerror(error: OSError) -> str:
    """The message a C program prints for ``error``; FileChanged goes on up (the run starts again)."""
    if isinstance(error, FileChanged):
        raise error
    return os.strerror(error.errno) if error.errno else str(error)


def stat_of(placed: Placed) -> os.stat_result:
    """What is there; OSError as stat(2) would fail."""
    if placed.st is None:
        raise OSError(placed.error, os.strerror(placed.error))
    return placed.st


def input_descriptor(placed: Placed, name: str) -> int:
    """The descriptor of a file a program opens; OSError as open(2) would fail."""
    st = stat_of(placed)
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise Unsupported(f"'{name}' is not a regular file or a directory")
    if placed.fd is None:
        raise PermissionError(placed.error, os.strerror(placed.error), name)
    return placed.fd


class FileBytes:
    """An open regular file: its bytes, and line positions through the shared sparse index."""

    def __init__(self, reader: TextReader) -> None:
        self.reader = reader
        self.size = reader.size

    def chunks(self, start: int = 0, end: int | None = None) -> Chunks:
        return self.reader.byte_chunks(start, end)

    def line_start(self, line: int) -> int:
        """Byte offset where line ``line`` (1-based) starts; the size when the file has fewer lines."""
        return self.reader.line_offset(line)

    def line_count(self) -> int:
        """Lines, a last line without a newline included."""
        return self.reader.line_count()

    def newline_count(self) -> int:
        return self.reader.newline_count()

    def tail_start(self, lines: int) -> int:
        """Where the last ``lines`` lines begin (a last line without a newline counts), read backwards."""
        if lines <= 0:
            return self.size
        position = self.size
        wanted = lines
        if position and self.reader.read_at(position - 1, 1) == b"\n":
            position -= 1  # the newline that ends the last line does not start a line
        while position > 0:
            block = min(BLOCK_SIZE, position)
            data = self.reader.read_at(position - block, block)
            cut = len(data)
            while True:
                cut = data.rfind(b"\n", 0, cut)
                if cut < 0:
                    break
                wanted -= 1
                if wanted == 0:
                    return position - block + cut + 1
            position -= block
        return 0


@contextmanager
def open_bytes(ctx: Context, name: str) -> Iterator[FileBytes]:
    """A file opened for reading: OSError if it cannot be opened, ReadError if it cannot be read."""
    placed = ctx.open(name)
    try:
        fd = input_descriptor(placed, name)
        if stat.S_ISDIR(stat_of(placed).st_mode):
            raise ReadError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        with ctx.store.utf8_file(placed.real, functools.partial(os.dup, fd)).open() as reader:
            yield FileBytes(reader)
    finally:
        placed.close()


@dataclass
class Source:
    """One input of a program: a regular file (windowed through its index) or the pipe."""

    name: str
    file: FileBytes | None
    stream: Chunks | None = None

    def chunks(self, start: int = 0) -> Chunks:
        if self.file is not None:
            return self.file.chunks(start)
        assert self.stream is not None
        return self.stream

    def reread(self) -> Reread | None:
        """How to read a part of the input again: a file's bytes; None for the pipe."""
        return self.file.chunks if self.file is not None else None


@contextmanager
def reading(io: Io, name: str) -> Iterator[Source]:
    """The operand ``name`` open for reading (``-`` is the pipe); OSError or ReadError as for the program."""
    if name == "-":
        yield Source(name, None, io.stdin())
        return
    with open_bytes(io.ctx, name) as file:
        yield Source(name, file)


class Io:
    """One program's side of a run: stdin, stderr lines prefixed with its name, exit status."""

    def __init__(
        self,
        ctx: Context,
        program: str,
        stdin: Chunks | None,
        stderr: Callable[[bytes], None],
        stdout_is_null: bool = False,
    ) -> None:
        self.ctx = ctx
        self.stdout_is_null = stdout_is_null
        """grep notices ``>/dev/null`` and stops reading each file at its first match."""
        self.program = program
        self._stdin = stdin
        self._stderr = stderr
        self.status = 0

    def error(self, message: str) -> None:
        """``program: message`` on stderr, as the real programs write it."""
        self.write_stderr(f"{self.program}: {message}\n")

    def write_stderr(self, text: str) -> None:
        self._stderr(text.encode("utf-8", "surrogateescape"))

    def stdin_is_unknown(self) -> bool:
        return self._stdin is None

    def stdin(self) -> Chunks:
        """The bytes piped in; Unsupported when nothing is (what the agent's stdin held is unknown)."""
        if self._stdin is None:
            raise Unsupported(f"{self.program} reads standard input, which is not known")
        stdin, self._stdin = self._stdin, iter(())
        return stdin


def options(program: str, args: list[str], short: str, long: list[str] | None = None) -> tuple[list, list[str]]:
    """GNU getopt parsing (options anywhere, bundles, ``--``); Unsupported for options we don't know.

    Long options must be spelled out: an abbreviation that is unique among the options emulated here
    may be ambiguous among the real program's (or, for ripgrep, not accepted at all).
    """
    names = {name.rstrip("=") for name in long or []}
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--") and arg[2:].split("=", 1)[0] not in names:
            raise Unsupported(f"{program}: the option {arg.split('=', 1)[0]}")
    try:
        return getopt.gnu_getopt(args, short, long or [])
    except getopt.GetoptError as error:
        raise Unsupported(f"{program}: {error.msg}") from None


def parse_count(program: str, text: str) -> int:
    """A plain decimal count; suffixes (``1K``) and other forms are Unsupported."""
    if not text.isdigit() or not text.isascii():
        raise Unsupported(f"{program}: the count {text!r}")
    return int(text)


_NEEDS_QUOTES = frozenset(" \t\n\r\v\f!\"$&'()*;<>?[\\]`{|}:")


def quote_if_needed(name: str) -> str:
    """A file name as coreutils' ``quotef`` shows it: bare when the shell would read it as is."""
    if name and not any(char in _NEEDS_QUOTES or not char.isprintable() for char in name) and name[0] not in "#~":
        return name
    return quote(name)


def quote(name: str) -> str:
    """A file name as coreutils' ``quoteaf`` shows it: in single quotes."""
    if "'" in name or not name.isprintable():
        raise Unsupported(f"how coreutils quotes the name {name!r}")
    return f"'{name}'"
