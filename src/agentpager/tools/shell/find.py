"""GNU find 4.9 as agents look around with it: ``find [PATH...] [-maxdepth N] [-mindepth N] [TESTS]``.

Tests: ``-name``, ``-iname`` (the base name) and ``-path``, ``-ipath`` (the whole path as printed),
as fnmatch globs through the engine (RE2); ``-type f|d|l``; ``-not`` or ``!`` before a test; ``-a``;
``-print``. Each start path is printed first, then everything below it, depth first in the file
system's order (fts without sorting: ``walk``), symbolic links not followed. ``-o``, parentheses,
actions (``-exec``, ``-delete``) and the other tests are Unsupported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from agentpager.engine.patterns import Matcher, PatternError, compile_glob
from agentpager.tools.shell.errors import Unsupported
from agentpager.tools.shell.io import Chunks, Io, parse_count, strerror
from agentpager.tools.shell.walk import Entry, walk

_TYPES = {"f": "file", "d": "directory", "l": "link"}


@dataclass
class _Test:
    test: Callable[[Entry], bool]
    negated: bool

    def passes(self, entry: Entry) -> bool:
        return self.test(entry) != self.negated


def find(io: Io, args: list[str]) -> Chunks:
    paths: list[str] = []
    while args and not args[0].startswith("-") and args[0] not in ("!", "(", ")"):
        paths.append(args.pop(0))
    tests: list[_Test] = []
    matchers: list[Matcher] = []
    depths = [0, -1]
    negated = False
    while args:
        word = args.pop(0)
        if word in ("!", "-not"):
            negated = not negated
            continue
        if word in ("-a", "-and", "-print"):
            continue
        if word in ("-maxdepth", "-mindepth"):
            depths[word == "-maxdepth"] = parse_count("find", _value(word, args))
            continue
        if word in ("-name", "-iname", "-path", "-ipath", "-wholename"):
            ignore_case = word.startswith("-i")
            matcher = _glob(_value(word, args), ignore_case)
            matchers.append(matcher)
            tests.append(_Test(_matching(matcher, "name" not in word or word == "-wholename", ignore_case), negated))
        elif word == "-type":
            kind = _value(word, args)
            if kind not in _TYPES:
                raise Unsupported(f"find -type {kind}")
            tests.append(_Test(_of_kind(_TYPES[kind]), negated))
        else:
            raise Unsupported(f"find {word}")
        negated = False
    return _find(io, paths or ["."], tests, depths[0], depths[1], matchers)


def _of_kind(kind: str) -> Callable[[Entry], bool]:
    return lambda entry: entry.kind == kind


def _value(word: str, args: list[str]) -> str:
    if not args:
        raise Unsupported(f"find {word} without its argument")
    return args.pop(0)


def _glob(pattern: str, ignore_case: bool) -> Matcher:
    if "\\" in pattern or "[^" in pattern:
        raise Unsupported(f"find's glob {pattern!r} (fnmatch escapes and [^ differ from Python's)")
    try:
        return compile_glob(pattern.lower() if ignore_case else pattern)
    except PatternError as error:
        raise Unsupported(f"find's glob: {error.message}") from None


def _matching(matcher: Matcher, whole: bool, ignore_case: bool) -> Callable[[Entry], bool]:
    """A name test (``whole``: the path as printed, else its last name)."""

    def test(entry: Entry) -> bool:
        text = entry.path if whole else entry.path.rstrip("/").rsplit("/", 1)[-1] or entry.path
        return matcher.search(text.lower() if ignore_case else text)

    return test


def _find(io: Io, paths: list[str], tests: list[_Test], least: int, most: int, matchers: list[Matcher]) -> Chunks:
    def failed(path: str, error: OSError) -> None:
        io.error(f"\u2018{path}\u2019: {strerror(error)}")
        io.status = 1

    def printed(entry: Entry) -> bytes:
        passes = entry.depth >= least and all(test.passes(entry) for test in tests)
        return entry.path.encode("utf-8", "surrogateescape") + b"\n" if passes else b""

    try:
        for path in paths:
            start = _start(io, path)
            if isinstance(start, OSError):
                failed(path, start)
                continue
            yield printed(start)
            if start.kind == "directory" and most != 0:
                for entry in walk(io.ctx, path, "readdir", on_error=failed, max_depth=None if most < 0 else most):
                    yield printed(entry)
    finally:
        for matcher in matchers:
            matcher.close()


def _start(io: Io, path: str) -> Entry | OSError:
    """A start path, as ``find -P`` sees it: a symbolic link is not followed."""
    placed = io.ctx.open(path)  # Unsupported outside the workspace
    placed.close()
    try:
        st = os.lstat(io.ctx.local(path))
    except OSError as error:
        return error
    kinds = {stat.S_IFDIR: "directory", stat.S_IFREG: "file", stat.S_IFLNK: "link"}
    return Entry(path, kinds.get(stat.S_IFMT(st.st_mode), "other"), 0)  # type: ignore[arg-type]
