"""The files ``list_files`` and ``count_files`` see, walked once and kept while the tree is unchanged.

A listing is cached by directory, pattern and flags, and checked on reuse by the mtime and ctime of
every directory it walked (a file added, removed or renamed changes its directory's), so paging
through a huge listing does not walk the tree again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Resolved, Root, is_within

if TYPE_CHECKING:
    from agentpager.engine.patterns import Matcher

DirStamp = tuple[str, int, int]


@dataclass(frozen=True)
class Listing:
    files: list[str]
    """Matching files as paths relative to the root, in Python string order."""
    walked: tuple[DirStamp, ...]

    def still_valid(self) -> bool:
        for path, mtime, ctime in self.walked:
            try:
                st = os.stat(path)
            except OSError:
                return False
            if (st.st_mtime_ns, st.st_ctime_ns) != (mtime, ctime):
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
    """Files below ``directory``, as paths relative to the root."""
    prefix = "" if directory.display == "." else directory.display + "/"
    files: list[str] = []
    walked: list[DirStamp] = []
    pending = [(directory.real, "")]
    while pending:
        path, relative = pending.pop()
        try:
            st = os.stat(path)
            walked.append((path, st.st_mtime_ns, st.st_ctime_ns))
            with os.scandir(path) as entries:
                for entry in entries:
                    if entry.is_file(follow_symlinks=False):  # the common case: d_type alone tells
                        files.append(prefix + relative + entry.name)
                    elif entry.is_dir(follow_symlinks=False):
                        if recursive:
                            pending.append((entry.path, relative + entry.name + "/"))
                    elif _is_file_inside(entry, root):
                        files.append(prefix + relative + entry.name)
        except OSError:
            continue  # an unreadable directory is skipped
    files.sort()
    return Listing(files, tuple(walked))


def _is_file_inside(entry: os.DirEntry[str], root: Root) -> bool:
    """A symlink to a file whose real path is inside the root (others cannot be read either)."""
    try:
        return entry.is_symlink() and entry.is_file() and is_within(os.path.realpath(entry.path), root.real)
    except OSError:
        return False


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
