"""GNU sed 4.9 for the scripts agents read files with: ``p``, ``d``, ``q``, ``=`` under addresses.

Addresses: ``N``, ``$``, ``first~step``, ``/regex/`` (``I``), ranges ``A,B`` / ``A,$`` / ``A,+N`` /
``A,/regex/``, each maybe negated with ``!``. ``s``, blocks and everything else are Unsupported.

When every address is a fixed line number (``$`` counts when the input is one regular file, whose
line count the index gives), which lines each command selects is known up front: the input is cut
into runs of lines that all get the same commands, and a run that prints each line once is copied
as a byte range (``sed -n '2000000,2000200p' big.log`` reads about 200 lines past the index), a run
that prints nothing is skipped. Other scripts run line by line, as sed does.

sed's stdout is a stdio buffer (4096 bytes on a pipe) that its error messages do not flush, so with
``2>&1`` a ``can't read`` message comes before the lines already buffered; the output is emitted in
4096-byte blocks to keep that order.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from agentpager.engine.linestream import LINE_LIMIT, LongLine
from agentpager.engine.patterns import Matcher
from agentpager.tools.shell import lines, regex
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, FileBytes, Io, ReadError, options, reading, strerror
from agentpager.tools.shell.lines import Line, ends_line, written

STDIO_BUFFER = 4096
INFINITY = float("inf")


@dataclass
class Current:
    """The line a cycle works on; for a long line, what each pattern found in it as it streamed."""

    line: Line
    found: dict[int, bool] = field(default_factory=dict)
    """By ``id`` of the matcher."""

    def matches(self, pattern: Matcher) -> bool:
        if isinstance(self.line, LongLine):
            return self.found[id(pattern)]
        return bool(pattern.matching_lines(self.line.removesuffix(b"\n")))


@dataclass(frozen=True)
class Address:
    kind: Literal["line", "last", "step", "plus", "regex"]
    line: int = 0
    step: int = 0
    pattern: Matcher | None = None

    def matches(self, number: int, is_last: bool, line: Current) -> bool:
        if self.kind == "last":
            return is_last
        if self.pattern is not None:
            return line.matches(self.pattern)
        if self.kind == "step":
            if self.step <= 0:
                return number == self.line
            return number >= self.line and (number - self.line) % self.step == 0
        return number == self.line


@dataclass(eq=False)
class SedCommand:
    name: str
    first: Address | None = None
    second: Address | None = None
    negate: bool = False
    exit_code: int = 0
    active: bool = False
    """Inside its range (sed keeps this state per command)."""
    closed: bool = False
    """A range from a line number that has started: it never starts again."""
    end: int = 0

    def selects(self, number: int, is_last: bool, line: Current) -> bool:
        """Whether this command runs on ``line`` (number ``number``), updating the range state as sed does."""
        if self.first is None:
            selected = True
        elif self.second is None:
            selected = self.first.matches(number, is_last, line)
        elif self.active:
            selected = True
            if self.second.kind in ("last", "regex"):
                self.active = not self.second.matches(number, is_last, line)
            else:  # a range whose end was passed on a line sed did not test (after a d) is over
                selected = number <= self.end
                self.active = number < self.end
        elif self._starts(number, is_last, line):
            selected = True
            if self.second.kind == "last":
                self.active = not is_last
            elif self.second.kind == "regex":
                self.active = True  # the end is looked for from the next line on
            else:
                self.end = number + self.second.line if self.second.kind == "plus" else self.second.line
                self.active = number < self.end
        else:
            selected = False
        return selected != self.negate

    def _starts(self, number: int, is_last: bool, line: Current) -> bool:
        """Whether the range starts here. A line-number start that a ``d`` kept sed from testing
        still starts it on a later line, unless its numeric end is already behind; it starts once."""
        if self.first is None or self.second is None or self.first.kind != "line":
            return self.first is not None and self.first.matches(number, is_last, line)
        if self.closed or number < self.first.line:
            return False
        self.closed = True
        return not (number > self.first.line and self.second.kind == "line" and self.second.line < number)

    def static_lines(self, total: float) -> list[tuple[float, float]]:
        """The line intervals ``[a, b)`` this command selects, when addresses are fixed numbers."""
        if self.first is None:
            spans = [(1.0, INFINITY)]
        else:
            start = total if self.first.kind == "last" else self.first.line
            if self.second is None:
                spans = [(start, start + 1)]
            elif self.second.kind == "last":
                spans = [(start, INFINITY)]
            else:
                end = start + self.second.line if self.second.kind == "plus" else self.second.line
                spans = [(start, max(start, end) + 1)]
        if not self.negate:
            return spans
        (start, end) = spans[0]
        return [(1.0, start), (end, INFINITY)]


_REGEX = r"/(?:[^/\\\n]|\\[^\n])+/I?"
_COMMAND = re.compile(
    r"""\s*(?:(?P<first>\d+(?:~\d+)?|\$|"""
    + _REGEX
    + r""")\s*
        (?:,\s*(?P<second>\d+|\$|\+\d+|~\d+|"""
    + _REGEX
    + r"""))?)?\s*(?P<bang>!*)\s*
        (?P<name>[pdq=])(?P<code>\d*)\s*(?:;|\n|$)""",
    re.VERBOSE,
)


def parse_script(text: str, extended: bool = False) -> list[SedCommand]:
    commands = []
    position = 0
    while position < len(text):
        if text[position] in " \t\n;":
            position += 1
            continue
        match = _COMMAND.match(text, position)
        if match is None:
            raise Unsupported(f"the sed script {text!r}")
        if match["code"] and match["name"] != "q":
            raise Unsupported(f"the sed script {text!r}")
        first = _address(match["first"], extended) if match["first"] else None
        second = _address(match["second"], extended) if match["second"] else None
        if second is not None and second.kind == "step":
            raise Unsupported("sed addr1,~N")
        if match["name"] == "q" and second is not None:
            raise Unsupported("sed q with two addresses (sed refuses it)")
        if len(match["bang"]) > 1 or (first is not None and first.kind == "line" and first.line == 0):
            raise Unsupported(f"the sed script {text!r}")
        code = int(match["code"] or 0)
        commands.append(SedCommand(match["name"], first, second, bool(match["bang"]), code))
        position = match.end()
    return commands


def _address(text: str, extended: bool) -> Address:
    if text.startswith("/"):
        ignore_case = text.endswith("I")
        body = text[1 : -2 if ignore_case else -1]
        return Address("regex", pattern=regex.compile_lines([regex.posix(body, extended)], ignore_case))
    if text == "$":
        return Address("last")
    if text.startswith("+"):
        return Address("plus", int(text[1:]))
    if "~" in text:
        first, step = text.split("~")
        return Address("step", int(first), int(step))
    return Address("line", int(text))


def sed(io: Io, args: list[str]) -> Chunks:
    found, operands = options(
        "sed", args, "ne:sEru", ["quiet", "silent", "expression=", "separate", "regexp-extended", "unbuffered"]
    )
    quiet = separate = unbuffered = extended = False
    scripts = []
    for option, value in found:
        if option in ("-n", "--quiet", "--silent"):
            quiet = True
        elif option in ("-e", "--expression"):
            scripts.append(value)
        elif option in ("-s", "--separate"):
            separate = True
        elif option in ("-u", "--unbuffered"):
            unbuffered = True
        elif option in ("-E", "-r", "--regexp-extended"):
            extended = True
    if not scripts:
        if not operands:
            raise Unsupported("sed without a script")
        scripts.append(operands.pop(0))
    commands = parse_script("\n".join(scripts), extended)
    run = _Sed(io, commands, quiet)
    output = run.files(operands or ["-"], separate)
    return output if unbuffered else _stdio_blocks(output)


def _stdio_blocks(chunks: Chunks) -> Chunks:
    """The output as a full stdio buffer writes it: whole 4096-byte blocks, the rest at exit."""
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        if len(pending) >= STDIO_BUFFER:
            cut = len(pending) - len(pending) % STDIO_BUFFER
            yield bytes(pending[:cut])
            del pending[:cut]
    if pending:
        yield bytes(pending)


class _Quit(Exception):
    """``q`` ran, or a read error ended sed."""


class _Sed:
    def __init__(self, io: Io, commands: list[SedCommand], quiet: bool) -> None:
        self.io = io
        self.commands = commands
        self.quiet = quiet
        self.missing_newline = False
        """The last line written had no newline: sed writes one before anything else."""

    def files(self, names: list[str], separate: bool) -> Chunks:
        with contextlib.ExitStack() as matchers:
            for matcher in self._matchers():
                matchers.enter_context(matcher)  # one may own a child process
            yield from self._files(names, separate)

    def _matchers(self) -> list[Matcher]:
        return [address.pattern for _, address in self._addresses() if address.pattern is not None]

    def _files(self, names: list[str], separate: bool) -> Chunks:
        try:
            if separate or len(names) == 1:
                for name in names:
                    yield from self._each_file(name)
                    for command in self.commands:
                        command.active = command.closed = False
            else:
                yield from self._by_line(self._concatenated(names))
        except _Quit:
            return

    def _each_file(self, name: str) -> Chunks:
        try:
            with reading(self.io, name) as source:
                if not self._is_static(source.file is not None):
                    yield from self._by_line(lines.each_line(source.chunks(), source.reread()))
                elif source.file is not None:
                    total = source.file.line_count() if self._uses_last() else INFINITY
                    yield from self._by_runs(_FileLines(source.file), total)
                else:
                    yield from self._by_runs(_StreamLines(source.chunks()), INFINITY)
        except ReadError as error:
            self._read_error(name, error)
        except OSError as error:
            self._missing(name, error)

    def _concatenated(self, names: list[str]) -> Iterator[Line | None]:
        """The lines of every file in turn (a file's last line ends at its end, newline or not), then None.

        A file stays open until a line of the next one has been read (or the None that ends them):
        its last line, read ahead, may be a long line still to be written from it.
        """
        held = contextlib.ExitStack()  # the file the last line came from
        try:
            for name in names:
                current = contextlib.ExitStack()
                try:
                    source = current.enter_context(reading(self.io, name))
                    for line in lines.each_line(source.chunks(), source.reread()):
                        yield line
                        if held is not current:  # the line before this one is written by now
                            held.close()
                            held = current
                except ReadError as error:
                    current.close()
                    self._read_error(name, error)
                except OSError as error:
                    current.close()
                    self._missing(name, error)
                    continue
                if held is not current:
                    current.close()
            yield None  # the last line is written while its file is open
        finally:
            held.close()

    def _missing(self, name: str, error: OSError) -> None:
        self.io.error(f"can't read {name}: {strerror(error)}")
        self.io.status = 2

    def _read_error(self, name: str, error: OSError) -> None:
        self.io.error(f"read error on {name}: {strerror(error)}")
        self.io.status = 4
        raise _Quit()

    def _addresses(self) -> Iterator[tuple[SedCommand, Address]]:
        for command in self.commands:
            for address in (command.first, command.second):
                if address is not None:
                    yield command, address

    def _uses_last(self) -> bool:
        return any(address.kind == "last" for _, address in self._addresses())

    def _is_static(self, has_total: bool) -> bool:
        """Whether every address is a fixed line number (``$`` too when the line count is known)."""
        deletes = any(command.name == "d" for command in self.commands)
        for command, address in self._addresses():
            if address.kind in ("step", "regex") or (address.kind == "plus" and deletes):
                return False  # a d can move where an A,+N range starts
            if address.kind == "last" and address is command.first and not has_total:
                return False
        return True

    # -- line by line ---------------------------------------------------------------------------

    def _by_line(self, each_line: Iterator[Line | None]) -> Chunks:
        """Each line's cycle, one line read ahead (for ``$``); a None ends the lines."""
        pending: Current | None = None
        number = 1
        matchers = self._matchers()
        for line in each_line:
            if line is None:
                break
            current = Current(line)
            if isinstance(line, LongLine):  # searched now: it is read only once from a pipe
                current.found = dict(zip(map(id, matchers), line.search(matchers), strict=True))
                line.read_through()
            if pending is not None:
                yield from self._cycle(pending, number, False, None)
                number += 1
            pending = current
        if pending is not None:
            yield from self._cycle(pending, number, True, None)

    def _cycle(self, current: Current, number: int, is_last: bool, chosen: list[SedCommand] | None) -> Chunks:
        """What one cycle of the script writes for ``line``; then _Quit if it ran ``q``.

        ``chosen`` are the commands that run on this line when they are known in advance; otherwise
        each command's address is tested as sed reaches it (a range not reached keeps its state).
        """
        line = current.line
        out: list[Line] = []
        for command in self.commands:
            if not (command in chosen if chosen is not None else command.selects(number, is_last, current)):
                continue
            if command.name == "p":
                self._write(out, line)
            elif command.name == "=":
                self._write(out, b"%d\n" % number)
            elif command.name == "d":
                yield from written(out)
                return
            else:
                if not self.quiet:
                    self._write(out, line)
                if self.missing_newline:  # sed ends what it wrote with a newline when it quits
                    out.append(b"\n")
                if self.io.status != 2:  # a file sed could not read decides the status
                    self.io.status = command.exit_code
                yield from written(out)
                raise _Quit()
        if not self.quiet:
            self._write(out, line)
        yield from written(out)

    def _write(self, out: list[Line], text: Line) -> None:
        if self.missing_newline:
            out.append(b"\n")
        out.append(text)
        if isinstance(text, LongLine) and text.newline:  # read through already
            out.append(b"\n")
        self.missing_newline = not ends_line(text)

    # -- by runs of lines -----------------------------------------------------------------------

    def _by_runs(self, source: _FileLines | _StreamLines, total: float) -> Chunks:
        spans = [command.static_lines(total) for command in self.commands]
        edges = sorted({edge for each in spans for span in each for edge in span} | {1.0, INFINITY})
        number = 1
        while not source.at_end():
            until = next(edge for edge in edges if edge > number)
            chosen = [
                command
                for command, each in zip(self.commands, spans, strict=True)
                if any(start <= number < end for start, end in each)
            ]
            copies = self._copies(chosen)
            if copies is None:
                for line in source.take_lines(until - number):
                    yield from self._cycle(Current(line), number, number == total, chosen)
                    number += 1
            elif copies:
                yield from self._copied(source.copy(until - number))
            else:
                source.skip(until - number)
            if until == INFINITY:
                return
            number = int(until)

    def _copies(self, chosen: list[SedCommand]) -> bool | None:
        """Whether each line of a run is written once (True) or not at all (False); None otherwise."""
        writes = 0
        for command in chosen:
            if command.name in "q=":
                return None
            if command.name == "d":
                return bool(writes) if writes < 2 else None
            writes += 1
        writes += not self.quiet
        return bool(writes) if writes < 2 else None

    def _copied(self, chunks: Chunks) -> Chunks:
        last = b""
        for chunk in chunks:
            if not last and self.missing_newline:
                yield b"\n"
            yield chunk
            last = chunk
        if last:
            self.missing_newline = not last.endswith(b"\n")


class _FileLines:
    """A regular file's lines from a position on, skipped and copied through the line index."""

    def __init__(self, file: FileBytes) -> None:
        self.file = file
        self.line = 1
        self.position = 0

    def at_end(self) -> bool:
        return self.position >= self.file.size

    def _end_of(self, count: float) -> int:
        if count == INFINITY:
            return self.file.size
        return self.file.line_start(self.line + int(count))

    def copy(self, count: float) -> Chunks:
        start, self.position = self.position, self._end_of(count)
        self.line += int(count) if count != INFINITY else 0
        return self.file.chunks(start, self.position)

    def skip(self, count: float) -> None:
        self.position = self._end_of(count)
        self.line += int(count) if count != INFINITY else 0

    def take_lines(self, count: float) -> Iterator[Line]:
        end = self._end_of(count)
        for line in lines.each_line(self.file.chunks(self.position, end), self.file.chunks, self.position):
            if isinstance(line, LongLine):
                line.read_through()
            self.position += lines.length(line)
            self.line += 1
            yield line


class _StreamLines:
    """A pipe's lines, skipped and copied a chunk at a time."""

    def __init__(self, chunks: Chunks) -> None:
        self.chunks = chunks
        self.buffer = b""

    def _fill(self) -> bool:
        while not self.buffer:
            chunk = next(self.chunks, None)
            if chunk is None:
                return False
            self.buffer = chunk
        return True

    def at_end(self) -> bool:
        return not self._fill()

    def copy(self, count: float) -> Chunks:
        remaining = count
        while remaining > 0 and self._fill():
            newlines = self.buffer.count(b"\n")
            if newlines < remaining:
                remaining -= newlines
                chunk, self.buffer = self.buffer, b""
            else:
                cut = lines.after_newline(self.buffer, int(remaining))
                chunk, self.buffer = self.buffer[:cut], self.buffer[cut:]
                remaining = 0
            yield chunk

    def skip(self, count: float) -> None:
        for _ in self.copy(count):
            pass

    def take_lines(self, count: float) -> Iterator[bytes]:
        """Whole lines (held: Unsupported past LINE_LIMIT bytes)."""
        taken = 0
        while taken < count and self._fill():
            pieces, size = [], 0
            while self._fill():
                cut = self.buffer.find(b"\n")
                if cut >= 0:
                    pieces.append(self.buffer[: cut + 1])
                    self.buffer = self.buffer[cut + 1 :]
                    break
                pieces.append(self.buffer)
                size += len(self.buffer)
                self.buffer = b""
                if size > LINE_LIMIT:
                    raise Unsupported("sed: a line over 4 MiB from a pipe, with q or = or printed twice")
            taken += 1
            yield b"".join(pieces)
