"""OpenCode's ``glob`` and ``grep``: ripgrep over the workspace, as the agent runs it.

Followed from OpenCode 1.18.33's bundled ``packages/opencode/src/tool/glob.ts``, ``tool/grep.ts`` and
``file/ripgrep.ts`` (the ``Ripgrep`` service), and from ripgrep's ``ignore`` and ``globset`` crates
(``dir.rs`` ``matched_ignore``, ``overrides.rs``, ``gitignore.rs`` ``add_line``, ``walk.rs``):

- ``glob``: ``rg --no-config --files --glob=PATTERN --glob=!**/.git/** .`` in the directory ``path``
  names (the session's by default; a file there: ``glob path must be a directory: PATH``): the
  absolute paths of the first 100 files, ``No files found``, or the 100 and a note (given whenever
  exactly 100 came back).
- ``grep``: ``rg --no-config --json --hidden --no-messages [--glob=INCLUDE] --glob=!**/.git/** --
  PATTERN .`` in the directory ``path`` names, or the directory of the file it names: ``Found N
  matches``, then per file ``PATH:`` and ``  Line N: TEXT``, where TEXT is ripgrep's line with its line
  break (so a blank line follows), or its first 2,000 UTF-16 units and ``...``; 100 matches at most.
  A line that is not UTF-8 makes ripgrep write bytes, which OpenCode refuses: ``Invalid ripgrep
  match output``; a JSON record over 64 KiB: ``Ripgrep JSON record exceeded 65536 bytes``.
- What ripgrep walks: every directory but symbolic links; hidden names (a leading ``.``) only for
  grep, ``.git`` never; names ignored by ``.rgignore``, ``.ignore`` and, in a git repository,
  ``.gitignore`` and ``.git/info/exclude`` (the nearest directory's rule first, ``.rgignore`` before
  ``.ignore`` before ``.gitignore``), unless a ``--glob`` matches the file: an override decides
  before anything else, and a file no whitelist glob matches is left out. Globs are gitignore lines
  (a name without ``/`` matches at any depth; ``*`` stays within a name; ``**``; ``{a,b}``).
- A file holding a NUL byte is binary: ripgrep searches it up to that byte. A UTF-16 or UTF-8
  byte-order mark makes it decode the file first.

ripgrep walks in parallel, so the order of files changes from run to run: the answer here lists them
in the order one thread would (each directory's entries as the directory lists them, taken last
first), and says it is uncertain when more than one file is listed. Ignore files above the
workspace root, the user's global gitignore, and patterns Rust's regex reads differently from
Python's are not seen.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, Self

from agentpager.agents.opencode.read import REJECTED, Session, blocks, session_of
from agentpager.engine.beneath import open_beneath
from agentpager.engine.patterns import Matcher, PatternError, compile_regex
from agentpager.tools.base import Call
from agentpager.tools.errors import ToolError
from agentpager.tools.js.strings import js_length, js_prefix
from agentpager.tools.paths import look_up
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.regex import rust

LIMIT = 100
MAX_LINE_LENGTH = 2000
MAX_RECORD_BYTES = 65536
MAX_LINE_BYTES = 1 << 20
"""Lines are searched whole up to this many bytes; a longer one is searched in its first MiB only."""
ORDER = "ripgrep searches directories in parallel: the order of the files changes from run to run"
NO_FILES = "No files found"
_GIT = ".git"
Match = Literal["ignore", "whitelist"] | None


# -- globs as ripgrep reads them ---------------------------------------------------------------------


def _class(glob: str, start: int) -> tuple[str, int]:
    """A ``[...]`` class at ``start``: its regex and the index after it (a lone ``[`` is literal)."""
    index = start + 1
    negate = index < len(glob) and glob[index] in "!^"
    index += negate
    items: list[str] = []
    first = True
    while index < len(glob) and (glob[index] != "]" or first):
        char = glob[index]
        if char == "-" and items and index + 1 < len(glob) and glob[index + 1] != "]":
            items.append("-")
        else:
            items.append(re.escape(char))
        first = False
        index += 1
    if index >= len(glob):
        return re.escape("["), start + 1
    return ("[^" if negate else "[") + "".join(items) + "]", index + 1


def glob_regex(glob: str) -> str:
    """A globset glob (``literal_separator``, backslash escapes) as a regex for a whole relative path."""
    out: list[str] = []
    index = 0
    in_braces = False
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**", index):
            before = index == 0 or glob[index - 1] == "/"
            after = index + 2 == len(glob) or glob[index + 2] == "/"
            if not (before and after):
                raise Unsupported(f"the glob {glob!r} (** must be a whole path component)")
            if index + 2 == len(glob):
                out.append(".*")
                index += 2
            else:
                out.append("(?:.*/)?")
                index += 3
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            text, index = _class(glob, index)
            out.append(text)
            continue
        elif char == "{" and not in_braces:
            out.append("(?:")
            in_braces = True
        elif char == "}" and in_braces:
            out.append(")")
            in_braces = False
        elif char == "," and in_braces:
            out.append("|")
        elif char == "\\" and index + 1 < len(glob):
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if in_braces:
        raise Unsupported(f"the glob {glob!r} (an unclosed {{)")
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    matcher: Matcher
    whitelist: bool
    directories_only: bool


def rule(line: str) -> Rule | None:
    """``GitignoreBuilder::add_line``: one gitignore line (or ``--glob``) as a rule; None for none."""
    whitelist = False
    anchored = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
    else:
        if line.startswith("!"):
            whitelist, line = True, line[1:]
        if line.startswith("/"):
            anchored, line = True, line[1:]
    directories_only = line.endswith("/")
    if directories_only:
        line = line[:-1]
    if not line:
        return None
    glob = line
    if not anchored and "/" not in line and not glob.startswith("**/"):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"
    try:
        matcher = compile_regex(r"\A(?:" + glob_regex(glob) + r")\Z")
    except PatternError as error:
        raise Unsupported(f"the glob {line!r} ({error.message})") from None
    return Rule(matcher, whitelist, directories_only)


def ignore_lines(text: str) -> list[str]:
    """The rules of an ignore file: blank lines and comments left out, trailing spaces unless escaped."""
    lines = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        lines.append(stripped)
    return lines


@dataclass
class Rules:
    """Gitignore rules of one file (or the ``--glob`` overrides): the last that matches decides."""

    rules: list[Rule] = field(default_factory=list)

    @classmethod
    def of(cls, lines: list[str]) -> Self:
        return cls([found for line in lines if (found := rule(line)) is not None])

    def matched(self, relative: str, is_dir: bool) -> Match:
        for found in reversed(self.rules):
            if found.directories_only and not is_dir:
                continue
            if found.matcher.search(relative):
                return "whitelist" if found.whitelist else "ignore"
        return None

    def close(self) -> None:
        for found in self.rules:
            found.matcher.close()


class Overrides(Rules):
    """``--glob`` globs: a plain glob takes a file in, a ``!`` glob leaves it out."""

    def matched(self, relative: str, is_dir: bool) -> Match:
        found = super().matched(relative, is_dir)
        inverted: Match = {"ignore": "whitelist", "whitelist": "ignore", None: None}[found]
        if inverted is None and not is_dir and any(not r.whitelist for r in self.rules):
            return "ignore"
        return inverted


# -- the walk ----------------------------------------------------------------------------------------

_KINDS = (".rgignore", ".ignore", ".gitignore")


@dataclass
class _Directory:
    """A directory's ignore files, and where it is (relative to the search directory)."""

    relative: str
    rules: dict[str, Rules]
    has_git: bool
    parent: _Directory | None


@dataclass
class Walk:
    """ripgrep's walk of one directory as one thread makes it."""

    call: Call
    start: str
    """The directory searched (a real path in the workspace)."""
    overrides: Overrides
    hidden: bool
    """Whether hidden names are walked (``--hidden``)."""
    any_git: bool = field(init=False)

    def __post_init__(self) -> None:
        directory = self.start
        self.any_git = False
        while True:  # like Gemini CLI's discovery: a .git in the directory or any above it
            if os.path.lexists(os.path.join(directory, _GIT)):
                self.any_git = True
                break
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent

    def _directory(self, fd: int, relative: str, parent: _Directory | None) -> _Directory:
        rules = {}
        for kind in _KINDS:
            text = _read_small(fd, kind)
            if text is not None:
                rules[kind] = Rules.of(ignore_lines(text))
        has_git = _exists(fd, _GIT)
        if has_git:
            exclude = _read_small(fd, os.path.join(_GIT, "info", "exclude"))
            if exclude is not None:
                rules["exclude"] = Rules.of(ignore_lines(exclude))
        return _Directory(relative, rules, has_git, parent)

    def _ignored(self, directory: _Directory, relative: str, name: str, is_dir: bool) -> bool:
        """``Ignore::matched``: overrides, then the ignore files, then hidden names."""
        decided = self.overrides.matched(relative, is_dir)
        if decided is not None:
            return decided == "ignore"
        found: dict[str, Match] = {}
        saw_git = False
        level: _Directory | None = directory
        while level is not None:
            below = relative[len(level.relative) + 1 :] if level.relative else relative
            for kind, rules in level.rules.items():
                git = kind in (".gitignore", "exclude")
                if found.get(kind) is None and (not git or (self.any_git and not saw_git)):
                    found[kind] = rules.matched(below, is_dir)
            saw_git = saw_git or level.has_git
            level = level.parent
        decision = next((found[k] for k in (*_KINDS, "exclude") if found.get(k) is not None), None)
        if decision is not None:
            return decision == "ignore"
        return not self.hidden and name.startswith(".")

    def files(self) -> Iterator[tuple[str, int]]:
        """(path relative to the start, an open descriptor of the file), each closed after its turn."""
        stack: list[tuple[str, str, bool, _Directory | None]] = [("", self.start, True, None)]
        while stack:
            relative, real, is_dir, parent = stack.pop()
            found = open_beneath(self.call.root.real, real, "directory" if is_dir else "file")
            if found.fd is None or not found.inside:
                continue
            try:
                if is_dir:
                    self._push(found.fd, relative, real, parent, stack)
                else:
                    yield relative, found.fd
            finally:
                os.close(found.fd)

    def _push(self, fd: int, relative: str, real: str, parent: _Directory | None, stack: list) -> None:
        """The entries of the directory open at ``fd`` that the walk takes, as work for later."""
        directory = self._directory(fd, relative, parent)
        with os.scandir(fd) as entries:
            found = list(entries)
        for entry in found:
            if entry.name == _GIT:
                continue  # everything in it is left out (--glob=!**/.git/**)
            try:
                kind = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if not (stat.S_ISDIR(kind) or stat.S_ISREG(kind)):
                continue  # links are not followed, and only regular files are searched
            child = f"{relative}/{entry.name}" if relative else entry.name
            if not self._ignored(directory, child, entry.name, stat.S_ISDIR(kind)):
                stack.append((child, os.path.join(real, entry.name), stat.S_ISDIR(kind), directory))


def _read_small(fd: int, name: str) -> str | None:
    """A small file beside the walk (an ignore file) as text, or None when there is none."""
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        return os.read(handle, 1 << 20).decode("utf-8", "replace")
    finally:
        os.close(handle)


def _exists(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    return True


# -- the tools ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Place:
    """Where a search runs: the directory here, and the path results are resolved against as shown."""

    directory: str
    base: str


def _place(call: Call, session: Session, shown_path: str, for_grep: bool) -> _Place | str:
    """The directory searched, or (a str) the error the tool fails with."""
    where = session.where(shown_path)
    if where is None:
        return REJECTED
    found = look_up(call.root, where.local)
    if not found.inside:
        call.uncertain = "the path leads outside the workspace, which agentpager never reads (OpenCode searches it)"
        return REJECTED
    is_dir = found.st is not None and stat.S_ISDIR(found.st.st_mode)
    if not for_grep:
        if found.st is not None and not is_dir:
            return f"glob path must be a directory: {where.shown}"
        return _Place(found.real, where.shown)
    if is_dir:
        return _Place(found.real, where.shown)
    parent = look_up(call.root, os.path.dirname(found.real if found.st is not None else where.local))
    return _Place(parent.real if parent.inside else "", os.path.dirname(where.shown))


def _check_directory(call: Call, place: _Place) -> None:
    """ripgrep cannot start in a directory that is not there: OpenCode then fails the call."""
    found = look_up(call.root, place.directory) if place.directory else None
    if found is None or found.st is None or not stat.S_ISDIR(found.st.st_mode):
        raise ToolError("ripgrep execution failed")


def glob(call: Call, pattern: str, path: str | None) -> str:
    session = session_of(call)
    place = _place(call, session, session.directory if path is None else path, for_grep=False)
    if isinstance(place, str):
        raise ToolError(place)
    _check_directory(call, place)
    try:
        overrides = Overrides.of([pattern, "!**/.git/**"])
    except Unsupported:
        return NO_FILES  # ripgrep refuses the glob (exit status 2): nothing listed
    found: list[str] = []
    try:
        for relative, _fd in Walk(call, place.directory, overrides, hidden=False).files():
            found.append(relative)
            if len(found) > LIMIT:
                break
    finally:
        overrides.close()
    shown = [os.path.join(place.base, relative) for relative in found[:LIMIT]]
    if len(shown) > 1:
        call.uncertain = ORDER
    if not shown:
        return NO_FILES
    if len(shown) == LIMIT:
        shown += [
            "",
            f"(Results are truncated: showing first {LIMIT} results. Consider using a more specific path or pattern.)",
        ]
    return "\n".join(shown)


@dataclass(frozen=True)
class _Line:
    """A matching line as ripgrep's JSON gives it: its number, bytes (with the line break) and offset."""

    number: int
    data: bytes
    offset: int


def _text_of(fd: int) -> Iterator[bytes]:
    """The bytes ripgrep searches: UTF-16 (by its byte-order mark) as UTF-8, a UTF-8 mark dropped, up
    to the first NUL byte (the file is binary from there)."""
    head = os.pread(fd, 4, 0)
    chunks: Iterator[bytes] = blocks(fd, 3 if head.startswith(b"\xef\xbb\xbf") else 0)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        chunks = _as_utf8(chunks)
    for data in chunks:
        nul = data.find(b"\0")
        if nul >= 0:
            yield data[:nul]
            return
        yield data


def _as_utf8(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """UTF-16 (its byte-order mark deciding the order, then dropped) as UTF-8, bad units as U+FFFD."""
    decoder = codecs.getincrementaldecoder("utf-16")("replace")
    for data in chunks:
        yield decoder.decode(data).encode("utf-8", "surrogatepass")
    yield decoder.decode(b"", final=True).encode("utf-8", "surrogatepass")


def _lines(fd: int, call: Call) -> Iterator[_Line]:
    """The file's lines (ripgrep's: ended by ``\\n``), a longer one than MAX_LINE_BYTES by its first
    MAX_LINE_BYTES (and its line break)."""
    number, offset, pending, dropped = 0, 0, b"", 0
    for data in _text_of(fd):
        if dropped:  # the rest of an overlong line, up to its end
            end = data.find(b"\n")
            dropped += len(data) if end < 0 else end
            if end < 0:
                continue
            data = data[end:]
        pending += data
        start = 0
        while (end := pending.find(b"\n", start)) >= 0:
            number += 1
            yield _Line(number, pending[start : end + 1], offset)
            offset += end + 1 - start + dropped
            start, dropped = end + 1, 0
        pending = pending[start:]
        if len(pending) > MAX_LINE_BYTES:
            call.uncertain = f"a line over {MAX_LINE_BYTES:,} bytes is searched in its first {MAX_LINE_BYTES:,} only"
            dropped, pending = len(pending) - MAX_LINE_BYTES, pending[:MAX_LINE_BYTES]
    if pending:
        yield _Line(number + 1, pending, offset)


def _record_bytes(relative: str, line: _Line, text: str, matcher: Matcher) -> int:
    """The size of ripgrep's JSON record of a matching line (serde_json writes what json.dumps does)."""
    spans = matcher.spans(text) or []
    data = line.data.decode("utf-8")
    submatches = []
    for start, end in spans:
        before = len(text[:start].encode("utf-8", "surrogateescape"))
        piece = text[start:end]
        size = len(piece.encode("utf-8", "surrogateescape"))
        submatches.append({"match": {"text": piece}, "start": before, "end": before + size})
    record = {
        "type": "match",
        "data": {
            "path": {"text": f"./{relative}"},
            "lines": {"text": data},
            "line_number": line.number,
            "absolute_offset": line.offset,
            "submatches": submatches,
        },
    }
    return len(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode())


def _shown_text(data: bytes) -> str:
    """``lines.text``, or its first 2,000 UTF-16 units (no dangling high surrogate) and ``...``."""
    text = data.decode("utf-8")
    if js_length(text) > MAX_LINE_LENGTH:
        cut = js_prefix(text, MAX_LINE_LENGTH)
        return (cut[:-1] if cut and "\ud800" <= cut[-1] <= "\udbff" else cut) + "..."
    return text


_RUST_ERRORS = (
    ("missing ), unterminated subpattern", "unclosed group"),
    ("unbalanced parenthesis", "unopened group"),
    ("unterminated character set", "unclosed character class"),
    ("nothing to repeat", "repetition operator missing expression"),
    ("multiple repeat", "repetition operator missing expression"),
    ("bad escape (end of pattern)", "incomplete escape sequence, reached end of pattern prematurely"),
)
"""Python's regex errors and the words of Rust's ``regex-syntax`` for the same mistake."""


def _regex_error(pattern: str) -> ToolError:
    """The error ripgrep gives for a pattern it cannot parse (``regex-syntax``'s layout: the pattern,
    a caret under the place, the kind of error), read off Python's error for the same pattern."""
    try:
        compile_regex(pattern).close()
        message, position = "", 0
    except PatternError as error:
        found = re.search(r" at position (\d+)$", error.message)
        message, position = error.message, int(found.group(1)) if found else 0
    words = next((rust for python, rust in _RUST_ERRORS if message.startswith(python)), None)
    return ToolError(f"regex parse error:\n    {pattern}\n    {' ' * position}^\nerror: {words or message}")


def _compiled(call: Call, pattern: str) -> Matcher:
    try:
        translated, _ = rust(pattern)
    except Unsupported as error:
        call.unreplayable = f"agentpager does not read this pattern as ripgrep does ({error})"
        raise ToolError(f"agentpager did not run this search: {call.unreplayable}.") from None
    try:
        return compile_regex(translated)
    except PatternError:
        call.uncertain = "ripgrep words its own regex errors: this is Python's error, in ripgrep's words where known"
        raise _regex_error(pattern) from None


def grep(call: Call, pattern: str, path: str | None, include: str | None) -> str:
    if not pattern:
        raise ToolError("pattern is required")
    session = session_of(call)
    place = _place(call, session, session.directory if path is None else path, for_grep=True)
    if isinstance(place, str):
        raise ToolError(place)
    _check_directory(call, place)
    matcher = _compiled(call, pattern)
    try:
        overrides = Overrides.of([*([include] if include else []), "!**/.git/**"])
    except Unsupported:
        matcher.close()
        return NO_FILES
    found: list[tuple[str, str]] = []
    try:
        for relative, fd in Walk(call, place.directory, overrides, hidden=True).files():
            for line in _matching(fd, matcher, call):
                text = line.data.decode("utf-8", "surrogateescape")
                try:
                    line.data.decode("utf-8")
                    relative.encode("utf-8")
                except UnicodeError:
                    raise ToolError("Invalid ripgrep match output") from None
                if len(line.data) > 1000 and _record_bytes(relative, line, text, matcher) > MAX_RECORD_BYTES:
                    raise ToolError(f"Ripgrep JSON record exceeded {MAX_RECORD_BYTES} bytes")
                found.append((os.path.join(place.base, relative), f"  Line {line.number}: {_shown_text(line.data)}"))
                if len(found) > LIMIT:
                    break
            if len(found) > LIMIT:
                break
    finally:
        matcher.close()
        overrides.close()
    shown = found[:LIMIT]
    if len({name for name, _ in shown}) > 1:
        call.uncertain = ORDER
    if not shown:
        return NO_FILES
    truncated = len(shown) == LIMIT
    out = [f"Found {len(shown)} matches" + (" (more matches available)" if truncated else "")]
    current = ""
    for name, text in shown:
        if name != current:
            if current:
                out.append("")
            current = name
            out.append(f"{name}:")
        out.append(text)
    if truncated:
        out += ["", "(Results truncated. Consider using a more specific path or pattern.)"]
    return "\n".join(out)


def _matching(fd: int, matcher: Matcher, call: Call) -> Iterator[_Line]:
    """The lines of the file open at ``fd`` that the pattern matches (searched without their line break)."""
    batch: list[_Line] = []
    for line in _lines(fd, call):
        batch.append(line)
        if len(batch) == 1024:
            yield from _matched(batch, matcher)
            batch = []
    yield from _matched(batch, matcher)


def _matched(batch: list[_Line], matcher: Matcher) -> Iterator[_Line]:
    texts = [line.data.removesuffix(b"\n").decode("utf-8", "surrogateescape") for line in batch]
    for line, hit in zip(batch, matcher.matches(texts), strict=True):
        if hit:
            yield line
