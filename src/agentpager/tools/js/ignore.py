"""The npm package ``ignore`` (node-ignore 7, as bundled in Gemini CLI 0.61.0): gitignore rules as regexes.

Followed from ``node_modules/ignore/index.js``: each pattern goes through the same chain of
replacements (``REPLACERS``) into a regular expression, matched case-insensitively by default;
``ignores(path)`` tests a relative POSIX path, and a path whose parent directory is ignored is
ignored (``_t``). The regexes here are the JavaScript ones, which Python's ``re`` reads alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_BLANK = re.compile(r"^\s+$")
_TRAILING_BACKSLASH = re.compile(r"(?:[^\\]|^)\\$")
_RANGE = re.compile(r"([0-z])-([0-z])")


def _sanitize_range(text: str) -> str:
    return _RANGE.sub(lambda m: m.group(0) if ord(m.group(1)) <= ord(m.group(2)) else "", text)


def _even_backslashes(slashes: str) -> str:
    return slashes[: len(slashes) - len(slashes) % 2]


def _starting(pattern: str) -> Callable[[re.Match[str]], str]:
    return lambda _: "^" if re.search(r"/(?!$)", pattern) else r"(?:^|\/)"


def _two_globstars(match: re.Match[str]) -> str:
    return r"(?:\/[^\/]+)*" if match.start() + 6 < len(match.string) else r"\/.+"


def _range(match: re.Match[str]) -> str:
    lead, body, end, close = match.group(1), match.group(2), match.group(3), match.group(4)
    if lead == "\\":
        return f"\\[{body}{_even_backslashes(end)}{close}"
    if close == "]":
        return f"[{_sanitize_range(body)}{end}]" if len(end) % 2 == 0 else "[]"
    return "[]"


def _ending(match: re.Match[str]) -> str:
    text = match.group(0)
    return f"{text}$" if text.endswith("/") else text + r"(?=$|\/$)"


_Replacer = tuple[str, Callable[[str], Callable[[re.Match[str]], str]], int]
"""A JavaScript regex, the replacement (made from the pattern being converted), and its count (0: all)."""


def _fixed(text: str) -> Callable[[str], Callable[[re.Match[str]], str]]:
    return lambda _: lambda __: text


_REPLACERS: tuple[_Replacer, ...] = (
    (r"^\ufeff", _fixed(""), 1),
    (r"((?:\\\\)*?)(\\?\s+)$", lambda _: lambda m: m.group(1) + (" " if m.group(2).startswith("\\") else ""), 1),
    (r"(\\+?)\s", lambda _: lambda m: _even_backslashes(m.group(1)) + " ", 0),
    (r"[\\$.|*+(){^]", lambda _: lambda m: "\\" + m.group(0), 0),
    (r"(?!\\)\?", _fixed("[^/]"), 0),
    (r"^/", _fixed("^"), 1),
    (r"/", _fixed(r"\/"), 0),
    (r"^\^*\\\*\\\*\\/", _fixed(r"^(?:.*\/)?"), 1),
    (r"^(?=[^^])", _starting, 1),
    (r"\\/\\\*\\\*(?=\\/|$)", lambda _: _two_globstars, 0),
    (r"(^|[^\\]+)(\\\*)+(?=.+)", lambda _: lambda m: m.group(1) + m.group(2).replace("\\*", r"[^\/]*"), 0),
    (r"\\\\\\(?=[$.|*+(){^])", _fixed("\\"), 0),
    (r"\\\\", _fixed("\\"), 0),
    (r"(\\)?\[([^\]/]*?)(\\*)($|\])", lambda _: _range, 0),
    (r"(?:[^*])$", lambda _: _ending, 1),
)
_COMPILED = tuple((re.compile(source), make, count) for source, make, count in _REPLACERS)
_TRAILING_WILDCARD = re.compile(r"(^|\\/)?\\\*$")


def _regex_prefix(pattern: str) -> str:
    text = pattern
    for regex, make, count in _COMPILED:
        text = regex.sub(make(pattern), text, count=count)
    return text


def _regex(prefix: str, ignore_case: bool) -> re.Pattern[str]:
    """The ``regex`` of a rule (mode ``regex``: a trailing ``*`` after a slash needs one character)."""
    source = _TRAILING_WILDCARD.sub(
        lambda m: (f"{m.group(1)}[^/]+" if m.group(1) else "[^/]*") + r"(?=$|\/$)", prefix, count=1
    )
    return re.compile(source, re.IGNORECASE if ignore_case else 0)


@dataclass(frozen=True)
class Rule:
    pattern: str
    negative: bool
    regex: re.Pattern[str]


def _rule(pattern: str, ignore_case: bool) -> Rule:
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    body = re.sub(r"^\\!", "!", body, count=1)
    body = re.sub(r"^\\#", "#", body, count=1)
    return Rule(pattern, negative, _regex(_regex_prefix(body), ignore_case))


def _usable(pattern: str) -> bool:
    return (
        bool(pattern)
        and not _BLANK.match(pattern)
        and not _TRAILING_BACKSLASH.search(pattern)
        and not pattern.startswith("#")
    )


class Ignore:
    """``ignore()``: add patterns (a string is split on line breaks), ask whether a path is ignored."""

    def __init__(self, ignore_case: bool = True) -> None:
        self.ignore_case = ignore_case
        self.rules: list[Rule] = []
        self._cache: dict[str, bool] = {}

    def add(self, patterns: str | Iterable[str] | Ignore) -> Ignore:
        if isinstance(patterns, Ignore):
            self.rules.extend(patterns.rules)
        else:
            items = [p for p in re.split(r"\r?\n", patterns) if p] if isinstance(patterns, str) else patterns
            self.rules.extend(_rule(p, self.ignore_case) for p in items if _usable(p))
        self._cache.clear()
        return self

    def _test(self, path: str) -> bool:
        ignored = unignored = False
        for rule in self.rules:
            if (unignored == rule.negative and ignored != unignored) or (
                rule.negative and not ignored and not unignored
            ):
                continue
            if rule.regex.search(path):
                ignored, unignored = not rule.negative, rule.negative
        return ignored

    def ignores(self, path: str) -> bool:
        """Whether the relative path (``dir/`` for a directory) is ignored, or one of its parents is."""
        found = self._cache.get(path)
        if found is None:
            slices = [part for part in path.split("/") if part][:-1]
            parent = "/".join(slices) + "/" if slices else ""
            found = (bool(parent) and self.ignores(parent)) or self._test(path)
            self._cache[path] = found
        return found
