"""The shell programs within the engine's bounds: hostile patterns answer at once (or are refused
within the child's time limit), and a line of any length is never held (issue 17, items 1 and 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG

from agentpager.engine.content import ContentStore
from agentpager.tools.paths import Root
from agentpager.tools.shell import NotReplayable, ShellRun, emulate

HOSTILE_LINE = "a" * 60 + "!"
"""``re`` needs about 3^30 steps to find that ``(a+)+$`` does not match this."""
HOSTILE = {
    f"echo {HOSTILE_LINE} | grep -E '(a+)+$'": ("", 1),
    "grep -E '(a+)+$' hostile.txt": ("", 1),
    "grep -c -w -E '(a|aa)+b' hostile.txt": ("0\n", 1),
    "rg '(a+)+$' hostile.txt": ("", 1),
    "rg -i '(a|aa)*c$' hostile.txt": ("", 1),
    "sed -nE '/(a+)+$/p' hostile.txt": ("", 0),
    "sed -n '/\\(a*\\)*b/p' hostile.txt": ("", 0),
    "rg --sort path --files": ("a" * 60 + "\nhostile.txt\n", 0),
    "find . -name '*a*a*a*a*a*a*a*a*a*a*a*b'": ("", 0),
    "grep -r --include='*a*a*a*a*a*a*a*a*a*a*b' a .": ("", 1),
    "grep '\\(a*\\)*\\1b' hostile.txt": None,
    """sed -n '/\\(a\\|aa\\)*\\1c/p' hostile.txt""": None,
}
"""Each command's stdout and status; None: a back-reference, which only ``re`` runs, in the child:
refused once it takes longer than the limit (1 s here)."""
_HOSTILE_SCRIPT = """
import json, sys
from pathlib import Path
from agentpager import Workspace
root, commands = sys.argv[1], json.loads(sys.argv[2])
workspace = Workspace(root, "codex")
answers = {command: workspace.call("exec_command", {"cmd": command}).text for command in commands}
print(json.dumps(answers))
"""


def test_hostile_patterns_answer_within_the_limit(tmp_path: Path) -> None:
    """Through Codex's ``exec_command``: with Python's ``re`` the first took 76 s at 30 a's (x3 for
    every 2 more); here 60 a's, and globs of ignore files, ``find`` and ``--include`` over a name of
    60 a's. A run that hangs fails (``waiting.HANG``: a loaded machine may take minutes, a bad pattern
    takes years)."""
    (tmp_path / "hostile.txt").write_text(HOSTILE_LINE + "\n")
    (tmp_path / ("a" * 60)).write_text("")
    (tmp_path / ".ignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*b\n")  # ripgrep's ignore globs run in RE2 too
    done = subprocess.run(
        [sys.executable, "-c", _HOSTILE_SCRIPT, str(tmp_path), json.dumps(list(HOSTILE))],
        capture_output=True,
        text=True,
        timeout=HANG,
        env={"AGENTPAGER_REGEX_SECONDS": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
        | {name: value for name, value in os.environ.items() if name == "PYTHONPATH"},
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    for command, expected in HOSTILE.items():
        answer = answers[command]
        if expected is None:
            assert "took longer than 1 s to match" in answer, (command, answer)
        else:
            stdout, status = expected
            assert f"Process exited with code {status}\n" in answer, (command, answer)
            assert answer.endswith(f"Output:\n{stdout}"), (command, answer)


# -- memory: a bound that does not grow with the file ------------------------------------------------

PEAK_BYTES = 32 << 20
"""What one command may allocate at its peak (traced by tracemalloc): lines are held up to 4 MiB,
batches of about 1 MiB; files below are 40 MB or more."""
SHAPES = {
    "one line": lambda size: b"ab c" * (size // 4) + b"\n",
    "no newline": lambda size: b"x" * (size // 2) + b"a" + b"y" * (size // 2),
    "long line between short ones": lambda size: b"first\n" + b"\xc3\xa9" * (size // 2) + b"\nlast\n",
}
COMMANDS = {
    "search": ["grep -c a f", "grep -n -v zzz f | head -c 100", "rg -n -w c f | tail -c 50", "rg -c 'y$' f"],
    "sed": ["sed -nE '/(c|y)$/p' f | head -c 20", "sed -n '1p;$=' f | tail -c 30", "sed -n '/é/=' f"],
    "readers": ["nl -ba f | head -c 100", "cat -n f | tail -c 30", "cat f | head -c 10", "head -n 1 f | wc -c"],
}


def measured(root: Path, command: str) -> tuple[ShellRun | NotReplayable, int]:
    tracemalloc.start()
    try:
        result = emulate(Root.of(root), ContentStore(root / ".cache"), command)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class BigFiles:
    """Each shape at a size, written when first asked for, in a directory of its own as the file ``f``."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.made: dict[tuple[str, int], Path] = {}

    def __getitem__(self, key: tuple[str, int]) -> Path:
        if key not in self.made:
            shape, size = key
            root = self.factory.mktemp("big")
            (root / "f").write_bytes(SHAPES[shape](size))
            self.made[key] = root
        return self.made[key]


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> BigFiles:
    return BigFiles(tmp_path_factory)


@pytest.mark.parametrize("family", list(COMMANDS))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_peak_memory_does_not_grow_with_the_file(big_files: BigFiles, family: str, data: st.DataObject) -> None:
    shape = data.draw(st.sampled_from(list(SHAPES)))
    size = data.draw(st.sampled_from([40 << 20, 64 << 20]))
    command = data.draw(st.sampled_from(COMMANDS[family]))
    result, peak = measured(big_files[shape, size], command)
    assert isinstance(result, ShellRun), result
    assert peak < PEAK_BYTES, f"{command} on {shape} ({size >> 20} MB): {peak >> 20} MB"


def test_a_long_line_is_answered_and_printed_from_its_file(big_files: BigFiles) -> None:
    root = big_files["long line between short ones", 40 << 20]
    result, _ = measured(root, "grep -n 'é$' f | cut -c 1-4")
    assert isinstance(result, NotReplayable)
    result, peak = measured(root, "grep -c -x 'é*' f; rg -n 'éé$' f | tail -c 7; grep -n ast f")
    assert isinstance(result, ShellRun) and peak < PEAK_BYTES
    assert (str(result.stdout), result.exit_code) == ("1\nééé\n3:last\n", 0)


def test_a_long_line_from_a_pipe_is_matched_but_not_printed(big_files: BigFiles) -> None:
    root = big_files["one line", 40 << 20]
    counted, peak = measured(root, "cat f | grep -c 'c$'")
    assert isinstance(counted, ShellRun) and (str(counted.stdout), peak < PEAK_BYTES) == ("1\n", True)
    printed, _ = measured(root, "cat f | grep 'c$'")
    assert printed == NotReplayable("a line over 4 MiB from a pipe was needed twice (it is never held)")


# -- what each agent keeps of an output, computed without holding the output -------------------------

AGENT_READS = [
    ("codex", "exec_command", {"cmd": "sed -n 1p f"}),
    ("codex@0.60", "shell_command", {"command": "sed -n 1p f"}),
    ("claude-code", "Bash", {"command": "sed -n 1p f"}),
    ("claude-code@2.1.84", "Bash", {"command": "nl -ba f | sed -n 1p"}),
    ("claude-code@2.0", "Bash", {"command": "sed -n 1p f"}),
    ("claude-code@2.0", "Bash", {"command": "cat f nope"}),
    ("swe-agent", "open", {"path": "f"}),
]


@pytest.mark.parametrize(("profile", "tool", "arguments"), AGENT_READS)
def test_an_agent_cuts_a_huge_line_without_holding_it(
    big_files: BigFiles, profile: str, tool: str, arguments: dict
) -> None:
    """``claude-code@2.0``'s Bash built 14.7 GB for ``sed -n 1p`` of a 2 GB line, SWE-agent's ``open``
    6.3 GB: each agent keeps a few dozen KB of an output, and that is all that is built."""
    from agentpager import Workspace

    workspace = Workspace(big_files["one line", 40 << 20], profile)
    tracemalloc.start()
    try:
        result = workspace.call(tool, arguments)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES, f"{profile} {tool}: {peak >> 20} MB"
    assert "ab cab c" in result.text and len(result.text) < 120_000, result.text[:300]


_JS_TEXT = st.lists(st.sampled_from(["a", "b", " ", "\n", "\n", "\t", "\u3000", "😀", "\r", "xy"]), max_size=120)


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut for cut in cuts if cut <= len(text)})
    return [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]


@settings(max_examples=400, deadline=None)
@given(
    stdout=_JS_TEXT.map("".join),
    stderr=_JS_TEXT.map("".join),
    limit=st.integers(1, 12),
    cuts=st.lists(st.integers(0, 120), max_size=5),
)
def test_claude_code_2_0_cuts_a_lazy_output_as_the_whole_text(
    stdout: str, stderr: str, limit: int, cuts: list[int]
) -> None:
    """The cut of 2.0's Bash (``Qy``, the 30,000-character cut, ``op0``'s two ends) read a chunk at a
    time equals the cut of the whole text, as it was computed before (with small limits)."""
    from agentpager.agents.claude_code import bash
    from agentpager.engine.lazytext import LazyText
    from agentpager.tools.js.strings import js_length, js_prefix, js_slice, js_trim, js_trim_end

    lazy = LazyText(lambda: iter(_pieces(stdout, cuts)))
    whole = bash._without_blank_edges(js_trim_end(stdout) + "\n" + js_trim_end(stderr) + "\n")
    if js_length(whole) > limit:
        rest = js_slice(whole, limit)
        whole = f"{js_prefix(whole, limit)}\n\n... [{rest.count(chr(10)) + 1} lines truncated] ..."
    assert bash._cut_output(lazy, stderr, limit) == whole
    error = (
        js_trim(stderr + "\n" + stdout if stderr and stdout else stderr or stdout) or "Command failed with no output"
    )
    most = 2 * limit + 30
    if js_length(error) > most:
        length, half = js_length(error), most // 2
        error = f"{js_prefix(error, half)}\n\n... [{length - most} characters truncated] ...\n\n{js_slice(error, length - half)}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bash, "MAX_ERROR", most)
        assert bash._error_text([stderr, lazy]) == error


_TERMINAL_TEXT = st.lists(
    st.sampled_from(["a", "\x1b", "[", "1", ";", " ", "m", "\r", "\n", "\r\n", "@", "~", "/", "\x1b[", "é", "0"]),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(text=_TERMINAL_TEXT.map("".join), cuts=st.lists(st.integers(0, 60), max_size=6), limit=st.integers(0, 20))
def test_swe_agent_observes_a_lazy_output_as_the_whole_text(text: str, cuts: list[int], limit: int) -> None:
    """ANSI escapes (also across pieces) removed, then CRLF made LF: the first characters and the
    length equal those of the whole text cleaned at once, as it was computed before."""
    from agentpager.agents.swe_agent import profiles as swe_agent

    cleaned = swe_agent._ANSI_ESCAPE.sub("", text).replace("\r\n", "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(swe_agent, "OBSERVATION_LIMIT", limit)
        observation = swe_agent._Observation()
        for piece in _pieces(text, cuts):
            observation.feed(piece)
        assert (observation.finish(), observation.length) == (cleaned[: limit + 1], len(cleaned))
