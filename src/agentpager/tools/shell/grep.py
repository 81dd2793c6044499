"""GNU grep 3.8 and ripgrep 13 on named files and pipes: their line selection and output formats.

Both read a batch of whole lines (about a MiB) at a time, decode it with ``surrogateescape`` and
search it with one multi-line Python pattern (see ``regex``), so a huge file streams in bounded
memory. What differs is kept apart in ``_Flavor``: option names, the file-name rule (grep names
files when there are several; ripgrep when there are several or none was named), messages
(``grep: f: No such file or directory``; ripgrep 13: ``f: No such file or directory (os error 2)``)
and grep's "binary" lines: a line it would print that is not UTF-8 is left out (trailing context
still counts it) and ``grep: f: binary file matches`` comes at the end. Files with NUL bytes are Unsupported: both
programs' binary handling there depends on their read buffers. Recursive searches (a directory,
``-r``, ``rg`` without a path) are Unsupported: their file order is the file system's.
Several files are searched in argument order; real ripgrep searches them on parallel threads and
may print them in another order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from agentpager.tools.shell import regex
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Io, ReadError, Source, options, reading, strerror

BATCH_BYTES = 1 << 20
INFINITY = float("inf")


@dataclass
class Search:
    """What to look for and how to report it, from either program's options."""

    pattern: re.Pattern[str]
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


@dataclass
class _FileState:
    """One file's search in progress: what was printed, what is still owed as trailing context."""

    search: Search
    prefix: bytes
    context: bool
    switches_to_binary: bool
    lines_before: dict[int, bytes] = field(default_factory=dict)
    next_unprinted: int | None = None
    """The line after the last one printed: GNU's ``lastout``, None until a line is printed (or again
    when a new buffer does not reach back to it)."""
    buffer_start: int = 1
    """The first line of the current buffer: where grep's context starts when ``lastout`` is None."""
    pending_after: int = 0
    used: bool = False
    selected: int = 0
    binary: bool = False


class _Flavor:
    program = "grep"
    stdin_name = "(standard input)"

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


class _Ripgrep(_Flavor):
    program = "rg"
    stdin_name = "<stdin>"

    def __init__(self, single_threaded_walk: bool) -> None:
        self.single_threaded_walk = single_threaded_walk

    def error(self, io: Io, name: str, error: OSError) -> None:
        # ripgrep 13 words it so when it walks several paths on one thread (-j1).
        walk = f"IO error for operation on {name}: " if self.single_threaded_walk else ""
        io.write_stderr(f"{name}: {walk}{strerror(error)} (os error {error.errno})\n")

    def switches_to_binary(self, search: Search) -> bool:
        return False

    def prints_zero_counts(self) -> bool:
        return False

    def context_enabled(self, search: Search) -> bool:
        return search.before > 0 or search.after > 0


# -- GNU grep ---------------------------------------------------------------------------------------

_GREP_SHORT = "e:EFGiywxvcnlLHhqsA:B:C:m:a"
_GREP_LONG = [
    "regexp=", "extended-regexp", "fixed-strings", "basic-regexp", "ignore-case", "no-ignore-case",
    "word-regexp", "line-regexp", "invert-match", "count", "line-number", "files-with-matches",
    "files-without-match", "with-filename", "no-filename", "quiet", "silent", "no-messages",
    "after-context=", "before-context=", "context=", "max-count=", "text", "color=", "colour=",
    "line-buffered",
]  # fmt: skip


def grep(io: Io, args: list[str]) -> Chunks:
    args = ["-C" + arg[1:] if re.fullmatch(r"-\d+", arg) else arg for arg in args]
    found, operands = options("grep", args, _GREP_SHORT, _GREP_LONG)
    patterns: list[str] = []
    syntax, ignore_case, word, line = "G", False, False, False
    search = Search(re.compile(""))
    for option, value in found:
        name = option.lstrip("-")
        if name in ("e", "regexp"):
            patterns.append(value)
        elif name in ("E", "extended-regexp", "F", "fixed-strings", "G", "basic-regexp"):
            syntax = name[0].upper()
        elif name in ("i", "y", "ignore-case", "no-ignore-case"):
            ignore_case = name != "no-ignore-case"
        elif name in ("w", "word-regexp"):
            word = True
        elif name in ("x", "line-regexp"):
            line = True
        elif name in ("color", "colour"):
            if value not in ("never", "auto"):
                raise Unsupported(f"grep --color={value}")
        elif name != "line-buffered":
            _common_option(search, name, value, "grep")
    if not patterns:
        if not operands:
            raise Unsupported("grep without a pattern")
        patterns.append(operands.pop(0))
    if search.max_count == 0:
        return _nothing(io)
    pieces = [piece for pattern in patterns for piece in pattern.split("\n")]
    if syntax == "F":
        translated = [re.escape(piece) for piece in pieces]
    else:
        translated = [regex.posix(piece, extended=syntax == "E") for piece in pieces]
    search.pattern = _compile(translated, ignore_case, "grep" if word else "", line)
    search.null_output = io.stdout_is_null
    return _run(io, _Flavor(), search, operands or ["-"])


def _nothing(io: Io) -> Chunks:
    io.status = 1
    return iter(())


def _common_option(search: Search, name: str, value: str, program: str) -> None:
    """The options grep and ripgrep share (same letters, same meaning)."""
    if name in ("v", "invert-match"):
        search.invert = True
    elif name in ("c", "count"):
        search.count = True
    elif name in ("n", "line-number"):
        search.line_numbers = True
    elif name in ("l", "files-with-matches"):
        search.list_matching = True
    elif name in ("L", "files-without-match"):
        search.list_non_matching = True
    elif name in ("H", "with-filename"):
        search.with_names = True
    elif name in ("h", "no-filename", "I"):
        search.with_names = False
    elif name in ("q", "quiet", "silent"):
        search.quiet = True
    elif name in ("s", "no-messages"):
        search.no_messages = True
    elif name in ("a", "text"):
        search.text_mode = True
    elif name in ("m", "max-count"):
        search.max_count = _number(program, value)
    elif name in ("A", "after-context"):
        search.after = _number(program, value)
    elif name in ("B", "before-context"):
        search.before = _number(program, value)
    elif name in ("C", "context"):
        search.context = _number(program, value)
    else:
        raise Unsupported(f"{program} -{name}")


def _number(program: str, value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise Unsupported(f"{program}: the number {value!r}")
    return int(value)


def _compile(translated: list[str], ignore_case: bool, word: str, line: bool) -> re.Pattern[str]:
    """One pattern for all; ``word`` is the program whose ``-w`` applies, or empty."""
    if len(translated) > 1 and any(re.search(r"\\[1-9]", piece) for piece in translated):
        raise Unsupported("back-references with several patterns")
    body = "|".join(f"(?:{piece})" for piece in translated)
    if line:
        body = f"^(?:{body})$"
    elif word == "grep":  # an invalid byte is not a word character
        body = f"(?<!\\w)(?:{body})(?!\\w)"
    elif word == "rg":  # ripgrep wants a character that is not a word character (or the line's end)
        other = "[^\\w\\n\\udc80-\\udcff]"
        body = f"(?:^|(?<={other}))(?:{body})(?:$|(?={other}))"
    try:
        return re.compile(body, re.MULTILINE | (re.IGNORECASE if ignore_case else 0))
    except (re.error, RecursionError, OverflowError) as error:
        raise Unsupported(f"a pattern Python's re reads differently ({error})") from None


# -- ripgrep ----------------------------------------------------------------------------------------

_RG_SHORT = "e:FiSswxvcnNlHIA:B:C:m:j:uq"
_RG_LONG = [
    "regexp=", "fixed-strings", "ignore-case", "smart-case", "case-sensitive", "word-regexp",
    "line-regexp", "invert-match", "count", "line-number", "no-line-number", "files-with-matches",
    "with-filename", "no-filename", "after-context=", "before-context=", "context=", "max-count=",
    "threads=", "color=", "no-heading", "hidden", "no-ignore", "quiet",
]  # fmt: skip


def rg(io: Io, args: list[str]) -> Chunks:
    found, operands = options("rg", args, _RG_SHORT, _RG_LONG)
    patterns: list[str] = []
    fixed, case, word, line = False, "sensitive", False, False
    threads = 0
    search = Search(re.compile(""))
    valued = [option.lstrip("-")[0] for option, value in found if value and option not in ("-e", "--regexp")]
    if len(valued) != len(set(valued)):
        raise Unsupported("rg with an option given twice (ripgrep 13 refuses some)")
    for option, value in found:
        name = option.lstrip("-")
        if name in ("e", "regexp"):
            patterns.append(value)
        elif name in ("F", "fixed-strings"):
            fixed = True
        elif name in ("i", "ignore-case"):
            case = "insensitive"
        elif name in ("S", "smart-case"):
            case = "smart"
        elif name in ("s", "case-sensitive"):
            case = "sensitive"
        elif name in ("w", "word-regexp", "x", "line-regexp"):
            word, line = name[0] == "w", name[0] == "x"  # ripgrep keeps the last of the two
        elif name in ("N", "no-line-number"):
            search.line_numbers = False
        elif name == "color":
            if value not in ("never", "auto"):
                raise Unsupported(f"rg --color={value}")
        elif name in ("A", "after-context", "B", "before-context", "C", "context"):
            # ripgrep 13: -C replaces -A and -B given before it, and -A or -B replaces an earlier -C
            number = _number("rg", value)
            if name in ("C", "context"):
                search.context, search.after, search.before = number, -1, -1
            else:
                if search.context >= 0:
                    search.after = search.before = 0
                    search.context = -1
                setattr(search, "after" if name[0] == "A" else "before", number)
        elif name in ("j", "threads"):
            threads = _number("rg", value)
        elif name in ("no-heading", "hidden", "no-ignore", "u"):
            pass  # no effect on named files
        else:
            _common_option(search, name, value, "rg")
    if search.list_non_matching:
        raise Unsupported("rg --files-without-match")
    search.list_matching = search.list_matching and not search.count  # ripgrep: -c wins over -l
    if not patterns:
        if not operands:
            raise Unsupported("rg without a pattern")
        patterns.append(operands.pop(0))
    translated, uppercase = [], False
    for pattern in patterns:
        for piece in pattern.split("\n"):
            if fixed:
                translated.append(re.escape(piece))
                uppercase = uppercase or any(char.isupper() for char in piece)
            else:
                text, upper = regex.rust(piece)
                translated.append(text)
                uppercase = uppercase or upper
    ignore_case = case == "insensitive" or (case == "smart" and not uppercase)
    search.pattern = _compile(translated, ignore_case, "rg" if word else "", line)
    if not operands and io.stdin_is_unknown():
        raise Unsupported("rg without a path searches the working directory recursively")
    if search.max_count == 0:
        return _nothing(io)
    return _run(io, _Ripgrep(threads == 1 and len(operands) > 1), search, operands or ["-"])


# -- the search ---------------------------------------------------------------------------------


def _run(io: Io, flavor: _Flavor, search: Search, operands: list[str]) -> Chunks:
    search.after = search.context if search.after < 0 else search.after
    search.before = search.context if search.before < 0 else search.before
    with_names = search.with_names
    if with_names is None:
        with_names = flavor.names_files(operands)
    found_any = errors = used = False
    for name in operands:
        shown = flavor.stdin_name if name == "-" else name
        try:
            with reading(io, name) as source:
                prefix = _encoded(shown) if with_names else b""
                state = _FileState(search, prefix, flavor.context_enabled(search), flavor.switches_to_binary(search))
                state.used = used  # a group separator also comes between files
                yield from _search_file(source, state, flavor)
                used = state.used
        except ReadError as error:
            if flavor.program == "rg":
                raise Unsupported("rg on a directory searches it recursively") from None
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
        if state.binary:
            io.error(f"{shown}: binary file matches")
        found_any = found_any or (hit if not search.list_non_matching else not hit)
        if found_any and search.quiet:
            break
    io.status = 0 if found_any and (search.quiet or not errors) else 2 if errors else 1


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _batches(chunks: Chunks) -> Iterator[bytes]:
    """Whole lines, about BATCH_BYTES at a time (a longer line whole)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        if len(pending) >= BATCH_BYTES:
            cut = pending.rfind(b"\n") + 1
            if cut:
                yield pending[:cut]
                pending = pending[cut:]
    if pending:
        # A last line without a newline is a buffer of its own (grep reads it after the others).
        cut = pending.rfind(b"\n") + 1 if not pending.endswith(b"\n") else 0
        if cut:
            yield pending[:cut]
        yield pending[cut:]


def _search_file(source: Source, state: _FileState, flavor: _Flavor) -> Chunks:
    search = state.search
    stops_at_first = search.quiet or search.list_matching or search.list_non_matching or search.null_output
    prints_lines = not (search.count or stops_at_first)
    left = 1 if stops_at_first else search.max_count
    base = 0
    for batch in _batches(source.chunks()):
        if b"\0" in batch:
            raise Unsupported(f"{flavor.program} on a file with NUL bytes (binary)")
        lines = batch.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        out: list[bytes] = []
        selected = list(_selected_indexes(search, batch.decode("utf-8", "surrogateescape"), len(lines)))
        position = 0
        while position < len(selected):
            index = selected[position]
            number = base + index + 1
            if left <= 0:  # -m reached: only trailing context is still owed
                if prints_lines:
                    _flush_after(state, lines, base, number - 1, out)
                if state.pending_after > 0 and state.next_unprinted == number:
                    # the trailing context goes on over selected lines: grep shows them as context
                    _emit(state, lines[index], number, b":" if flavor.program == "rg" else b"-", out)
                    state.pending_after -= 1
                    position += 1
                    continue
                yield b"".join(out)
                return
            # grep prints a stretch of consecutive non-matching lines (-v) as one group
            run = 1
            while search.invert and run < left and selected[position + run : position + run + 1] == [index + run]:
                run += 1
            left -= run
            state.selected += run
            if prints_lines:
                _print_group(state, lines, base, number, number + run - 1, out)
            position += run
        if prints_lines:
            _flush_after(state, lines, base, base + len(lines), out)
            _next_buffer(state, base + len(lines))
            state.lines_before = {
                number: _line(state, lines, base, number) for number in range(state.buffer_start, base + len(lines) + 1)
            }
        yield b"".join(out)
        base += len(lines)
        if left <= 0 and (not prints_lines or state.pending_after == 0):
            return


def _selected_indexes(search: Search, text: str, count: int) -> Iterator[int]:
    """Indexes of the batch's lines that are selected (matching, or not with ``-v``)."""
    matching = []
    position, line = 0, 0
    while True:
        match = search.pattern.search(text, position)
        if match is None:
            break
        line += text.count("\n", position, match.start())
        if line >= count:
            break
        matching.append(line)
        newline = text.find("\n", match.start())
        if newline < 0:
            break
        position, line = newline + 1, line + 1
    if not search.invert:
        yield from matching
        return
    skip = set(matching)
    yield from (index for index in range(count) if index not in skip)


def _next_buffer(state: _FileState, end: int) -> None:
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


def _line(state: _FileState, lines: list[bytes], base: int, number: int) -> bytes:
    return lines[number - base - 1] if number > base else state.lines_before[number]


def _emit(state: _FileState, line: bytes, number: int, separator: bytes, out: list[bytes]) -> None:
    """Write one line with its prefixes. grep skips a line that is not UTF-8 (and says so at the end)."""
    if state.switches_to_binary and not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            state.binary = True
            return
    prefix = state.prefix + separator if state.prefix else b""
    if state.search.line_numbers:
        prefix += b"%d" % number + separator
    out.append(prefix + line + b"\n")
    state.next_unprinted = number + 1


def _flush_after(state: _FileState, lines: list[bytes], base: int, until: int, out: list[bytes]) -> None:
    """Trailing context owed after the last printed line, up to line ``until``."""
    if state.pending_after > 0 and state.next_unprinted is None:
        state.next_unprinted = state.buffer_start
    while state.pending_after > 0 and state.next_unprinted is not None and state.next_unprinted <= until:
        number = state.next_unprinted
        state.pending_after -= 1
        _emit(state, _line(state, lines, base, number), number, b"-", out)


def _print_group(state: _FileState, lines: list[bytes], base: int, first: int, last: int, out: list[bytes]) -> None:
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
