"""Where a reader that is handed paths opens them: anywhere on this machine, or beneath one root.

A transcript names files beside it (its subagents' transcripts, Gemini CLI's ``.project_root``). A
session found in ``~/.claude`` is read where it is (``ANYWHERE``); a transcript found in a workspace
is read beneath the workspace's root, and so are the files beside it: a symlink that leads out of
the root is not followed, as ``beneath.py`` refuses it for the tools.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from dataclasses import dataclass

from agentpager.engine.beneath import Found, open_beneath
from agentpager.engine.textfile import Reopener, path_opener


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
