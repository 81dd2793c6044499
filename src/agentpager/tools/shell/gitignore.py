"""ripgrep's ignore rules: ``.gitignore``, ``.ignore`` and ``.rgignore`` lines, and ``-g`` globs.

Followed from BurntSushi/ripgrep ``crates/ignore/src/gitignore.rs`` (``GitignoreBuilder::add_line``)
and ``crates/globset`` (``literal_separator``, ``backslash_escape``): ``#`` starts a comment, ``!``
negates, a trailing ``/`` matches directories only, a glob with a ``/`` elsewhere is anchored to
the file's directory (one without matches at any depth), ``*`` and ``?`` never match ``/``, ``**``
is a whole component, ``{a,b}`` alternates, ``[...]`` is a class and ``\\`` escapes. The last rule
that matches decides. Each glob becomes a regex compiled by the engine (RE2, linear time): a hostile
ignore file cannot make a walk take long; a glob globset refuses is Unsupported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agentpager.engine.patterns import MAX_PATTERN_CHARS, Matcher, PatternError, compile_regex
from agentpager.tools.shell.errors import Unsupported

_SPECIAL = frozenset("\\.+*?()|[]{}^$")


@dataclass(frozen=True)
class Rule:
    regex: str
    """In ``re``'s syntax, for the whole path relative to the rules' directory."""
    negated: bool
    directories_only: bool
    anchored: bool = False
    """Whether it names a path below the rules' directory (it has a ``/`` before its end), rather
    than a name at any depth."""


def rule_of(line: str, from_file: bool = True) -> Rule | None:
    """One line of an ignore file (``from_file``) or a ``-g`` glob; None for a blank line or a comment."""
    if from_file:
        if line.startswith("#"):
            return None
        line = _trailing_spaces_trimmed(line)
    if not line:
        return None
    negated = line.startswith("!")
    if negated or line.startswith(("\\!", "\\#")):
        line = line[1:]
    directories_only = line.endswith("/") and not line.endswith("\\/")
    if directories_only:
        line = line[:-1]
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    if not line:
        return None
    if not anchored and not line.startswith("**/"):
        line = "**/" + line
    return Rule(_glob(line), negated, directories_only, "/" in line.removeprefix("**/"))


def _trailing_spaces_trimmed(line: str) -> str:
    """Trailing spaces go unless the last is escaped (``gitignore.rs``: ``\\ `` keeps one)."""
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "
    return stripped


def _glob(glob: str) -> str:
    """globset's regex for ``glob`` (a path relative to the rules' directory must match it whole).
    A trailing ``/**`` matches what is inside, not the directory itself: it needs one more name."""
    out: list[str] = []
    components = glob.split("/")
    for index, component in enumerate(components):
        last = index == len(components) - 1
        if component == "**":
            out.append(".*" if last else "(?:.*/)?")
            continue
        if "**" in component.replace("\\*", ""):
            raise Unsupported(f"the glob {glob!r} (** must be a whole path component)")
        out.append(_component(component, glob))
        if not last:
            out.append("/")
    return f"^(?:{''.join(out)})$"


def _component(component: str, glob: str) -> str:
    out: list[str] = []
    index = 0
    in_braces = False
    while index < len(component):
        char = component[index]
        if char == "\\":
            index += 1
            if index < len(component):
                out.append(_literal(component[index]))
        elif char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end, text = _class(component, index, glob)
            out.append(text)
            index = end
            continue
        elif char == "{":
            if in_braces:
                raise Unsupported(f"the glob {glob!r} (nested {{)")
            in_braces = True
            out.append("(?:")
        elif char == "}" and in_braces:
            in_braces = False
            out.append(")")
        elif char == "," and in_braces:
            out.append("|")
        else:
            out.append(_literal(char))
        index += 1
    if in_braces:
        raise Unsupported(f"the glob {glob!r} (an unclosed {{)")
    return "".join(out)


def _class(component: str, start: int, glob: str) -> tuple[int, str]:
    """A ``[...]`` at ``start``: where it ends and its regex (it never matches ``/``)."""
    index = start + 1
    negate = component[index : index + 1] in ("!", "^")
    index += negate
    items: list[str] = []
    first = True
    while index < len(component) and (component[index] != "]" or first):
        first = False
        char = component[index]
        if component[index + 1 : index + 2] == "-" and component[index + 2 : index + 3] not in ("]", ""):
            low, high = char, component[index + 2]
            if low > high:
                raise Unsupported(f"the glob {glob!r} (the range {low}-{high})")
            items.append(f"{_class_literal(low)}-{_class_literal(high)}")
            index += 3
            continue
        items.append(_class_literal(char))
        index += 1
    if index >= len(component):
        raise Unsupported(f"the glob {glob!r} (an unclosed [)")
    body = "".join(items)
    return index + 1, f"[^/{body}]" if negate else f"[{body}]"


def _literal(char: str) -> str:
    return "\\" + char if char in _SPECIAL else char


def _class_literal(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


class Rules:
    """The rules of one ignore file (or the ``-g`` globs): the last that matches a path decides.

    Consecutive rules of one kind (ignore, or negated) are matched as one alternation, so a path
    costs one RE2 search per run of rules, looked at from the last run back.
    """

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        self.runs: dict[bool, list[tuple[bool, list[Matcher]]]] = {False: [], True: []}
        for is_dir in (False, True):
            kept = [rule for rule in self.rules if is_dir or not rule.directories_only]
            self.runs[is_dir] = _runs(kept)
        self.any_negated = any(rule.negated for rule in self.rules)
        self._unanchored: Rules | None = None

    @property
    def unanchored(self) -> Rules:
        """These rules without those that name a path below their directory."""
        if self._unanchored is None:
            self._unanchored = Rules(rule for rule in self.rules if not rule.anchored)
        return self._unanchored

    def close(self) -> None:
        for runs in self.runs.values():
            for _, matchers in runs:
                for matcher in matchers:
                    matcher.close()
        if self._unanchored is not None:
            self._unanchored.close()

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True: ignored; False: kept by a negated rule; None: no rule matches ``path``."""
        for negated, matchers in reversed(self.runs[is_dir]):
            if any(matcher.search(path) for matcher in matchers):
                return not negated
        return None


def _runs(rules: list[Rule]) -> list[tuple[bool, list[Matcher]]]:
    runs: list[tuple[bool, list[str]]] = []
    for rule in rules:
        if runs and runs[-1][0] == rule.negated:
            runs[-1][1].append(rule.regex)
        else:
            runs.append((rule.negated, [rule.regex]))
    return [(negated, _compiled(regexes)) for negated, regexes in runs]


def _compiled(regexes: list[str]) -> list[Matcher]:
    """Alternations of the regexes, each within the engine's pattern length."""
    groups: list[list[str]] = [[]]
    for regex in regexes:
        if len(regex) > MAX_PATTERN_CHARS:
            raise Unsupported(f"an ignore glob longer than {MAX_PATTERN_CHARS} characters once translated")
        if sum(len(item) + 1 for item in groups[-1]) + len(regex) > MAX_PATTERN_CHARS:
            groups.append([])
        groups[-1].append(regex)
    try:
        return [compile_regex("|".join(group)) for group in groups if group]
    except PatternError as error:
        raise Unsupported(f"an ignore glob: {error.message}") from None
