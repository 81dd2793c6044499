r"""Regexes and globs that always answer: ``re``'s meaning, matched in linear time by RE2.

Python's ``re`` backtracks, and holds the GIL while it does: ``(a+)+$`` over a 41-character name
never finishes, and every other thread (an MCP server's next request, the TUI's Escape key) waits.
Here a pattern is parsed by ``re``'s own parser (so it is valid exactly when ``re`` says so, with
its message) and written out in RE2's syntax construct by construct, where the two engines agree:

- for any text: literals, classes of literals and ranges, ``.``, groups, alternation, repeats,
  anchors; ``\d``, ``\s``, ``\w`` and ``\b`` under the ASCII flag; ignoring case, the same sets of
  characters (a character no case mapping touches compares as itself; for the 3,000 others ``re``
  itself says which a set holds);
- for ASCII text (almost every file name, most lines of code), everything else that is regular:
  each set of characters becomes the ASCII characters ``re`` itself says it holds.

What is left (backreferences, lookaround, atomic groups, possessive repeats, a text with lone
surrogates, and Unicode classes in non-ASCII text) runs in ``re`` in a child process
(``regex_child``), killed when it takes longer than a time limit or the caller cancels.

Lines of bytes (the shell programs' input) are matched as ``re`` matches their ``surrogateescape``
decoding: RE2 runs on the lines that are UTF-8, the child on the others; a line too long to hold
is matched a window at a time (``LineSearch``) or streamed to the child.
"""

from __future__ import annotations

import codecs
import fnmatch
import functools
import os
import re
import select
import struct
import subprocess
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentpager.engine.lineindex import Cancelled

MAX_PATTERN_CHARS = 1000
"""Longer patterns are refused: a glob of 40,000 ``[`` took 46 s to translate."""
SECONDS_ENV = "AGENTPAGER_REGEX_SECONDS"
DEFAULT_SECONDS = 5.0
"""How long ``re`` in the child may take over one request (a listing, or one block of a file)."""
CHILD_MEMORY = 1 << 30

# Private modules of ``re``, on purpose: a pattern must mean what ``re`` makes of it (the tools'
# ``re.search`` and ``fnmatch`` semantics), so it is parsed by ``re``'s own parser and its tree is
# translated for RE2. No public API gives the tree, and a second parser of ``re``'s syntax would
# mean something else at its edges. Python 3.11 renamed ``sre_parse`` to ``re._parser``; the tree's
# shape has held since 3.7, and ``tests/test_patterns.py`` checks generated patterns against ``re``
# and ``fnmatch`` themselves (hypothesis), so a change of it fails there first.
_c: Any = re._constants  # type: ignore[attr-defined]
_parser: Any = re._parser  # type: ignore[attr-defined]
_RE2_MAX_REPEAT = 1000
_CATEGORIES = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}
_NEGATED_CATEGORIES = {_c.CATEGORY_NOT_DIGIT, _c.CATEGORY_NOT_SPACE, _c.CATEGORY_NOT_WORD}
_LAST_CHARACTER = 0x10FFFF


class PatternError(ValueError):
    """A pattern that cannot be used; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PatternTooLong(PatternError):
    pass


class InvalidPattern(PatternError):
    """``re`` refuses the pattern; ``message`` is the text of its ``re.error``."""


class PatternTooCostly(PatternError):
    """Matching took longer, or more memory, than the child is allowed."""


def _check_length(pattern: str) -> None:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternTooLong(f"Pattern is too long: {len(pattern):,} characters (at most {MAX_PATTERN_CHARS:,}).")


def time_limit() -> float:
    """``$AGENTPAGER_REGEX_SECONDS`` when it is a positive number, else DEFAULT_SECONDS."""
    try:
        seconds = float(os.environ.get(SECONDS_ENV, ""))
    except ValueError:
        return DEFAULT_SECONDS
    return seconds if 0 < seconds < float("inf") else DEFAULT_SECONDS


# -- re's parse tree in RE2's syntax ----------------------------------------------------------------


class _Untranslatable(Exception):
    """A construct RE2 cannot run with ``re``'s meaning."""


_LAST_CASED = 0x1FFFF
"""No character after this has a case mapping (Unicode 15: the last is U+1E943; a test checks)."""


@functools.cache
def _case_touched() -> list[tuple[int, int]]:
    """The characters ignoring case can matter for: those ``re`` calls cased (their lower or upper
    case is another character) and what they map to. For any other character ``re`` compares the
    character itself, with or without IGNORECASE. About 3,000 characters, found in 30 ms."""
    import _sre  # type: ignore[import-not-found]

    touched: set[int] = set()
    for code in range(_LAST_CASED + 1):
        if _sre.unicode_iscased(code):
            upper = chr(code).upper()
            touched.update((code, _sre.unicode_tolower(code), *([ord(upper)] if len(upper) == 1 else [])))
    return _ranges_of(touched)


@functools.cache
def _case_untouched() -> list[tuple[int, int]]:
    """The characters ignoring case leaves alone (``_case_touched``'s complement), merged once: each
    set of characters ignoring case is cut by it."""
    return _complement(_case_touched())


@functools.lru_cache(maxsize=1024)
def _ignoring_case(source: str, ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The characters ``re`` source for one character ignoring case matches, given the ``ranges`` it
    matches when case counts: those ranges for a character no case mapping touches, ``re``'s own
    answer for each of the others (a thousand ignore-file rules ask for the same few sets)."""
    compiled = re.compile(source)
    touched = (code for low, high in _case_touched() for code in range(low, high + 1) if compiled.fullmatch(chr(code)))
    return tuple(_merged(_intersection(list(ranges), _case_untouched()) + _ranges_of(touched)))


_ASCII_CASE_PARTNERS = (0x130, 0x131, 0x17F, 0x212A)
"""The characters beyond ASCII that ``re`` matches to an ASCII letter when ignoring case (İ ı ſ K)."""


def _python_characters(op: Any, av: Any, ascii_text: bool) -> str:
    """``re`` source for one character-set node of the parse tree (flags left out).

    ``ascii_text``: only its ASCII members matter, so ranges are cut to ASCII (and the characters
    that case-fold into it): compiling ``[\x00-\U0010ffff]`` ignoring case takes 16 ms.
    """
    if op is _c.LITERAL:
        return f"\\U{av:08x}"
    if op is _c.NOT_LITERAL:
        return f"[^\\U{av:08x}]"
    if op is _c.ANY:
        return "."
    parts = []
    for kind, value in av:
        if kind is _c.NEGATE:
            parts.append("^")
        elif kind is _c.LITERAL:
            parts.append(f"\\U{value:08x}")
        elif kind is _c.RANGE:
            low, high = value
            if ascii_text and high > 127:
                parts += [f"\\U{code:08x}" for code in _ASCII_CASE_PARTNERS if low <= code <= high]
                high = 127
            if low <= high:
                parts.append(f"\\U{low:08x}-\\U{high:08x}")
        elif kind is _c.CATEGORY and value in _CATEGORIES:
            parts.append(_CATEGORIES[value])
        else:
            raise _Untranslatable(kind)
    if parts in ([], ["^"]):  # every range was beyond ASCII: a character that is never in ASCII text
        parts.append("\\U0010ffff")
    return "[" + "".join(parts) + "]"


@functools.lru_cache(maxsize=1024)
def _ascii_members(source: str) -> tuple[int, ...]:
    """The ASCII characters that ``re`` source for one character matches, as ``re`` decides."""
    compiled = re.compile(source)
    return tuple(code for code in range(128) if compiled.fullmatch(chr(code)))


def _ranges_of(codes: Iterable[int]) -> list[tuple[int, int]]:
    return _merged([(code, code) for code in codes])


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and merged[-1][1] + 1 >= low:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    result, next_code = [], 0
    for low, high in _merged(ranges):
        if low > next_code:
            result.append((next_code, low - 1))
        next_code = high + 1
    if next_code <= _LAST_CHARACTER:
        result.append((next_code, _LAST_CHARACTER))
    return result


def _intersection(first: list[tuple[int, int]], merged: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The code points in both (lists of ranges, the second already ``_merged``)."""
    result, a, b = [], _merged(first), merged
    i = j = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if low <= high:
            result.append((low, high))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return result


def _without_newline(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    result = []
    for low, high in ranges:
        result += [(a, b) for a, b in ((low, min(high, 9)), (max(low, 11), high)) if a <= b]
    return result


def _re2_class(ranges: list[tuple[int, int]]) -> str:
    if not ranges:
        return f"[^\\x{{0}}-\\x{{{_LAST_CHARACTER:x}}}]"  # matches nothing
    parts = (f"\\x{{{low:x}}}" if low == high else f"\\x{{{low:x}}}-\\x{{{high:x}}}" for low, high in _merged(ranges))
    return "[" + "".join(parts) + "]"


class _Emitter:
    """Writes a parse tree as RE2 source.

    ``ascii_text``: exact for ASCII text only. ``lines``: for many texts at once, each a line of one
    text (they hold no newline): no character set holds the newline, and ``\\A``, ``\\Z``, ``^`` and
    ``$`` mean the start and end of a line.
    """

    def __init__(self, ascii_text: bool, atomic_as_group: bool, lines: bool) -> None:
        self.ascii_text = ascii_text
        self.atomic_as_group = atomic_as_group
        self.lines = lines
        self.non_boundary = False
        """Whether ``\\B`` was written: re never matches it in an empty text, RE2 does."""

    def sequence(self, items: Sequence[tuple[Any, Any]], flags: int, tail: bool) -> str:
        """``tail``: nothing can follow these items in a match."""
        last = len(items) - 1
        return "".join(self.node(op, av, flags, tail and n == last) for n, (op, av) in enumerate(items))

    def node(self, op: Any, av: Any, flags: int, tail: bool) -> str:
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
            ranges = self.characters(op, av, flags)
            return _re2_class(_without_newline(ranges) if self.lines else ranges)
        if op is _c.BRANCH:
            return "(?:" + "|".join(self.sequence(branch, flags, tail) for branch in av[1]) + ")"
        if op is _c.SUBPATTERN:
            _, add, remove, items = av
            return "(?:" + self.sequence(items, (flags | add) & ~remove, tail) + ")"
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            return self.repeat(op, av, flags)
        if op is _c.AT:
            return self.anchor(av, flags, tail)
        if op is _c.ATOMIC_GROUP and self.atomic_as_group:
            return "(?:" + self.sequence(av, flags, tail) + ")"
        raise _Untranslatable(op)

    def repeat(self, op: Any, av: Any, flags: int) -> str:
        low, high, items = av
        unbounded = high == _c.MAXREPEAT
        if low > _RE2_MAX_REPEAT or (not unbounded and high > _RE2_MAX_REPEAT):
            raise _Untranslatable(op)
        if unbounded:
            count = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        elif low == high:
            count = f"{{{low}}}"
        else:
            count = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
        lazy = "?" if op is _c.MIN_REPEAT else ""
        return "(?:" + self.sequence(items, flags, False) + ")" + count + lazy

    def anchor(self, at: Any, flags: int, tail: bool) -> str:
        multiline = bool(flags & _c.SRE_FLAG_MULTILINE)
        if self.lines and at in (_c.AT_BEGINNING_STRING, _c.AT_BEGINNING):
            return "(?m:^)"
        if self.lines and at in (_c.AT_END_STRING, _c.AT_END):
            return "(?m:$)"
        if at is _c.AT_BEGINNING_STRING or (at is _c.AT_BEGINNING and not multiline):
            return r"\A"
        if at is _c.AT_BEGINNING:
            return "(?m:^)"
        if at is _c.AT_END_STRING:
            return r"\z"
        if at is _c.AT_END and multiline:
            return "(?m:$)"
        if at is _c.AT_END and tail:
            # re's $: the end, or before a newline that ends the text. RE2 has no lookahead, but
            # at the end of the pattern consuming that newline changes no match's start.
            return r"(?:\n?\z)"
        if at in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY) and (self.ascii_text or flags & _c.SRE_FLAG_ASCII):
            self.non_boundary |= at is _c.AT_NON_BOUNDARY
            return r"\b" if at is _c.AT_BOUNDARY else r"\B"  # RE2's word characters are ASCII's
        raise _Untranslatable(at)

    def characters(self, op: Any, av: Any, flags: int) -> list[tuple[int, int]]:
        """The code point ranges one character-set node matches, as ``re`` means it."""
        source = _python_characters(op, av, self.ascii_text)
        letters = "".join(
            letter
            for letter, flag in (("i", _c.SRE_FLAG_IGNORECASE), ("s", _c.SRE_FLAG_DOTALL), ("a", _c.SRE_FLAG_ASCII))
            if flags & flag
        )
        python = f"(?{letters}:{source})" if letters else source
        if self.ascii_text:
            return _ranges_of(_ascii_members(python))
        ignore_case = bool(flags & _c.SRE_FLAG_IGNORECASE)
        if op is _c.ANY:
            return [(0, _LAST_CHARACTER)] if flags & _c.SRE_FLAG_DOTALL else [(0, 9), (11, _LAST_CHARACTER)]
        if op is _c.IN:
            negate = bool(av) and av[0][0] is _c.NEGATE
            items = av[1:] if negate else av
        else:
            negate, items = op is _c.NOT_LITERAL, [(_c.LITERAL, av)]
        ranges: list[tuple[int, int]] = []
        for kind, value in items:
            if kind is _c.LITERAL:
                ranges.append((value, value))
            elif kind is _c.RANGE:
                ranges.append(value)
            elif kind is _c.CATEGORY and flags & _c.SRE_FLAG_ASCII:
                # Under the ASCII flag a category holds ASCII characters only, its negation all the rest.
                ranges += _ranges_of(_ascii_members(f"(?a:{_CATEGORIES[value]})"))
                if value in _NEGATED_CATEGORIES:
                    ranges.append((128, _LAST_CHARACTER))
            else:
                raise _Untranslatable(kind)
        ranges = _complement(ranges) if negate else ranges
        if not ignore_case:
            return ranges
        python = f"(?i{'a' if flags & _c.SRE_FLAG_ASCII else ''}:{_python_characters(op, av, False)})"
        return list(_ignoring_case(python, tuple(ranges)))


@functools.cache
def _re2() -> Any:
    import re2

    return re2


def _re2_compile(source: str) -> Any:
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False  # RE2 logs to stderr, which would paint over a TUI
    try:
        return re2.compile(source, options)
    except re2.error:
        return None


@dataclass(frozen=True)
class _Translation:
    regex: Any
    """The compiled RE2 regex."""
    empty_text_differs: bool
    """Whether an empty text must be left to re (``\\B``)."""


def _translated(
    tree: Any, prefix: str, ascii_text: bool, lines: bool, atomic_as_group: bool = False
) -> _Translation | None:
    """The RE2 regex for ``tree`` (after ``prefix``), or None when a construct has no exact translation."""
    emitter = _Emitter(ascii_text, atomic_as_group, lines)
    try:
        source = emitter.sequence(tree, tree.state.flags, True)
    except (_Untranslatable, KeyError, TypeError, ValueError, RecursionError):
        return None
    if lines and prefix:
        prefix = "(?m:^)"  # a glob's \A
    regex = _re2_compile(prefix + source)
    return None if regex is None else _Translation(regex, emitter.non_boundary)


# -- re in a child process ------------------------------------------------------------------------


def _encoded_text(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return struct.pack("<I", len(data)) + data


class _Child:
    """``re`` in a child process, asked one request at a time, within a time limit per request."""

    def __init__(self, pattern: str, flags: int, seconds: float) -> None:
        self.pattern = pattern
        self.seconds = seconds
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-S",
                str(Path(__file__).with_name("regex_child.py")),
                str(CHILD_MEMORY),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._finalizer = weakref.finalize(self, _stop, self.process)
        with self.lock:
            self._send(struct.pack("<I", flags) + _encoded_text(pattern))
            status = self._read(1, None)
            if status == b"E":
                (length,) = struct.unpack("<I", self._read(4, None))
                message = self._read(length, None).decode("utf-8", "surrogatepass")
                self.close()
                raise InvalidPattern(message)

    def close(self) -> None:
        self._finalizer()

    def any_match(self, texts: Sequence[str], cancel: threading.Event | None) -> list[bool]:
        with self.lock:
            self._send(b"A" + struct.pack("<I", len(texts)) + b"".join(map(_encoded_text, texts)))
            return [flag == 1 for flag in self._read(len(texts), cancel)]

    def line_match(self, pieces: Iterable[bytes], cancel: threading.Event | None) -> bool:
        """Whether ``re`` matches in the line made of ``pieces`` (see ``streamed_line``)."""
        request = self.streamed_line(cancel)
        next(request)
        for piece in pieces:
            request.send(piece)
        try:
            request.send(None)
        except StopIteration as done:
            return bool(done.value)
        raise AssertionError("unreachable: the request ends with its answer")

    def streamed_line(self, cancel: threading.Event | None) -> Generator[None, bytes | None, bool]:
        """A line sent a piece at a time (raw bytes; None ends it), decoded by the child with
        ``surrogateescape`` and held there, within its memory limit, never here; returns whether
        ``re`` matches in it. The child is busy until then: close the generator to give it up."""
        with self.lock:
            try:
                self._send(b"L")
                while (piece := (yield)) is not None:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    if piece:
                        self._send(struct.pack("<I", len(piece)) + piece)
                self._send(struct.pack("<I", 0))
                return self._read(1, cancel) == b"\x01"
            except BaseException:
                self.close()  # stopped in the middle of a request
                raise

    def starts(self, text: str, cancel: threading.Event | None) -> list[int]:
        with self.lock:
            self._send(b"S" + _encoded_text(text))
            (count,) = struct.unpack("<I", self._read(4, cancel))
            return list(struct.unpack(f"<{count}Q", self._read(8 * count, cancel)))

    def _send(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
        except OSError:  # the child is gone: it ran out of memory
            raise self._failure() from None

    def _read(self, length: int, cancel: threading.Event | None) -> bytes:
        """``length`` bytes of the answer, waiting at most the time limit (and stopping on ``cancel``)."""
        stdout = self.process.stdout
        assert stdout is not None
        deadline = time.monotonic() + self.seconds
        chunks, wanted = [], length
        while wanted:
            if cancel is not None and cancel.is_set():
                self.close()
                raise Cancelled()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise PatternTooCostly(
                    f"Pattern '{self.pattern}' took longer than {self.seconds:g} s to match; use a simpler one."
                )
            ready, _, _ = select.select([stdout], [], [], min(remaining, 0.05))
            if ready:
                chunk = os.read(stdout.fileno(), wanted)
                if not chunk:
                    raise self._failure()
                chunks.append(chunk)
                wanted -= len(chunk)
        return b"".join(chunks)

    def _failure(self) -> PatternTooCostly:
        self.close()
        return PatternTooCostly(
            f"Pattern '{self.pattern}' needed more than {CHILD_MEMORY >> 20} MB to match; use a simpler one."
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()


# -- matchers -----------------------------------------------------------------------------------------


Translate = Callable[[bool, bool], "_Translation | None"]
"""A pattern's RE2 translation for (``ascii_text``, ``lines``), or None."""


class Matcher:
    """A compiled regex or glob. Use it in a ``with`` block, or ``close()`` it: it may own a child.

    Offsets are character offsets in the text given. Safe to share between threads.
    """

    def __init__(
        self,
        pattern: str,
        source: str,
        flags: int,
        translate: Translate,
        seconds: float | None,
        matches_everything: bool = False,
        max_width: int | None = None,
    ) -> None:
        self.pattern = pattern
        """The pattern as given."""
        self.source, self.flags = source, flags
        """The pattern as a regex for ``re.search`` (a glob's translation), and its flags."""
        self.matches_everything = matches_everything
        self.max_width = max_width
        """The most characters a match can span (None: no bound, or not known)."""
        self._translate = translate
        self._translations: dict[tuple[bool, bool], _Translation | None] = {}
        self._seconds = time_limit() if seconds is None else seconds
        self._child: _Child | None = None
        self._child_lock = threading.Lock()

    def __enter__(self) -> Matcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None

    def _translation(self, ascii_text: bool, lines: bool = False) -> _Translation | None:
        """The RE2 translation exact for such texts (one exact for all texts when there is one)."""
        key = (ascii_text, lines)
        if key not in self._translations:
            found = self._translate(False, lines)
            if found is None and ascii_text:
                found = self._translate(True, lines)
            self._translations[key] = found
        return self._translations[key]

    @property
    def needs_child(self) -> bool:
        """Whether even ASCII text is matched by ``re`` in the child (for lookaround, backreferences)."""
        return self._translation(True) is None

    def _regex_for(self, text: str) -> Any:
        """The RE2 regex that matches ``text`` exactly as ``re`` would, or None."""
        if text.isascii():
            found = self._translation(True)
        elif _encodable(text):
            found = self._translation(False)
        else:
            return None
        return None if found is None or (found.empty_text_differs and not text) else found.regex

    def check(self) -> None:
        """InvalidPattern for what ``re.compile`` finds after its parser (a look-behind of variable
        width): only patterns RE2 cannot run may hold that, so their child starts now, which takes a
        moment."""
        if self.needs_child:
            self.child()

    def child(self) -> _Child:
        with self._child_lock:
            if self._child is None or self._child.process.poll() is not None:
                self._child = _Child(self.source, self.flags, self._seconds)
            return self._child

    def search(self, text: str, cancel: threading.Event | None = None) -> bool:
        """Whether the pattern matches somewhere in ``text`` (``re.search``)."""
        regex = self._regex_for(text)
        if regex is not None:
            return _first_match(regex, text.encode(), 0) is not None
        return self.child().any_match([text], cancel)[0]

    def matches(self, texts: Sequence[str], cancel: threading.Event | None = None) -> list[bool]:
        """For each text, whether the pattern matches somewhere in it.

        Texts without a newline are searched as the lines of one text, one RE2 search per text
        that matches: a call per text costs more than matching it.
        """
        matched = [self.matches_everything] * len(texts)
        if self.matches_everything or not texts:
            return matched
        joined = "\n".join(texts)
        translation = self._translation(True, lines=True)
        if translation is not None and joined.isascii() and joined.count("\n") == len(texts) - 1 and all(texts):
            for n in _matching_lines(translation.regex, list(texts)):  # the common case: ASCII names
                matched[n] = True
            return matched
        ascii_lines: list[int] = []
        other_lines: list[int] = []
        left: list[int] = []
        for n, text in enumerate(texts):
            if not text or "\n" in text:
                left.append(n)
            elif text.isascii():
                ascii_lines.append(n)
            else:
                (other_lines if _encodable(text) else left).append(n)
        for batch, ascii_text in ((ascii_lines, True), (other_lines, False)):
            translation = self._translation(ascii_text, lines=True)
            if translation is None:
                left += batch
            else:
                for n in _matching_lines(translation.regex, [texts[n] for n in batch]):
                    matched[batch[n]] = True
        by_child = []
        for n in left:
            regex = self._regex_for(texts[n])
            if regex is None:
                by_child.append(n)
            else:
                matched[n] = _first_match(regex, texts[n].encode(), 0) is not None
        if by_child:
            for n, found in zip(by_child, self.child().any_match([texts[n] for n in by_child], cancel), strict=True):
                matched[n] = found
        return matched

    def starts(self, text: str, cancel: threading.Event | None = None) -> list[int]:
        """Where each match ``re.finditer`` finds in ``text`` starts."""
        regex = self._regex_for(text)
        if regex is None:
            return self.child().starts(text, cancel)
        return [start for start, _ in _re2_spans(regex, text)]

    def spans(self, text: str) -> list[tuple[int, int]] | None:
        """Each match's (start, end) in ``text``; None when only the child could tell (too slow to wait for)."""
        regex = self._regex_for(text)
        return None if regex is None else _re2_spans(regex, text)

    def matching_lines(self, data: bytes, cancel: threading.Event | None = None) -> list[int]:
        """Which lines of ``data`` (split at each newline) the pattern matches in, as indexes.

        A byte that is not UTF-8 is matched as ``re`` matches its ``surrogateescape`` character:
        the lines that are UTF-8 are searched by RE2 as one text, the others by ``re`` in the child.
        """
        if data.isascii() or _is_utf8(data):
            translation = self._translation(data.isascii(), lines=True)
            if translation is not None:
                return _line_hits(translation.regex, data)
        lines = data.split(b"\n")
        kinds: dict[bool, list[int]] = {True: [], False: []}
        left: list[int] = []
        for n, line in enumerate(lines):
            if line.isascii():
                kinds[True].append(n)
            elif _is_utf8(line):
                kinds[False].append(n)
            else:
                left.append(n)
        hits: list[int] = []
        for ascii_text, numbers in kinds.items():
            translation = self._translation(ascii_text, lines=True) if numbers else None
            if translation is None:
                left += numbers
            else:
                joined = b"\n".join(lines[n] for n in numbers)
                hits += [numbers[k] for k in _line_hits(translation.regex, joined)]
        if left:
            texts = [lines[n].decode("utf-8", "surrogateescape") for n in left]
            hits += [n for n, hit in zip(left, self.child().any_match(texts, cancel), strict=True) if hit]
        return sorted(hits)

    def child_line_matches(self, pieces: Iterable[bytes], cancel: threading.Event | None = None) -> bool:
        """Whether ``re`` in the child matches in the line made of ``pieces`` (raw bytes)."""
        return self.child().line_match(pieces, cancel)

    def line_search(self, cancel: threading.Event | None = None) -> LineSearch:
        """A search of one line given a piece at a time (see LineSearch)."""
        return LineSearch(self, cancel)


def literal_finder(texts: Sequence[str], ignore_case: bool) -> Callable[[bytes, int], tuple[int, int] | None]:
    """``find(data, position)``: the byte span of the first of ``texts`` in UTF-8 ``data`` at or after
    ``position`` (ignoring case as RE2 folds it), or None. Literal texts need no ``re``: RE2 alone,
    in linear time. PatternTooLong past MAX_PATTERN_CHARS."""
    for text in texts:
        _check_length(text)
    source = "|".join(_re2().escape(text) for text in texts)
    regex = _re2_compile(("(?i)" if ignore_case else "") + f"(?:{source})")
    if regex is None:
        raise InvalidPattern(f"cannot search for {texts[0]!r}")
    return functools.partial(_first_match, regex)


def _first_match(regex: Any, data: bytes, position: int, end: int | None = None) -> tuple[int, int] | None:
    """The byte span of the first match within ``data[position:end]``: RE2's own call, without the
    module's per-call Match object, which cost four times the search itself. The bytes around that
    range are context: RE2 reads them for ``^``, ``$`` and ``\\b`` (a ``^`` matches at ``position``
    only after a newline or at the start of ``data``)."""
    span = regex._regexp.Match(_re2()._Anchor.UNANCHORED, data, position, len(data) if end is None else end)[0]
    return None if span[0] < 0 else span


def _line_hits(regex: Any, data: bytes) -> list[int]:
    """Which lines of ``data`` (split at each newline) a line-mode regex matches in."""
    found: list[int] = []
    line, position = 0, 0
    while True:
        match = _first_match(regex, data, position)
        if match is None:
            return found
        line += data.count(b"\n", position, match[0])
        found.append(line)
        position = data.find(b"\n", match[0]) + 1  # a match holds no newline
        if not position:
            return found
        line += 1


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _char_start(data: bytes, position: int) -> int:
    """``position`` moved back to the start of the UTF-8 character it is in."""
    for _ in range(3):
        if position <= 0 or position >= len(data) or data[position] & 0xC0 != 0x80:
            break
        position -= 1
    return position


WINDOW_WIDTH_LIMIT = 1 << 16
"""Patterns whose matches may span more characters than this are not searched in windows."""


class LineSearch:
    """Whether a pattern matches in one line too long to hold, the line given a piece at a time.

    When every match spans at most ``max_width`` characters, RE2 searches a window at a time: each
    with the bytes around it as context (RE2 reads them for ``^``, ``$``, ``\\b``), the next one
    starting far enough back to hold every match that could not end inside this one. Other patterns
    stream the line to ``re`` in the child (which holds it, within its memory limit). ``finish()``
    answers; None when a window could not be searched exactly (bytes that are not UTF-8, text no RE2
    translation is exact for): then ``Matcher.child_line_matches`` must read the line again.
    Close it (or finish it): a streaming search owns its child until then.
    """

    def __init__(self, matcher: Matcher, cancel: threading.Event | None) -> None:
        self.matcher = matcher
        self.cancel = cancel
        width = matcher.max_width
        windows = width is not None and width <= WINDOW_WIDTH_LIMIT and matcher._translation(True, True) is not None
        self.reach = 4 * (width or 0) + 4
        """Bytes a match can span, and one character of context."""
        self.found: bool | None = False
        self.tail = b""
        """What is still to be searched, after ``self.start`` bytes of context."""
        self.start = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self._child: Generator[None, bytes | None, bool] | None = None
        if not windows:
            self._child = matcher.child().streamed_line(cancel)
            next(self._child)

    def feed(self, piece: bytes) -> None:
        if self._child is not None:
            self._child.send(piece)
            return
        if self.found is not False:
            return
        if not piece.isascii() or self.decoder.getstate()[0]:
            try:
                self.decoder.decode(piece)
            except UnicodeDecodeError:
                self.found = None
                return
        data = self.tail + piece
        self._search(data, _char_start(data, len(data) - 1))

    def finish(self) -> bool | None:
        """Whether the pattern matched; None when the child must read the line (see above)."""
        if self._child is not None:
            child, self._child = self._child, None
            try:
                child.send(None)
            except StopIteration as done:
                return bool(done.value)
            raise AssertionError("the child's answer was not read")
        if self.found is False:
            try:
                self.decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                return None
            self._search(self.tail, len(self.tail))
        return self.found

    def close(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None

    def _search(self, data: bytes, end: int) -> None:
        """Search ``data[self.start:end]`` (the rest is context); keep what the next window needs."""
        if end > self.start:
            translation = self.matcher._translation(data.isascii(), lines=True)
            if translation is None:
                self.found = None
                return
            if _first_match(translation.regex, data, self.start, end) is not None:
                self.found = True
                return
        # A match not wholly inside the range searched starts after end - reach.
        position = _char_start(data, max(self.start, end - self.reach))
        context = _char_start(data, position - 1) if position else 0  # one character
        self.tail, self.start = data[context:], position - context


def _matching_lines(regex: Any, lines: list[str]) -> list[int]:
    """Which of ``lines`` (none holding a newline) a line-mode regex matches, in one text."""
    return _line_hits(regex, "\n".join(lines).encode()) if lines else []


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _re2_spans(regex: Any, text: str) -> list[tuple[int, int]]:
    """The matches one after another, as ``finditer`` finds them.

    After an empty match the next search starts one character on (``re`` would first try a longer
    match at the same place; both start there, so the lines they are on agree).
    """
    data = text.encode()
    ascii_text = len(data) == len(text)
    spans: list[tuple[int, int]] = []
    position, counted, counted_chars = 0, 0, 0

    def chars(offset: int) -> int:
        nonlocal counted, counted_chars
        if ascii_text:
            return offset
        counted_chars += len(data[counted:offset].decode())
        counted = offset
        return counted_chars

    while position <= len(data):
        found = _first_match(regex, data, position)
        if found is None:
            break
        start, end = found
        spans.append((chars(start), chars(end)))
        position = end
        if end == start:
            position += 1
            while position < len(data) and data[position] & 0xC0 == 0x80:
                position += 1
    return spans


def _parsed(pattern: str, flags: int) -> Any:
    _check_length(pattern)
    try:
        return _parse(pattern, flags)
    except re.error as error:
        raise InvalidPattern(str(error)) from None
    except (RecursionError, OverflowError) as error:
        raise InvalidPattern(str(error) or type(error).__name__) from None


def _parse(source: str, flags: int = 0) -> Any:
    """``re``'s parse tree, without the FutureWarning it prints for ``[[`` in a set (about
    what such a pattern may mean in a later Python: it means what it means now, and a warning on
    stderr would paint over a TUI)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return _parser.parse(source, flags)


def compile_regex(pattern: str, flags: int = 0, seconds: float | None = None) -> Matcher:
    """A matcher with the meaning of ``re.search`` with these ``re`` flags.

    PatternTooLong past MAX_PATTERN_CHARS; InvalidPattern with ``re``'s message. It takes a few
    milliseconds at most: a pattern that only ``re`` can run starts its child when first used, and
    only then come the errors ``re.compile`` finds after parsing (see ``Matcher.check``).
    """
    tree = _parsed(pattern, flags)
    translate = functools.partial(_translated, tree, "")
    return Matcher(pattern, pattern, flags, translate, seconds, max_width=_max_width(tree))


def _max_width(tree: Any) -> int | None:
    """The most characters a match of the parse tree spans; None when there is no bound."""
    try:
        high = tree.getwidth()[1]
    except (RecursionError, OverflowError, TypeError):
        return None
    return None if high >= _c.MAXREPEAT else int(high)


def compile_glob(pattern: str, seconds: float | None = None) -> Matcher:
    """A matcher with ``fnmatch.fnmatchcase``'s meaning (the whole text must match)."""
    _check_length(pattern)
    source = fnmatch.translate(pattern)
    tree = _parse(source)
    # fnmatch writes each ``*`` before fixed text as an atomic group, which only saves backtracking:
    # as a plain group it matches the same texts, which is what a linear engine needs.
    translate = functools.partial(_translated, tree, r"\A", atomic_as_group=True)
    return Matcher(pattern, rf"\A(?:{source})", 0, translate, seconds, matches_everything=pattern == "*")
