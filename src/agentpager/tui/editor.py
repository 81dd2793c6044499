"""The command that opens a file at a line in the user's editor (``$VISUAL``, else ``$EDITOR``, else vi)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

_WAITING_GUI = {"code": "--goto", "code-insiders": "--goto", "codium": "--goto", "subl": "", "zed": ""}
"""Editors that open ``path:line`` and return at once unless told to wait (value: the flag before it)."""
_PATH_COLON_LINE = {"hx", "helix"}


def editor_command(environ: Mapping[str, str], path: str, line: int | None) -> list[str]:
    """The command line for ``path`` at ``line`` (None: no line, for a converted document)."""
    editor = shlex.split(environ.get("VISUAL") or environ.get("EDITOR") or "vi") or ["vi"]
    name = os.path.basename(editor[0])
    if line is None:
        return [*editor, path]
    if name in _WAITING_GUI:
        flag = _WAITING_GUI[name]
        wait = [] if "--wait" in editor or "-w" in editor else ["--wait"]
        return [*editor, *wait, *([flag] if flag else []), f"{path}:{line}"]
    if name in _PATH_COLON_LINE:
        return [*editor, f"{path}:{line}"]
    return [*editor, f"+{line}", path]
