"""Files derived from other files (converted documents, re-encoded UTF-16, line indexes), in the
user's cache dir.

An entry is named by its source file's real path and by the version of it it was derived from
(device, inode, size, mtime and ctime: a file replaced with one of the same size and mtime is
another inode, or at least another ctime). Writing an entry removes the entries of the file's
older versions, and then the least recently used entries while the cache holds more than its
limit (``$AGENTPAGER_CACHE_MAX_MB``, default 1 GiB); reading an entry marks it used.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a listing of sessions finds the cache dir without the line index
    from agentpager.engine.lineindex import Stamp

CACHE_ENV = "AGENTPAGER_CACHE_DIR"
MAX_MB_ENV = "AGENTPAGER_CACHE_MAX_MB"
DEFAULT_MAX_BYTES = 1 << 30
_PARTIAL = ".partial-"


def cache_root() -> Path:
    """``$AGENTPAGER_CACHE_DIR``, else the platform's user cache dir for agentpager."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("agentpager", appauthor=False))


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def file_key(real_path: str) -> str:
    """The part of an entry's name that names its source file."""
    return _digest(real_path)


def version_key(stamp: Stamp) -> str:
    return _digest(f"{stamp.dev}:{stamp.ino}:{stamp.size}:{stamp.mtime_ns}:{stamp.ctime_ns}")


class CacheDir:
    """One cache directory: entries by kind (a subdirectory), source file and version."""

    def __init__(self, root: Path, max_bytes: int | None = None) -> None:
        self.root = root
        self.max_bytes = _max_bytes_from_env() if max_bytes is None else max_bytes

    def entry(self, kind: str, real_path: str, stamp: Stamp, suffix: str) -> Path:
        """Where what was derived from this version of the file is kept."""
        return self.root / kind / f"{file_key(real_path)}-{version_key(stamp)}{suffix}"

    def lookup(self, path: Path) -> bool:
        """Whether the entry exists; if so it becomes the most recently used."""
        try:
            os.utime(path)
        except OSError:
            return False
        return True

    def write(self, path: Path, chunks: Iterable[bytes]) -> None:
        """Write an entry atomically, then make room: other versions of its file go, then the least
        recently used entries while the cache is over its limit (never this one)."""
        write_atomically(path, chunks)
        source = path.name.split("-", 1)[0] + "-"
        try:
            with os.scandir(path.parent) as entries:
                for other in entries:
                    if other.name.startswith(source) and other.name != path.name:
                        _remove(other.path)
        except OSError:
            pass
        self._evict(keep=path)

    def _evict(self, keep: Path) -> None:
        found: list[tuple[float, int, str]] = []
        for kind in _subdirectories(self.root):
            try:
                with os.scandir(kind) as entries:
                    for entry in entries:
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        found.append((st.st_mtime, st.st_size, entry.path))
            except OSError:
                continue
        total = sum(size for _, size, _ in found)
        for _, size, path in sorted(found):
            if total <= self.max_bytes:
                break
            if path != str(keep):
                _remove(path)
                total -= size


def _subdirectories(root: Path) -> list[str]:
    try:
        with os.scandir(root) as entries:
            return [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _max_bytes_from_env() -> int:
    try:
        megabytes = float(os.environ.get(MAX_MB_ENV, ""))
    except ValueError:
        return DEFAULT_MAX_BYTES
    return int(megabytes * (1 << 20)) if 0 < megabytes < float("inf") else DEFAULT_MAX_BYTES


def write_atomically(path: Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` so that readers never see a partial file."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=_PARTIAL)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def anonymous_file(chunks: Callable[[], Iterable[bytes]]) -> Callable[[], int]:
    """What ``chunks()`` gives, in a file no directory names: an unlinked temporary file or, where the
    temp dir cannot hold it either, memory (``memfd_create``). Returned as an opener: each call gives
    a new descriptor; the file goes with the opener and the descriptors it gave."""
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=_PARTIAL)
        os.unlink(name)
        _write_all(fd, chunks())
    except OSError:
        if not hasattr(os, "memfd_create"):
            raise
        fd = os.memfd_create("agentpager", os.MFD_CLOEXEC)
        _write_all(fd, chunks())
    return _Held(fd)


def _write_all(fd: int, chunks: Iterable[bytes]) -> None:
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    except BaseException:
        os.close(fd)
        raise


class _Held:
    """A descriptor kept open while this lives; called, a copy of it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        weakref.finalize(self, os.close, fd)

    def __call__(self) -> int:
        return os.dup(self.fd)
