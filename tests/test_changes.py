"""Files that change while they are paged: appended, truncated, replaced, rewritten."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.engine import lineindex


def numbered(version: int, first: int, last: int) -> bytes:
    return "".join(f"v{version} line {n}\n" for n in range(first, last + 1)).encode()


@pytest.fixture
def scanned_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Small blocks, and the start offset of every block the index scans."""
    monkeypatch.setattr(lineindex, "BLOCK_SIZE", 64)
    starts: list[int] = []
    real_count = lineindex.count_blocks

    def recording_count(fd: int, ranges: list[tuple[int, int]], *args: object, **kwargs: object) -> object:
        starts.extend(start for start, _ in ranges)
        return real_count(fd, ranges, *args, **kwargs)

    monkeypatch.setattr(lineindex, "count_blocks", recording_count)
    return starts


def header(workspace: Workspace, start_line: int = 1) -> str:
    return workspace.call("read_file", {"path": "log.txt", "start_line": start_line}).text.split("\n")[0]


def test_appended_file_extends_the_index_from_the_old_end(root: Path, scanned_blocks: list[int]) -> None:
    log = root / "log.txt"
    log.write_bytes(numbered(1, 1, 100))
    workspace = Workspace(root)
    assert header(workspace) == "[File: log.txt | Lines 1-100 of 100]"
    old_size, blocks_before = log.stat().st_size, len(scanned_blocks)
    with open(log, "ab") as out:
        out.write(numbered(1, 101, 150))
    assert header(workspace, 120) == "[File: log.txt | Lines 120-150 of 150]"
    rescanned = scanned_blocks[blocks_before:]
    assert rescanned and min(rescanned) >= old_size - 64 - 3, "only the old last block is scanned again"
    text = workspace.call("read_file", {"path": "log.txt", "start_line": 100, "num_lines": 2}).text
    assert "\nv1 line 100\nv1 line 101\n" in text


def test_appending_to_a_last_line_without_newline(root: Path) -> None:
    log = root / "log.txt"
    log.write_bytes(b"a\npart")
    workspace = Workspace(root)
    assert header(workspace) == "[File: log.txt | Lines 1-2 of 2]"
    with open(log, "ab") as out:
        out.write(b"ial\nnext\n")
    assert workspace.call("read_file", {"path": "log.txt", "start_line": 2}).text.split("\n")[3:5] == [
        "partial",
        "next",
    ]


def test_truncated_file_is_indexed_again(root: Path, scanned_blocks: list[int]) -> None:
    log = root / "log.txt"
    log.write_bytes(numbered(1, 1, 100))
    workspace = Workspace(root)
    assert header(workspace, 90) == "[File: log.txt | Lines 90-100 of 100]"
    os.truncate(log, len(numbered(1, 1, 40)))
    assert header(workspace, 90) == "Start line 90 is out of bounds. Total lines: 40."
    assert header(workspace, 40) == "[File: log.txt | Lines 40-40 of 40]"


def test_replaced_file_is_indexed_again(root: Path) -> None:
    log = root / "log.txt"
    log.write_bytes(numbered(1, 1, 100))
    workspace = Workspace(root)
    assert header(workspace) == "[File: log.txt | Lines 1-100 of 100]"
    (root / "new.txt").write_bytes(numbered(2, 1, 300))
    os.replace(root / "new.txt", log)
    text = workspace.call("read_file", {"path": "log.txt", "start_line": 250}).text
    assert text.startswith("[File: log.txt | Lines 250-300 of 300]\n")
    assert "\nv2 line 250\n" in text


def test_rewritten_in_place_with_the_same_size(root: Path) -> None:
    log = root / "log.txt"
    log.write_bytes(b"aaaa\nbbbb\n")
    workspace = Workspace(root)
    assert header(workspace) == "[File: log.txt | Lines 1-2 of 2]"
    log.write_bytes(b"a\nb\nc\nd\ne\n")
    os.utime(log, ns=(1, log.stat().st_mtime_ns + 10**9))
    assert header(workspace) == "[File: log.txt | Lines 1-5 of 5]"


WINDOW = re.compile(r"\[File: log\.txt \| Lines (\d+)-(\d+) of (\d+)\]\n[^\n]*\n-{40}\n(.*)\n-{40}\n", re.S)


def test_headers_always_agree_with_their_lines_while_a_writer_works(root: Path, monkeypatch) -> None:
    """A writer appends, truncates and replaces the file while two readers share its index.

    Every state of the file is ``v{version} line {n}`` for n = 1..M (the last line possibly cut
    short by an append caught half done), so each answer must hold the lines its header names, all
    of one version.
    """
    monkeypatch.setattr(lineindex, "BLOCK_SIZE", 256)
    log = root / "log.txt"
    log.write_bytes(numbered(0, 1, 200))
    stop = threading.Event()

    def writer() -> None:
        version, lines = 0, 200
        while not stop.is_set():
            for _ in range(5):
                with open(log, "ab") as out:
                    out.write(numbered(version, lines + 1, lines + 37))
                lines += 37
            lines //= 2
            os.truncate(log, len(numbered(version, 1, lines)))
            version += 1
            (root / "next.txt").write_bytes(numbered(version, 1, lines))
            os.replace(root / "next.txt", log)

    workspace = Workspace(root)
    checked: list[int] = []
    failures: list[str] = []

    def reader(offset: int) -> None:
        for turn in range(300):
            start = 1 + (turn * 13 + offset) % 150
            result = workspace.call("read_file", {"path": "log.txt", "start_line": start, "num_lines": 40})
            window = WINDOW.match(result.text)
            if window is None:
                if not (result.text.startswith("Start line") or "kept changing" in result.text):
                    failures.append(result.text)
                continue
            first, last, total = (int(group) for group in window.groups()[:3])
            body = window.group(4).split("\n")
            version = body[0].split(" ")[0]
            expected = [f"{version} line {n}" for n in range(first, last + 1)]
            if last == total:  # an append seen half done leaves a partial last line: a true state
                expected[-1] = expected[-1][: len(body[-1])]
            if last > total or body != expected:
                failures.append(result.text)
            checked.append(first)

    threads = [threading.Thread(target=writer, daemon=True)]
    threads += [threading.Thread(target=reader, args=(offset,)) for offset in (0, 7)]
    for thread in threads:
        thread.start()
    for thread in threads[1:]:
        thread.join()
    stop.set()
    threads[0].join()
    assert failures == []
    assert len(checked) > 200


def test_rewritten_in_place_with_longer_content(root: Path, scanned_blocks: list[int]) -> None:
    log = root / "log.txt"
    log.write_bytes(b"aaaa\n" * 100)
    workspace = Workspace(root)
    assert header(workspace) == "[File: log.txt | Lines 1-100 of 100]"
    inode = log.stat().st_ino
    log.write_bytes(b"x\n" * 300)  # same inode, grown, but not an append
    assert log.stat().st_ino == inode
    text = workspace.call("read_file", {"path": "log.txt", "num_lines": 3}).text
    assert text.startswith("[File: log.txt | Lines 1-3 of 300]\n") and "\nx\nx\nx\n" in text
