"""``agentpager call`` and ``agentpager schema`` (contract section 10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG


def agentpager(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agentpager", *args], capture_output=True, cwd=cwd, timeout=HANG)


def test_call_writes_the_exact_output_without_a_newline(root: Path) -> None:
    (root / "a.txt").write_text("héllo\n")
    done = agentpager("call", "read_file", '{"path": "a.txt"}', cwd=root)
    assert done.returncode == 0
    assert (
        done.stdout
        == (
            "[File: a.txt | Lines 1-1 of 1]\n[Note: Output limited to 200 lines max per request.]\n"
            + "-" * 40
            + "\nhéllo\n"
            + "-" * 40
            + "\n[File read completed. Total lines: 1]"
        ).encode()
    )
    assert done.stderr == b""


def test_error_answers_exit_1_and_are_still_written(root: Path) -> None:
    done = agentpager("call", "--root", str(root), "read_file", '{"path": "nope"}')
    assert (done.returncode, done.stdout) == (1, b"Error: File 'nope' does not exist.")


def test_default_arguments_and_other_profiles(root: Path) -> None:
    (root / "a.txt").write_text("x")
    assert agentpager("call", "--root", str(root), "list_files").stdout == b"a.txt"
    forge = agentpager("call", "--root", str(root), "--profile", "forge", "fs_read", '{"path": "a.txt"}')
    assert json.loads(forge.stdout)["content"] == "x"


def test_max_output_chars(root: Path) -> None:
    (root / "a.txt").write_text("y" * 500)
    done = agentpager(
        "call", "--root", str(root), "--max-output-chars", "100", "--profile", "vault", "read_file", '{"path": "a.txt"}'
    )
    assert done.stdout.startswith(b"y" * 100 + b"\n\n[OUTPUT TRUNCATED]\nTool 'read_file' returned ~142 tokens")


@pytest.mark.parametrize("value", ["-3", "0", "1.5", "abc", ""])
def test_a_bad_max_output_chars_is_refused(root: Path, value: str) -> None:
    (root / "a.txt").write_text("y" * 500)
    done = agentpager("call", "--root", str(root), "--max-output-chars", value, "read_file", '{"path": "a.txt"}')
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == f"agentpager: --max-output-chars {value!r}: expected a whole number above 0\n".encode()


@pytest.mark.parametrize(
    "args",
    [
        ("call", "read_file", '{"path": "a.txt"}'),
        ("replay", "TRANSCRIPT"),
        ("replay", "--json", "TRANSCRIPT"),
        ("transcript", "TRANSCRIPT"),
        ("mcp",),
        ("probe", "claude-code", "Read"),
        ("a.txt",),
    ],
)
@pytest.mark.parametrize(("name", "reason"), [("missing", "no such directory"), ("a.txt", "not a directory")])
def test_a_root_that_is_not_a_directory_is_one_line_and_exit_2(
    root: Path, args: tuple[str, ...], name: str, reason: str
) -> None:
    (root / "a.txt").write_text("x\n")
    transcript = Path(__file__).parent / "sessions" / "rtchess-excerpt.jsonl"
    command = [str(transcript) if arg == "TRANSCRIPT" else arg for arg in args]
    done = subprocess.run(
        [sys.executable, "-m", "agentpager", *command[:1], "--root", str(root / name), *command[1:]],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        cwd=root,
        timeout=30,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == f"agentpager: --root {root / name}: {reason}\n".encode()


def test_a_command_s_unknown_option_shows_that_command_s_usage() -> None:
    done = agentpager("sessions", "--bogus")
    assert done.returncode == 2
    assert done.stderr.startswith(b"usage: agentpager sessions [-h]")
    assert done.stderr.endswith(b"agentpager sessions: error: unrecognized arguments: --bogus\n")


@pytest.mark.parametrize(
    "args",
    [
        ("call", "no_such_tool"),
        ("call", "read_file", "[1, 2]"),
        ("call", "read_file", "{not json"),
        ("call", "--profile", "nope", "read_file"),
        ("call",),
        ("schema", "--profile", "nope"),
        ("schema", "--format", "xml"),
    ],
)
def test_wrong_commands_exit_2_with_nothing_on_stdout(root: Path, args: tuple[str, ...]) -> None:
    done = agentpager(*args, cwd=root)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr


def schema(*args: str) -> list:
    done = agentpager("schema", *args)
    assert done.returncode == 0
    return json.loads(done.stdout)


def test_schema_formats() -> None:
    openai = schema()
    assert [tool["function"]["name"] for tool in openai] == ["read_file", "list_files", "count_files"]
    assert openai[0]["type"] == "function"
    parameters = openai[0]["function"]["parameters"]
    assert parameters["required"] == ["path"]
    assert parameters["properties"]["start_line"] == {
        "type": "integer",
        "description": "First line to read (1-based).",
        "minimum": 1,
        "default": 1,
    }
    anthropic = schema("--profile", "crush", "--format", "anthropic")
    assert anthropic[0]["name"] == "file_read"
    assert anthropic[0]["input_schema"]["properties"]["end_line"]["type"] == ["integer", "null"]
    mcp = schema("--profile", "forge", "--format", "mcp")
    assert set(mcp[0]) == {"name", "description", "inputSchema"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("missing.txt",), b"missing.txt: no such file or directory."),
        ((".", "--root", "/tmp"), b"PATH is a directory, so it is the root"),
        (("--profile", "nope"), b"Unknown profile 'nope'"),
        (("--theme", "no-such-theme"), b"Unknown theme 'no-such-theme'. Themes: "),
    ],
)
def test_tui_launch_errors_exit_2(root: Path, args: tuple[str, ...], message: bytes) -> None:
    done = agentpager(*args, cwd=root)
    assert done.returncode == 2 and message in done.stderr and done.stdout == b""
