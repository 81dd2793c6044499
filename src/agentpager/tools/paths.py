"""Confinement to the workspace root and display paths (contract section 1)."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Literal

from agentpager.engine.beneath import Found, open_beneath
from agentpager.tools.errors import ToolError

Want = Literal["file", "directory"]


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it, by whole components (``/w/proj2`` is not in ``/w/proj``)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True)
class Root:
    """The workspace root as given (absolute, not resolved) and its real path."""

    path: str
    real: str

    @classmethod
    def of(cls, root: str | os.PathLike[str]) -> Root:
        absolute = os.path.abspath(os.fspath(root))
        return cls(absolute, os.path.realpath(absolute))

    def display(self, argument: str) -> str:
        """The argument as a path relative to the root, folded lexically, with ``/`` separators."""
        joined = os.path.normpath(os.path.join(self.path, argument))
        base = self.path
        if os.path.isabs(argument) and not is_within(joined, self.path) and is_within(joined, self.real):
            base = self.real
        return os.path.relpath(joined, base).replace(os.sep, "/")


@dataclass
class Resolved:
    """A path argument that passed every check, opened: read it through ``fd`` and nothing else.

    ``fd`` is the regular file (``want="file"``) or the directory (``want="directory"``) the
    argument named when it was checked; close it (``with resolve(...) as resolved:``).
    """

    argument: str
    display: str
    real: str
    st: os.stat_result
    fd: int

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Resolved:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# errno values that mean "cannot be resolved": counted as missing.
_MISSING = {errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG}


def resolve(root: Root, argument: str, want: Want) -> Resolved:
    """Check a path argument in the contract's order and open what it names beneath the root.

    Raises ToolError with the first failure (FileChanged when the file was replaced between the
    look-up and the open: ask again).
    """
    if argument == "":
        raise ToolError("path must not be empty.")
    if "\0" in argument:
        raise ToolError("Path contains a NUL byte.")
    found = open_beneath(root.real, argument, want)
    if not found.inside:
        raise ToolError(f"Path '{argument}' is outside the workspace.")
    noun = "File" if want == "file" else "Directory"
    if found.st is None:
        if found.error == errno.EACCES:
            raise ToolError(f"Permission denied: '{argument}'.", reason="denied")
        if found.error in _MISSING:
            raise ToolError(f"{noun} '{argument}' does not exist.", reason="missing")
        raise OSError(found.error, os.strerror(found.error))
    if found.error in _MISSING:
        raise ToolError(f"{noun} '{argument}' does not exist.", reason="missing")
    st = found.st
    if want == "file":
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"'{argument}' is a directory.", reason="directory")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"'{argument}' is not a regular file.")
    elif not stat.S_ISDIR(st.st_mode):
        raise ToolError(f"'{argument}' is not a directory.")
    if found.fd is None:
        raise ToolError(f"Permission denied: '{argument}'.", reason="denied")
    resolved = Resolved(argument, root.display(argument), found.real, st, found.fd)
    if want == "directory" and not os.access(".", os.X_OK, dir_fd=found.fd):
        resolved.close()
        raise ToolError(f"Permission denied: '{argument}'.", reason="denied")
    return resolved


@dataclass
class Placed:
    """Where a path leads in the workspace, what is there, and a descriptor to read it (for the agents
    whose tools check paths their own way): ``st`` is None when nothing is there, ``fd`` when it is
    neither a regular file nor a directory, or cannot be read (``error`` says why)."""

    real: str
    st: os.stat_result | None
    fd: int | None
    error: int = 0

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def place(root: Root, path: str, argument: str) -> Placed:
    """``path`` (absolute, or relative to the root) opened beneath the root, whatever is there;
    ToolError naming ``argument`` when it leads outside."""
    found = open_beneath(root.real, path, "any")
    if not found.inside:
        raise ToolError(f"Path '{argument}' is outside the workspace.")
    return Placed(found.real, found.st, found.fd, found.error)


def look_up(root: Root, path: str) -> Found:
    """Where ``path`` (absolute, or relative to the root) leads and what is there, opening nothing:
    resolved as ``os.path.realpath`` resolves it, but beneath the root (``inside`` says whether it
    stays there)."""
    return open_beneath(root.real, path, "nothing")


def agent_path(root: Root, argument: str, working_dir: str) -> tuple[str, str]:
    """Place ``argument`` (absolute, or relative to ``working_dir``) in the workspace, which plays the
    agent's working directory: the path as the agent names it (absolute), and the path here (open
    it with ``place``, which refuses a path that leaves the workspace)."""
    if argument == "":
        raise ToolError("path must not be empty.")
    if "\0" in argument:
        raise ToolError("Path contains a NUL byte.")
    agent = os.path.normpath(os.path.join(working_dir, argument))
    local = os.path.join(root.path, os.path.relpath(agent, working_dir)) if is_within(agent, working_dir) else agent
    return os.path.join(working_dir, argument), local


def agent_display(root: Root, real: str, working_dir: str) -> str:
    """A real path in the workspace as the agent would name it: absolute, under ``working_dir``."""
    relative = os.path.relpath(real, root.real)
    return working_dir if relative == "." else os.path.join(working_dir, relative)
