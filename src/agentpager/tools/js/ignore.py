r"""The npm package ``ignore`` (node-ignore 7, as bundled in Gemini CLI 0.61.0): gitignore rules as regexes.

Followed from ``node_modules/ignore/index.js`` (``chunk-JDPZ4CE3.js`` 235290-235700): each pattern goes
through the same chain of replacements (``REPLACERS``) into a regular expression, matched ignoring
case by default; ``ignores(path)`` tests a relative POSIX path, and a path whose parent directory is
ignored is ignored (``_t``). The regexes are the JavaScript ones, which ``re`` reads alike but for a few
classes and escapes a user may write (``_python_source`` writes those as ``re`` says them).

Ignore files are workspace files, so they may be hostile:

- a rule's regex runs in the engine (``compile_regex``: RE2, linear; ``*a*a*a*a*a*a*a*a*b`` against
  a 60-character name took ``re`` over 300 s). RE2 has no lookahead: the ``(?=$|\/$)`` that ends a
  rule is written as a group, which finds the same paths (nothing follows it). A rule whose regex
  is longer than the engine takes (1,000 characters) matches nothing;
- four replacements whose regexes backtrack over a long line (the trailing spaces, escaped spaces,
  intermediate wildcards and ranges: a line of ``a``, 30,000 spaces, ``b`` took 15 s) are written as
  the scans they amount to, with the same results (a test compares them with the regexes); the
  others take a bounded time at each position.

Paths are tested as Node names them: a byte that is not UTF-8 is U+FFFD.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agentpager.engine.patterns import Matcher, PatternError, compile_regex

_BLANK = re.compile(r"^\s+$")
_TRAILING_BACKSLASH = re.compile(r"(?:[^\\]|^)\\$")
_RANGE = re.compile(r"([0-z])-([0-z])")
_BACKSLASHES = re.compile(r"\\+")
_LOOKAHEAD_END = r"(?=$|\/$)"
_GROUP_END = r"(?:$|\/$)"


def _sanitize_range(text: str) -> str:
    return _RANGE.sub(lambda m: m.group(0) if ord(m.group(1)) <= ord(m.group(2)) else "", text)


def _even_backslashes(slashes: str) -> str:
    return slashes[: len(slashes) - len(slashes) % 2]


def _starting(pattern: str) -> Callable[[re.Match[str]], str]:
    return lambda _: "^" if re.search(r"/(?!$)", pattern) else r"(?:^|\/)"


def _two_globstars(match: re.Match[str]) -> str:
    return r"(?:\/[^\/]+)*" if match.start() + 6 < len(match.string) else r"\/.+"


def _ending(match: re.Match[str]) -> str:
    text = match.group(0)
    return f"{text}$" if text.endswith("/") else text + _LOOKAHEAD_END


# -- the replacements written as scans --------------------------------------------------------------


def _trailing_spaces(text: str, pattern: str) -> str:
    r"""``/((?:\\\\)*?)(\\?\s+)$/`` -> ``m1 + (m2 starts with "\" ? " " : "")``: the white space that
    ends the text goes, with the backslashes before it, except pairs of them, and a space if one
    backslash was left over."""
    end = len(text)
    start = end
    while start and text[start - 1].isspace():
        start -= 1
    if start == end:
        return text
    first = start
    while first and text[first - 1] == "\\":
        first -= 1
    slashes = start - first
    return text[:first] + "\\" * (slashes - slashes % 2) + (" " if slashes % 2 else "")


def _escaped_spaces(text: str, pattern: str) -> str:
    r"""``/(\\+?)\s/g`` -> even backslashes + " ": each run of backslashes that a white space follows."""
    parts, done = [], 0
    for run in _BACKSLASHES.finditer(text):
        after = run.end()
        if after < len(text) and text[after].isspace():
            parts += [text[done : run.start()], _even_backslashes(run.group()) + " "]
            done = after + 1
    return "".join(parts) + text[done:] if parts else text


def _intermediate_wildcards(text: str, pattern: str) -> str:
    r"""``/(^|[^\\]+)(\\\*)+(?=.+)/g`` -> ``p1 + p2`` with ``\*`` as ``[^\/]*``: the escaped stars that end
    a run of other characters (or start the text), when one more character (not a newline) follows
    them, become one ``[^\/]*`` (``p2`` is the repeated group's last capture); the search goes on after
    each."""
    parts, done, position, length = [], 0, 0, len(text)
    while position < length:
        star = _stars_after(text, position)
        if star is None:
            break
        start, stars = star
        count = stars
        while count and (start + 2 * count >= length or text[start + 2 * count] == "\n"):
            count -= 1  # (?=.+): the greedy stars give back the last one
        if not count:
            position = start + 1  # the search tries on from the star
            continue
        parts += [text[done:start], r"[^\/]*"]  # the group's last capture: one, however many
        done = position = start + 2 * count
    return "".join(parts) + text[done:] if parts else text


def _stars_after(text: str, position: int) -> tuple[int, int] | None:
    r"""Where the first ``\*`` a match from ``position`` on would start (``^`` at 0, else after one
    character or more that is not a backslash), and how many ``\*`` follow one another there."""
    start = 0 if position == 0 and text.startswith("\\*") else -1
    while start < 0:
        while position < len(text) and text[position] == "\\":
            position += 1  # a match cannot start at a backslash
        slash = text.find("\\", position)
        if slash < 0:
            return None
        if text.startswith("*", slash + 1):
            start = slash
        position = slash
    stars = 0
    while text.startswith("\\*", start + 2 * stars):
        stars += 1
    return start, stars


def _ranges(text: str, pattern: str) -> str:
    r"""``/(\\)?\[([^\]/]*?)(\\*)($|\])/g`` -> the range notation, ``[a-z]``: from each ``[`` (or ``\[``)
    the shortest body (no ``]`` or ``/``) that the backslashes after it and then ``]`` or the end
    follow."""
    parts, done, position = [], 0, 0
    while (bracket := text.find("[", position)) >= 0:
        found = _range_end(text, bracket + 1)
        if found is None:  # a "/" ends the body: no range starts before it
            position = text.find("/", bracket)
            continue
        body_end, close_end = found
        lead = "\\" if bracket > done and text[bracket - 1] == "\\" else ""
        start = bracket - len(lead)
        body, end_escape = text[bracket + 1 : body_end], text[body_end:close_end]
        close = "]" if close_end < len(text) and text[close_end] == "]" else ""
        parts += [text[done:start], _range(lead, body, end_escape, close)]
        done = position = close_end + len(close)
    return "".join(parts) + text[done:] if parts else text


def _range_end(text: str, position: int) -> tuple[int, int] | None:
    """For a body from ``position``: where it ends and where the backslashes after it end (at ``]``,
    or at the end of the text, or before a newline that ends it); None at a ``/`` first."""
    length = len(text)
    while True:
        if position == length or (position == length - 1 and text[position] == "\n"):
            return position, position
        char = text[position]
        if char == "]":
            return position, position
        if char == "/":
            return None
        if char == "\\":
            run_end = _BACKSLASHES.match(text, position).end()  # type: ignore[union-attr]
            if run_end == length or text[run_end] == "]" or (run_end == length - 1 and text[run_end] == "\n"):
                return position, run_end
            position = run_end
        else:
            position += 1


def _range(lead: str, body: str, end_escape: str, close: str) -> str:
    if lead:
        return f"\\[{body}{_even_backslashes(end_escape)}{close}"
    if close != "]" or len(end_escape) % 2:
        return "[]"
    return f"[{_sanitize_range(body)}{end_escape}]"


# -- the chain --------------------------------------------------------------------------------------

Step = Callable[[str, str], str]
"""One replacement: (the text so far, the pattern being converted) -> the text after it."""


def _replace(regex: re.Pattern[str], make: Callable[[str], Callable[[re.Match[str]], str]], count: int = 0) -> Step:
    """A replacement by one of node-ignore's regexes (ours, literal; ``count`` 1: without the g flag),
    ``make(pattern)`` its function."""
    return lambda text, pattern: regex.sub(make(pattern), text, count=count)


def _fixed(text: str) -> Callable[[str], Callable[[re.Match[str]], str]]:
    return lambda _: lambda __: text


_REPLACERS: tuple[Step, ...] = (
    _replace(re.compile(r"^\ufeff"), _fixed(""), 1),
    _trailing_spaces,
    _escaped_spaces,
    _replace(re.compile(r"[\\$.|*+(){^]"), lambda _: lambda m: "\\" + m.group(0)),
    _replace(re.compile(r"(?!\\)\?"), _fixed("[^/]")),
    _replace(re.compile(r"^/"), _fixed("^"), 1),
    _replace(re.compile(r"/"), _fixed(r"\/")),
    _replace(re.compile(r"^\^*\\\*\\\*\\/"), _fixed(r"^(?:.*\/)?"), 1),
    _replace(re.compile(r"^(?=[^^])"), _starting, 1),
    _replace(re.compile(r"\\/\\\*\\\*(?=\\/|$)"), lambda _: _two_globstars),
    _intermediate_wildcards,
    _replace(re.compile(r"\\\\\\(?=[$.|*+(){^])"), _fixed("\\")),
    _replace(re.compile(r"\\\\"), _fixed("\\")),
    _ranges,
    _replace(re.compile(r"(?:[^*])$"), lambda _: _ending, 1),
)
_TRAILING_WILDCARD = re.compile(r"(^|\\/)?\\\*$")


def regex_prefix(pattern: str) -> str:
    """``makeRegexPrefix``: the pattern through every replacement."""
    text = pattern
    for step in _REPLACERS:
        text = step(text, pattern)
    return text


def _source(prefix: str) -> str:
    """The ``regex`` of a rule (mode ``regex``: a trailing ``*`` after a slash needs one character)
    as ``re`` reads it, its final lookahead written as a group."""
    source = _TRAILING_WILDCARD.sub(
        lambda m: (f"{m.group(1)}[^/]+" if m.group(1) else "[^/]*") + _LOOKAHEAD_END, prefix, count=1
    )
    if source.endswith(_LOOKAHEAD_END):
        source = source[: -len(_LOOKAHEAD_END)] + _GROUP_END
    return _python_source(source)


_JS_ESCAPE_LETTERS = "bBcdDfnrsStuvwWx"
"""Letters a backslash gives a meaning in a JavaScript regex without the u flag; after any other
character, a backslash stands for that character (``\\a`` is ``a``, where ``re`` reads a bell)."""


def _python_source(source: str) -> str:
    """A JavaScript regex (no flags but i) as ``re`` reads it: the two differ in what a user's class
    or escape (``[\\a]``, ``\\K``) can make of a rule. ``[]`` matches no character (``re``: a set
    holding ``]``...), ``[^]`` any; an escaped letter JavaScript gives no meaning is that letter,
    ``\\cX`` a control character, ``\\B`` in a class ``B``. Left as they differ: ``\\d``, ``\\w``,
    ``\\s`` and ``\\b`` mean what they mean in ``re`` (in JavaScript, ASCII's), and ignoring case ``s``
    and ``k`` also match ``ſ`` and ``K`` (U+212A), as ``re`` folds them and JavaScript does not."""
    out: list[str] = []
    position, in_class = 0, False
    while position < len(source):
        char = source[position]
        if char == "\\" and position + 1 < len(source):
            after, letter = source[position + 1], source[position + 2 : position + 3]
            if after == "c" and letter.isascii() and letter.isalpha():
                out.append(re.escape(chr(ord(letter) % 32)))
                position += 3
                continue
            if after.isascii() and after.isalpha() and (after not in _JS_ESCAPE_LETTERS or (in_class and after == "B")):
                out.append(after)
            elif after == "c":
                out.append("\\\\c")
            else:
                out.append(char + after)
            position += 2
            continue
        if in_class:
            in_class = char != "]"
        elif source.startswith("[]", position):
            out.append(r"[^\s\S]")
            position += 2
            continue
        elif source.startswith("[^]", position):
            out.append(r"[\s\S]")
            position += 3
            continue
        elif char == "[":
            in_class = True
        out.append(char)
        position += 1
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    pattern: str
    negative: bool
    regex: Matcher | None
    """None for a regex the engine does not take (longer than it allows, or invalid): it matches nothing."""

    def matches(self, path: str) -> bool:
        return self.matches_each([path])[0]

    def matches_each(self, paths: list[str]) -> list[bool]:
        """For each path, whether the rule matches it (one search of RE2 for them all)."""
        if self.regex is None:
            return [False] * len(paths)
        try:
            return self.regex.matches(paths)
        except PatternError:  # re, in its child, took too long on a class RE2 cannot run
            return [False] * len(paths)


@functools.lru_cache(maxsize=4096)
def _rule(pattern: str, ignore_case: bool) -> Rule:
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    body = re.sub(r"^\\!", "!", body, count=1)
    body = re.sub(r"^\\#", "#", body, count=1)
    try:
        regex: Matcher | None = compile_regex(_source(regex_prefix(body)), re.IGNORECASE if ignore_case else 0)
    except PatternError:
        regex = None
    return Rule(pattern, negative, regex)


def _usable(pattern: str) -> bool:
    return (
        bool(pattern)
        and not _BLANK.match(pattern)
        and not _TRAILING_BACKSLASH.search(pattern)
        and not pattern.startswith("#")
    )


def _as_node_names(path: str) -> str:
    """The path as Node's ``fs`` gives it: bytes that are not UTF-8 (surrogate escapes) as U+FFFD."""
    if path.isascii():
        return path
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")


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

    def _test(self, paths: list[str]) -> list[bool]:
        """``RuleManager.test`` of each path (its parents not asked), each rule asked of the paths
        whose answer it can still change, all at once."""
        ignored, unignored = [False] * len(paths), [False] * len(paths)
        for rule in self.rules:
            asked = [
                n
                for n in range(len(paths))
                if not (
                    (unignored[n] == rule.negative and ignored[n] != unignored[n])
                    or (rule.negative and not ignored[n] and not unignored[n])
                )
            ]
            if asked:
                for n, hit in zip(asked, rule.matches_each([paths[n] for n in asked]), strict=True):
                    if hit:
                        ignored[n], unignored[n] = not rule.negative, rule.negative
        return ignored

    def ignores(self, path: str) -> bool:
        """Whether the relative path (``dir/`` for a directory) is ignored, or one of its parents is."""
        return self.ignores_each([path])[0]

    def ignores_each(self, paths: Iterable[str]) -> list[bool]:
        """For each relative path, whether it or one of its parents is ignored. The parents' answers
        are kept (as node-ignore's ``_t`` keeps them), not the paths' own: a listing of a million
        names would keep a million."""
        named = [_as_node_names(path) for path in paths]
        answers = [self._parents_ignored(path) for path in named]
        asked = [n for n, answer in enumerate(answers) if not answer]
        for n, answer in zip(asked, self._test([named[n] for n in asked]), strict=True):
            answers[n] = answer
        return answers

    def _parents_ignored(self, path: str) -> bool:
        parts = [part for part in path.split("/") if part]
        ignored = False
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth]) + "/"
            above = self._cache.get(parent)
            if above is None:
                above = self._cache[parent] = ignored or self._test([parent])[0]
            ignored = above
        return ignored
