"""Confinement to the workspace root and display paths (contract section 1)."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Literal

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


@dataclass(frozen=True)
class Resolved:
    """A path argument that passed every check: its real path, display path and stat."""

    argument: str
    real: str
    display: str
    st: os.stat_result


# errno values that mean "cannot be resolved": counted as missing.
_MISSING = {errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG}


def resolve(root: Root, argument: str, want: Want) -> Resolved:
    """Check a path argument in the contract's order; raise ToolError with the first failure."""
    if argument == "":
        raise ToolError("path must not be empty.")
    if "\0" in argument:
        raise ToolError("Path contains a NUL byte.")
    real = os.path.realpath(os.path.join(root.path, argument))
    if not is_within(real, root.real):
        raise ToolError(f"Path '{argument}' is outside the workspace.")
    noun = "File" if want == "file" else "Directory"
    try:
        st = os.stat(real)
    except PermissionError:
        raise ToolError(f"Permission denied: '{argument}'.") from None
    except OSError as error:
        if error.errno in _MISSING:
            raise ToolError(f"{noun} '{argument}' does not exist.", reason="missing") from None
        raise
    if want == "file":
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"'{argument}' is a directory.", reason="directory")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"'{argument}' is not a regular file.")
        readable = os.access(real, os.R_OK)
    else:
        if not stat.S_ISDIR(st.st_mode):
            raise ToolError(f"'{argument}' is not a directory.")
        readable = os.access(real, os.R_OK | os.X_OK)
    if not readable:
        raise ToolError(f"Permission denied: '{argument}'.")
    return Resolved(argument, real, root.display(argument), st)


@dataclass(frozen=True)
class AgentPath:
    """A path argument of an agent that ran in ``working_dir``: as the agent's file system has it
    (absolute), where it is here, and its real path here (which must be in the workspace)."""

    agent: str
    local: str
    real: str


def agent_path(root: Root, argument: str, working_dir: str) -> AgentPath:
    """Place ``argument`` (absolute, or relative to ``working_dir``) in the workspace, which plays
    the agent's working directory; ToolError for a path that leaves it."""
    if argument == "":
        raise ToolError("path must not be empty.")
    if "\0" in argument:
        raise ToolError("Path contains a NUL byte.")
    agent = os.path.normpath(os.path.join(working_dir, argument))
    local = os.path.join(root.path, os.path.relpath(agent, working_dir)) if is_within(agent, working_dir) else agent
    real = os.path.realpath(local)
    if not is_within(real, root.real):
        raise ToolError(f"Path '{argument}' is outside the workspace.")
    return AgentPath(os.path.join(working_dir, argument), local, real)


def agent_display(root: Root, real: str, working_dir: str) -> str:
    """A real path in the workspace as the agent would name it: absolute, under ``working_dir``."""
    relative = os.path.relpath(real, root.real)
    return working_dir if relative == "." else os.path.join(working_dir, relative)
