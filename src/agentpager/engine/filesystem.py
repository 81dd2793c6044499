"""Where a reader that is handed paths opens them: anywhere on this machine, or beneath one root.

A transcript names files beside it (its subagents' transcripts, Gemini CLI's ``.project_root``). A
session found in ``~/.claude`` is read where it is (``ANYWHERE``); a transcript found in a workspace
is read beneath the workspace's root, and so are the files beside it: a symlink that leads out of
the root is not followed, as ``beneath.py`` refuses it for the tools.

``scan_directory`` reads a directory already opened (beneath the root) with the C module
``_dirscan``, built with the package; where no C compiler built it, with ``os.scandir``.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from agentpager.engine.beneath import Found, open_beneath
from agentpager.engine.textfile import Reopener, path_opener

try:
    from agentpager.engine import _dirscan as _native
except ImportError:  # the package was built without a C compiler
    _native = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Filesystem:
    """Regular files and directories by path: anywhere (``root`` None), or beneath ``root`` (a real
    path; a relative path is taken from it)."""

    root: str | None = None

    def open(self, path: str) -> int:
        """A descriptor of the file at ``path``, for reading: beneath a root, only a regular file
        inside it (OSError otherwise); anywhere, what ``path_opener`` opens (TextFile refuses what is
        not a regular file)."""
        if self.root is None:
            return path_opener(path)()
        found = open_beneath(self.root, path, "file")
        if found.fd is None:
            raise _refusal(found, path, "file")
        return found.fd

    def opener(self, path: str) -> Reopener:
        """Opens ``path`` again at each call (a file being written is read on from the same name)."""
        return functools.partial(self.open, path)

    def names(self, directory: str) -> list[str]:
        """The names in ``directory``; OSError when it is not one, or leads out of the root."""
        if self.root is None:
            return os.listdir(directory)
        found = open_beneath(self.root, directory, "directory")
        if found.fd is None:
            raise _refusal(found, directory, "directory")
        try:
            return os.listdir(found.fd)
        finally:
            os.close(found.fd)

    def is_file(self, path: str) -> bool:
        if self.root is None:
            return os.path.isfile(path)
        found = open_beneath(self.root, path, "nothing")
        return found.inside and found.st is not None and not found.error and stat.S_ISREG(found.st.st_mode)


ANYWHERE = Filesystem()


def _refusal(found: Found, path: str, wanted: str) -> OSError:
    """Why ``found`` was not opened as the ``wanted`` kind."""
    if not found.inside:
        return OSError(errno.EACCES, "outside the workspace", path)
    code = found.error
    if not code:
        directory = found.st is not None and stat.S_ISDIR(found.st.st_mode)
        code = errno.ENOTDIR if wanted == "directory" else errno.EISDIR if directory else errno.EINVAL
    return OSError(code, "not a regular file" if code == errno.EINVAL else os.strerror(code), path)


@dataclass(frozen=True)
class DirectoryScan:
    """A directory's entries (but ``.`` and ``..``) in the order read, each lstat'ed through the
    directory's descriptor: its name, kind (a byte of ``kinds``), mode, size and owner. An entry gone
    before its stat has the kind it was listed with, and mode, size and owner -1."""

    names: list[str]
    kinds: bytes
    """``d`` a directory, ``f`` a regular file, ``l`` a symbolic link, ``o`` anything else: one byte an
    entry, so that the few links or directories among a million files are found with ``bytes.find``."""
    modes: Sequence[int]
    sizes: Sequence[int]
    owners: Sequence[int]
    read_at: Sequence[int] | None = None
    """Sorted: where each entry was read (its index in the order read); None: in the order read."""


def scan_directory(dir_fd: int, sort: bool = False) -> DirectoryScan:
    """Every entry of the directory open as ``dir_fd`` (which is left open, and can be read again), with
    its ``lstat``: in C with the GIL released, the stats on a thread per core; else with ``os.scandir``.
    ``sort``: the entries in the order of their names' bytes (``os.fsencode``), sorted in C."""
    if _native is None:
        scan = _scanned_by_python(dir_fd)
        return _sorted(scan) if sort else scan
    if not sort:
        names, kinds, packed = _native.scan(dir_fd)
        read_at = None
    else:
        names, kinds, packed, positions = _native.scan(dir_fd, True)
        read_at = memoryview(positions).cast("I")
    numbers, count = memoryview(packed).cast("q"), len(names)  # read in place: 24 MB for a million
    return DirectoryScan(names, kinds, numbers[:count], numbers[count : 2 * count], numbers[2 * count :], read_at)


def _sorted(scan: DirectoryScan) -> DirectoryScan:
    order = sorted(range(len(scan.names)), key=lambda n: os.fsencode(scan.names[n]))
    return DirectoryScan(
        [scan.names[n] for n in order],
        bytes(scan.kinds[n] for n in order),
        array("q", (scan.modes[n] for n in order)),
        array("q", (scan.sizes[n] for n in order)),
        array("q", (scan.owners[n] for n in order)),
        array("I", order),
    )


def _scanned_by_python(dir_fd: int) -> DirectoryScan:
    names, kinds, modes, sizes, owners = [], bytearray(), array("q"), array("q"), array("q")
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            names.append(entry.name)
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:  # gone since it was listed
                kind, mode, size, owner = _listed_kind(entry), -1, -1, -1
            else:
                kind, mode, size, owner = _KINDS.get(stat.S_IFMT(st.st_mode), ord("o")), st.st_mode, st.st_size, st.st_uid
            kinds.append(kind)
            modes.append(mode)
            sizes.append(size)
            owners.append(owner)
    return DirectoryScan(names, bytes(kinds), modes, sizes, owners)


_KINDS = {stat.S_IFDIR: ord("d"), stat.S_IFREG: ord("f"), stat.S_IFLNK: ord("l")}


def _listed_kind(entry: os.DirEntry[str]) -> int:
    if entry.is_symlink():
        return ord("l")
    if entry.is_dir(follow_symlinks=False):
        return ord("d")
    return ord("f") if entry.is_file(follow_symlinks=False) else ord("o")
