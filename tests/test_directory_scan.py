"""``engine.filesystem.scan_directory``: the C scan and ``os.scandir`` tell the same entries."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from scanners import DIRECTORY_SCANS, directory_scan

from agentpager.engine.filesystem import scan_directory


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    here = tmp_path / "d"
    here.mkdir()
    (here / "empty").touch()
    (here / "text").write_text("four")
    (here / "private").write_text("x")
    (here / "private").chmod(0o200)
    (here / "sub").mkdir()
    (here / "link").symlink_to("text")
    (here / "dangling").symlink_to("nowhere")
    os.mkfifo(here / "fifo")
    (here / "naïve \udcff".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")).touch()
    for n in range(9000):  # more than two threads' shares (4,096 entries each at least)
        (here / f"many_{n}").touch()
    return here


@pytest.mark.parametrize("how", DIRECTORY_SCANS)
def test_each_entry_with_its_lstat(directory: Path, how: str) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with directory_scan(how):
            scan = scan_directory(fd)
        assert sorted(os.listdir(fd)) == sorted(scan.names)  # the descriptor can be read again
    finally:
        os.close(fd)
    assert len(scan.names) == len(scan.kinds) == len(scan.modes) == len(scan.sizes) == len(scan.owners) == 9008
    told = {name: (chr(kind), mode, size, owner) for name, kind, mode, size, owner in zip(
        scan.names, scan.kinds, scan.modes, scan.sizes, scan.owners, strict=True
    )}
    for name, (kind, mode, size, owner) in told.items():
        st = os.lstat(directory / name)
        assert (mode, size, owner) == (st.st_mode, st.st_size, st.st_uid)
        expected = "d" if stat.S_ISDIR(mode) else "f" if stat.S_ISREG(mode) else "l" if stat.S_ISLNK(mode) else "o"
        assert kind == expected
    assert [told[name][0] for name in ("empty", "text", "sub", "link", "dangling", "fifo")] == list("ffdllo")
    assert told["text"][2] == 4 and told["link"][2] == len("text")


def test_the_scans_agree(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with directory_scan("c"):
            native = scan_directory(fd)
        with directory_scan("python"):
            python = scan_directory(fd)
    finally:
        os.close(fd)
    assert native == python  # the same entries, in the same (readdir) order


@pytest.mark.parametrize("how", DIRECTORY_SCANS)
def test_not_a_directory(tmp_path: Path, how: str) -> None:
    (tmp_path / "f").touch()
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        with directory_scan(how), pytest.raises(NotADirectoryError):
            scan_directory(fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("how", DIRECTORY_SCANS)
def test_sorted_by_the_names_bytes(directory: Path, how: str) -> None:
    """``sort``: the same entries in the order of their names' bytes, each with where it was read."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with directory_scan(how):
            read = scan_directory(fd)
            ordered = scan_directory(fd, sort=True)
    finally:
        os.close(fd)
    assert read.read_at is None
    assert ordered.names == sorted(read.names, key=os.fsencode)
    assert ordered.read_at is not None
    assert [read.names[n] for n in ordered.read_at] == ordered.names
    entries = {name: (kind, mode, size, owner) for name, kind, mode, size, owner in zip(
        read.names, read.kinds, read.modes, read.sizes, read.owners, strict=True
    )}
    assert [entries[name] for name in ordered.names] == list(zip(
        ordered.kinds, ordered.modes, ordered.sizes, ordered.owners, strict=True
    ))


@pytest.mark.parametrize("how", DIRECTORY_SCANS)
def test_sorted_names_that_share_a_long_prefix(tmp_path: Path, how: str) -> None:
    """The C sort compares 8 bytes past the prefix all names share first: names that differ only later,
    names that end there, and an empty directory."""
    tails = ["", "a", "ab", "abcdefgh", "abcdefghZ", "abcdefghA", "abcdefgh\xe9", "b"]
    names = ["same_prefix_" + tail for tail in tails]
    (tmp_path / "named").mkdir()
    (tmp_path / "empty").mkdir()
    for name in names:
        (tmp_path / "named" / name).touch()
        (tmp_path / name).touch()
    named, top, empty = (os.open(path, os.O_RDONLY | os.O_DIRECTORY) for path in (tmp_path / "named", tmp_path, tmp_path / "empty"))
    try:
        with directory_scan(how):
            assert scan_directory(named, sort=True).names == sorted(names, key=os.fsencode)  # "same_prefix_" shared
            assert scan_directory(top, sort=True).names == sorted([*names, "named", "empty"], key=os.fsencode)
            assert scan_directory(empty, sort=True).names == []
    finally:
        for fd in (named, top, empty):
            os.close(fd)
