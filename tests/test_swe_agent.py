"""The swe-agent profile: SWE-agent's windowed viewer, whose window stays where it was between calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.agents.swe_agent.profiles import PROFILE
from agentpager.tools.base import Coverage, RecordedCall

REPO = "/repo"


def shell_end(open_file: str = "n/a") -> str:
    return f"\n(Open file: {open_file})\n(Current directory: {REPO})\nbash-$"


@pytest.fixture
def repo(root: Path) -> Path:
    (root / "small.py").write_text("a = 1\nb = 2\n")
    (root / "lines.txt").write_text("".join(f"line {n}\n" for n in range(1, 251)))
    (root / "pkg").mkdir()
    return root


@pytest.fixture
def shell(repo: Path) -> Workspace:
    return Workspace(repo, "swe-agent", settings={"working_dir": REPO})


def run(workspace: Workspace, command: str, **arguments: object) -> str:
    return workspace.call(command, arguments).text


def window(first: int, last: int) -> str:
    return "".join(f"{n}:line {n}\n" for n in range(first, last + 1))


def test_open_shows_a_numbered_window_under_a_status_line(shell: Workspace) -> None:
    assert run(shell, "open", path="small.py") == "[File: small.py (2 lines total)]\n1:a = 1\n2:b = 2\n" + shell_end(
        f"{REPO}/small.py"
    )


def test_open_at_a_line_puts_it_a_sixth_of_the_window_down(shell: Workspace) -> None:
    assert run(shell, "open", path="lines.txt", line_number=120) == (
        "[File: lines.txt (250 lines total)]\n(102 more lines above)\n"
        + window(103, 202)
        + "(48 more lines below)\n"
        + shell_end(f"{REPO}/lines.txt")
    )


def test_the_window_stays_between_calls(shell: Workspace) -> None:
    run(shell, "open", path="lines.txt")
    header = f"[File: {REPO}/lines.txt (250 lines total)]\n"
    assert run(shell, "scroll_down") == (
        header
        + "(98 more lines above)\n"
        + window(99, 198)
        + "(52 more lines below)\n"
        + shell_end(f"{REPO}/lines.txt")
    )
    assert run(shell, "scroll_down").startswith(header + "(150 more lines above)\n151:line 151\n")
    assert run(shell, "scroll_up").startswith(header + "(52 more lines above)\n53:line 53\n")
    assert run(shell, "goto", line_number=250).startswith(header + "(150 more lines above)\n151:line 151\n")
    # open with no line goes to the kept top as if it were a 1-based line: the window moves up 18 lines.
    assert run(shell, "open", path="lines.txt").startswith(
        "[File: lines.txt (250 lines total)]\n(132 more lines above)\n"
    )
    # and the kept top carries over to the next file opened, clamped to its length
    assert run(shell, "open", path="small.py").startswith("[File: small.py (2 lines total)]\n1:a = 1\n")


def test_errors_the_commands_print(shell: Workspace) -> None:
    assert run(shell, "goto", line_number=3) == "No file open. Use the open command first.\n" + shell_end()
    assert run(shell, "open", path="nope.py") == "Error: File nope.py not found\n" + shell_end()
    assert run(shell, "open", path="./pkg/") == (
        "Error: pkg is a directory. You can only open files. Use cd or ls to navigate directories.\n" + shell_end()
    )
    run(shell, "open", path="small.py")
    result = shell.call("goto", {"line_number": 3})
    assert (result.text, result.is_error) == (
        "Error: <line> must be less than or equal to 2\n" + shell_end(f"{REPO}/small.py"),
        True,
    )
    assert run(shell, "open", path="/etc/passwd") == "Path '/etc/passwd' is outside the workspace."


def test_line_numbers_out_of_range_are_warned_about_and_clamped(shell: Workspace) -> None:
    assert run(shell, "open", path="small.py", line_number=0) == (
        "Warning: <line_number> (0) is less than 1\nWarning: Setting <line_number> to 1\n"
        "[File: small.py (2 lines total)]\n1:a = 1\n2:b = 2\n" + shell_end(f"{REPO}/small.py")
    )
    assert run(shell, "open", path="small.py", line_number=7).startswith(
        "Warning: <line_number> (7) is greater than the number of lines in the file (2)\n"
        "Warning: Setting <line_number> to 2\n[File: small.py"
    )


def test_lines_as_read_text_reads_them(repo: Path, shell: Workspace) -> None:
    # universal newlines, a count by splitlines() (which also ends lines at a form feed), a window by "\n"
    (repo / "odd.txt").write_bytes(b"one\r\ntwo\rthree\x0cfour\n")
    assert run(shell, "open", path="odd.txt") == (
        "[File: odd.txt (4 lines total)]\n1:one\n2:two\n3:three\x0cfour\n4:\n" + shell_end(f"{REPO}/odd.txt")
    )


def test_a_file_that_is_not_utf8(repo: Path, shell: Workspace) -> None:
    (repo / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    result = shell.call("open", {"path": "latin1.txt"})
    assert result.text == (
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 3: invalid continuation byte\n"
        + shell_end(f"{REPO}/latin1.txt")
    )
    assert result.is_error and "traceback" in result.uncertain


def test_a_long_observation_is_cut_by_the_agent(repo: Path, shell: Workspace) -> None:
    (repo / "wide.txt").write_text(("w" * 1100 + "\n") * 100)
    text = run(shell, "open", path="wide.txt")
    assert text.startswith("Observation: [File: wide.txt (100 lines total)]\n1:wwww")
    assert text.endswith(
        "w<response clipped><NOTE>Observations should not exceeded 100000 characters. 10427 characters were elided. "
        "Please try a different command that produces less output or use head/tail/grep/redirect the output to a "
        "file. Do not use interactive pagers.</NOTE>"
    )


def test_the_call_for_the_lines_on_screen_and_what_calls_cover(repo: Path) -> None:
    workspace = Workspace(repo, "swe-agent")
    assert workspace.read_call("lines.txt", workspace.open_view("lines.txt"), (120, 160)) == (
        "open",
        {"path": "lines.txt", "line_number": 137},
    )
    assert workspace.read_call("small.py", workspace.open_view("small.py"), (1, 2)) == (
        "open",
        {"path": "small.py", "line_number": 2},
    )
    assert workspace.coverage("open", {"path": "lines.txt", "line_number": 137}) == Coverage("lines.txt", 120, 219)
    assert workspace.coverage("goto", {"line_number": 5}) is None  # no file open yet
    assert workspace.call("open", {"path": "lines.txt", "line_number": 137}).text.startswith("[File: lines.txt")
    assert workspace.coverage("scroll_down", {}) == Coverage("lines.txt", 151, 250)
    assert workspace.coverage("scroll_up", {}) == Coverage("lines.txt", 22, 121)
    assert workspace.coverage("goto", {"line_number": 1}) == Coverage("lines.txt", 1, 100)


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("open", {"path": "src/a.py", "line_number": 12}, ("open", {"path": "src/a.py", "line_number": 12})),
        ("scroll_down", {}, ("scroll_down", {})),
        ("bash", {"command": 'open "src/a b.py" 12'}, ("open", {"path": "src/a b.py", "line_number": "12"})),
        ("bash", {"command": "goto 583"}, ("goto", {"line_number": "583"})),
        ("bash", {"command": "scroll_up"}, ("scroll_up", {})),
    ],
)
def test_recorded_calls_it_replays(tool: str, arguments: dict, expected: tuple) -> None:
    output = "[File: ...]\n(Open file: /testbed/src/a.py)\n(Current directory: /testbed)\nbash-$"
    claim = PROFILE.claim(RecordedCall(tool, arguments, output, "openai"))
    assert claim is not None
    assert (claim.tool, claim.arguments, claim.settings) == (*expected, {"working_dir": "/testbed"})


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("bash", {"command": "ls -la"}), ("bash", {"command": "goto"}), ("Bash", {"command": "open a.py"})],
)
def test_calls_it_does_not_replay(tool: str, arguments: dict) -> None:
    assert PROFILE.claim(RecordedCall(tool, arguments, None)) is None
