"""node-ignore's rules (tools/js/ignore.py): the same regexes as its replacements give, matched in
linear time, and hostile ignore files answered at once."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_patterns import watchdog

from agentpager import Workspace
from agentpager.tools.js import ignore
from agentpager.tools.js.ignore import Ignore, regex_prefix

# node-ignore 7's REPLACERS as they are written (chunk-JDPZ4CE3.js 235317-235477), applied with re:
# the reference for short patterns (on long ones some backtrack for minutes).
_NODE_REPLACERS = (
    (r"^\ufeff", lambda p: lambda m: "", 1),
    (r"((?:\\\\)*?)(\\?\s+)$", lambda p: lambda m: m.group(1) + (" " if m.group(2).startswith("\\") else ""), 1),
    (r"(\\+?)\s", lambda p: lambda m: m.group(1)[: len(m.group(1)) - len(m.group(1)) % 2] + " ", 0),
    (r"[\\$.|*+(){^]", lambda p: lambda m: "\\" + m.group(0), 0),
    (r"(?!\\)\?", lambda p: lambda m: "[^/]", 0),
    (r"^/", lambda p: lambda m: "^", 1),
    (r"/", lambda p: lambda m: r"\/", 0),
    (r"^\^*\\\*\\\*\\/", lambda p: lambda m: r"^(?:.*\/)?", 1),
    (r"^(?=[^^])", lambda p: lambda m: "^" if re.search(r"/(?!$)", p) else r"(?:^|\/)", 1),
    (
        r"\\/\\\*\\\*(?=\\/|$)",
        lambda p: lambda m: r"(?:\/[^\/]+)*" if m.start() + 6 < len(m.string) else r"\/.+",
        0,
    ),
    (r"(^|[^\\]+)(\\\*)+(?=.+)", lambda p: lambda m: m.group(1) + m.group(2).replace("\\*", r"[^\/]*"), 0),
    (r"\\\\\\(?=[$.|*+(){^])", lambda p: lambda m: "\\", 0),
    (r"\\\\", lambda p: lambda m: "\\", 0),
    (r"(\\)?\[([^\]/]*?)(\\*)($|\])", lambda p: _node_range, 0),
    (r"(?:[^*])$", lambda p: lambda m: m.group(0) + ("$" if m.group(0).endswith("/") else r"(?=$|\/$)"), 1),
)


def _node_range(m: re.Match[str]) -> str:
    lead, body, end, close = m.groups()
    if lead == "\\":
        return f"\\[{body}{end[: len(end) - len(end) % 2]}{close}"
    if close == "]" and len(end) % 2 == 0:
        return (
            "[" + re.sub(r"([0-z])-([0-z])", lambda r: r.group(0) if r.group(1) <= r.group(2) else "", body) + end + "]"
        )
    return "[]"


def node_prefix(pattern: str) -> str:
    text = pattern
    for source, make, count in _NODE_REPLACERS:
        text = re.sub(source, make(pattern), text, count=count)
    return text


PATTERN_ALPHABET = "\\*?[]/!#^$.a-z \t\n\u00a0é"


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=st.text(PATTERN_ALPHABET, max_size=14))
def test_the_replacements_give_node_ignore_s_regexes(pattern: str) -> None:
    assert regex_prefix(pattern) == node_prefix(pattern)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pattern=st.text("*?[]/!ab-.", min_size=1, max_size=10),
    paths=st.lists(st.text("ab/.*[É", min_size=1, max_size=8), min_size=1, max_size=5),
)
def test_rules_match_as_re_with_the_lookahead_does(pattern: str, paths: list[str]) -> None:
    rules = Ignore().add([pattern]).rules
    if not rules:
        return  # a blank, comment or trailing-backslash line: no rule, as node-ignore's checkPattern says
    body = re.sub(
        r"^\\#", "#", re.sub(r"^\\!", "!", pattern[1:] if pattern.startswith("!") else pattern, count=1), count=1
    )
    js_source = re.sub(
        r"(^|\\/)?\\\*$",
        lambda m: (f"{m.group(1)}[^/]+" if m.group(1) else "[^/]*") + r"(?=$|\/$)",
        node_prefix(body),
        count=1,
    )
    source = ignore._python_source(js_source)  # re's reading of JavaScript's classes and escapes
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # [[ in a set: the engine silences it too
            reference = re.compile(source, re.IGNORECASE)
    except re.error:
        return
    for path in paths:
        assert rules[0].matches(path) == (reference.search(path) is not None), (pattern, path)


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("*a*a*a*a*a*a*a*a*b", "a" * 60),  # re backtracked for over 300 s
        ("a" + " " * 30_000 + "b", "a"),  # its replacements took 15 s
        ("\\" * 30_000 + "x", "a"),
        ("[" * 30_000, "a"),
        ("[" * 30_000 + "/", "a"),
        ("x" * 30_000 + "*", "a"),
    ],
)
def test_a_hostile_ignore_file_is_answered_at_once(root: Path, line: str, name: str) -> None:
    (root / ".geminiignore").write_text(line + "\n")
    (root / name).write_text("x\n")
    workspace = Workspace(root, "gemini-cli")
    with watchdog(30):
        listing = workspace.call("list_directory", {"dir_path": "."}).text
        read = workspace.call("read_file", {"file_path": name}).text
    assert (
        listing == f"Directory listing for {root.resolve()}:\n.geminiignore ({len(line) + 1} bytes)\n{name} (2 bytes)"
    )
    assert read == "x\n"


def test_a_rule_still_ignores_after_the_hostile_ones(root: Path) -> None:
    (root / ".geminiignore").write_text("*a*a*a*a*a*a*a*a*b\n" + "a" + " " * 30_000 + "b\nsecret*\n")
    (root / "secret.txt").write_text("x\n")
    (root / ("a" * 59 + "b")).write_text("x\n")
    workspace = Workspace(root, "gemini-cli")
    with watchdog(30):
        assert workspace.call("list_directory", {"dir_path": "."}).text == (
            f"Directory listing for {root.resolve()}:\n.geminiignore (30030 bytes)\n\n(2 ignored)"
        )
        assert workspace.call("read_file", {"file_path": "secret.txt"}).text == (
            f"File path '{root.resolve()}/secret.txt' is ignored by configured ignore patterns."
        )


def test_names_that_are_not_utf8_are_tested_as_node_names_them() -> None:
    rules = Ignore().add(["*\ufffd*", "!ok\ufffd"])
    assert rules.ignores("bad\udcff.txt") and not rules.ignores("ok\udcff")


def test_javascript_s_empty_class_matches_nothing() -> None:
    """``[]`` (an empty range, or one cut short) matches no character in JavaScript; re read it as the
    start of a set, and refused the rule (which raised out of the listing)."""
    for pattern in ("a[]b", "a[\\]b", "a[b", "[z-a]"):
        assert Ignore().add([pattern]).rules[0].regex is not None
        assert not any(Ignore().add([pattern]).ignores(path) for path in ("a]b", "ab", "a[b", "a\\]b", "z", "a"))
    assert Ignore().add(["a[^]b"]).ignores("a^b") and not Ignore().add(["a[^]b"]).ignores("axb")


def test_a_deep_path_is_answered() -> None:
    assert Ignore().add(["x/"]).ignores("/".join(["d"] * 3000) + "/x/f")
