"""The cache of derived text: keyed by the file's version (inode and ctime too), evicted by version and size."""

from __future__ import annotations

import errno
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


@pytest.fixture
def derived(root: Path) -> Path:
    """A DOCX (converted) and a UTF-16 file (re-encoded): texts read from the cache dir."""
    from samples import write_docx

    write_docx(root / "a.docx", ["hello world", "second"])
    (root / "u16.txt").write_bytes(utf16("hi\nthere\n"))
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    return root


def reads_everything(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each text read twice, with a document converted once; the big file's index saved nowhere."""
    from agentpager.engine import content, textfile

    conversions = []
    convert = content.convert_document
    monkeypatch.setattr(content, "convert_document", lambda *args: conversions.append(1) or convert(*args))
    monkeypatch.setattr(textfile, "SAVED_MIN_BYTES", 1000)
    workspace = Workspace(root, "vault")
    for _ in range(2):
        assert workspace.call("read_file", {"path": "a.docx"}).text == "hello world\n\nsecond"
        assert workspace.call("read_file", {"path": "u16.txt"}).text == "hi\nthere\n"
        assert workspace.call("read_file", {"path": "big.txt", "offset": 20, "length": 6}).text == (
            "[Continuing from char 20 of 28893]\n\n\nline \n\n[... truncated at char 26 of 28893. Use offset=26 to read more.]"
        )
    assert len(conversions) == 1


def test_a_cache_dir_under_a_file_only_costs_time(
    derived: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'Could not read the file: Not a directory.' although the conversion succeeded."""
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("AGENTPAGER_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    reads_everything(derived, monkeypatch)


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_a_full_or_read_only_cache_only_costs_time(derived: Path, monkeypatch: pytest.MonkeyPatch, error: int) -> None:
    def refuse(path: Path, chunks: object) -> None:
        raise OSError(error, os.strerror(error), str(path))

    monkeypatch.setattr(cache, "write_atomically", refuse)
    reads_everything(derived, monkeypatch)


def test_with_no_room_in_the_temp_dir_either_the_text_is_kept_in_memory(
    derived: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cache, "write_atomically", refuse)
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    reads_everything(derived, monkeypatch)
