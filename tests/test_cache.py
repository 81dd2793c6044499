"""The cache of derived text: keyed by the file's version (inode and ctime too), evicted by version and size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentpager import Workspace
from agentpager.engine import cache
from agentpager.engine.cache import CacheDir
from agentpager.engine.lineindex import Stamp


def utf16(text: str) -> bytes:
    return text.encode("utf-16")  # with its BOM


def read_once(root: Path) -> tuple[Workspace, Path, os.stat_result]:
    """A UTF-16 file read once: the workspace, the file, and its stat then."""
    path = root / "notes.txt"
    path.write_bytes(utf16("first version\n"))
    workspace = Workspace(root, "vault")
    assert workspace.call("read_file", {"path": "notes.txt"}).text == "first version\n"
    return workspace, path, path.stat()


def test_a_file_rewritten_with_the_same_size_and_mtime_is_read_again(root: Path) -> None:
    workspace, path, before = read_once(root)
    with open(path, "r+b") as out:  # the same inode, the same size
        out.write(utf16("other version\n"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert workspace.call("read_file", {"path": "notes.txt"}).text == "other version\n"


def test_a_file_replaced_by_another_inode_is_read_again(root: Path) -> None:
    workspace, path, before = read_once(root)
    (root / "new.txt").write_bytes(utf16("other version\n"))
    os.utime(root / "new.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(root / "new.txt", path)
    assert workspace.call("read_file", {"path": "notes.txt"}).text == "other version\n"


def test_a_growing_file_keeps_one_entry(root: Path, isolated_cache: Path) -> None:
    path = root / "log.txt"
    path.write_bytes(utf16(""))
    workspace = Workspace(root, "qq")
    for n in range(50):
        with open(path, "ab") as out:
            out.write(f"line {n}\n".encode("utf-16-le"))
        assert workspace.call("read_file", {"path": "log.txt", "start_line": n + 1}).text.startswith(
            f"[File: log.txt | Lines {n + 1}-{n + 1} of {n + 1}]"
        )
    assert len(list((isolated_cache / "reencoded").iterdir())) == 1


def stamp(n: int) -> Stamp:
    return Stamp(1, n, 10, n, n)


def test_least_recently_used_entries_go_past_the_limit(tmp_path: Path) -> None:
    store = CacheDir(tmp_path, max_bytes=3000)
    entries = [store.entry("reencoded", f"/f{n}", stamp(n), ".txt") for n in range(4)]
    for n, entry in enumerate(entries[:3]):
        store.write(entry, [b"x" * 1000])
        os.utime(entry, (n, n))  # written in this order, long ago
    assert store.lookup(entries[0])  # used again: now the most recent
    store.write(entries[3], [b"x" * 1000])
    assert [entry.exists() for entry in entries] == [True, False, True, True]


def test_an_entry_bigger_than_the_limit_is_kept_alone(tmp_path: Path) -> None:
    store = CacheDir(tmp_path, max_bytes=100)
    small = store.entry("documents", "/a", stamp(1), ".md")
    big = store.entry("documents", "/b", stamp(2), ".md")
    store.write(small, [b"x" * 50])
    store.write(big, [b"x" * 500])
    assert (small.exists(), big.exists()) == (False, True)


def test_the_limit_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert CacheDir(tmp_path).max_bytes == cache.DEFAULT_MAX_BYTES
    monkeypatch.setenv(cache.MAX_MB_ENV, "2")
    assert CacheDir(tmp_path).max_bytes == 2 << 20
    monkeypatch.setenv(cache.MAX_MB_ENV, "-1")
    assert CacheDir(tmp_path).max_bytes == cache.DEFAULT_MAX_BYTES
