"""The viewer's API: line count with progress and cancel, windows, offsets and search."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from samples import png_bytes

from agentpager import Workspace
from agentpager.engine import lineindex
from agentpager.engine.lineindex import Cancelled
from agentpager.engine.patterns import compile_regex
from agentpager.fileview import ViewError


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lineindex, "BLOCK_SIZE", 32)
    monkeypatch.setattr(lineindex, "BLOCKS_PER_SCAN", 1)


def test_count_lines_reports_progress_and_can_be_cancelled(root: Path, small_blocks: None) -> None:
    (root / "f.txt").write_text("".join(f"{n}\n" for n in range(1, 201)))
    view = Workspace(root).open_view("f.txt")
    cancel = threading.Event()
    reports: list[tuple[int, int]] = []

    def progress(scanned: int, size: int) -> None:
        reports.append((scanned, size))
        if len(reports) == 5:
            cancel.set()

    with pytest.raises(Cancelled):
        view.count_lines(progress, cancel)
    scanned, size = view.indexed
    assert 0 < scanned < size
    with view.open() as reader:
        available = reader.available_lines()
        assert 0 < available < 200, "the top of the file can be shown before the count ends"
        assert list(reader.line_prefixes(1, 2, 80)) == [("1", False), ("2", False)]
    assert view.count_lines(progress) == 200
    assert reports[-1] == (size, size) and view.indexed == (size, size)


def test_the_tools_use_the_index_the_viewer_built(root: Path, small_blocks: None, monkeypatch) -> None:
    (root / "f.txt").write_text("x\n" * 500)
    workspace = Workspace(root)
    workspace.open_view("f.txt").count_lines()
    monkeypatch.setattr(lineindex.LineIndex, "_scan_blocks", lambda *args: pytest.fail("scanned again"))
    assert workspace.call("read_file", {"path": "f.txt", "start_line": 300}).text.startswith(
        "[File: f.txt | Lines 300-499 of 500]"
    )


def test_long_lines_are_cut_for_display(root: Path) -> None:
    (root / "f.txt").write_text("é" * 50 + "\nshort\r\n" + "z" * 10)
    view = Workspace(root).open_view("f.txt")
    with view.open() as reader:
        assert list(reader.line_prefixes(1, 3, 8)) == [("é" * 8, True), ("short", False), ("z" * 8, True)]


def test_offsets_for_the_forge_and_vault_panels(root: Path, small_blocks: None) -> None:
    content = "aé\r\n🎉b\n" * 20 + "end"
    (root / "f.txt").write_bytes(b"\xef\xbb\xbf" + content.encode())
    view = Workspace(root).open_view("f.txt")
    view.count_lines()
    lines = content.split("\n")
    with view.open() as reader:
        for line in (1, 2, 17, 41):
            assert reader.char_offset(line) == len("\n".join(lines[: line - 1])) + (line > 1)
        start, end = reader.line_span(2, 3)
        data = (root / "f.txt").read_bytes()
        assert data[start:end].decode() == "🎉b\naé\r\n"
        assert reader.line_span(41, 41) == (len(data) - 3, len(data))


def test_search_finds_matching_lines_across_blocks(root: Path, small_blocks: None) -> None:
    lines = [f"row {n} {'needle' if n % 7 == 0 else 'hay'}" for n in range(1, 101)]
    lines[49] = "x" * 200 + " and a needle"
    (root / "f.txt").write_text("\r\n".join(lines))
    view = Workspace(root).open_view("f.txt")
    with view.open() as reader:
        found = list(reader.search(compile_regex(r"needle$", re.MULTILINE)))
    assert found == sorted({n for n in range(7, 101, 7)} | {50})


def test_search_can_be_cancelled(root: Path, small_blocks: None) -> None:
    (root / "f.txt").write_text("a\n" * 100)
    cancel = threading.Event()
    cancel.set()
    with Workspace(root).open_view("f.txt").open() as reader, pytest.raises(Cancelled):
        list(reader.search(compile_regex("a"), cancel=cancel))


def test_binary_files_cannot_be_viewed(root: Path) -> None:
    (root / "i.png").write_bytes(png_bytes())
    with pytest.raises(ViewError) as raised:
        Workspace(root).open_view("i.png")
    assert raised.value.message.startswith("Binary files are not supported. File detected as image/png.")
    assert (raised.value.mime, raised.value.size) == ("image/png", len(png_bytes()))
    with pytest.raises(ViewError, match="^File 'gone.txt' does not exist.$"):
        Workspace(root).open_view("gone.txt")


def test_lines_at_bytes_and_characters(root: Path, small_blocks: None) -> None:
    content = "aé\r\n🎉b\n" * 20 + "end"
    data = content.encode()
    (root / "f.txt").write_bytes(data)
    view = Workspace(root).open_view("f.txt")
    with view.open() as reader:
        for position in range(0, len(data) + 1, 5):
            assert reader.line_at_byte(position) == data[:position].count(b"\n") + 1
        for offset in range(0, len(content) + 1, 3):
            assert reader.line_at_char(offset) == content[:offset].count("\n") + 1


def test_documents_are_converted_in_a_child_process_that_can_be_killed(root: Path, monkeypatch) -> None:
    from samples import pdf_bytes

    (root / "paper.pdf").write_bytes(pdf_bytes(["Converted elsewhere"]))
    (root / "other.pdf").write_bytes(pdf_bytes(["Never converted"]))
    workspace = Workspace(root)
    monkeypatch.setattr("agentpager.engine.documents._markdown", lambda *args: pytest.fail("in-process"))
    view = workspace.open_view("paper.pdf", cancel=threading.Event())
    assert view.kind == "document"
    with view.open() as reader:
        assert list(reader.line_prefixes(1, 1, 80)) == [("Converted elsewhere", False)]
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(Cancelled):
        workspace.open_view("other.pdf", cancel=cancelled)


def test_iter_lines_reads_in_batches(root: Path, small_blocks: None) -> None:
    lines = [f"{n}" * (n % 9) for n in range(1, 120)]
    (root / "f.txt").write_text("\r\n".join(lines))
    with Workspace(root).open_view("f.txt").open() as reader:
        assert list(reader.iter_lines(batch_bytes=20)) == list(enumerate(lines, 1))
        assert list(reader.iter_lines(100, batch_bytes=1)) == list(enumerate(lines[99:], 100))


@pytest.mark.parametrize("content", ["a\n\nb\n", "a\r\n\r\nb\r\n", "a\n\nb"])
def test_search_for_empty_lines_finds_no_line_past_the_end(root: Path, content: str) -> None:
    (root / "f.txt").write_bytes(content.encode())
    with Workspace(root).open_view("f.txt").open() as reader:
        assert list(reader.search(compile_regex("^$", re.MULTILINE))) == [2]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"(a*)*\1b", r"Pattern '(a*)*\1b' took longer than 0.5 s to match; use a simpler one."),
        (r"(?<=a+)b", "look-behind requires fixed-width pattern"),
    ],
)
def test_a_search_that_fails_in_the_child_says_why(
    root: Path, monkeypatch: pytest.MonkeyPatch, pattern: str, message: str
) -> None:
    """The child's refusal reaches the viewer as a ViewError (a frozen dataclass could not be raised
    from inside FileView.search's ``with`` block: FrozenInstanceError instead)."""
    monkeypatch.setenv("AGENTPAGER_REGEX_SECONDS", "0.5")
    (root / "f.txt").write_text("a" * 5000 + "\n")
    view = Workspace(root).open_view("f.txt")
    with compile_regex(pattern) as matcher, pytest.raises(ViewError) as raised:
        list(view.search(matcher))
    assert raised.value.message == message
    assert raised.value.__traceback__ is not None
