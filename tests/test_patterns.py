"""Regexes and globs in linear time with re's meaning: listings, the cost caps, the child for the rest."""

from __future__ import annotations

import fnmatch
import re
import signal
import subprocess
import sys
import textwrap
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG, children_of, processes_with

from agentpager import Workspace
from agentpager.engine import patterns
from agentpager.engine.lineindex import Cancelled
from agentpager.engine.patterns import (
    InvalidPattern,
    PatternTooCostly,
    PatternTooLong,
    compile_glob,
    compile_regex,
)

HOSTILE_NAME = "a" * 41 + "!"


@contextmanager
def watchdog(seconds: int = 60) -> Iterator[None]:
    """Fail instead of hanging: re's backtracking is interrupted by signals in the main thread."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def hostile_tree(root: Path) -> Path:
    (root / HOSTILE_NAME).write_text("x\n")
    (root / "aaa").write_text("x\n")
    return root


@pytest.mark.parametrize("tool", ["list_files", "count_files"])
def test_nested_quantifiers_answer_at_once(hostile_tree: Path, tool: str) -> None:
    workspace = Workspace(hostile_tree)
    with watchdog():
        result = workspace.call(tool, {"pattern": "(a+)+$", "use_regex": True})
    expected = {
        "list_files": "aaa",
        "count_files": "Directory: .\nPattern: (a+)+$ (regex)\nTotal files in directory: 1\n\n"
        "By extension:\n  (no extension): 1",
    }
    assert result.text == expected[tool]


def test_a_glob_past_the_length_cap_is_refused(root: Path) -> None:
    with watchdog():
        result = Workspace(root).call("list_files", {"pattern": "[" * 40000})
    assert result.is_error
    assert result.text == "Error: Pattern is too long: 40,000 characters (at most 1,000)."


def test_a_regex_past_the_length_cap_is_refused(root: Path) -> None:
    result = Workspace(root).call("count_files", {"pattern": "a" * 1001, "use_regex": True})
    assert result.text == "Error: Pattern is too long: 1,001 characters (at most 1,000)."


def test_a_pattern_at_the_cap_is_used(root: Path) -> None:
    (root / ("a" * 250)).write_text("")
    (root / ("a" * 249)).write_text("")
    assert Workspace(root).call("list_files", {"pattern": "*a" * 250 + "*" * 500}).text == "a" * 250


def test_invalid_regexes_keep_re_messages(root: Path) -> None:
    workspace = Workspace(root)
    assert workspace.call("list_files", {"pattern": "(", "use_regex": True}).text == (
        "Error: Invalid regex pattern '(': missing ), unterminated subpattern at position 0."
    )
    # Found by re.compile, not by its parser: the child compiles the patterns only re can run.
    assert workspace.call("list_files", {"pattern": "(?<=a+)b", "use_regex": True}).text == (
        "Error: Invalid regex pattern '(?<=a+)b': look-behind requires fixed-width pattern."
    )


def test_lookaround_and_backreferences_run_in_re(root: Path) -> None:
    for name in ("aa.txt", "ab.txt", "b.py", "ba.py"):
        (root / name).write_text("")
    workspace = Workspace(root)
    assert workspace.call("list_files", {"pattern": r"(.)\1", "use_regex": True}).text == "aa.txt"
    assert workspace.call("list_files", {"pattern": r"(?<!a)\.py$", "use_regex": True}).text == "b.py"
    assert workspace.call("list_files", {"pattern": r"a(?=b)", "use_regex": True}).text == "ab.txt"


def test_a_costly_lookaround_is_stopped(hostile_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(patterns.SECONDS_ENV, "0.5")
    with watchdog():
        result = Workspace(hostile_tree).call("list_files", {"pattern": "(a+)+(?=b)", "use_regex": True})
    assert result.is_error
    assert result.text == "Error: Pattern '(a+)+(?=b)' took longer than 0.5 s to match; use a simpler one."


def test_names_that_are_not_utf8_are_matched_by_re(root: Path) -> None:
    name = b"\xff\xfe_bad.txt".decode("utf-8", "surrogateescape")
    (root / name).write_text("")
    (root / "good.txt").write_text("")
    with compile_regex(r"\w+\.txt$") as regex, compile_glob("*_bad*") as glob:
        assert regex.matches([name, "good.txt", "x"]) == [True, True, False]
        assert glob.matches([name, "good.txt"]) == [True, False]


def test_a_stopped_child_does_not_outlive_its_matcher() -> None:
    matcher = compile_regex("(a+)+(?=b)", seconds=600)
    child = matcher.child()  # its start is timed too: with a limit no loaded machine reaches
    child.seconds = 0.2  # then (a+)+ over the hostile name takes far longer than its request may
    with pytest.raises(PatternTooCostly):
        matcher.search(HOSTILE_NAME)
    assert child.process.poll() is not None
    matcher.close()


def test_cancel_stops_the_child() -> None:
    cancel = threading.Event()
    cancel.set()
    with compile_regex("(a+)+(?=b)", seconds=60) as matcher, pytest.raises(Cancelled):
        matcher.search(HOSTILE_NAME, cancel)


def test_errors_from_compile() -> None:
    with pytest.raises(PatternTooLong):
        compile_regex("x" * 1001)
    with pytest.raises(InvalidPattern) as caught:
        compile_regex("a{2,1}")
    assert caught.value.message == "min repeat greater than max repeat at position 2"


def test_patterns_python_warns_about_compile_without_a_warning(root: Path) -> None:
    """A set holding ``[`` made ``re`` print a FutureWarning on stderr (over the TUI)."""
    (root / "[a.txt").write_text("x")
    command = [sys.executable, "-W", "always", "-m", "agentpager", "call", "--root", str(root), "list_files"]
    done = subprocess.run([*command, '{"pattern": "[[a]", "use_regex": true}'], capture_output=True, timeout=60)
    assert (done.stdout, done.stderr) == (b"[a.txt", b"")
    with _no_warning():
        assert compile_regex("[[a]").search("[")
        assert compile_glob("[[a]").search("[")


@contextmanager
def _no_warning() -> Iterator[None]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert [str(warning.message) for warning in caught] == []


def test_ascii_case_partners_are_all_there_are() -> None:
    """The characters beyond ASCII that re matches to an ASCII character ignoring case."""
    ascii_text = "".join(map(chr, range(128)))
    cased = (
        chr(code) for code in range(128, 0x110000) if chr(code).lower() != chr(code) or chr(code).upper() != chr(code)
    )
    partners = tuple(ord(c) for c in cased if re.search(f"(?i)[{re.escape(c)}]", ascii_text))
    assert partners == patterns._ASCII_CASE_PARTNERS


# -- the same answers as re -------------------------------------------------------------------------

ATOMS = [
    "a", "b", "k", "é", "K", "ſ", "İ", "٣", r"\n", ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"\b", r"\B",
    "^", "$", r"\A", r"\Z", "[a-c]", "[^a]", r"[\w.]", r"[^\d\s]", "(?i:k)", "(?i:[a-z])", "(?i:[^b])",
    r"(?a:\w)", r"(?a:\b)", r"(?s:.)", "(?i:é)", "[\u0100-\u0200]", "(?i:[\u0100-\u0200])",
]  # fmt: skip
TEXT_ALPHABET = "abk \n_1.é\u212aſİı٣K\u00a0\x1c"


def regexes() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map("|".join),
            inner.map(lambda r: f"({r})"),
            inner.map(lambda r: f"(?:{r})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "{1,3}", "*?", "+?", "??", "{2}"])).map(
                lambda t: f"(?:{t[0]}){t[1]}"
            ),
        )

    return st.recursive(st.sampled_from(ATOMS), extend, max_leaves=6)


@pytest.mark.slow
@settings(max_examples=examples(400), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    pattern=regexes(),
    texts=st.lists(st.text(TEXT_ALPHABET, max_size=8), min_size=1, max_size=6),
    flags=st.sampled_from([0, re.MULTILINE, re.IGNORECASE, re.DOTALL, re.MULTILINE | re.IGNORECASE]),
)
def test_matches_as_re_does(pattern: str, texts: list[str], flags: int) -> None:
    compiled = re.compile(pattern, flags)
    matcher = compile_regex(pattern, flags, seconds=600)  # equal answers, however slow the child starts
    try:
        assert matcher.matches(texts) == [compiled.search(text) is not None for text in texts], pattern
        for text in texts:
            if matcher._regex_for(text) is None:  # the child's answers are re's own
                continue
            expected = [m.span() for m in compiled.finditer(text)]
            assert matcher.search(text) == bool(expected), (pattern, text)
            starts = matcher.starts(text)
            assert starts[:1] == [start for start, _ in expected[:1]], (pattern, text)
            if all(start < end for start, end in expected) and not text.endswith("\n"):
                assert starts == [start for start, _ in expected], (pattern, text)
    finally:
        matcher.close()


GLOB_ATOMS = ["a", "b", "é", "*", "?", "[a-c]", "[!a]", "[]a]", "[!]]", ".", "/", "[", "\\", "[*]"]


@settings(max_examples=examples(300), deadline=None)
@given(
    parts=st.lists(st.sampled_from(GLOB_ATOMS), max_size=6),
    texts=st.lists(st.text("ab.é/*[]!\n", max_size=6), min_size=1, max_size=6),
)
def test_globs_match_as_fnmatchcase_does(parts: list[str], texts: list[str]) -> None:
    pattern = "".join(parts)
    with compile_glob(pattern) as glob:
        assert glob.matches(texts) == [fnmatch.fnmatchcase(text, pattern) for text in texts]


# -- the MCP server goes on answering ---------------------------------------------------------------


@pytest.mark.slow
async def test_mcp_answers_tools_list_while_a_costly_pattern_runs(hostile_tree: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentpager", "mcp", "--root", str(hostile_tree)],
        env={patterns.SECONDS_ENV: "5", "PATH": "/usr/bin:/bin"},
    )
    order: list[str] = []
    hostile: list[str] = []
    with anyio.fail_after(HANG):
        async with Client(server) as client:

            async def costly() -> None:
                answer = await client.call_tool("list_files", {"pattern": "(a+)+(?=b)", "use_regex": True})
                hostile.append(answer.content[0].text)
                order.append("list_files")

            async with anyio.create_task_group() as group:
                group.start_soon(costly)
                while not children_of(processes_with(str(hostile_tree))) and not order:
                    await anyio.sleep(0.05)  # until the costly call runs in the server: re in its child
                tools = await client.list_tools()
                order.append("tools/list")
    assert [tool.name for tool in tools.tools] == ["read_file", "list_files", "count_files"]
    assert order == ["tools/list", "list_files"]
    assert hostile == ["Error: Pattern '(a+)+(?=b)' took longer than 5 s to match; use a simpler one."]


# -- the TUI search -----------------------------------------------------------------------------------

TUI_SCENARIO = textwrap.dedent(
    """
    import asyncio, json, sys
    from agentpager import Workspace
    from agentpager.tui.app import AgentPagerApp
    sys.path[:0] = [sys.argv[2], sys.argv[2] + "/.."]  # tests/tui and tests
    from pilot_helpers import settle

    async def main():
        app = AgentPagerApp(Workspace(sys.argv[1]), "names.txt")
        app.animation_level = "none"
        notes = []
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            await pilot.press("slash", *"(a+)+$", "enter")
            await settle(pilot)
            notes.append((app.viewer.match_count, app.viewer._search_note))
            await pilot.press("slash", *"(a+)+(?=b)", "enter")
            await pilot.pause(0.3)
            await pilot.press("escape")  # stops the search: re's child is killed
            await settle(pilot)
            await pilot.press("escape")  # with nothing running, clears it
            notes.append((app.viewer.match_count, app.viewer._search_note))
        print(json.dumps(notes))

    asyncio.run(main())
    """
)


@pytest.mark.slow
def test_tui_search_answers_and_escape_stops_re(root: Path) -> None:
    (root / "names.txt").write_text((HOSTILE_NAME + "\n") * 3 + "aaaa\n")
    done = subprocess.run(
        [sys.executable, "-c", TUI_SCENARIO, str(root), str(Path(__file__).parent / "tui")],
        capture_output=True,
        text=True,
        timeout=HANG,
        env={patterns.SECONDS_ENV: "60", "PATH": "/usr/bin:/bin", "AGENTPAGER_CACHE_DIR": str(root / ".cache")},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == '[[1, "match 1/1 at line 4"], [0, ""]]'


def test_no_character_past_the_last_cased_one_has_a_case() -> None:
    import _sre

    assert not any(_sre.unicode_iscased(code) for code in range(patterns._LAST_CASED + 1, 0x110000))


@pytest.mark.parametrize(
    "source",
    ["(?i:k)", "(?i:s)", "(?i:ß)", "(?i:é)", "(?i:[a-z])", "(?i:[^a-z])", "(?i:[\u0100-\u0200])", "(?i:[^b\u03c3])",
     "(?ia:[a-z])", r"(?ia:[\w])", r"(?ia:[^\d])", "(?i:\u0130)", "(?i:[\\x00-\U0010ffff])"],
)  # fmt: skip
def test_a_set_of_characters_ignoring_case_is_re_s_own(source: str) -> None:
    """Over every character: non-ASCII text ignoring case went to the child for each letter."""
    tree = patterns._parse(source)
    (op, av) = tree[0][1][3][0]  # the one set inside the group
    emitter = patterns._Emitter(ascii_text=False, atomic_as_group=False, lines=False)
    ranges = emitter.characters(op, av, tree.state.flags | tree[0][1][1])
    # The characters re matches, as runs: ``source`` matches one character and looks at nothing
    # around it, so each longest run of ``(?:source)+`` over every character in order is a range.
    every_character = "".join(map(chr, range(0x110000)))
    runs = re.compile(f"(?:{source})+").finditer(every_character)
    assert patterns._merged(ranges) == [(run.start(), run.end() - 1) for run in runs]
