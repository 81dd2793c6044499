"""Shell reads replayed from transcripts: a Codex session's ``shell_command`` calls and Claude Code's
``Bash`` calls go through their profiles' shell tools, and compare without their timing.

The real session is pinouchon/rtchess ``dev_history/exported-session.jsonl`` at commit b8d8edf
(Codex 0.60.1, gpt-5.1-codex-max, 298 calls). ``tests/sessions/rtchess-excerpt.jsonl`` holds lines
1, 5, 11-12, 308-309, 749-750, 1443-1444 and 1453-1454 of it, unchanged (https://github.com/pinouchon/rtchess).
The whole session is replayed when a copy is at ``$AGENTPAGER_RTCHESS`` and a clone of the repository
(its commits' trees) at ``$AGENTPAGER_RTCHESS_REPO``.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG

from agentpager import Workspace
from agentpager.profiles import get_profile
from agentpager.transcripts import Transcript, open_transcript
from agentpager.transcripts.replay import Replayer

EXCERPT = Path(__file__).parent / "sessions" / "rtchess-excerpt.jsonl"
RTCHESS = os.environ.get("AGENTPAGER_RTCHESS", "")
RTCHESS_REPO = os.environ.get("AGENTPAGER_RTCHESS_REPO", "")
LOGIN_MESSAGE = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n"
"""What the user's login profile printed before every command of the session (Codex runs ``zsh -lc``)."""


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


# -- comparing shell answers ---------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["codex", "codex@0.60"])
def test_shell_answers_compare_without_their_timing(profile: str) -> None:
    codex = get_profile(profile)
    recorded = "Exit code: 0\nWall time: 0 seconds\nOutput:\nline 1\n"
    assert codex.same_output(recorded, "Exit code: 0\nWall time: 1.2 seconds\nOutput:\nline 1\n")
    assert not codex.same_output(recorded, "Exit code: 1\nWall time: 0 seconds\nOutput:\nline 1\n")
    assert not codex.same_output(recorded, "Exit code: 0\nWall time: 0 seconds\nOutput:\nline 2\n")
    legacy = '{"output":"a.py\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'
    assert codex.same_output(legacy, '{"output":"a.py\\n","metadata":{"exit_code":0,"duration_seconds":2.5}}')
    unified = (
        "Chunk ID: 3fa9c1\nWall time: 0.0012 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nx\n"
    )
    assert codex.same_output(unified, unified.replace("3fa9c1", "000000").replace("0.0012", "0.0000"))
    assert not codex.same_output(unified, unified.replace("code 0", "code 2"))
    assert not codex.same_output("L1: x", "L1: y")


def test_a_login_shells_own_messages_are_not_the_commands_output() -> None:
    codex = get_profile("codex@0.60")
    replayed = "Exit code: 0\nWall time: 0 seconds\nOutput:\nalpha\n"
    assert codex.same_output(f"Exit code: 0\nWall time: 0.1 seconds\nOutput:\n{LOGIN_MESSAGE}alpha\n", replayed)
    zsh = "/Users/me/.zprofile:3: command not found: brew\n"
    assert codex.same_output(f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{zsh}alpha\n", replayed)
    assert not codex.same_output(f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{LOGIN_MESSAGE}alpha\nbeta\n", replayed)
    assert not codex.same_output("Exit code: 0\nWall time: 0 seconds\nOutput:\nsomething: else\nalpha\n", replayed)
    in_json = '{"output":"%salpha\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'
    assert codex.same_output(in_json % zsh.replace("\n", "\\n"), in_json % "")


# -- replaying transcripts' shell calls ----------------------------------------------------------


def test_a_codex_sessions_shell_reads_replay(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("one\ntwo\nthree\n")
    cwd = "/home/me/proj"

    def call(call_id: str, name: str, arguments: dict) -> dict:
        payload = {"type": "function_call", "name": name, "call_id": call_id, "arguments": json.dumps(arguments)}
        return {"type": "response_item", "payload": payload}

    def output(call_id: str, text: str) -> dict:
        return {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": call_id, "output": text},
        }

    transcript = open_transcript(
        str(
            write_jsonl(
                tmp_path / "rollout.jsonl",
                [
                    {"type": "session_meta", "payload": {"id": "s", "cwd": cwd, "cli_version": "0.60.1"}},
                    {"type": "turn_context", "payload": {"cwd": cwd, "model": "gpt-5.1-codex-max"}},
                    call("1", "shell_command", {"command": "sed -n '2,3p' a.py", "workdir": f"{cwd}/src"}),
                    output("1", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\ntwo\nthree\n"),
                    call("2", "shell_command", {"command": f"head -n 1 {cwd}/src/a.py"}),
                    output("2", "Exit code: 0\nWall time: 0 seconds\nOutput:\nONE\n"),
                    call("3", "shell", {"command": ["bash", "-lc", "cat src/a.py | wc -l"]}),
                    output("3", '{"output":"3\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}'),
                    call("4", "shell_command", {"command": "npm test"}),
                    output("4", "Exit code: 0\nWall time: 3 seconds\nOutput:\nok\n"),
                    call("5", "exec_command", {"cmd": "nl -ba src/a.py | sed -n 3p"}),
                    output(
                        "5",
                        "Chunk ID: ab12cd\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\n     3\tthree\n",
                    ),
                ],
            )
        )
    )
    replayer = Replayer(transcript, str(tmp_path))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [(r.plan.profile if r.plan else None, r.status) for r in replays] == [
        ("codex@0.60", "same"),
        ("codex@0.60", "differs"),
        ("codex@0.60", "same"),
        ("codex@0.60", "not replayable"),
        ("codex", "same"),
    ]
    assert (
        replays[1].result is not None and replays[1].result.text == "Exit code: 0\nWall time: 0 seconds\nOutput:\none\n"
    )
    assert replays[2].result is not None and replays[2].result.text == (
        '{"output":"3\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}'
    )
    assert replays[3].reason == "the program npm"
    assert replays[3].result is not None and replays[3].result.uncertain
    assert replays[3].result.text.startswith("shell_command failed: agentpager did not run this command")


def test_a_claude_code_sessions_bash_reads_replay(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\n")

    def line(kind: str, content: list[dict]) -> dict:
        return {"type": kind, "cwd": "/work/p", "version": "2.1.84", "message": {"role": kind, "content": content}}

    transcript = open_transcript(
        str(
            write_jsonl(
                tmp_path / "session.jsonl",
                [
                    line(
                        "assistant",
                        [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat /work/p/a.py"}}],
                    ),
                    line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "one\ntwo"}]),
                    line(
                        "assistant",
                        [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "grep -n x a.py"}}],
                    ),
                    line(
                        "user",
                        [{"type": "tool_result", "tool_use_id": "t2", "content": "(Bash completed with no output)"}],
                    ),
                    line(
                        "assistant",
                        [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "cat b.py"}}],
                    ),
                    line(
                        "user",
                        [
                            {
                                "type": "tool_result",
                                "tool_use_id": "t3",
                                "content": "Exit code 1\ncat: b.py: No such file or directory",
                                "is_error": True,
                            }
                        ],
                    ),
                ],
            )
        )
    )
    replayer = Replayer(transcript, str(tmp_path))
    replays = [replayer.replay(call) for call in transcript.calls]
    assert [(r.plan.profile if r.plan else None, r.status) for r in replays] == [
        ("claude-code@2.1.84", "same"),
        ("claude-code@2.1.84", "same"),
        ("claude-code@2.1.84", "same"),
    ]


# -- the real session ----------------------------------------------------------------------------


def test_the_sessions_excerpt_replays(tmp_path: Path) -> None:
    """Lines of the real session: ``ls`` in the empty directory it started in, ``rg`` and ``sed`` on
    files like those the agent read (no ``onDrag`` in app.js; ui.js shorter than 280 lines, no ``inCheck``)."""
    transcript = open_transcript(str(EXCERPT))
    empty, project = tmp_path / "empty", tmp_path / "project"
    empty.mkdir()
    project.mkdir()
    (project / "app.js").write_text("function renderBoard() {}\n")
    (project / "ui.js").write_text("".join(f"// line {n}\n" for n in range(1, 200)))
    assert [call.arguments["command"] for call in transcript.calls] == [
        "ls",
        "node --check app.js",
        'rg "onDrag" app.js',
        'rg -n "inCheck" ui.js',
        "sed -n '280,340p' ui.js",
    ]
    in_project = [Replayer(transcript, str(project)).replay(call) for call in transcript.calls]
    assert [r.status for r in in_project] == ["differs", "not replayable", "same", "same", "same"]
    assert in_project[1].reason == "the program node"
    first = Replayer(transcript, str(empty)).replay(transcript.calls[0])
    assert first.status == "same"
    assert first.recorded == f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{LOGIN_MESSAGE}"
    assert first.result is not None and first.result.text == "Exit code: 0\nWall time: 0 seconds\nOutput:\n"


def test_the_replay_command_counts_the_statuses_and_says_why_a_call_is_not_replayed(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", "replay", str(EXCERPT), "--root", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["status"], r["reason"]) for r in records] == [
        ("same", None),
        ("not replayable", "the program node"),
        ("differs", None),
        ("differs", None),
        ("differs", None),
    ]
    assert done.stderr.splitlines()[-1] == "agentpager: 1 same, 3 differs, 0 uncertain, 0 unchanged, 1 not replayable"


def _tree(commit: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "--git-dir", RTCHESS_REPO, "archive", commit], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _edits(transcript: Transcript) -> list[tuple[int, str]]:
    """(call index, file) of every patch that adds, updates, deletes or moves a file (the apply_patch
    tool's, or one given to ``apply_patch`` in a shell command)."""
    found = []
    for call in transcript.calls:
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        text = arguments.get("input") or arguments.get("command")
        text = text if isinstance(text, str) else ""
        for match in re.finditer(r"\*\*\* (?:Update|Add|Delete) File: (\S+)|\*\*\* Move to: (\S+)", text):
            found.append((call.index, match.group(1) or match.group(2)))
    return found


needs_the_session = pytest.mark.skipif(
    not os.path.isfile(RTCHESS) or not os.path.isfile(os.path.join(RTCHESS_REPO, "HEAD")),
    reason="the real Codex session (pinouchon/rtchess) or a clone of its repository is not here",
)


@needs_the_session
def test_the_real_codex_session_against_its_commit(tmp_path: Path) -> None:
    """Every shell read of the session replays against the repository at b8d8edf, where the session
    was exported; every read differs, and each for a reason found in the session itself."""
    transcript = open_transcript(RTCHESS)
    assert (transcript.format, len(transcript.calls), transcript.parsed.version) == ("codex", 298, "0.60.1")
    root = _tree("b8d8edf", tmp_path / "b8d8edf")
    replayer = Replayer(transcript, str(root))
    shell = [call for call in transcript.calls if call.tool == "shell_command"]
    replays = {call.index: replayer.replay(call) for call in shell}
    assert collections.Counter(r.status for r in replays.values()) == {"differs": 47, "not replayable": 74}
    reasons = collections.Counter(r.reason.split(" (")[0] for r in replays.values() if r.reason)
    assert reasons == {
        "the program node": 29,
        "the program python": 14,
        "the program git": 9,
        "a heredoc redirect": 7,
        "the program python3": 6,
        "rg: the option --pcre2": 3,
        "a glob": 2,
        "ls: option -l not recognized": 1,
        "the program mkdir": 1,
        "a variable assignment": 1,
        "the program pwd": 1,
    }
    edits = _edits(transcript)
    at_commit, explained = [], {}
    for index, replay in replays.items():
        if replay.status != "differs":
            continue
        command = replay.call.arguments["command"]
        files = [word for word in command.split() if "." in word and (root / word.strip("'\"")).is_file()]
        if command in ("ls", "ls -a"):
            explained[index] = "a listing of a directory that changed"
        elif not files:
            explained[index] = "its file is not there at b8d8edf (deleted, or moved into dev_history/)"
        else:
            at_commit.append(index)
            if any(later > index and name in files for later, name in edits):
                explained[index] = "its file was edited later in the session"
    assert len(explained) == 47
    assert collections.Counter(explained.values()) == {
        "its file is not there at b8d8edf (deleted, or moved into dev_history/)": 37,
        "its file was edited later in the session": 7,
        "a listing of a directory that changed": 3,
    }
    assert [replays[i].call.arguments["command"] for i in at_commit] == [
        'rg -n "inCheck" ui.js',
        "sed -n '250,320p' ui.js",
        "sed -n '280,340p' ui.js",
        'rg -n "hoverTarget" ui.js',
        "sed -n '110,170p' ui.js",
        "cat README.md",
        "sed -n '1,120p' index.js",
    ]


COMMITS = (
    ("dc0d1f0", "2025-11-22T21:38:08Z"),
    ("8570bc1", "2025-11-22T22:02:42Z"),
    ("c9fa1a6", "2025-11-22T22:12:36Z"),
    ("95c378e", "2025-11-22T22:39:51Z"),
    ("b1547ad", "2025-11-22T22:43:30Z"),
    ("b8d8edf", "2025-11-23T18:45:11Z"),
)
"""The commits made while the session ran, and when."""


@needs_the_session
def test_reads_of_files_unchanged_until_the_next_commit_are_the_same(tmp_path: Path) -> None:
    """Against the first commit after it, a read gives exactly what the agent saw (its login shell's
    message aside) when its file is in that commit and the agent did not edit it in between; a read
    that differs there is of a file the agent edited in between."""
    transcript = open_transcript(RTCHESS)
    trees = {commit: _tree(commit, tmp_path / commit) for commit, _ in COMMITS}
    replayers = {commit: Replayer(transcript, str(tree)) for commit, tree in trees.items()}
    edits = _edits(transcript)
    same, edited = [], []
    for call in transcript.calls:
        if call.tool != "shell_command":
            continue
        commit, when = next((c, w) for c, w in COMMITS if w > call.timestamp)
        replay = replayers[commit].replay(call)
        if replay.status == "same":
            same.append(call.index)
        files = [w for w in call.arguments["command"].split() if "." in w and (trees[commit] / w).is_file()]
        if replay.status == "not replayable" or not files or call.arguments["command"] in ("ls", "ls -a"):
            continue
        committed = next((c.index for c in transcript.calls if c.timestamp > when), len(transcript.calls))
        was_edited = any(call.index < index < committed and name in files for index, name in edits)
        assert replay.status == "same" or was_edited, call.arguments["command"]
        if was_edited:
            edited.append(call.index)
    assert [transcript.calls[i].arguments["command"] for i in same] == [
        'rg "onDrag" app.js',
        "sed -n '240,320p' app.js",
        "sed -n '250,320p' ui.js",
        "sed -n '280,340p' ui.js",
    ]
    assert len(edited) == 17  # one of them still the same: rg found no "onDrag" before the edits or after


@pytest.mark.parametrize(
    ("profile", "tool", "arguments", "why"),
    [
        ("codex", "exec_command", {"cmd": "make"}, "the program make"),
        ("codex", "exec_command", {"cmd": "cat a.txt", "tty": True}, "a terminal (tty): programs write otherwise"),
        ("codex", "exec_command", {"cmd": "cat a.txt", "shell": "/usr/bin/python3"}, "the shell /usr/bin/python3"),
        ("codex@0.60", "shell", {"command": ["cat", "../a.txt"]}, "'../a.txt' is outside the workspace"),
        ("claude-code", "Bash", {"command": "cat a.txt", "run_in_background": True}, "run in the background"),
    ],
)
def test_a_command_that_is_not_run_says_so(tmp_path: Path, profile: str, tool: str, arguments: dict, why: str) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    result = Workspace(tmp_path, profile).call(tool, arguments)
    message = (
        "agentpager did not run this command: it never runs commands, and answers only read-only ones "
        "(cat, head, tail, sed -n, nl, wc, grep, rg, ls, find, git ls-files and pipes of them) from the workspace "
        f"({why})."
    )
    expected = f"<tool_use_error>{message}</tool_use_error>" if tool == "Bash" else f"{tool} failed: {message}"
    assert (result.text, result.is_error, result.unreplayable) == (expected, True, why)
    assert result.uncertain == f"agentpager does not run commands ({why})"
