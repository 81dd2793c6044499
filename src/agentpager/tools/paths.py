"""Confinement to the workspace root and display paths (contract section 1)."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from agentpager.engine.beneath import Want, open_beneath
from agentpager.tools.errors import ToolError


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
