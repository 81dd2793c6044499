"""GNU grep's BRE and ERE, and ripgrep's Rust syntax, translated once to ``re`` syntax for the engine.

Each program's pattern is written in ``re``'s syntax and compiled by ``engine.patterns``, which
matches it in linear time with RE2 (``re`` in a child process, within a time limit, for what RE2
cannot run: back-references, ``\\<`` and ``\\>``). Lines are matched with ``re.MULTILINE`` as
text decoded with ``surrogateescape``, so every translation keeps a match inside one line (no class
matches ``\\n``) and off invalid bytes (``.``, negated classes and ``\\W``, ``\\S``, ``\\D`` skip
U+DC80..U+DCFF, as GNU grep and ripgrep match no encoding error with them). Whether a line matches
does not depend on POSIX's leftmost-longest rule, so a leftmost-first engine selects the same
lines. Constructs whose meaning differs, or that one engine refuses, are Unsupported. POSIX
classes such as ``[[:alpha:]]`` are ASCII here.
"""

from __future__ import annotations

import re

from agentpager.engine.patterns import Matcher, PatternError, compile_regex
from agentpager.tools.shell.errors import Unsupported

ANY = "[^\\n\\udc80-\\udcff]"
_NOT_IN_LINE = "\\n\\udc80-\\udcff"
_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\r\\v\\f",
    "blank": " \\t",
    "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "xdigit": "0-9A-Fa-f",
    "cntrl": "\\x00-\\x09\\x0b-\\x1f\\x7f",
    "print": "\\x20-\\x7e",
    "graph": "\\x21-\\x7e",
}
_SHORTHANDS = {
    "w": "\\w",
    "W": "[^\\w\\n\\udc80-\\udcff]",
    "s": "[^\\S\\n]",
    "S": "[^\\s\\udc80-\\udcff]",
    "b": "\\b",
    "B": "\\B",
}


def posix(pattern: str, extended: bool) -> str:
    """A GNU BRE (``extended`` False) or ERE as a Python pattern."""
    out: list[str] = []
    index = 0
    # Where ^ is an anchor and * a literal in a BRE: at the start, after \( or \|.
    at_start = True
    while index < len(pattern):
        char = pattern[index]
        start_before = at_start
        at_start = False
        if char == "\\":
            index += 1
            if index == len(pattern):
                raise Unsupported("a pattern ending in a backslash")
            char = pattern[index]
            if not extended and char in "(|)":
                out.append({"(": "(", "|": "|", ")": ")"}[char])
                at_start = char != ")"
            elif not extended and char in "+?":
                out.append(char)
            elif not extended and char == "{":
                end = pattern.find("\\}", index)
                if end < 0:
                    raise Unsupported("an unclosed \\{")
                out.append(_interval(pattern[index + 1 : end]))
                index = end + 1
            elif char in "123456789":
                out.append("\\" + char)
            elif char in "<>":
                out.append("\\b(?=\\w)" if char == "<" else "\\b(?<=\\w)")
            elif char in _SHORTHANDS:
                out.append(_SHORTHANDS[char])
            elif char.isalnum() or char in "`'":
                raise Unsupported(f"the escape \\{char}")
            else:
                out.append(re.escape(char))
        elif char == "[":
            text, index, _ = _bracket(pattern, index)
            out.append(text)
            continue
        elif char == ".":
            out.append(ANY)
        elif char == "*":
            out.append("\\*" if start_before or (out and out[-1] in ("^", "(", "|")) else "*")
        elif char == "^":
            if extended or start_before:
                out.append("^")
                at_start = not extended
            else:
                out.append("\\^")
        elif char == "$":
            rest = pattern[index + 1 :]
            anchor = extended or rest == "" or rest.startswith(("\\)", "\\|"))
            out.append("$" if anchor else "\\$")
        elif extended and char in "()|":
            out.append(char)
            at_start = char != ")"
        elif extended and char in "+?":
            out.append("\\" + char if start_before or (out and out[-1] in ("^", "(", "|")) else char)
        elif extended and char == "{":
            end = pattern.find("}", index)
            if end < 0 or start_before:
                raise Unsupported("a { that does not start an interval")
            out.append(_interval(pattern[index + 1 : end]))
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _interval(body: str) -> str:
    if not re.fullmatch(r"\d*(,\d*)?", body) or body in ("", ","):
        raise Unsupported(f"the interval {{{body}}}")
    return "{" + body + "}"


def _bracket(pattern: str, index: int, rust: bool = False) -> tuple[str, int, bool]:
    """A bracket expression at ``index``, POSIX's or (``rust``) Rust regex's: its Python class, where
    it ends, and whether it holds an uppercase literal (for ``--smart-case``)."""
    position = index + 1
    negate = pattern[position : position + 1] == "^"
    position += negate
    items: list[str] = []
    uppercase = False
    first = True
    while True:
        if position >= len(pattern):
            raise Unsupported("an unclosed [")
        char = pattern[position]
        if char == "]" and not first:
            break
        first = False
        if pattern.startswith("[:", position):
            end = pattern.find(":]", position + 2)
            name = pattern[position + 2 : end] if end >= 0 else ""
            if name not in _POSIX_CLASSES:
                raise Unsupported(f"the class [:{name}:]")
            items.append(_POSIX_CLASSES[name])
            position = end + 2
            continue
        if not rust and (pattern.startswith("[.", position) or pattern.startswith("[=", position)):
            raise Unsupported("collating elements in a bracket expression")
        if rust and (char == "[" or pattern.startswith(("&&", "--", "~~"), position)):
            raise Unsupported("a nested class or class operation")
        if rust and char == "\\":
            escaped = pattern[position + 1 : position + 2]
            if escaped in ("d", "w", "s"):
                items.append("\\" + escaped)
            elif escaped and not escaped.isalnum():
                items.append(re.escape(escaped))
            else:
                raise Unsupported(f"the escape \\{escaped} in a class")
            position += 2
            continue
        if pattern[position + 1 : position + 2] == "-" and pattern[position + 2 : position + 3] not in ("]", ""):
            low, high = char, pattern[position + 2]
            if low > high or (rust and high in ("\\", "[")):
                raise Unsupported(f"the range {low}-{high}")
            items.append(re.escape(low) + "-" + re.escape(high))
            uppercase = uppercase or any(c.isupper() for c in (low, high))
            position += 3
            continue
        items.append(re.escape(char))
        uppercase = uppercase or char.isupper()
        position += 1
    body = "".join(items)
    if negate:
        return f"[^{body}{_NOT_IN_LINE}]", position + 1, uppercase
    return f"[{body}]", position + 1, uppercase


# -- ripgrep (Rust regex) -------------------------------------------------------------------------

_RUST_SHORTHANDS = {"d": "\\d", "D": "[^\\d\\n\\udc80-\\udcff]", **_SHORTHANDS}


def rust(pattern: str) -> tuple[str, bool]:
    """A Rust regex as a Python pattern, and whether it has an uppercase literal (for ``--smart-case``)."""
    out: list[str] = []
    uppercase = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 1
            if index == len(pattern):
                raise Unsupported("a pattern ending in a backslash")
            char = pattern[index]
            if char in _RUST_SHORTHANDS:
                out.append(_RUST_SHORTHANDS[char])
            elif char == "t":
                out.append("\\t")
            elif char.isalnum() or char == "<" or char == ">":
                raise Unsupported(f"the escape \\{char}")
            else:
                out.append(re.escape(char))
                uppercase = uppercase or char.isupper()
        elif char == "[":
            text, index, upper = _bracket(pattern, index, rust=True)
            out.append(text)
            uppercase = uppercase or upper
            continue
        elif char == ".":
            out.append(ANY)
        elif char == "(":
            if pattern.startswith("(?", index) and not pattern.startswith("(?:", index):
                flags = re.match(r"\(\?([imsxU-]+)\)", pattern[index:])
                if not flags or flags[1] not in ("i", "-i") or index != 0:
                    raise Unsupported("a regex group with flags or a name")
                out.append("(?i)" if flags[1] == "i" else "")
                index += len(flags[0])
                continue
            out.append(char)
        elif char in ")|^$*+?":
            out.append(char)
        elif char == "{":
            end = pattern.find("}", index)
            if end < 0 or not out:
                raise Unsupported("a { that does not start a repetition")
            out.append(_interval(pattern[index + 1 : end]))
            index = end
        else:
            out.append(re.escape(char))
            uppercase = uppercase or char.isupper()
        index += 1
    return "".join(out), uppercase


# -- one pattern for the engine -----------------------------------------------------------------------

_NOT_WORD = {"grep": "[^\\w\\n]", "rg": "[^\\w\\n\\udc80-\\udcff]"}
"""What may stand next to a ``-w`` match: GNU grep takes an invalid byte for a non-word character,
ripgrep wants a character that is not a word character."""


def compile_lines(translated: list[str], ignore_case: bool, word: str = "", line: bool = False) -> Matcher:
    """One matcher for the translated patterns (any of them matches); ``word`` is the program whose
    ``-w`` applies, or empty; ``line`` is ``-x``.

    ``-w`` is written with the characters around the match taken in, not looked at: whether a line
    holds a match is the same, and RE2 can run it (a look-around only ``re`` can).
    """
    if len(translated) > 1 and any(re.search(r"\\[1-9]", piece) for piece in translated):
        raise Unsupported("back-references with several patterns")
    body = "|".join(f"(?:{piece})" for piece in translated)
    if line:
        body = f"^(?:{body})$"
    elif word:
        other = _NOT_WORD[word]
        body = f"(?:^|{other})(?:{body})(?:$|{other})"
    try:
        return compile_regex(body, re.MULTILINE | (re.IGNORECASE if ignore_case else 0))
    except PatternError as error:
        raise Unsupported(f"the pattern: {error.message}") from None
