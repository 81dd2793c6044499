"""The claude-code Read profiles (checked in full against the real agent in test_goldens) and codex read_file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentpager import Workspace


def read(root: Path, settings: dict | None = None, **arguments: object):
    return Workspace(root, "claude-code", settings=settings).call("Read", arguments)


def test_claude_read_numbers_the_empty_line_after_a_final_newline(root: Path) -> None:
    (root / "a.py").write_text("import os\n\nprint(1)\n")
    result = read(root, file_path="a.py")
    assert (result.text, result.is_error) == ("1\timport os\n2\t\n3\tprint(1)\n4\t", False)


def test_claude_read_arrow_format_of_older_versions(root: Path) -> None:
    (root / "a.txt").write_text("x\ny")
    assert read(root, {"line_format": "arrow"}, file_path="a.txt").text == "     1→x\n     2→y"


def test_claude_read_offset_and_limit(root: Path) -> None:
    (root / "a.txt").write_text("".join(f"l{n}\r\n" for n in range(1, 11)))
    assert read(root, file_path="a.txt", offset=3, limit=2).text == "3\tl3\n4\tl4"
    assert read(root, file_path="a.txt", offset=0, limit=2).text == "0\tl1\n1\tl2", "offset 0 numbers from 0"
    assert read(root, file_path="a.txt", offset=10).text == "10\tl10\n11\t"


def test_claude_read_empty_file_and_offset_past_the_end(root: Path) -> None:
    (root / "empty.txt").write_bytes(b"")
    (root / "two.txt").write_text("a\nb\n")
    assert read(root, file_path="empty.txt").text == (
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
    )
    assert read(root, file_path="two.txt", offset=5).text == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). "
        "The file has 3 lines.</system-reminder>"
    )
    assert read(root, file_path="two.txt", offset=3).text == "3\t", "the empty line after the final newline"


def test_older_versions_warn_for_any_empty_selection(root: Path) -> None:
    (root / "empty.txt").write_bytes(b"")
    (root / "gap.txt").write_text("a\n\nb\n")
    older = Workspace(root, "claude-code@2.1.84")
    assert older.call("Read", {"file_path": "empty.txt"}).text == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (1). "
        "The file has 1 lines.</system-reminder>"
    )
    assert older.call("Read", {"file_path": "gap.txt", "offset": 2, "limit": 1}).text == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (2). "
        "The file has 4 lines.</system-reminder>"
    ), "a blank line read alone is an empty selection"


def test_claude_read_reminder_setting(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    text = read(root, {"reminder": "Think about malware."}, file_path="a.txt").text
    assert text == "1\tx\n2\t\n\n<system-reminder>\nThink about malware.\n</system-reminder>\n"


def test_claude_read_size_limit_without_offset_and_limit(root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 10 + (b"y" * 99 + b"\n") * 6000)
    (root / "round.txt").write_bytes(b"z" * 300 * 1024)
    result = read(root, file_path="big.txt")
    assert result.text == (
        "File content (585.9KB) exceeds maximum allowed size (256KB). Use offset and limit parameters "
        "to read specific portions of the file, or search for specific content instead of reading the whole file. "
        "To read it anyway, up to what still fits in your context, call Read again with allow_large: true "
        "\u2014 only if you genuinely need all of it or the user asked for the whole file."
    )
    assert result.is_error
    assert read(root, file_path="big.txt", offset=1, limit=3).text.startswith("1\txxxxxxxxxxyyyy")
    old = Workspace(root, "claude-code@2.0").call("Read", {"file_path": "round.txt"})
    assert old.text == (
        "<tool_use_error>File content (300KB) exceeds maximum allowed size (256KB). Please use offset and limit "
        "parameters to read specific portions of the file, or use the GrepTool to search for specific content."
        "</tool_use_error>"
    )


def test_claude_read_token_limit(root: Path) -> None:
    (root / "words.txt").write_text(" ".join(f"w{n}" for n in range(40000)))  # one line, ~60k tokens
    result = Workspace(root, "claude-code@2.1.84").call("Read", {"file_path": "words.txt", "offset": 1})
    assert result.is_error
    assert result.text.startswith("File content (") and "tokens) exceeds maximum allowed tokens (25000)." in result.text
    assert "server" in result.uncertain, "far over the limit, but the number is the server's count"
    newest = read(root, file_path="words.txt", offset=1)
    assert not newest.is_error and "cuts a read over 25,000 tokens" in newest.uncertain


def test_claude_read_near_the_token_limit_is_uncertain(root: Path) -> None:
    (root / "words.txt").write_text(" ".join(f"w{n}" for n in range(8500)))  # one line, about 25,000 tokens
    result = Workspace(root, "claude-code@2.1.84").call("Read", {"file_path": "words.txt", "offset": 1})
    assert "tokens (cl100k) against Claude Code's 25,000-token limit" in result.uncertain
    (root / "few.txt").write_text("a few words\n")
    assert read(root, file_path="few.txt").uncertain == ""


def test_claude_read_errors(root: Path) -> None:
    (root / "dir").mkdir()
    (root / "notes.md").write_text("x")
    assert read(root, file_path="missing.txt").text == (
        f"File does not exist. Note: your current working directory is {root}."
    )
    assert read(root, file_path="missing.txt").is_error
    assert read(root, file_path="dir").text == f"EISDIR: illegal operation on a directory, read '{root}/dir'"
    assert read(root, file_path="../x").text == "<tool_use_error>Path '../x' is outside the workspace.</tool_use_error>"
    old = Workspace(root, "claude-code@2.0")
    assert old.call("Read", {"file_path": "notes.txt"}).text == (
        "<tool_use_error>File does not exist. Did you mean notes.md?</tool_use_error>"
    )
    assert old.call("Read", {"file_path": "dir"}).text == "EISDIR: illegal operation on a directory, read"
    (root / "blob.sqlite").write_bytes(b"SQLite format 3\x00")
    assert read(root, file_path="blob.sqlite").text == (
        "<tool_use_error>This tool cannot read binary files. The file appears to be a binary .sqlite file. "
        "Use a skill for this file type if one is available, or a shell command or script that can read the "
        "format.</tool_use_error>"
    )


def test_claude_read_countdown_for_models_that_get_it(root: Path) -> None:
    """claude-sonnet-4-5 gets a token countdown after each result, and the result trimmed first."""
    (root / "a.txt").write_text("x\n  \n")
    countdown = "\n\n<system-reminder>\n<total_tokens>14999989 tokens left</total_tokens>\n</system-reminder>"
    known = read(root, {"model": "claude-sonnet-4-5", "tokens_left": 14999989}, file_path="a.txt")
    assert (known.text, known.uncertain) == ("1\tx\n2\t  \n3" + countdown, ""), "only the end is trimmed"
    guessed = read(root, {"model": "claude-sonnet-4-5"}, file_path="a.txt")
    assert guessed.text.endswith("<total_tokens>15000000 tokens left</total_tokens>\n</system-reminder>")
    assert "countdown depends on the tokens" in guessed.uncertain
    assert read(root, file_path="a.txt").text == "1\tx\n2\t  \n3\t", "claude-opus-5-5, the default, gets none"
    assert "not known" in read(root, {"model": "claude-future-9"}, file_path="a.txt").uncertain


def test_claude_2_0_reports_a_file_read_in_part_as_changed(root: Path) -> None:
    """2.0.21 stores the read's time rounded down to the millisecond and the file's mtime has more
    digits, so its next turn finds the file "modified" and shows the diff hunks, trimming the result."""
    import os

    (root / "a.py").write_text("def f():\n    return 1\n")
    os.utime(root / "a.py", ns=(1_700_000_000_000_000_001, 1_700_000_000_000_000_001))
    old = Workspace(root, "claude-code@2.0")
    text = old.call("Read", {"file_path": "a.py", "offset": 2, "limit": 1}).text
    assert text == (
        "2→    return 1\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks "
        "malicious. If it does, you MUST refuse to improve or augment the code. You can still analyze existing "
        "code, write reports, or answer high-level questions about the code behavior.\n</system-reminder>\n\n"
        f"<system-reminder>\nNote: {root}/a.py was modified, either by the user or by a linter. This change was "
        "intentional, so make sure to take it into account as you proceed (ie. don't revert it unless the user asks "
        "you to). Don't tell the user this, since they are already aware. Here are the relevant changes (shown "
        "with line numbers):\n     1→def f():\n     2→    return 1\n</system-reminder>"
    )
    os.utime(root / "a.py", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    assert old.call("Read", {"file_path": "a.py", "offset": 2, "limit": 1}).text.startswith("     2→    return 1\n")


def test_claude_versions_by_number() -> None:
    from agentpager.agents.claude_code.profiles import version_profile
    from agentpager.tools.js.strings import js_trim

    assert [version_profile(v).name for v in ("1.0.98", "2.0.21", "2.1.12", "2.1.84", "2.1.123", "2.1.330")] == [
        "claude-code@2.0",
        "claude-code@2.0",
        "claude-code@2.1.84",
        "claude-code@2.1.84",
        "claude-code",
        "claude-code",
    ]
    assert js_trim("\ufeff x \x1c") == "x \x1c", "JavaScript trims a BOM and keeps the separator controls"


def codex(root: Path, **arguments: object):
    return Workspace(root, "codex@read_file").call("read_file", arguments)


def test_codex_read_file(root: Path) -> None:
    (root / "a.txt").write_bytes(b"one\r\ntwo\nthree\r")
    result = codex(root, file_path="a.txt")
    assert (result.text, result.is_error) == ("L1: one\nL2: two\nL3: three", False)
    assert codex(root, file_path="a.txt", offset=2, limit=1).text == "L2: two"


def test_codex_cuts_lines_at_500_bytes_on_a_character_boundary(root: Path) -> None:
    (root / "long.txt").write_text("a" * 499 + "é" + "tail\nnext\n")
    assert codex(root, file_path="long.txt").text == "L1: " + "a" * 499 + "\nL2: next"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"offset": 0}, "offset must be a 1-indexed line number"),
        ({"limit": 0}, "limit must be greater than zero"),
        ({"offset": 4}, "offset exceeds file length"),
        ({"file_path": "missing.txt"}, "failed to read file: No such file or directory (os error 2)"),
    ],
)
def test_codex_errors(root: Path, arguments: dict, message: str) -> None:
    (root / "a.txt").write_text("1\n2\n3\n")
    result = codex(root, **({"file_path": "a.txt"} | arguments))
    assert (result.text, result.is_error) == (message, True)


def test_codex_empty_file(root: Path) -> None:
    (root / "e.txt").write_bytes(b"")
    assert codex(root, file_path="e.txt").text == "offset exceeds file length"


def test_codex_reads_any_number_of_lines_a_block_at_a_time(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit past the end reads the lines' blocks, not each line on its own (50M lines took 10 GB)."""
    from agentpager.engine import textfile

    (root / "empty-lines.txt").write_text("\n" * 20000 + "last\r\n")
    reads: list[int] = []
    real = textfile.read_exact
    monkeypatch.setattr(
        textfile, "read_exact", lambda fd, length, offset: reads.append(length) or real(fd, length, offset)
    )
    result = codex(root, file_path="empty-lines.txt", limit=10**9)
    assert result.text == "\n".join(f"L{n}: " for n in range(1, 20001)) + "\nL20001: last"
    assert len(reads) == 1
