"""vault read_file: character offsets with continuation markers and protected folders (section 8)."""

from __future__ import annotations

from pathlib import Path

import pytest


def read(call, **arguments):
    return call("read_file", profile="vault", **arguments)


def test_short_file_is_returned_unchanged(root: Path, call) -> None:
    (root / "note.md").write_bytes(b"# Note\r\nline\r\n")
    result = read(call, path="note.md")
    assert (result.text, result.is_error) == ("# Note\r\nline\r\n", False)


def test_long_file_gets_a_continuation_marker(root: Path, call) -> None:
    (root / "long.md").write_text("# Long Note\n\n" + "x" * 5000)
    result = read(call, path="long.md")
    assert result.text == "# Long Note\n\n" + "x" * 3987 + (
        "\n\n[... truncated at char 4000 of 5013. Use offset=4000 to read more.]"
    )


def test_middle_and_final_chunks(root: Path, call) -> None:
    (root / "a.md").write_text("A" * 10000)
    assert read(call, path="a.md", offset=4000).text == (
        "[Continuing from char 4000 of 10000]\n\n"
        + "A" * 4000
        + "\n\n[... truncated at char 8000 of 10000. Use offset=8000 to read more.]"
    )
    assert read(call, path="a.md", offset=8000).text == "[Continuing from char 8000 of 10000]\n\n" + "A" * 2000


def test_offsets_count_characters_not_bytes(root: Path, call) -> None:
    (root / "u.md").write_text("é🎉" * 10)
    assert read(call, path="u.md", offset=3, length=4).text == (
        "[Continuing from char 3 of 20]\n\n🎉é🎉é\n\n[... truncated at char 7 of 20. Use offset=7 to read more.]"
    )


def test_custom_length_at_the_start(root: Path, call) -> None:
    (root / "c.md").write_text("C" * 500)
    text = read(call, path="c.md", length=100).text
    assert text == "C" * 100 + "\n\n[... truncated at char 100 of 500. Use offset=100 to read more.]"


def test_offset_past_the_end(root: Path, call) -> None:
    (root / "n.md").write_text("short")
    result = read(call, path="n.md", offset=5)
    assert (result.text, result.is_error) == ("Error: offset 5 exceeds file length 5", True)


def test_empty_file(root: Path, call) -> None:
    (root / "e.md").write_bytes(b"")
    assert read(call, path="e.md").text == ""
    assert read(call, path="e.md", offset=1).text == "Error: offset 1 exceeds file length 0"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"offset": -1}, "Error: offset must be >= 0 (got -1)"), ({"length": 0}, "Error: length must be >= 1 (got 0)")],
)
def test_bad_arguments_have_no_final_period(call, arguments: dict, message: str) -> None:
    assert read(call, path="x.md", **arguments).text == message


def test_protected_folders(root: Path, call) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "notes").mkdir()
    (root / "notes" / "link").symlink_to(root / ".git")
    assert read(call, path=".git/config").text == "Error: Access to '.git/config' is not allowed."
    assert read(call, path="x/../.obsidian/missing").text == (
        "Error: Access to 'x/../.obsidian/missing' is not allowed."
    )
    assert read(call, path=".trash").text == "Error: Access to '.trash' is not allowed."
    # through a symlink the display path is clean; the real path is checked after the path checks
    assert read(call, path="notes/link/config").text == "Error: Access to 'notes/link/config' is not allowed."
    assert read(call, path="notes/link/missing").text == "Error: File 'notes/link/missing' does not exist."


def test_utf16_offsets_are_characters_of_the_decoded_text(root: Path, call) -> None:
    (root / "w.md").write_bytes(b"\xff\xfe" + "añb".encode("utf-16-le"))
    assert read(call, path="w.md", offset=1, length=1).text == (
        "[Continuing from char 1 of 3]\n\nñ\n\n[... truncated at char 2 of 3. Use offset=2 to read more.]"
    )


def test_large_length_is_guarded(root: Path, call) -> None:
    (root / "big.md").write_text("z" * 50000)
    result = read(call, path="big.md", length=100000)
    assert result.truncated
    assert result.text.startswith("z" * 28000 + "\n\n[OUTPUT TRUNCATED]\nTool 'read_file' returned ~14285 tokens")
