"""Gemini CLI, Google's coding agent (``@google/gemini-cli``).

- ``profiles.py``: its read_file, list_directory and ``@path`` references (reading in ``content.py``,
  ignore files and GEMINI.md in ``discovery.py``).
- ``transcript.py``: its chats (``~/.gemini/tmp/<project>/chats/session-*.json[l]``).
- ``probe.py``: how the probe installs it and runs it against the mock.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from agentpager.agents.base import Agent, Sessions

if TYPE_CHECKING:  # imported where a project root is read: finding sessions needs none of it
    from agentpager.engine.filesystem import Filesystem


def project_root(path: str, filesystem: Filesystem | None = None) -> str:
    """The project directory of the chat at ``path``, as ``<project>/.project_root`` beside its
    ``chats`` folder names it, when Gemini wrote one; else "" (read through ``filesystem``, default
    anywhere: beneath a workspace's root, a link out of it is not followed; a FIFO or device there is
    not read)."""
    if filesystem is None:
        from agentpager.engine.filesystem import ANYWHERE

        filesystem = ANYWHERE
    try:
        fd = filesystem.open(os.path.join(os.path.dirname(os.path.dirname(path)), ".project_root"))
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as file:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ""
            return file.read(4 * 4096).decode("utf-8", "replace")[:4096].strip()
        except OSError:
            return ""


def _project(path: str) -> str:
    """The project's directory, else the name of the folder its chats are in (a hash of the directory)."""
    return project_root(path) or os.path.basename(os.path.dirname(os.path.dirname(path)))


AGENT = Agent(
    id="gemini-cli",
    title="Gemini CLI",
    short_title="gemini",
    profiles_at="agentpager.agents.gemini_cli.profiles:PROFILES",
    transcript_at="agentpager.agents.gemini_cli.transcript:GeminiCli",
    program_at="agentpager.agents.gemini_cli.probe:PROGRAM",
    sessions=Sessions(".gemini", None, ("tmp/*/chats/session-*.jsonl", "tmp/*/chats/session-*.json"), project=_project),
)
