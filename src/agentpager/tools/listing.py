"""The files ``list_files`` and ``count_files`` see, walked once and kept while the tree is unchanged.

A listing is cached by directory, pattern and flags, and checked on reuse by the mtime and ctime of
every directory it walked (a file added, removed or renamed changes its directory's), so paging
through a huge listing does not walk the tree again.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from agentpager.tools.errors import ToolError
from agentpager.tools.paths import Resolved, Root, is_within

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


@functools.lru_cache(maxsize=64)
def matcher(pattern: str, use_regex: bool) -> Callable[[str], object]:
    """A test of a relative path against a glob (``fnmatchcase``) or a regex (``re.search``)."""
    if use_regex:
        try:
            return re.compile(pattern).search
        except (re.error, RecursionError, OverflowError) as error:
            raise ToolError(f"Invalid regex pattern '{pattern}': {error}.") from None
    return re.compile(fnmatch.translate(pattern)).match


def walk(
    root: Root, directory: Resolved, match: Callable[[str], object], recursive: bool, everything: bool = False
) -> Listing:
    """Files below ``directory`` whose path relative to it matches, as paths relative to the root.

    ``everything`` skips matching (the ``*`` glob matches every path).
    """
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
                        name = relative + entry.name
                        if everything or match(name):
                            files.append(prefix + name)
                    elif entry.is_dir(follow_symlinks=False):
                        if recursive:
                            pending.append((entry.path, relative + entry.name + "/"))
                    elif _is_file_inside(entry, root):
                        name = relative + entry.name
                        if everything or match(name):
                            files.append(prefix + name)
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


class ListingCache:
    """Recent listings, reused while every directory they walked is unchanged."""

    def __init__(self, capacity: int = 16) -> None:
        self._entries: OrderedDict[tuple[object, ...], Listing] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def files(self, root: Root, directory: Resolved, pattern: str, recursive: bool, use_regex: bool) -> list[str]:
        key = (root, directory.real, directory.display, pattern, recursive, use_regex)
        with self._lock:
            listing = self._entries.get(key)
        if listing is None or not listing.still_valid():
            everything = pattern == "*" and not use_regex
            listing = walk(root, directory, matcher(pattern, use_regex), recursive, everything)
        with self._lock:
            self._entries[key] = listing
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return listing.files
