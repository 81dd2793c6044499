"""Open a path beneath a root directory, never through anything outside it.

A path is resolved as ``os.path.realpath`` resolves it (symlinks followed, ``..`` taken on the
resolved path, a missing tail kept as written), except that a path ending in ``/``, ``/.`` or ``/..``
names a directory, and that following more than 40 symlinks (the kernel's limit) is a loop, which
leads nowhere. What it leads to is opened once, and the caller classifies and reads from that
descriptor: swapping a file or a directory for a symlink after the check cannot make it read
anything else.

Where the kernel has openat2 (Linux 5.6), ``RESOLVE_BENEATH`` answers the common case in one call.
Whatever it refuses (an absolute symlink, ``..`` above the root, a missing component) is walked a
component at a time: each directory opened with ``O_NOFOLLOW`` relative to its parent's descriptor,
each symlink read and followed here. Nothing outside the root is ever opened; a path that leaves the
root is followed by name only (lstat and readlink), as realpath would, to tell where it ends.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import stat
from dataclasses import dataclass, field
from typing import Literal

from agentpager.engine.lineindex import FileChanged

Want = Literal["file", "directory", "any", "nothing"]
"""What to open for reading: a regular file, a directory, whichever of the two is there, or nothing
(only where the path leads and what is there)."""

MAX_SYMLINKS = 40
"""Symlinks followed in one resolution before it counts as a loop (Linux's MAXSYMLINKS)."""

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_HANDLE = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
"""A directory held to look names up in: O_PATH needs no read permission, only search, like the kernel."""
_READ_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | _CLOEXEC
_READ_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC


@dataclass
class Found:
    """Where a path leads, what is there, and a descriptor to read it when it is what was wanted.

    ``fd`` is set only for a regular file (``want`` ``file`` or ``any``) or a directory (``directory``
    or ``any``) inside the root that could be opened; the caller closes it. Nothing else is opened.
    """

    real: str
    """The resolved path (a missing tail as written)."""
    inside: bool
    """Whether ``real`` is the root or below it. A path that loops leads nowhere: it counts as inside,
    with ELOOP, so that it is reported missing."""
    st: os.stat_result | None = None
    """What is there; None when nothing is, or it could not be looked up."""
    error: int = 0
    """The errno that stopped the lookup or the open (ENOENT, ENOTDIR, ELOOP, EACCES, ...)."""
    fd: int | None = None


def open_beneath(root: str, path: str, want: Want) -> Found:
    """Resolve ``path`` (absolute, or relative to ``root``, a real path) and open it if it is inside.

    Raises FileChanged when what was looked up was replaced before it could be opened.
    """
    root_fd = os.open(root, _HANDLE)
    try:
        relative = _relative_to(root, path)
        if relative is not None and _openat2_works():
            found = _open_with_openat2(root, root_fd, relative, want)
            if found is not None:
                return found
        return _Walk(root, root_fd).resolve(path, want)
    finally:
        os.close(root_fd)


def _relative_to(root: str, path: str) -> str | None:
    """``path`` as a path below ``root`` without looking at the disk, when it is written as one."""
    if not os.path.isabs(path):
        return path
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] or "." if path.startswith(prefix) else None


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _names_a_directory(path: str) -> bool:
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path.endswith("/") or last in (".", "..")


# -- the walk ---------------------------------------------------------------------------------------


@dataclass
class _Step:
    """One component of the resolved path."""

    name: str
    st: os.stat_result | None = None
    """None above the root (never needed there) and when the lookup failed."""
    fd: int | None = None
    """A handle of this directory when it is inside the root."""
    error: int = 0
    """Why this component, and so everything under it, could not be looked up."""
    owned: bool = field(default=True, repr=False)


class _Loop(Exception):
    """More than MAX_SYMLINKS symlinks were followed."""


class _Walk:
    def __init__(self, root: str, root_fd: int) -> None:
        self.root_parts = _parts(root)
        self.root_fd = root_fd
        self.steps = [_Step("")]  # "/"
        self.hops = 0

    def resolve(self, path: str, want: Want) -> Found:
        try:
            if not os.path.isabs(path):
                self.steps += [_Step(name) for name in self.root_parts]
            self._enter_root()
            todo = _parts(path)[::-1]
            while todo:
                name = todo.pop()
                if name == "..":
                    if len(self.steps) > 1:
                        self._close(self.steps.pop())
                else:
                    target = self._look_up(name)
                    if target is not None:
                        if target.startswith("/"):
                            while len(self.steps) > 1:
                                self._close(self.steps.pop())
                        todo.extend(_parts(target)[::-1])
            return self._finish(want, _names_a_directory(path))
        except _Loop:
            return Found("/" + "/".join(self._names()), True, error=errno.ELOOP)
        finally:
            for step in self.steps:
                self._close(step)

    def _names(self) -> list[str]:
        return [step.name for step in self.steps[1:]]

    def _enter_root(self) -> None:
        """Give the top step the root's handle when the resolved path is now exactly the root."""
        if self._names() == self.root_parts:
            self.steps[-1].fd, self.steps[-1].owned = self.root_fd, False

    def _look_up(self, name: str) -> str | None:
        """Add ``name`` to the path; return a symlink's target instead when it is one."""
        parent = self.steps[-1]
        if parent.error or (parent.st is not None and not stat.S_ISDIR(parent.st.st_mode)):
            self.steps.append(_Step(name, error=parent.error or errno.ENOTDIR))
            return None
        for _ in range(MAX_SYMLINKS):
            try:
                if parent.fd is None:  # outside the root: by name, as realpath does
                    return self._look_up_by_name(name)
                return self._look_up_beneath(parent.fd, name)
            except FileChanged:  # the entry changed between two system calls: look again
                continue
        raise FileChanged(f"{name} kept changing while it was looked up")

    def _look_up_beneath(self, parent: int, name: str) -> str | None:
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except (OSError, ValueError) as error:  # ValueError: a NUL, or a lone surrogate (UnicodeEncodeError)
            self.steps.append(_Step(name, error=_errno_of(error)))
            return None
        if stat.S_ISLNK(st.st_mode):
            try:
                return self._follow(name, os.readlink(name, dir_fd=parent))
            except OSError as error:  # no longer a symlink
                raise FileChanged(str(error)) from None
        handle = None
        if stat.S_ISDIR(st.st_mode):
            try:
                handle = os.open(name, _HANDLE, dir_fd=parent)
            except OSError as error:
                if error.errno not in (errno.ENOTDIR, errno.ELOOP):
                    self.steps.append(_Step(name, error=_errno_of(error)))
                    return None
                raise FileChanged(str(error)) from None  # no longer a directory
            st = os.fstat(handle)
        self.steps.append(_Step(name, st, handle))
        return None

    def _look_up_by_name(self, name: str) -> str | None:
        path = "/" + "/".join([*self._names(), name])
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                return self._follow(name, os.readlink(path))
        except (OSError, ValueError) as error:  # ValueError: a NUL, or a lone surrogate (UnicodeEncodeError)
            self.steps.append(_Step(name, error=_errno_of(error)))
            return None
        self.steps.append(_Step(name, None if stat.S_ISDIR(st.st_mode) else st))
        self._enter_root()
        return None

    def _follow(self, name: str, target: str) -> str:
        self.hops += 1
        if self.hops > MAX_SYMLINKS:
            raise _Loop()
        return target

    def _finish(self, want: Want, directory_only: bool) -> Found:
        names = self._names()
        real = "/" + "/".join(names)
        if names[: len(self.root_parts)] != self.root_parts:
            return Found(real, inside=False)
        top = self.steps[-1]
        if top.error:
            return Found(real, True, error=top.error)
        st = top.st or os.fstat(self.root_fd)  # only the root itself has no stat of its own
        if directory_only and not stat.S_ISDIR(st.st_mode):
            return Found(real, True, error=errno.ENOTDIR)
        try:
            if want in ("directory", "any") and stat.S_ISDIR(st.st_mode):
                assert top.fd is not None
                return Found(real, True, st, fd=os.open(".", _READ_DIRECTORY, dir_fd=top.fd))
            if want in ("file", "any") and stat.S_ISREG(st.st_mode):
                parent = self.steps[-2].fd
                assert parent is not None
                return Found(real, True, st, fd=_open_same_file(top.name, parent, st))
        except PermissionError:
            return Found(real, True, st, error=errno.EACCES)
        return Found(real, True, st)

    def _close(self, step: _Step) -> None:
        if step.fd is not None and step.owned:
            os.close(step.fd)
        step.fd = None


def _open_same_file(name: str, parent: int, st: os.stat_result) -> int:
    """Open the regular file ``name`` looked up as ``st``; FileChanged if it is no longer that file."""
    try:
        fd = os.open(name, _READ_FILE, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            raise FileChanged(str(error)) from None
        raise
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        raise FileChanged("the file was replaced while it was opened")
    return fd


def _errno_of(error: OSError | ValueError) -> int:
    """A name that cannot be encoded (a lone surrogate) or holds a NUL cannot exist."""
    return error.errno or errno.EIO if isinstance(error, OSError) else errno.ENOENT


# -- openat2 ----------------------------------------------------------------------------------------

_SYS_OPENAT2 = 437  # the same on every architecture (syscalls from 424 on share one table)
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _openat2(dir_fd: int, path: str, flags: int) -> int:
    how = _OpenHow(flags, 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
    fd = int(_libc().syscall(_SYS_OPENAT2, dir_fd, os.fsencode(path), ctypes.byref(how), ctypes.sizeof(how)))
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return fd


@functools.cache
def _openat2_works() -> bool:
    """Linux with openat2 (not filtered out by a sandbox), O_PATH and /proc to name a descriptor's file."""
    if not hasattr(os, "O_PATH") or not os.path.isdir("/proc/self/fd"):
        return False
    top = os.open("/", _HANDLE)
    try:
        os.close(_openat2(top, ".", os.O_PATH | _CLOEXEC))
    except (OSError, AttributeError):
        return False
    finally:
        os.close(top)
    return True


def _open_with_openat2(root: str, root_fd: int, relative: str, want: Want) -> Found | None:
    """The kernel's answer for a path that stays beneath the root; None to walk it instead."""
    try:
        handle = _openat2(root_fd, relative, os.O_PATH | _CLOEXEC)
    except (OSError, UnicodeEncodeError):
        return None  # an absolute symlink, ``..`` above the root, a missing name: the walk tells which
    try:
        try:
            real = os.readlink(f"/proc/self/fd/{handle}")
        except OSError:
            return None  # a path longer than PATH_MAX
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            return None  # a deleted file, say
        st = os.fstat(handle)
        directory = stat.S_ISDIR(st.st_mode)
        flags = _READ_DIRECTORY if directory else os.O_RDONLY | _CLOEXEC
        if (directory and want in ("directory", "any")) or (stat.S_ISREG(st.st_mode) and want in ("file", "any")):
            try:
                return Found(real, True, st, fd=os.open(f"/proc/self/fd/{handle}", flags))
            except PermissionError:
                return Found(real, True, st, error=errno.EACCES)
        return Found(real, True, st)
    finally:
        os.close(handle)
