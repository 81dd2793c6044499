"""The files ``list_files`` and ``count_files`` see, walked once and kept while the tree is unchanged.

Directories are read through their descriptors (``scandir`` of an fd, subdirectories opened with
``O_NOFOLLOW`` relative to their parent's): swapping a directory for a symlink while it is walked
cannot show a name from outside the root, and paths longer than PATH_MAX are listed like any other.

A listing is cached by directory, pattern and flags, and checked on reuse by the inode, mtime and
ctime of every directory it walked (a file added, removed or renamed changes its directory's), so
paging through a huge listing does not walk the tree again.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentpager.engine.beneath import open_beneath
from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Resolved, Root, resolve

if TYPE_CHECKING:
    from agentpager.engine.patterns import Matcher

DirStamp = tuple[str, int, int, int]
"""A walked directory: its real path, inode, mtime and ctime."""

_OPEN_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class DirectoryEntries:
    """One directory's entries as ``list_files`` and the workspace tree see them, by kind, each kind
    sorted by name."""

    files: list[str] = field(default_factory=list)
    """What ``list_files`` lists: regular files, and symlinks to regular files inside the root."""
    directories: list[str] = field(default_factory=list)
    """Subdirectories (a recursive listing descends these)."""
    linked_directories: list[str] = field(default_factory=list)
    """Symlinks to directories inside the root (never descended by a listing)."""
    others: list[str] = field(default_factory=list)
    """Everything else: FIFOs, sockets, devices, broken symlinks, symlinks that lead outside the root."""
    outside: frozenset[str] = frozenset()
    """The symlinks among ``others`` that lead outside the root."""
    error: str = ""
    """Why the directory could not be read (``unreadable`` when permission is denied)."""


def read_entries(root: Root, fd: int, real: str) -> DirectoryEntries:
    """The entries of the directory open as ``fd``, whose real path is ``real``."""
    files: list[str] = []
    directories: list[str] = []
    linked: list[str] = []
    others: list[str] = []
    outside: set[str] = set()
    with os.scandir(fd) as found:
        for entry in found:
            name = entry.name
            try:
                if entry.is_file(follow_symlinks=False):  # the common case: d_type alone tells
                    files.append(name)
                elif entry.is_dir(follow_symlinks=False):
                    directories.append(name)
                elif not entry.is_symlink():
                    others.append(name)
                else:
                    kind = _symlink_kind(root, _join(real, name))
                    (files if kind == "file" else linked if kind == "directory" else others).append(name)
                    if kind == "outside":
                        outside.add(name)
            except OSError:  # it went away while it was looked at
                others.append(name)
    return DirectoryEntries(
        sorted_names(files), sorted_names(directories), sorted_names(linked), sorted_names(others), frozenset(outside)
    )


SORT_PIECE = 8192
"""Names sorted at once, at most: see ``sorted_names``."""


def sorted_names(names: list[str]) -> list[str]:
    """``sorted(names)``, never holding the GIL for long: one sort of 100,000 names holds it 40-70 ms,
    a stall the UI thread feels when a worker lists a big directory. Pieces are sorted one at a time
    (5 ms each) and their runs then merged by one more sort (timsort merges sorted runs: 12 ms)."""
    if len(names) <= SORT_PIECE:
        return sorted(names)
    runs = [name for first in range(0, len(names), SORT_PIECE) for name in sorted(names[first : first + SORT_PIECE])]
    runs.sort()
    return runs


def read_directory(root: Root, path: str) -> DirectoryEntries:
    """The entries of directory ``path`` (an argument as the tools take it), or why it cannot be read."""
    try:
        with resolve(root, path, "directory") as directory:
            return read_entries(root, directory.fd, directory.real)
    except ToolError as error:
        return DirectoryEntries(error="unreadable" if error.reason == "denied" else error.message)
    except OSError as error:
        return DirectoryEntries(error=error.strerror or type(error).__name__)


def read_subdirectory(root: Root, real: str, name: str) -> DirectoryEntries:
    """The entries of ``name`` in the directory whose real path is ``real``: a subdirectory, or a
    symlink to one inside the root; ``error`` set for anything else."""
    found = open_beneath(root.real, _join(real, name), "directory")
    if found.fd is None:
        return DirectoryEntries(error=os.strerror(found.error or errno.ENOTDIR))
    try:
        return read_entries(root, found.fd, found.real)
    except OSError as error:
        return DirectoryEntries(error=error.strerror or type(error).__name__)
    finally:
        os.close(found.fd)


def _symlink_kind(root: Root, path: str) -> str:
    """``file``, ``directory``, ``outside`` or ``other``: where a symlink leads, resolved beneath the root."""
    found = open_beneath(root.real, path, "file")
    if found.fd is not None:
        os.close(found.fd)
    if not found.inside:
        return "outside"
    if found.st is None or found.error:
        return "other"
    if stat.S_ISDIR(found.st.st_mode):
        return "directory"
    return "file" if stat.S_ISREG(found.st.st_mode) else "other"


def _join(real: str, name: str) -> str:
    return real.rstrip("/") + "/" + name


@dataclass(frozen=True)
class Listing:
    files: list[str]
    """Matching files as paths relative to the root, in Python string order."""
    walked: tuple[DirStamp, ...]

    def still_valid(self) -> bool:
        for path, inode, mtime, ctime in self.walked:
            try:
                st = os.lstat(path)
            except OSError:
                return False
            if (st.st_ino, st.st_mtime_ns, st.st_ctime_ns) != (inode, mtime, ctime):
                return False
        return True


def matcher(pattern: str, use_regex: bool) -> Matcher:
    """A test of a relative path against a glob (``fnmatchcase``) or a regex (``re.search``), in linear
    time; ToolError for a pattern too long or a bad regex. Close it after use."""
    from agentpager.engine.patterns import InvalidPattern, PatternError, compile_glob, compile_regex

    try:
        match = compile_regex(pattern) if use_regex else compile_glob(pattern)
        match.check()
        return match
    except InvalidPattern as error:
        raise ToolError(f"Invalid regex pattern '{pattern}': {error.message}.") from None
    except PatternError as error:
        raise ToolError(error.message) from None


def walk(root: Root, directory: Resolved, recursive: bool) -> Listing:
    """Files below ``directory``, as paths relative to the root.

    Unreadable directories, and directories replaced by something else while walked, are skipped.
    Only the directories on the way down from ``directory`` are held open, never one per pending
    directory.
    """
    prefix = "" if directory.display == "." else directory.display + "/"
    files: list[str] = []
    walked: list[DirStamp] = []
    frames: list[tuple[int, str, str, list[str]]] = []  # fd, real path, path relative to D, subdirectories to do

    def enter(fd: int, real: str, relative: str) -> None:
        try:
            st = os.fstat(fd)
            entries = read_entries(root, fd, real)
        except OSError:
            os.close(fd)
            return
        walked.append((real, st.st_ino, st.st_mtime_ns, st.st_ctime_ns))
        files.extend(prefix + relative + name for name in entries.files)
        frames.append((fd, real, relative, entries.directories if recursive else []))

    enter(os.dup(directory.fd), directory.real, "")
    while frames:
        fd, real, relative, pending = frames[-1]
        if not pending:
            os.close(fd)
            frames.pop()
            continue
        name = pending.pop()
        try:
            child = os.open(name, _OPEN_DIRECTORY, dir_fd=fd)
        except OSError:
            continue  # unreadable, or no longer a directory
        enter(child, _join(real, name), relative + name + "/")
    files.sort()
    return Listing(files, tuple(walked))


def _matching(files: list[str], directory: Resolved, match: Matcher) -> list[str]:
    """The files whose path relative to ``directory`` the pattern matches."""
    from agentpager.engine.patterns import PatternError

    skip = 0 if directory.display == "." else len(directory.display) + 1
    try:
        found = match.matches([file[skip:] for file in files])
    except PatternError as error:
        raise ToolError(error.message) from None
    return [file for file, matched in zip(files, found, strict=True) if matched]


class ListingCache:
    """Recent listings, reused while every directory they walked is unchanged."""

    def __init__(self, capacity: int = 16) -> None:
        self._entries: OrderedDict[tuple[object, ...], Listing] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def files(self, root: Root, directory: Resolved, match: Matcher, recursive: bool) -> list[str]:
        key = (root, directory.real, directory.display, match.source, match.flags, recursive)
        with self._lock:
            listing = self._entries.get(key)
        if listing is None or not listing.still_valid():
            listing = walk(root, directory, recursive)
            if not match.matches_everything:
                listing = Listing(_matching(listing.files, directory, match), listing.walked)
        with self._lock:
            self._entries[key] = listing
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return listing.files
