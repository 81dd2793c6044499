"""Line indexes saved in the cache dir: reused by a new process only while the file holds what they say."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.engine import lineindex, savedindex
from agentpager.engine.lineindex import LineIndex

LINES = [f"line {n} " + "x" * (n % 13) for n in range(1, 401)]


@pytest.fixture(autouse=True)
def small_files_are_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(savedindex, "SAVED_MIN_BYTES", 1000)
    monkeypatch.setattr("agentpager.engine.textfile.SAVED_MIN_BYTES", 1000)
    monkeypatch.setattr(lineindex, "BLOCK_SIZE", 64)
    monkeypatch.setattr(lineindex, "BLOCKS_PER_SCAN", 1)


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The byte ranges counted from now on."""
    ranges: list[tuple[int, int]] = []
    real = lineindex.count_blocks

    def spy(fd: int, blocks: list[tuple[int, int]], chars: bool, newlines: bool = True) -> list[tuple[int, int]]:
        ranges.extend(blocks)
        return real(fd, blocks, chars, newlines)

    monkeypatch.setattr(lineindex, "count_blocks", spy)
    return ranges


def read(root: Path, start_line: int) -> str:
    """A read by a new workspace: a process with nothing in memory."""
    return Workspace(root).call("read_file", {"path": "log.txt", "start_line": start_line, "num_lines": 1}).text


def window(line: int, total: int) -> str:
    footer = (
        f"[Note: to read more of the file, request this again with start_line={line + 1}; total lines: {total}]"
        if line < total
        else f"[File read completed. Total lines: {total}]"
    )
    return (
        f"[File: log.txt | Lines {line}-{line} of {total}]\n[Note: Output limited to 200 lines max per request.]\n"
        f"{'-' * 40}\n{LINES[line - 1]}\n{'-' * 40}\n{footer}"
    )


def test_a_new_process_answers_from_the_saved_index(root: Path, scanned: list, isolated_cache: Path) -> None:
    (root / "log.txt").write_text("\n".join(LINES) + "\n")
    assert read(root, 300) == window(300, 400)
    assert scanned, "the first process scans"
    assert len(list((isolated_cache / "indexes").iterdir())) == 1
    scanned.clear()
    assert read(root, 350) == window(350, 400)
    assert scanned == [], "the second one does not"


def test_an_appended_file_reuses_the_checkpoints_before_its_old_end(root: Path, scanned: list) -> None:
    path = root / "log.txt"
    path.write_text("\n".join(LINES[:300]) + "\n")
    old_size = path.stat().st_size
    assert read(root, 10) == window(10, 300)
    with open(path, "a") as out:
        out.write("\n".join(LINES[300:]) + "\n")
    scanned.clear()
    assert read(root, 399) == window(399, 400)
    assert min(start for start, _ in scanned) >= old_size - 2 * lineindex.BLOCK_SIZE, "only the last block again"


def test_a_file_rewritten_in_place_is_scanned_again(root: Path, scanned: list) -> None:
    path = root / "log.txt"
    path.write_text("\n".join(LINES) + "\n")
    assert read(root, 1) == window(1, 400)
    before = path.stat()
    shorter_lines = "\n".join(line[:-1] if n % 2 else line + "x" for n, line in enumerate(LINES)) + "\n"
    assert len(shorter_lines) == before.st_size
    with open(path, "r+") as out:  # same inode, same size, mtime put back: only ctime tells
        out.write(shorter_lines)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    scanned.clear()
    expected = shorter_lines.split("\n")[199]
    assert read(root, 200).split("\n")[3] == expected
    assert scanned


def test_a_truncated_file_is_not_described_by_the_old_index(root: Path) -> None:
    path = root / "log.txt"
    path.write_text("\n".join(LINES) + "\n")
    assert read(root, 1) == window(1, 400)
    path.write_text("\n".join(LINES[:250]) + "\n")
    assert read(root, 250) == window(250, 250)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "a flipped bit", "wrong counts", "wrong size"])
def test_a_damaged_index_is_ignored(root: Path, isolated_cache: Path, damage: str) -> None:
    (root / "log.txt").write_text("\n".join(LINES) + "\n")
    assert read(root, 1) == window(1, 400)
    (entry,) = (isolated_cache / "indexes").iterdir()
    data = entry.read_bytes()
    saved = savedindex._decoded(data)
    if damage == "garbage":
        entry.write_bytes(b"\0" * 100)
    elif damage == "truncated":
        entry.write_bytes(data[:-5])
    elif damage == "a flipped bit":
        entry.write_bytes(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
    elif damage == "wrong counts":
        newlines = [count * 2 for count in saved.newlines]
        entry.write_bytes(savedindex._encoded(lineindex.Checkpoints(**{**vars(saved), "newlines": newlines})))
    else:
        starts = [*saved.starts[:-1], saved.starts[-1] + 10]
        entry.write_bytes(savedindex._encoded(lineindex.Checkpoints(**{**vars(saved), "starts": starts})))
    assert read(root, 399) == window(399, 400)


def test_checkpoints_round_trip(root: Path) -> None:
    path = root / "log.txt"
    path.write_text("é\n" * 500)
    index = LineIndex()
    fd = os.open(path, os.O_RDONLY)
    try:
        index.sync(fd, lineindex.Stamp.of(os.fstat(fd)))
        index.want_chars()
        index.scan(fd)
        saved = index.checkpoints()
        assert saved is not None and saved.chars is not None and saved.consistent()
        assert savedindex._decoded(savedindex._encoded(saved)) == saved
        other = LineIndex()
        assert other.restore(fd, saved)
        assert (other.line_count(fd), other.char_count()) == (500, 1000)
    finally:
        os.close(fd)
