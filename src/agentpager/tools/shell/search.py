"""The search grep and ripgrep share: batches of whole lines matched by the engine's matcher.

The input comes through the engine's line streamer: batches of whole lines (about a MiB), each
searched at once (``patterns.Matcher.matching_lines``: RE2, or ``re`` in a child for what RE2
cannot run), and lines over 4 MiB, which are matched while they stream and printed by copying
them again from their file (a pipe's cannot be printed: Unsupported). The output
follows GNU grep's ``prtext``/``prpending`` (grep.c): leading and trailing context, ``--`` between
groups that are not adjacent (also between files), ``lastout`` forgotten when a new buffer does not
reach back to it, a stretch of lines selected by ``-v`` printed as one group, and trailing context
after ``-m``'s last match going on over matching lines. What differs between the programs is kept
in ``Flavor``: file-name rules, messages, and grep's leaving out of lines that are not UTF-8 (it
says ``binary file matches`` at the end). Files with NUL bytes are Unsupported: both programs'
binary handling there depends on their read buffers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from agentpager.engine.linestream import LongLine, line_blocks
from agentpager.engine.patterns import Matcher
from agentpager.tools.shell import walk as walk_rules
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Io, ReadError, Source, reading, strerror
from agentpager.tools.shell.lines import Line, written
from agentpager.tools.shell.walk import Order, is_directory, walk

INFINITY = float("inf")


@dataclass
class Search:
    """What to look for and how to report it, from either program's options."""

    pattern: Matcher | None = None
    invert: bool = False
    line_numbers: bool = False
    with_names: bool | None = None
    """None: the program's own rule."""
    count: bool = False
    list_matching: bool = False
    list_non_matching: bool = False
    quiet: bool = False
    before: int = -1
    after: int = -1
    context: int = -1
    """``-C``: the default for whichever of ``-A`` and ``-B`` is not given (in any order)."""
    max_count: float = INFINITY
    text_mode: bool = False
    null_output: bool = False
    """grep's stdout is /dev/null: it reads each file only up to its first match."""
    no_messages: bool = False
    walking: Walking | None = None
    """How a directory operand is searched; None: it is not (grep without ``-r``)."""


@dataclass
class Walking:
    """The files below a directory operand: in ``order``, minus those ``ripgrep``'s rules or grep's
    ``--include``/``--exclude``/``--exclude-dir`` skip."""

    order: Order
    ripgrep: walk_rules.Ripgrep | None = None
    included: Callable[[str], bool] | None = None
    excluded_directory: Callable[[str], bool] | None = None
    implicit: bool = False
    """No operand: the working directory is searched, its files named without ``./``."""
    order_uncertain: str = ""
    """Why the order of several files found is not certain (ripgrep's parallel walk)."""

    def note_uncertain(self, io: Io, printed: int) -> None:
        """Say why the answer may differ: an order not fixed (``printed`` files), a .gitignore that
        counts only if a repository holds the workspace."""
        if printed > 1 and self.order_uncertain:
            io.ctx.uncertain = io.ctx.uncertain or self.order_uncertain
        if self.ripgrep is not None and self.ripgrep.unseen_repository:
            io.ctx.uncertain = io.ctx.uncertain or UNSEEN_REPOSITORY


UNSEEN_REPOSITORY = "ripgrep reads .gitignore files only in a git repository, and none is in the workspace"


@dataclass
class FileState:
    """One file's search in progress: what was printed, what is still owed as trailing context."""

    search: Search
    prefix: bytes
    context: bool
    switches_to_binary: bool
    lines_before: dict[int, Line] = field(default_factory=dict)
    next_unprinted: int | None = None
    """The line after the last one printed: GNU's ``lastout``, None until a line is printed (or again
    when a new buffer does not reach back to it)."""
    buffer_start: int = 1
    """The first line of the current buffer: where grep's context starts when ``lastout`` is None."""
    pending_after: int = 0
    used: bool = False
    selected: int = 0
    binary: bool = False
    """A line that is not UTF-8 was left out (grep says so at the end)."""
    binary_file: bool = False
    """The file has a NUL early: searched with NUL as a line end, only its matches counted."""


class Flavor:
    program = "grep"
    stdin_name = "(standard input)"
    binary_window = 100 << 10
    """GNU grep decides a file is binary by a NUL in its first buffer: 96 KiB (a NUL at 98,000
    bytes made it binary, one at 100,000 did not)."""
    _certain_below = 90 << 10

    def binary_file(self, io: Io, nul: int, walked: bool) -> bool:
        """Whether a file with a NUL at ``nul`` is searched as a binary file (False: skipped);
        Unsupported where the real program's buffer size decides."""
        if nul >= self._certain_below:
            raise Unsupported(f"{self.program} on a file whose first NUL byte is near its first read buffer's end")
        return True

    def error(self, io: Io, name: str, error: OSError) -> None:
        io.error(f"{name}: {strerror(error)}")

    def names_files(self, operands: list[str]) -> bool:
        return len(operands) > 1

    def switches_to_binary(self, search: Search) -> bool:
        return not search.text_mode

    def prints_zero_counts(self) -> bool:
        return True

    def context_enabled(self, search: Search) -> bool:
        return search.before >= 0 or search.after >= 0


@dataclass(frozen=True)
class RipgrepRelease:
    """What differs between the ripgrep releases agents run, read off the real binaries: 13.0.0
    (Debian 12's), 14.1.1 (bundled by Claude Code 2.0 to 2.1 and Codex 0.60), 15.2.0 (Codex 0.169
    and 0.171)."""

    version: tuple[int, ...]

    @classmethod
    def of(cls, version: str) -> RipgrepRelease:
        return cls(tuple(int(part) for part in version.split(".")))

    @property
    def names_itself(self) -> bool:
        """14 on: ``rg: `` before each message."""
        return self.version >= (14,)

    def walks_on_one_thread(self, threads: int, paths: int) -> bool:
        """Whether the paths are searched on one thread, whose errors read ``IO error for operation
        on``: 13 with ``-j1`` and several paths; 14 on with ``-j1`` or a single path."""
        if self.version >= (14,):
            return threads == 1 or paths <= 1
        return threads == 1 and paths > 1

    @property
    def context_as_grep(self) -> bool:
        """14 on: ``-A`` and ``-B`` win over ``-C`` in any order (13: the last given decides)."""
        return self.version >= (14,)

    @property
    def last_of_count_and_list(self) -> bool:
        """14 on: the last of ``-c`` and ``-l`` decides (13: ``-c`` wins)."""
        return self.version >= (14,)

    @property
    def parent_ignore_paths(self) -> Literal["whole", "name", "from the working directory"]:
        """How ignore files above the searched directory are matched (``walk.Ripgrep.parents``)."""
        if self.version >= (15,):
            return "whole"
        return "name" if self.version >= (14,) else "from the working directory"

    @property
    def refuses_some_repeats(self) -> bool:
        """13 fails on some options given twice (``-B 1 -B 2``: a usage error)."""
        return self.version < (14,)


RIPGREP_13 = "13.0.0"


class Ripgrep(Flavor):
    program = "rg"
    stdin_name = "<stdin>"
    binary_window = 68 << 10
    """ripgrep stops at a NUL and skips a file found in a walk when that NUL is in its first
    buffer: 64 KiB (a NUL at 60,000 bytes hid a match before it, one at 70,000 did not)."""
    _certain_below = 60 << 10

    def binary_file(self, io: Io, nul: int, walked: bool) -> bool:
        if not walked:
            raise Unsupported("rg on a named file with NUL bytes (binary)")
        super().binary_file(io, nul, walked)
        return False

    def __init__(self, release: RipgrepRelease, single_threaded_walk: bool) -> None:
        self.release = release
        self.single_threaded_walk = single_threaded_walk

    def error(self, io: Io, name: str, error: OSError) -> None:
        walk = f"IO error for operation on {name}: " if self.single_threaded_walk else ""
        prefix = "rg: " if self.release.names_itself else ""
        io.write_stderr(f"{prefix}{name}: {walk}{strerror(error)} (os error {error.errno})\n")

    def switches_to_binary(self, search: Search) -> bool:
        return False

    def prints_zero_counts(self) -> bool:
        return False

    def context_enabled(self, search: Search) -> bool:
        return search.before > 0 or search.after > 0


# -- the search ---------------------------------------------------------------------------------


def search_files(io: Io, flavor: Flavor, search: Search, operands: list[str]) -> Chunks:
    assert search.pattern is not None
    with search.pattern:  # it may own a child process
        yield from _search_files(io, flavor, search, operands)


def _search_files(io: Io, flavor: Flavor, search: Search, operands: list[str]) -> Chunks:
    search.after = search.context if search.after < 0 else search.after
    search.before = search.context if search.before < 0 else search.before
    with_names = search.with_names
    if with_names is None:
        walked = search.walking is not None and any(name != "-" and is_directory(io.ctx, name) for name in operands)
        with_names = flavor.names_files(operands) or walked
    found_any = errors = used = False
    printed = 0
    for name, shown, walked in _targets(io, flavor, search, operands):
        try:
            with reading(io, name) as source:
                prefix = _encoded(shown) if with_names else b""
                state = FileState(search, prefix, flavor.context_enabled(search), flavor.switches_to_binary(search))
                state.used = used  # a group separator also comes between files
                nul = _first_nul(source, flavor)
                if nul is None:
                    yield from _search_file(source, state, flavor)
                elif not flavor.binary_file(io, nul, walked):
                    continue  # ripgrep skips a binary file it found in a walk
                else:
                    state.binary_file = True
                    _count(source, state, flavor, search.max_count if search.count else 1)
                used = state.used
        except ReadError as error:
            errors = True
            if not search.no_messages:
                flavor.error(io, shown, error)
            continue
        except OSError as error:
            errors = True
            if not search.no_messages or flavor.program == "rg":
                flavor.error(io, shown, error)
            continue
        hit = state.selected > 0
        listing = search.list_matching or search.list_non_matching
        if search.list_matching and hit or search.list_non_matching and not hit:
            yield _encoded(shown) + b"\n"
        elif search.count and (hit or flavor.prints_zero_counts()) and not (search.quiet or listing):
            yield state.prefix + (b":" if with_names else b"") + b"%d\n" % state.selected
        elif state.binary_file and hit and not (search.quiet or listing):
            io.error(f"{shown}: binary file matches")
        if state.binary:
            io.error(f"{shown}: binary file matches")
        printed += hit
        found_any = found_any or (hit if not search.list_non_matching else not hit)
        if found_any and search.quiet:
            break
    if search.walking is not None:
        search.walking.note_uncertain(io, printed)
    io.status = 0 if found_any and (search.quiet or not errors) else 2 if errors else 1


def _targets(io: Io, flavor: Flavor, search: Search, operands: list[str]) -> Iterator[tuple[str, str, bool]]:
    """Each file to search: the name to open, the name to show, and whether a walk found it. A
    directory operand is walked when the program searches directories (else reading it fails)."""
    walking = search.walking
    for name in operands:
        if walking is None or name == "-" or not is_directory(io.ctx, name):
            yield name, flavor.stdin_name if name == "-" else name, False
            continue

        def failed(path: str, error: OSError) -> None:
            if not search.no_messages or flavor.program == "rg":
                flavor.error(io, path, error)

        top = "" if walking.implicit else name
        entries = walk(io.ctx, name, walking.order, walking.ripgrep, failed, top, walking.excluded_directory)
        for entry in entries:
            if entry.kind == "file" and (walking.included is None or walking.included(entry.path)):
                yield entry.path, entry.path, True


def _first_nul(source: Source, flavor: Flavor) -> int | None:
    """Where the first NUL byte is in the part of a file that decides whether it is binary (None:
    there is none there, or the input is a pipe, whose NULs stay Unsupported as they come)."""
    if source.file is None:
        return None
    for start, chunk in _offsets(source.file.chunks(0, min(flavor.binary_window, source.file.size))):
        found = chunk.find(b"\0")
        if found >= 0:
            return start + found
    return None


def _offsets(chunks: Chunks) -> Iterator[tuple[int, bytes]]:
    position = 0
    for chunk in chunks:
        yield position, chunk
        position += len(chunk)


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _batches(source: Source, flavor: Flavor, nul_ends_lines: bool = False) -> Iterator[bytes | LongLine]:
    """The input as grep reads it: batches of whole lines without the last newline (a last line
    without a newline is a buffer of its own, read after the others), and each long line alone.
    ``nul_ends_lines``: a binary file, where a NUL ends a line as a newline does."""
    chunks = source.chunks()
    if nul_ends_lines:
        chunks = (chunk.replace(b"\0", b"\n") for chunk in chunks)
    for block in line_blocks(chunks, source.reread()):
        if isinstance(block, LongLine):
            yield block
            continue
        if b"\0" in block:
            raise Unsupported(f"{flavor.program} on a file with NUL bytes past its first read buffer (binary)")
        cut = block.rfind(b"\n") + 1 if not block.endswith(b"\n") else 0
        for part in (block[:cut], block[cut:]) if cut else (block,):
            yield part.removesuffix(b"\n")


def _lines(batch: bytes | LongLine) -> list[Line]:
    return [batch] if isinstance(batch, LongLine) else list(batch.split(b"\n"))


def _search_file(source: Source, state: FileState, flavor: Flavor) -> Chunks:
    search = state.search
    stops_at_first = search.quiet or search.list_matching or search.list_non_matching or search.null_output
    if search.count or stops_at_first:
        _count(source, state, flavor, 1 if stops_at_first else search.max_count)
        return
    left = search.max_count
    base = 0
    for batch in _batches(source, flavor):
        lines = _lines(batch)
        out: list[Line] = []
        selected = _selected_indexes(search, batch, flavor, len(lines))
        position = 0
        while position < len(selected):
            index = selected[position]
            number = base + index + 1
            if left <= 0:  # -m reached: only trailing context is still owed
                _flush_after(state, lines, base, number - 1, out)
                if state.pending_after > 0 and state.next_unprinted == number:
                    # the trailing context goes on over selected lines: grep shows them as context
                    _emit(state, lines[index], number, b":" if flavor.program == "rg" else b"-", out)
                    state.pending_after -= 1
                    position += 1
                    continue
                yield from written(out)
                return
            # grep prints a stretch of consecutive non-matching lines (-v) as one group
            run = 1
            while search.invert and run < left and selected[position + run : position + run + 1] == [index + run]:
                run += 1
            left -= run
            state.selected += run
            _print_group(state, lines, base, number, number + run - 1, out)
            position += run
        _flush_after(state, lines, base, base + len(lines), out)
        _next_buffer(state, base + len(lines))
        state.lines_before = {
            number: _line(state, lines, base, number) for number in range(state.buffer_start, base + len(lines) + 1)
        }
        yield from written(out)
        base += len(lines)
        if left <= 0 and state.pending_after == 0:
            return


def _count(source: Source, state: FileState, flavor: Flavor, left: float) -> None:
    """Count the selected lines, up to ``left`` (nothing is printed)."""
    for batch in _batches(source, flavor, state.binary_file):
        size = 1 if isinstance(batch, LongLine) else batch.count(b"\n") + 1
        found = len(_matching(state.search, batch, flavor))
        taken = min(size - found if state.search.invert else found, left)
        state.selected += int(taken)
        left -= taken
        if left <= 0:
            return


def _matching(search: Search, batch: bytes | LongLine, flavor: Flavor) -> list[int]:
    """Indexes of the batch's lines that match."""
    assert search.pattern is not None
    if not isinstance(batch, LongLine):
        return search.pattern.matching_lines(batch)
    (found,) = batch.search([search.pattern])
    if batch.nul:
        raise Unsupported(f"{flavor.program} on a file with NUL bytes (binary)")
    return [0] if found else []


def _selected_indexes(search: Search, batch: bytes | LongLine, flavor: Flavor, count: int) -> list[int]:
    """Indexes of the batch's lines that are selected (matching, or not with ``-v``)."""
    matching = _matching(search, batch, flavor)
    if not search.invert:
        return matching
    skip = set(matching)
    return [index for index in range(count) if index not in skip]


def _next_buffer(state: FileState, end: int) -> None:
    """Carry leading context into the next buffer as grep does: back from line ``end`` by up to
    ``-B`` lines, stopping at the buffer's start or at ``lastout``, which is forgotten if not reached."""
    start = end + 1
    while start - 1 >= state.buffer_start and end + 1 - start < max(state.search.before, 0):
        if start == state.next_unprinted:
            break
        start -= 1
    if start != state.next_unprinted:
        state.next_unprinted = None
    state.buffer_start = start


def _line(state: FileState, lines: list[Line], base: int, number: int) -> Line:
    return lines[number - base - 1] if number > base else state.lines_before[number]


def _emit(state: FileState, line: Line, number: int, separator: bytes, out: list[Line]) -> None:
    """Write one line with its prefixes. grep skips a line that is not UTF-8 (and says so at the end)."""
    if state.switches_to_binary and not _is_utf8(line):
        state.binary = True
        return
    prefix = state.prefix + separator if state.prefix else b""
    if state.search.line_numbers:
        prefix += b"%d" % number + separator
    if isinstance(line, LongLine):
        out += [prefix, line, b"\n"]
    else:
        out.append(prefix + line + b"\n")
    state.next_unprinted = number + 1


def _is_utf8(line: Line) -> bool:
    if isinstance(line, LongLine):
        return line.utf8
    if line.isascii():
        return True
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _flush_after(state: FileState, lines: list[Line], base: int, until: int, out: list[Line]) -> None:
    """Trailing context owed after the last printed line, up to line ``until``."""
    if state.pending_after > 0 and state.next_unprinted is None:
        state.next_unprinted = state.buffer_start
    while state.pending_after > 0 and state.next_unprinted is not None and state.next_unprinted <= until:
        number = state.next_unprinted
        state.pending_after -= 1
        _emit(state, _line(state, lines, base, number), number, b"-", out)


def _print_group(state: FileState, lines: list[Line], base: int, first: int, last: int, out: list[Line]) -> None:
    """Trailing context owed, the group separator, leading context, then selected lines ``first..last``."""
    search = state.search
    _flush_after(state, lines, base, first - 1, out)
    start = max(first - max(search.before, 0), state.next_unprinted or state.buffer_start)
    if state.context and state.used and start != state.next_unprinted:
        out.append(b"--\n")
    state.used = True
    for context in range(start, first):
        _emit(state, _line(state, lines, base, context), context, b"-", out)
    for number in range(first, last + 1):
        _emit(state, _line(state, lines, base, number), number, b":", out)
    state.pending_after = max(search.after, 0)
