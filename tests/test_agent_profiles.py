"""The claude-code Read and codex read_file profiles, as their transcripts record them."""

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
    (root / "two.txt").write_text("a\nb")
    assert read(root, file_path="empty.txt").text == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (1). "
        "The file has 1 lines.</system-reminder>"
    )
    assert read(root, file_path="two.txt", offset=5).text == (
        "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). "
        "The file has 2 lines.</system-reminder>"
    )


def test_claude_read_reminder_setting(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    text = read(root, {"reminder": "Think about malware."}, file_path="a.txt").text
    assert text == "1\tx\n2\t\n\n<system-reminder>\nThink about malware.\n</system-reminder>\n"


def test_claude_read_size_limit_without_offset_and_limit(root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 10 + (b"y" * 99 + b"\n") * 6000)
    result = read(root, file_path="big.txt")
    assert result.text == (
        "File content (585.9KB) exceeds maximum allowed size (256KB). Use offset and limit parameters "
        "to read specific portions of the file, or search for specific content instead of reading the whole file."
    )
    assert result.is_error
    assert read(root, file_path="big.txt", offset=1, limit=3).text.startswith("1\txxxxxxxxxxyyyy")


def test_claude_read_token_limit(root: Path) -> None:
    (root / "words.txt").write_text(" ".join(f"w{n}" for n in range(40000)))  # one line, ~60k tokens
    result = read(root, file_path="words.txt", offset=1)
    assert result.is_error
    assert result.text.startswith("File content (") and "tokens) exceeds maximum allowed tokens (25000)." in result.text
    assert result.uncertain == ""  # far over the limit: any tokenizer says so


def test_claude_read_near_the_token_limit_is_uncertain(root: Path) -> None:
    (root / "words.txt").write_text(" ".join(f"w{n}" for n in range(8500)))  # one line, about 25,000 tokens
    result = read(root, file_path="words.txt", offset=1)
    assert "tokens (cl100k) against Claude Code's 25,000-token limit" in result.uncertain
    (root / "few.txt").write_text("a few words\n")
    assert read(root, file_path="few.txt").uncertain == ""


def test_claude_read_errors(root: Path) -> None:
    (root / "dir").mkdir()
    assert read(root, file_path="missing.txt").text == "<tool_use_error>File does not exist.</tool_use_error>"
    assert read(root, file_path="dir").text == "EISDIR: illegal operation on a directory, read"
    assert read(root, file_path="../x").text == "<tool_use_error>Path '../x' is outside the workspace.</tool_use_error>"


def codex(root: Path, **arguments: object):
    return Workspace(root, "codex").call("read_file", arguments)


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
